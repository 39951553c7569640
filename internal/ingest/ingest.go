// Package ingest is the seed flow of rag-seed (docs/corpus.md): documents are
// chunked, embedded and written to the catalog (metadata, L0 terms, chunk
// rows) and the index (vectors, BM25), the same path a production upload
// takes.
//
// Seeding is idempotent and crash-safe:
//
//   - a document that is ready with the same index hash (its file, the
//     embedder and dimension, the chunk options, the evidence-key format
//     kb.EvidenceKeyFormat) is skipped and reported
//     unchanged, provided the index holds as many chunks as the catalog
//     records (otherwise everything is re-indexed: the index was recreated,
//     lost or only partly rebuilt);
//   - a new or changed document is marked indexing in the catalog (its L0
//     terms and chunk rows replaced in one transaction) before its old
//     vectors are deleted and the new ones written, and marked ready with its
//     hash only after; a run that dies in between leaves it indexing, and
//     the next run re-indexes it. No document is ever ready without its
//     vectors;
//   - documents of the kbScope that are no longer in the directory are
//     reported, and removed with Prune;
//   - the run is marked in progress in the catalog (kb.SeedRun) before its
//     first write, and completed with the record of what it seeded
//     (kb.IndexInfo, with the corpus fingerprint) after its last. A run
//     that dies between two documents leaves every document ready, only
//     some re-indexed: the mark stays, and reading commands refuse the
//     kbScope until a rerun completes.
//
// Embedding goes through the embedder it is given (callers wrap it with the
// embedding cache). Chunks are embedded in batches across documents, ahead
// of the writes, which stay one document at a time (pipeline.go).
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

// Options control a seed run.
type Options struct {
	KBScope string
	// Recreate drops and recreates the index collection first (after an
	// embedding model or dimension change); every document is re-indexed.
	Recreate bool
	// Prune removes documents of KBScope that are not in the input.
	Prune bool
	// DryRun computes and reports the plan without writing documents,
	// chunks or vectors (opening the store may create it, empty).
	DryRun bool
	Chunk  corpus.ChunkOptions
	// BatchSize is the number of chunks embedded per call, from any
	// documents (default: the embedder's embed.BatchSizer size, else 64).
	BatchSize int
	// QueueChunks bounds the chunks cut and embedded ahead of the writes
	// (default 4 × BatchSize, at least 1,024). A document with more
	// chunks than that is still cut and embedded whole.
	QueueChunks int
	// KnowledgeDir, when set, receives a copy of every document as
	// <KnowledgeDir>/<kbScope>/<source>.md (the production upload keeps one).
	KnowledgeDir string
	// Progress, when set, is called after each document, from the
	// goroutine that called Seed.
	Progress func(Progress)
}

// Progress is how far a seed is, after a document.
type Progress struct {
	// Done documents of Total, the input's: indexed, or found unchanged.
	Done, Total int
	Doc         *kb.Document // the document just done
	// Chunks is the number of chunks written so far.
	Chunks int
	// Bytes of ToIndex are the body bytes of the documents indexed so far
	// and of all that the run indexes: a measure of the work done and to
	// do that is known before the documents are cut.
	Bytes, ToIndex int64
	Elapsed        time.Duration // since Seed was called
}

// Rate is the chunks written per second so far.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Chunks) / p.Elapsed.Seconds()
}

// Left estimates the time the run still needs at its pace so far, or 0
// when nothing is indexed yet.
func (p Progress) Left() time.Duration {
	if p.Bytes <= 0 || p.ToIndex <= p.Bytes {
		return 0
	}
	return time.Duration(float64(p.Elapsed) * float64(p.ToIndex-p.Bytes) / float64(p.Bytes))
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
	// Resynced reports that the index and the catalog disagreed on the
	// number of chunks, so every document was re-indexed.
	Resynced bool
	// Rekeyed reports that the kbScope was seeded by a build of another
	// evidence-key format (OldKeyFormat), so every document was
	// re-indexed under this build's keys.
	Rekeyed      bool
	OldKeyFormat int
}

// StaleVectorsError reports a seed with a new embedder, or a new
// evidence-key format, that left documents of the kbScope (no longer in
// the input, kept without Prune) with the vectors, or the keys, of the
// previous one.
type StaleVectorsError struct {
	KBScope  string
	Stale    []string // docIds
	Embedder string
	// KeysOnly says that the embedder is the same and only the key
	// format changed (from KeyFormat).
	KeysOnly  bool
	KeyFormat int
	// Unrecorded says that the kbScope had no record at all (its last
	// seed did not finish), so what the kept documents hold is unknown.
	Unrecorded bool
}

