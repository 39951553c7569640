package config

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/mysql"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/sqlite"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/cache/rediscache"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/cache/sqlitecache"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/local"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/openai"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/usem3"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/embedded"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
)

// Open validates c and opens its backends for writing, as rag-seed does.
// The embedded store's data dir, catalog and index are created when
// missing. On error nothing stays open, and the error names the backend
// that failed. It never panics.
func Open(ctx context.Context, c Config) (*Stack, error) {
	return open(ctx, c, false)
}

// OpenForLookup validates c and opens its backends for reading, as
// rag-snapshot and serve do. It creates nothing: no data dir, catalog
// file, table, index directory or Milvus collection. Then it checks with
// Stack.Verify that the store can answer lookups of kbScope with c's
// embedder. A store that cannot is an error naming rag-seed. The embedding
// cache is still written to, since it only remembers query embeddings.
func OpenForLookup(ctx context.Context, c Config, kbScope string) (*Stack, error) {
	s, err := open(ctx, c, true)
	if err != nil {
		return nil, err
	}
	if err := s.Verify(ctx, kbScope); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func open(ctx context.Context, c Config, readOnly bool) (*Stack, error) {
	if err := c.Validate(); err != nil {
		return nil, cmdutil.Usage(err) // exit 2 in every binary
	}
	// The stack being opened is a local, not a named result, so that a
	// `return nil, err` cannot hide it from the cleanup below. It did once,
	// and every open failure panicked closing a nil stack.
	s := &Stack{describe: c.Describe()}
	if err := s.open(ctx, c, readOnly); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Stack) open(ctx context.Context, c Config, readOnly bool) error {
	emb, err := openEmbedder(c)
	if err != nil {
		return err
	}

	var cache kb.EmbedCache
	switch c.Store {
	case StoreEmbedded:
		dbPath := c.dataPath("catalog.db")
		if readOnly {
			if _, err := os.Stat(dbPath); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return notSeeded{fmt.Errorf("no embedded store in %s (%s is missing); run rag-seed first, or point --data-dir (RAG_DATA_DIR) at the seeded one",
						c.DataDir, dbPath)}
				}
				return fmt.Errorf("embedded catalog: %w", err)
			}
		}
		cat, err := sqlite.Open(dbPath)
		if err != nil {
			return err // names the file
		}
		s.Catalog = cat
		s.closers = append(s.closers, cat.Close)
		if cache, err = sqlitecache.Open(dbPath); err != nil {
			return fmt.Errorf("embedding cache %s: %w", dbPath, err)
		}
		s.closers = append(s.closers, cache.Close)
		var idx *embedded.Index
		if readOnly {
			idx, err = embedded.OpenReadOnly(c.dataPath("index"))
		} else {
			idx, err = embedded.Open(c.dataPath("index"))
		}
		if err != nil {
			if errors.Is(err, embedded.ErrNoIndex) {
				return notSeeded{err} // the message names rag-seed
			}
			return err // names the index directory
		}
		s.Index = idx
		s.closers = append(s.closers, idx.Close)
	case StoreServer:
		cat, err := mysql.Open(c.MySQLDSN)
		if err != nil {
			return err // names the server, never the password
		}
		s.Catalog = cat
		s.closers = append(s.closers, cat.Close)
		if c.RedisAddr != "" {
			rc, err := rediscache.Open(c.RedisAddr)
			if err != nil {
				return err
			}
			cache = rc
			s.closers = append(s.closers, rc.Close)
		}
		idx, err := milvus.Open(ctx, milvus.Config{Addr: c.MilvusAddr, Collection: c.MilvusCollection, Timeout: c.Timeout,
			ConnectTimeout: min(c.Timeout, milvus.DefaultConnectTimeout)})
		if err != nil {
			return err
		}
		s.Index = idx
		s.closers = append(s.closers, idx.Close)
	}
	s.Embedder = emb
	if cache != nil {
		s.Embedder = embed.Cached(emb, cache)
	}
	return nil
}

// existingIndex is an index that can report the dimension of what a seed
// created without creating anything. The embedded index and Milvus both
// can. A missing index is an error wrapping kb.ErrNotSeeded.
type existingIndex interface {
	ExistingDim(ctx context.Context) (int, error)
}

