package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// TestHalfSeedRefused is issue 28's repro on the embedded store: seed 12
// documents, edit 6, seed again and stop the run between two documents
// (every document is then ready, only some edited ones re-indexed). A
// reading command must refuse the store, naming rag-seed, rather than
// answer from it with the fingerprint of the seed before. A rerun of
// rag-seed converges, and the record then names the new corpus.
func TestHalfSeedRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(i int, body string) {
		doc := fmt.Sprintf("---\nsource: doc-%02d\nbreadcrumb: Docs > %d\ncategory: c\nkb_scope: rag-eval\n---\n# Doc %d\n\n%s\n", i, i, i, body)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc-%02d.md", i)), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const n = 12
	for i := range n {
		write(i, fmt.Sprintf("the first text of document %d.", i))
	}
	c := Config{Store: StoreEmbedded, DataDir: t.TempDir(), Embedder: EmbedderLocal, MilvusCollection: "rag_eval", Timeout: 30 * time.Second}
	// seed seeds the directory and cancels the run after stopAfter
	// documents (never when it is 0). It returns the corpus fingerprint
	// of the input.
	seed := func(stopAfter int) (string, error) {
		t.Helper()
		s, err := Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		docs, err := corpus.LoadDir(dir, "rag-eval")
		if err != nil {
			t.Fatal(err)
		}
		fp := make(map[string]string, len(docs))
		for _, d := range docs {
			fp[d.DocID] = d.ContentHash
		}
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		opts := ingest.Options{KBScope: "rag-eval", BatchSize: 1, QueueChunks: 1}
		if stopAfter > 0 {
			opts.Progress = func(p ingest.Progress) {
				if p.Done == stopAfter {
					cancel()
				}
			}
		}
		_, err = ingest.Seed(sctx, docs, ingest.Backends{Catalog: s.Catalog, Index: s.Index, Embedder: s.Embedder}, opts)
		return kb.CorpusFingerprint(fp), err
	}
	old, err := seed(0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 2 {
		write(i, fmt.Sprintf("the edited text of document %d.", i))
	}
	// Stopped after the fifth document: three edited documents are
	// re-indexed, three are not.
	if _, err := seed(5); !errors.Is(err, context.Canceled) {
		t.Fatalf("the interrupted seed returned %v, want context.Canceled", err)
	}
	s, err := Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := s.Catalog.Documents(ctx, "rag-eval")
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Status != kb.StatusReady {
			t.Fatalf("document %s is %s: the repro needs every document ready", d.DocID, d.Status)
		}
	}

	ls, err := OpenForLookup(ctx, c, "rag-eval")
	if err == nil {
		rec := ls.Record
		ls.Close()
		t.Fatalf("OpenForLookup accepted a store whose seed did not finish (its record names corpus %s, the seed before's is %s)",
			rec.CorpusSHA256, old)
	}
	var nr *NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("got %v, want a *NotReadyError", err)
	}
	for _, want := range []string{"a rag-seed of kbScope rag-eval", "did not finish", "run rag-seed again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}

	now, err := seed(0)
	if err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if now == old {
		t.Fatal("the edits did not change the corpus fingerprint")
	}
	ls, err = OpenForLookup(ctx, c, "rag-eval")
	if err != nil {
		t.Fatalf("after a rerun: %v", err)
	}
	defer ls.Close()
	if ls.Record.CorpusSHA256 != now {
		t.Errorf("after a rerun the record names corpus %s, want the new one %s", ls.Record.CorpusSHA256, now)
	}
}
