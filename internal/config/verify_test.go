package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// seeded seeds one document into a new embedded store with the local
// embedder and returns its configuration.
func seeded(t *testing.T) Config {
	t.Helper()
	docs := t.TempDir()
	doc := "---\nsource: pool\nbreadcrumb: Database > Pool\ncategory: database\nkb_scope: rag-eval\n---\n# Pool\n\nmax_connections reached: raise the pool.\n"
	if err := os.WriteFile(filepath.Join(docs, "pool.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Config{Store: StoreEmbedded, DataDir: t.TempDir(), Embedder: EmbedderLocal, MilvusCollection: "rag_eval", Timeout: 30 * time.Second}
	s, err := Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ds, err := corpus.LoadDir(docs, "rag-eval")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Seed(context.Background(), ds, ingest.Backends{Catalog: s.Catalog, Index: s.Index, Embedder: s.Embedder},
		ingest.Options{KBScope: "rag-eval"}); err != nil {
		t.Fatal(err)
	}
	return c
}

// OpenForLookup refuses a store that cannot answer lookups with the
// configured embedder, naming why. The embedder check is by name, so two
// models of one dimension are told apart.
func TestOpenForLookupRefuses(t *testing.T) {
	ctx := context.Background()
	t.Run("ready", func(t *testing.T) {
		s, err := OpenForLookup(ctx, seeded(t), "rag-eval")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The record the check passed is kept, for the manifest.
		r := s.Record
		if r.Embedder != "local-hash-v1" {
			t.Errorf("Stack.Record.Embedder = %q, want local-hash-v1", r.Embedder)
		}
		if r.Documents != 1 {
			t.Errorf("Stack.Record.Documents = %d, want 1", r.Documents)
		}
		if r.ChunkSize <= 0 {
			t.Errorf("Stack.Record.ChunkSize = %d, want > 0", r.ChunkSize)
		}
		if len(r.CorpusSHA256) != 64 {
			t.Errorf("Stack.Record.CorpusSHA256 = %q, want 64 hex digits", r.CorpusSHA256)
		}
	})
	t.Run("another embedder of the same dimension", func(t *testing.T) {
		c := seeded(t)
		c.Embedder, c.EmbedModel, c.EmbedDim, c.OpenAIBaseURL = EmbedderOpenAI, "some-model", 512, "http://127.0.0.1:1/v1"
		_, err := OpenForLookup(ctx, c, "rag-eval")
		var mm *EmbedderMismatchError
		if !errors.As(err, &mm) {
			t.Fatalf("got %v, want an *EmbedderMismatchError", err)
		}
		if mm.Have.Embedder != "local-hash-v1" {
			t.Errorf("Have.Embedder = %q, want local-hash-v1", mm.Have.Embedder)
		}
		if mm.Want.Embedder != "openai:some-model" {
			t.Errorf("Want.Embedder = %q, want openai:some-model", mm.Want.Embedder)
		}
		if mm.Want.Dim != 512 {
			t.Errorf("Want.Dim = %d, want 512", mm.Want.Dim)
		}
	})
	notReady := func(t *testing.T, c Config, want string) {
		t.Helper()
		_, err := OpenForLookup(ctx, c, "rag-eval")
		var nr *NotReadyError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want a *NotReadyError saying %q", err, want)
		}
	}
	t.Run("a seed that did not finish", func(t *testing.T) {
		c := seeded(t)
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		doc := kb.Document{DocID: "rag-eval/pool", Source: "pool", KBScope: "rag-eval", Category: "database", Breadcrumb: "Database > Pool"}
		err = s.Catalog.BeginIndexing(ctx, doc, []kb.Chunk{{EvidenceKey: "rag-eval/pool#0", DocID: doc.DocID, KBScope: "rag-eval", Text: "x"}})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		notReady(t, c, "1 of 1 documents are not ready")
	})
	t.Run("no record of the embedder", func(t *testing.T) {
		c := seeded(t)
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Catalog.SetIndexInfo(ctx, "rag-eval", nil)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		notReady(t, c, "does not record which embedder")
	})
	// A store seeded by a build of another evidence-key rule is not read
	// until rag-seed re-keys it. Its fixtures would carry keys golden cases
	// cannot pin.
	t.Run("evidence keys of an older rag-seed", func(t *testing.T) {
		c := seeded(t)
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Catalog.SetIndexInfo(ctx, "rag-eval", &kb.IndexInfo{Embedder: s.Embedder.Name(), Dim: s.Embedder.Dim(), KeyFormat: 1})
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		notReady(t, c, "older rag-seed (format 1;")
	})
	t.Run("another kbScope", func(t *testing.T) {
		_, err := OpenForLookup(ctx, seeded(t), "other")
		var nr *NotReadyError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), "no chunks") {
			t.Fatalf("got %v, want a *NotReadyError saying no chunks", err)
		}
	})
}