// notSeeded is err, also matching kb.ErrNotSeeded.
type notSeeded struct{ error }

func (e notSeeded) Unwrap() error        { return e.error }
func (e notSeeded) Is(target error) bool { return target == kb.ErrNotSeeded }

// NotReadyError reports a store that cannot answer lookups of a kbScope
// as it is: nothing seeded, a seed that did not finish, an index that
// disagrees with the catalog. Rerunning rag-seed repairs every case.
type NotReadyError struct {
	Store   string // Describe()
	KBScope string
	Reason  string
	// NoChunks reports that the store holds no chunk of KBScope at all. It
	// was never seeded with it, or the kbScope is another one than the
	// seed's.
	NoChunks bool
	// SeedInProgress reports that a rag-seed of KBScope began and has not
	// completed: it died, or it is still running.
	SeedInProgress bool
}

// shortHash is the first 12 characters of a hex hash, for a message.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func (e *NotReadyError) Error() string {
	return fmt.Sprintf("the store (%s) cannot answer lookups of kbScope %s: %s", e.Store, e.KBScope, e.Reason)
}

// EmbedderMismatchError reports a kbScope whose vectors were made by
// another embedder than the one configured: a usage error.
type EmbedderMismatchError struct {
	KBScope    string
	Have, Want kb.IndexInfo
}

func (e *EmbedderMismatchError) Error() string {
	return fmt.Sprintf("kbScope %s was seeded with embedder %s (dimension %d) but this run uses %s (dimension %d): "+
		"choose the same embedder (--embedder, RAG_EMBEDDER, RAG_EMBED_MODEL), or rerun rag-seed with --recreate to re-embed it",
		e.KBScope, e.Have.Embedder, e.Have.Dim, e.Want.Embedder, e.Want.Dim)
}