func (e *StaleVectorsError) Error() string {
	if e.Unrecorded {
		return fmt.Sprintf("%d documents of kb_scope %s are no longer in the input and were written by a seed that did not finish (e.g. %s), so their vectors and evidence keys cannot be vouched for: rerun with --prune to remove them",
			len(e.Stale), e.KBScope, e.Stale[0])
	}
	if e.KeysOnly {
		return fmt.Sprintf("%d documents of kb_scope %s are no longer in the input and keep the evidence keys of an older rag-seed (format %d, e.g. %s), so the kbScope would mix two key formats: rerun with --prune to remove them",
			len(e.Stale), e.KBScope, e.KeyFormat, e.Stale[0])
	}
	return fmt.Sprintf("%d documents of kb_scope %s are no longer in the input and keep the vectors of the previous embedder (e.g. %s), so the kbScope would mix two models with %s: rerun with --prune to remove them",
		len(e.Stale), e.KBScope, e.Stale[0], e.Embedder)
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
		if bs, ok := b.Embedder.(embed.BatchSizer); ok && bs.BatchSize() > 0 {
			opts.BatchSize = bs.BatchSize()
		}
	}
	if opts.QueueChunks <= 0 {
		opts.QueueChunks = max(4*opts.BatchSize, 1024)
	}
	sum := &Summary{DryRun: opts.DryRun}
	dim := b.Embedder.Dim()

	if err := b.Catalog.Init(ctx); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	existing, err := b.Catalog.Documents(ctx, opts.KBScope)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	// The corpus the kbScope holds once the run completes: the input's
	// documents by the SHA-256 of their file, and those kept without Prune
	// by the hash the catalog records for them.
	corpus := make(map[string]string, len(docs)+len(existing))
	for i := range docs {
		corpus[docs[i].DocID] = docs[i].ContentHash
	}
	if !opts.Prune {
		for _, d := range existing {
			if _, ok := corpus[d.DocID]; !ok {
				corpus[d.DocID] = "kept:" + d.ContentHash
			}
		}
	}
	if !opts.DryRun {
		// The seed is recorded as in progress before its first write and
		// completed with the record of what it seeded (CompleteSeed): a
		// run that dies or fails in between leaves the mark, and reading
		// commands refuse the kbScope, whose documents may all be ready
		// while only some of the edited ones are re-indexed.
		run := kb.SeedRun{Documents: len(corpus), CorpusSHA256: kb.CorpusFingerprint(corpus)}
		if err := b.Catalog.BeginSeed(ctx, opts.KBScope, run); err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		if opts.Recreate {
			err = b.Index.Recreate(ctx, dim)
		} else {
			err = b.Index.Ensure(ctx, dim)
		}
		if err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
	}
	// The record of what made the kbScope's vectors (kb.IndexInfo) is
	// forgotten before the first vector of another embedder, or the first
	// chunk keyed by another evidence-key format, is written and set again
	// only when every document is ready: a run that dies half way leaves
	// no record, and reading commands refuse the mixed index.
	//
	// The record also says how the kbScope was chunked and what corpus it
	// holds (for the fixtures' manifest); a change of chunk sizes forgets
	// it too, so that it never describes a half re-chunked index. The
	// corpus fingerprint is computed at the end, over what the run leaves.
	chunkSize, chunkOverlap := opts.Chunk.Sizes()
	info := kb.IndexInfo{Embedder: b.Embedder.Name(), Dim: dim, KeyFormat: kb.EvidenceKeyFormat,
		ChunkSize: chunkSize, ChunkOverlap: chunkOverlap}
	sameRecord, oldKeysOnly, oldFormat, recorded := true, false, 0, true
	if !opts.DryRun {
		have, ok, err := b.Catalog.IndexInfo(ctx, opts.KBScope)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		sameRecord, recorded = ok && have.SameVectors(info), ok
		oldKeysOnly = ok && have.Embedder == info.Embedder && have.Dim == info.Dim && have.KeyFormat != info.KeyFormat
		oldFormat = have.KeyFormat
		sum.Rekeyed, sum.OldKeyFormat = ok && have.KeyFormat != info.KeyFormat, have.KeyFormat
		if ok && (!sameRecord || have.ChunkSize != info.ChunkSize || have.ChunkOverlap != info.ChunkOverlap) {
			if err := b.Catalog.SetIndexInfo(ctx, opts.KBScope, nil); err != nil {
				return nil, fmt.Errorf("catalog: %w", err)
			}
		}
	}
	have := make(map[string]kb.DocumentState, len(existing))
	for _, d := range existing {
		have[d.DocID] = d
	}
	// The catalog and the index must agree before "unchanged" can be
	// trusted: an index that was recreated, lost or only partly rebuilt
	// (a --recreate that died, another kbScope's --recreate, a new
	// collection name) holds fewer chunks than the catalog records, and
	// orphan vectors make it hold more. Then every document is re-indexed.
	force := opts.Recreate
	if !force && !opts.DryRun && len(existing) > 0 {
		inCatalog, err := b.Catalog.ChunkCount(ctx, opts.KBScope)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		inIndex, err := b.Index.Count(ctx, kb.Filter{KBScope: opts.KBScope})
		if err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		force = inCatalog != inIndex
		sum.Resynced = force
	}

	// Prune first: a document that moved to another docId keeps its source,
	// and the old row must be gone before the new one takes the source.
	inInput := make(map[string]bool, len(docs))
	for i := range docs {
		inInput[docs[i].DocID] = true
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

	docs = append([]kb.Document(nil), docs...)
	sort.Slice(docs, func(i, j int) bool { return docs[i].DocID < docs[j].DocID })
	// What to index, in docId order; a nil job is a document found
	// unchanged.
	jobs := make([]*job, len(docs))
	var toIndex []*job
	var toIndexBytes int64
	for i := range docs {
		d := &docs[i]
		old, existed := have[d.DocID]
		hash := indexHash(d, b.Embedder, opts.Chunk)
		if existed && !force && old.Status == kb.StatusReady && old.ContentHash == hash {
			continue
		}
		jobs[i] = &job{seq: len(toIndex), doc: d, hash: hash, existed: existed}
		toIndex = append(toIndex, jobs[i])
		toIndexBytes += int64(len(d.Body))
	}

	var done <-chan *job
	var p *pipeline
	var embedErr error
	if !opts.DryRun && len(toIndex) > 0 {
		p = newPipeline(b, opts)
		if err := p.lookAhead(ctx, toIndex); err != nil {
			return sum, fmt.Errorf("seed %s: embed: %w", toIndex[0].doc.Path, err)
		}
		pctx, cancel := context.WithCancel(ctx)
		chunked := make(chan *job, 256)
		embedded := make(chan *job, 256)
		var wg sync.WaitGroup
		wg.Go(func() { p.chunkStage(pctx, toIndex, chunked) })
		wg.Go(func() {
			embedErr = p.embedStage(pctx, chunked, embedded)
			close(embedded)
		})
		// Whatever the writer does, the stages are stopped and gone
		// before Seed returns: nothing touches the backends after.
		defer func() {
			cancel()
			wg.Wait()
		}()
		done = embedded
	}
	var bytesDone int64
	for i := range docs {
		d, j := &docs[i], jobs[i]
		switch {
		case j == nil:
			sum.Unchanged = append(sum.Unchanged, d.DocID)
		default:
			if !opts.DryRun {
				got, ok := <-done
				if !ok {
					return sum, fmt.Errorf("seed %s: %w", d.Path, embedErr)
				}
				if got != j {
					panic("ingest: documents out of order") // the stages keep it
				}
				if err := p.write(ctx, j); err != nil {
					return sum, fmt.Errorf("seed %s: %w", d.Path, err)
				}
				p.budget.Release(j.weight)
				sum.ChunksWritten += len(j.chunks)
				j.chunks, j.cached = nil, nil
			}
			bytesDone += int64(len(d.Body))
			if j.existed {
				sum.Updated = append(sum.Updated, d.DocID)
			} else {
				sum.Added = append(sum.Added, d.DocID)
			}
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Done: i + 1, Total: len(docs), Doc: d, Chunks: sum.ChunksWritten,
				Bytes: bytesDone, ToIndex: toIndexBytes, Elapsed: time.Since(start)})
		}
	}

	if !opts.DryRun {
		// Documents kept without --prune keep the vectors and keys they
		// had: under another (or an unrecorded) embedder or key format the
		// kbScope would mix two models or two key formats, so it is left
		// without a record.
		if !sameRecord && len(sum.Stale) > 0 {
			return sum, &StaleVectorsError{KBScope: opts.KBScope, Stale: sum.Stale, Embedder: info.Embedder,
				KeysOnly: oldKeysOnly, KeyFormat: oldFormat, Unrecorded: !recorded}
		}
		// The fingerprint covers every document the kbScope now holds.
		info.Documents, info.CorpusSHA256 = len(corpus), kb.CorpusFingerprint(corpus)
		if err := b.Catalog.CompleteSeed(ctx, opts.KBScope, info); err != nil {
			return sum, fmt.Errorf("catalog: %w", err)
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// Chunks cuts d into chunks with corpus.Chunk and embeds their texts as
// passages with e, batchSize at a time (64 when batchSize <= 0): the chunks
// and vectors a seed writes, for loaders of other stores (the external
// retrieval servers of the mapped-pipeline tests) that must hold exactly
// what rag-seed indexes.
func Chunks(ctx context.Context, d *kb.Document, e kb.Embedder, c corpus.ChunkOptions, batchSize int) ([]kb.Chunk, error) {
	if batchSize <= 0 {
		batchSize = 64
	}
	chunks := corpus.Chunk(d, c)
	texts := make([]string, len(chunks))
	for i := range chunks {
		texts[i] = chunks[i].Text
	}
	for lo := 0; lo < len(texts); lo += batchSize {
		hi := min(lo+batchSize, len(texts))
		vecs, err := e.Embed(ctx, kb.Passage, texts[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		if len(vecs) != hi-lo {
			return nil, fmt.Errorf("embed: %s returned %d vectors for %d texts", e.Name(), len(vecs), hi-lo)
		}
		for i, v := range vecs {
			chunks[lo+i].Vector = v
		}
	}
	return chunks, nil
}

func pruneDocument(ctx context.Context, old kb.DocumentState, b Backends, opts Options) error {
	// Mark it indexing (no L0 terms, no chunk rows) before touching the
	// vectors, and drop the row last: a run that dies in between leaves a
	// row that the next --prune removes, never vectors nobody knows of.
	doc := kb.Document{DocID: old.DocID, Source: old.Source, Title: old.Title, Breadcrumb: old.Breadcrumb,
		Category: old.Category, KBScope: old.KBScope}
	if err := b.Catalog.BeginIndexing(ctx, doc, nil); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if err := b.Index.DeleteDocument(ctx, old.KBScope, old.DocID); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if err := b.Catalog.DeleteDocument(ctx, old.KBScope, old.DocID); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if opts.KnowledgeDir != "" {
		if p, ok := knowledgePath(opts.KnowledgeDir, old.KBScope, old.Source); ok {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	return nil
}

// indexHash identifies what a document's chunks and vectors were made
// from: the file, the embedder and its dimension, the chunking and the
// evidence-key format. It is the hash stored as ready, so a model,
// chunk-size or key-format change re-indexes every document (a document
// seeded by a build with another key rule is replaced, never kept as
// unchanged with keys of the old rule).
func indexHash(d *kb.Document, e kb.Embedder, c corpus.ChunkOptions) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%d", d.ContentHash, e.Name(), e.Dim(), c.MaxChars, c.Overlap)
	// Builds of key format 1 hashed nothing more, so their documents all
	// differ from this build's.
	fmt.Fprintf(h, "\x00keys%d", kb.EvidenceKeyFormat)
	return hex.EncodeToString(h.Sum(nil))
}

// knowledgePath is where a document's copy lives; ok is false for a
// kbScope or source that would leave the knowledge directory (values read
// back from a shared catalog are not trusted as paths).
func knowledgePath(dir, kbScope, source string) (string, bool) {
	rel := filepath.Join(kbScope, source+".md")
	if kbScope == "" || source == "" || !filepath.IsLocal(rel) || filepath.Dir(rel) != filepath.Clean(kbScope) {
		return "", false
	}
	return filepath.Join(dir, rel), true
}

func writeKnowledgeCopy(dir string, d *kb.Document) error {
	data, err := os.ReadFile(d.Path)
	if err != nil {
		return fmt.Errorf("copy to knowledge dir: %w", err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != d.ContentHash {
		return fmt.Errorf("%s changed while it was being seeded; run rag-seed again", d.Path)
	}
	p, ok := knowledgePath(dir, d.KBScope, d.Source)
	if !ok {
		return fmt.Errorf("kbScope %q and source %q do not make a file name", d.KBScope, d.Source)
	}
	return atomicfile.WriteFile(p, data, 0o644)
}
