package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
)

// On the server stack a reading command creates no collection and refuses
// an index that disagrees with the catalog, naming rag-seed: a mistyped
// RAG_MILVUS_COLLECTION, a dropped collection, vectors deleted behind the
// catalog's back. It used to create the mistyped collection and freeze
// empty dense fixtures, exit 0.
func TestServerStackIndexMustMatchCatalog(t *testing.T) {
	ctx := context.Background()
	cfg := serverConfig(t)
	seedConfig(t, cfg, "../../eval/rag-retrieval/seed-docs")
	snapshotWith := func(t *testing.T, flags []string) (cmdutil.ExitCode, string) {
		t.Helper()
		fixtures := filepath.Join(t.TempDir(), "fixtures")
		args := append([]string{"--cases", "../../eval/rag-retrieval/cases/golden-cases.json", "--fixtures", fixtures,
			"--search-mode", "dense", "--skip-eval"}, flags...)
		var out, errb strings.Builder
		code := run(ctx, args, &out, &errb)
		if _, err := os.Stat(fixtures); code != 0 && !os.IsNotExist(err) {
			t.Errorf("exit %d but %s was written", code, fixtures)
		}
		return code, errb.String()
	}

	t.Run("mistyped collection", func(t *testing.T) {
		typo := cfg
		typo.MilvusCollection = cfg.MilvusCollection + "_typo"
		code, stderr := snapshotWith(t, serverFlags(typo))
		if code != 1 || !strings.Contains(stderr, "collection "+typo.MilvusCollection+" does not exist") ||
			!strings.Contains(stderr, "run rag-seed") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		ix, err := milvus.Open(ctx, milvus.Config{Addr: cfg.MilvusAddr, Collection: typo.MilvusCollection})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if _, err := ix.ExistingDim(ctx); err == nil {
			ix.Drop(ctx)
			t.Fatalf("rag-snapshot created collection %s", typo.MilvusCollection)
		}
	})

	t.Run("vectors deleted", func(t *testing.T) {
		ix, err := milvus.Open(ctx, milvus.Config{Addr: cfg.MilvusAddr, Collection: cfg.MilvusCollection})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if err := ix.DeleteDocument(ctx, "rag-eval", "rag-eval/mysql-connection-pool"); err != nil {
			t.Fatal(err)
		}
		code, stderr := snapshotWith(t, serverFlags(cfg))
		if code != 1 || !strings.Contains(stderr, "the index holds") || !strings.Contains(stderr, "rerun rag-seed to re-index") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// A seed repairs it (re-indexing everything: Resynced).
		stack, err := config.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := corpus.LoadDir("../../eval/rag-retrieval/seed-docs", "rag-eval")
		if err != nil {
			t.Fatal(err)
		}
		sum, err := ingest.Seed(ctx, ds, ingest.Backends{Catalog: stack.Catalog, Index: stack.Index, Embedder: stack.Embedder},
			ingest.Options{KBScope: "rag-eval", Chunk: corpus.ChunkOptions{MaxChars: corpus.DefaultMaxChars, Overlap: corpus.DefaultOverlap}})
		stack.Close()
		if err != nil || !sum.Resynced {
			t.Fatalf("seed: %v, resynced %v", err, sum != nil && sum.Resynced)
		}
		if code, stderr := snapshotWith(t, serverFlags(cfg)); code != 0 {
			t.Fatalf("after rag-seed: exit %d: %s", code, stderr)
		}
	})

	t.Run("collection dropped", func(t *testing.T) {
		ix, err := milvus.Open(ctx, milvus.Config{Addr: cfg.MilvusAddr, Collection: cfg.MilvusCollection})
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if err := ix.Drop(ctx); err != nil {
			t.Fatal(err)
		}
		code, stderr := snapshotWith(t, serverFlags(cfg))
		if code != 1 || !strings.Contains(stderr, "there is no index") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := ix.ExistingDim(ctx); err == nil || !strings.Contains(err.Error(), kb.ErrNotSeeded.Error()) {
			t.Fatalf("the dropped collection came back: %v", err)
		}
	})
}