// Verify checks, without writing anything, that the store can answer
// lookups of kbScope with the stack's embedder:
//
//   - The catalog exists and has this build's schema.
//   - No seed of kbScope is in progress: one that died, or one still
//     running, leaves its mark (kb.SeedRun) until it completes.
//   - It holds chunks of kbScope, and every document of them is ready. A
//     seed that died leaves documents indexing.
//   - It records that kbScope was seeded with this embedder and dimension,
//     else the error is an *EmbedderMismatchError. It records this build's
//     evidence-key format, kb.EvidenceKeyFormat.
//   - The index exists, has that dimension, and holds exactly as many
//     chunks of kbScope as the catalog. An index deleted, replaced or only
//     partly rebuilt does not.
//
// Every failure but the embedder mismatch is a *NotReadyError naming
// rag-seed.
func (s *Stack) Verify(ctx context.Context, kbScope string) error {
	notReady := func(format string, args ...any) error {
		return &NotReadyError{Store: s.describe, KBScope: kbScope, Reason: fmt.Sprintf(format, args...)}
	}
	if err := s.Catalog.Verify(ctx); err != nil {
		if errors.Is(err, kb.ErrNotSeeded) {
			return notReady("%v", err)
		}
		return fmt.Errorf("catalog: %w", err)
	}
	// Checked first: a seed that died between two documents leaves them
	// all ready, only some re-indexed, and the record of the seed before.
	// A seed still running is refused the same way. Its writes are not
	// one transaction, so nothing it leaves half way can be read.
	if run, ok, err := s.Catalog.SeedInProgress(ctx, kbScope); err != nil {
		return fmt.Errorf("catalog: %w", err)
	} else if ok {
		err := notReady("a rag-seed of kbScope %s (%d documents, corpus sha256 %s) started and did not finish, or is still running: run rag-seed again once no other is running",
			kbScope, run.Documents, shortHash(run.CorpusSHA256))
		err.(*NotReadyError).SeedInProgress = true
		return err
	}
	n, err := s.Catalog.ChunkCount(ctx, kbScope)
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if n == 0 {
		err := notReady("no chunks; run rag-seed first (with --kb-scope %s)", kbScope)
		err.(*NotReadyError).NoChunks = true
		return err
	}
	docs, err := s.Catalog.Documents(ctx, kbScope)
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	var indexing []string
	for _, d := range docs {
		if d.Status != kb.StatusReady {
			indexing = append(indexing, d.DocID)
		}
	}
	if len(indexing) > 0 {
		return notReady("%d of %d documents are not ready (a rag-seed did not finish, e.g. %s); rerun rag-seed to complete it",
			len(indexing), len(docs), indexing[0])
	}
	want := kb.IndexInfo{Embedder: s.Embedder.Name(), Dim: s.Embedder.Dim(), KeyFormat: kb.EvidenceKeyFormat}
	have, ok, err := s.Catalog.IndexInfo(ctx, kbScope)
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if !ok {
		return notReady("the catalog does not record which embedder made its vectors (seeded by an older rag-seed, or a seed did not finish); rerun rag-seed")
	}
	if have.Embedder != want.Embedder || have.Dim != want.Dim {
		return &EmbedderMismatchError{KBScope: kbScope, Have: have, Want: want}
	}
	if have.KeyFormat != want.KeyFormat {
		return notReady("its evidence keys follow the rule of an older rag-seed (format %d; this build's is %d, keyed by section instead of position); rerun rag-seed to re-key every document",
			have.KeyFormat, want.KeyFormat)
	}
	s.Record = have
	ei, ok := s.Index.(existingIndex)
	if !ok {
		return fmt.Errorf("index %T cannot be checked without writing", s.Index)
	}
	dim, err := ei.ExistingDim(ctx)
	if err != nil {
		if errors.Is(err, kb.ErrNotSeeded) {
			return notReady("the catalog has %d chunks but there is no index: %v", n, err)
		}
		return fmt.Errorf("index: %w", err)
	}
	if dim != want.Dim {
		return notReady("the index has dimension %d, the catalog records %s of dimension %d; rerun rag-seed with --recreate to rebuild it",
			dim, want.Embedder, want.Dim)
	}
	m, err := s.Index.Count(ctx, kb.Filter{KBScope: kbScope})
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if m != n {
		return notReady("the index holds %d chunks, the catalog %d (the index was deleted, replaced or only partly rebuilt); rerun rag-seed to re-index",
			m, n)
	}
	return nil
}

// OpenEmbedder validates the embedder settings of c with
// ValidateEmbedder, a failure being a usage error, exit 2. Then it opens
// the embedder alone, without a store or an embedding cache. It is for a
// pipeline that embeds its queries but searches elsewhere, such as the
// mapped pipeline. The neural embedders are loaded or connected here, so a
// missing model is reported before any lookup.
func OpenEmbedder(c Config) (kb.Embedder, error) {
	if err := c.ValidateEmbedder(); err != nil {
		return nil, cmdutil.Usage(err)
	}
	return openEmbedder(c)
}

// openEmbedder opens the embedder c names.
func openEmbedder(c Config) (kb.Embedder, error) {
	switch c.Embedder {
	case EmbedderUSE:
		e, err := usem3.LoadDefault()
		if err != nil {
			var missing *usem3.MissingModelError
			if errors.As(err, &missing) {
				return nil, cmdutil.Usage(err) // names make models and RAG_MODEL_DIR
			}
			return nil, err
		}
		return e, nil
	case EmbedderLocal:
		e, err := local.New(c.EmbedDim)
		if err != nil {
			return nil, fmt.Errorf("local embedder: %w", err)
		}
		return e, nil
	case EmbedderOpenAI:
		e, err := openai.New(openai.Options{
			BaseURL: c.OpenAIBaseURL, APIKey: c.OpenAIKey, Model: c.EmbedModel, Dim: c.EmbedDim, Timeout: c.Timeout,
			InputTypeMode: openai.InputTypeMode(c.EmbedInputType), Concurrency: c.EmbedConcurrency,
		})
		if err != nil {
			return nil, fmt.Errorf("openai embedder at %s: %w", RedactURL(c.OpenAIBaseURL), err)
		}
		return e, nil
	}
	return nil, &cmdutil.EnumError{Flag: "embedder", Value: c.Embedder, Values: Embedders}
}
