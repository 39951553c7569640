// Package ingest is the seed flow of rag-seed (SPEC §5): documents are
// chunked, embedded and written to the catalog (metadata, L0 terms, chunk
// rows) and the index (vectors, BM25), the same path a production upload
// takes.
//
// Seeding is idempotent and crash-safe:
//
//   - a document whose content hash is unchanged and that is ready is
//     skipped and reported unchanged;
//   - a new or changed document is marked indexing in the catalog (its L0
//     terms and chunk rows replaced in one transaction) before its old
//     vectors are deleted and the new ones written, and marked ready with its
//     hash only after; a run that dies in between leaves it indexing, and
//     the next run re-indexes it. No document is ever ready without its
//     vectors;
//   - documents of the kbScope that are no longer in the directory are
//     reported, and removed with Prune.
//
// Embedding goes through the embedder it is given (callers wrap it with the
// embedding cache).
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Options control a seed run.
type Options struct {
	KBScope string
	// Recreate drops and recreates the index collection first (after an
	// embedding model or dimension change); every document is re-indexed.
	Recreate bool
	// Prune removes documents of KBScope that are not in the input.
	Prune bool
	// DryRun computes and reports the plan without writing anything.
	DryRun bool
	Chunk  corpus.ChunkOptions
	// BatchSize is the number of chunks embedded per call (default 64).
	BatchSize int
	// KnowledgeDir, when set, receives a copy of every document as
	// <KnowledgeDir>/<kbScope>/<source>.md (the production upload keeps one).
	KnowledgeDir string
	// Progress, when set, is called after each document.
	Progress func(done, total int, doc *kb.Document)
}

// Summary reports what a run did (or, with DryRun, would do).
type Summary struct {
	Added, Updated, Unchanged []string // docIds
	// Pruned are removed documents; Stale are documents no longer in the
	// input that were kept because Prune was not set.
	Pruned, Stale []string
	ChunksWritten int
	Elapsed       time.Duration
	DryRun        bool
}

// Backends are what a seed writes to.
type Backends struct {
	Catalog  kb.Catalog
	Index    kb.Index
	Embedder kb.Embedder
}

// Seed loads docs into the backends. docs must already be validated
// (corpus.LoadDir validates every document before anything is written).
func Seed(ctx context.Context, docs []kb.Document, b Backends, opts Options) (*Summary, error) {
	start := time.Now()
	if opts.BatchSize <= 0 {
		opts.BatchSize = 64
	}
	sum := &Summary{DryRun: opts.DryRun}
	dim := b.Embedder.Dim()

	if err := b.Catalog.Init(ctx); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if !opts.DryRun {
		var err error
		if opts.Recreate {
			err = b.Index.Recreate(ctx, dim)
		} else {
			err = b.Index.Ensure(ctx, dim)
		}
		if err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
	}
	existing, err := b.Catalog.Documents(ctx, opts.KBScope)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	have := make(map[string]kb.DocumentState, len(existing))
	for _, d := range existing {
		have[d.DocID] = d
	}

	docs = append([]kb.Document(nil), docs...)
	sort.Slice(docs, func(i, j int) bool { return docs[i].DocID < docs[j].DocID })
	inInput := make(map[string]bool, len(docs))
	for i := range docs {
		d := &docs[i]
		inInput[d.DocID] = true
		old, existed := have[d.DocID]
		switch {
		case existed && !opts.Recreate && old.Status == kb.StatusReady && old.ContentHash == d.ContentHash:
			sum.Unchanged = append(sum.Unchanged, d.DocID)
		default:
			if !opts.DryRun {
				n, err := indexDocument(ctx, d, b, opts)
				if err != nil {
					return sum, fmt.Errorf("seed %s: %w", d.Path, err)
				}
				sum.ChunksWritten += n
			}
			if existed {
				sum.Updated = append(sum.Updated, d.DocID)
			} else {
				sum.Added = append(sum.Added, d.DocID)
			}
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(docs), d)
		}
	}

	for _, old := range existing {
		if inInput[old.DocID] {
			continue
		}
		if !opts.Prune {
			sum.Stale = append(sum.Stale, old.DocID)
			continue
		}
		if !opts.DryRun {
			if err := pruneDocument(ctx, old, b, opts); err != nil {
				return sum, fmt.Errorf("prune %s: %w", old.DocID, err)
			}
		}
		sum.Pruned = append(sum.Pruned, old.DocID)
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// indexDocument writes one document: indexing → vectors → ready.
func indexDocument(ctx context.Context, d *kb.Document, b Backends, opts Options) (int, error) {
	chunks := corpus.Chunk(d, opts.Chunk)
	texts := make([]string, len(chunks))
	for i := range chunks {
		texts[i] = chunks[i].Text
	}
	for lo := 0; lo < len(texts); lo += opts.BatchSize {
		hi := min(lo+opts.BatchSize, len(texts))
		vecs, err := b.Embedder.Embed(ctx, texts[lo:hi])
		if err != nil {
			return 0, fmt.Errorf("embed: %w", err)
		}
		if len(vecs) != hi-lo {
			return 0, fmt.Errorf("embed: %s returned %d vectors for %d texts", b.Embedder.Name(), len(vecs), hi-lo)
		}
		for i, v := range vecs {
			chunks[lo+i].Vector = v
		}
	}
	if err := b.Catalog.BeginIndexing(ctx, *d, chunks); err != nil {
		return 0, fmt.Errorf("catalog: %w", err)
	}
	if err := b.Index.DeleteDocument(ctx, d.KBScope, d.DocID); err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	if len(chunks) > 0 {
		if err := b.Index.Upsert(ctx, chunks); err != nil {
			return 0, fmt.Errorf("index: %w", err)
		}
	}
	if opts.KnowledgeDir != "" {
		if err := writeKnowledgeCopy(opts.KnowledgeDir, d); err != nil {
			return 0, err
		}
	}
	if err := b.Catalog.MarkReady(ctx, d.KBScope, d.DocID, d.ContentHash); err != nil {
		return 0, fmt.Errorf("catalog: %w", err)
	}
	return len(chunks), nil
}

func pruneDocument(ctx context.Context, old kb.DocumentState, b Backends, opts Options) error {
	// Catalog first: once the row is gone no lookup can trust the vectors,
	// and a crash before the index delete only leaves orphan vectors that
	// the next seed of that docId replaces.
	if err := b.Catalog.DeleteDocument(ctx, old.KBScope, old.DocID); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if err := b.Index.DeleteDocument(ctx, old.KBScope, old.DocID); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if opts.KnowledgeDir != "" && old.Source != "" {
		err := os.Remove(knowledgePath(opts.KnowledgeDir, old.KBScope, old.Source))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

func knowledgePath(dir, kbScope, source string) string {
	return filepath.Join(dir, kbScope, source+".md")
}

func writeKnowledgeCopy(dir string, d *kb.Document) error {
	data, err := os.ReadFile(d.Path)
	if err != nil {
		return fmt.Errorf("copy to knowledge dir: %w", err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != d.ContentHash {
		return fmt.Errorf("%s changed while it was being seeded; run rag-seed again", d.Path)
	}
	return atomicfile.WriteFile(knowledgePath(dir, d.KBScope, d.Source), data, 0o644)
}
