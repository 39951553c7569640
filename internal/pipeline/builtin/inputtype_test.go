package builtin_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// kindRecorder wraps an embedder and records, per input type, the texts it
// was asked to embed.
type kindRecorder struct {
	kb.Embedder
	mu    sync.Mutex
	texts map[kb.InputType][]string
}

func (r *kindRecorder) Embed(ctx context.Context, kind kb.InputType, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.texts[kind] = append(r.texts[kind], texts...)
	r.mu.Unlock()
	return r.Embedder.Embed(ctx, kind, texts)
}

// Ingestion embeds chunks as passages and the lookup embeds the query as a
// query: models such as e5 embed the two differently.
func TestChunksArePassagesQueriesAreQueries(t *testing.T) {
	s := openEmbedded(t)
	rec := &kindRecorder{Embedder: s.emb, texts: map[kb.InputType][]string{}}
	s.emb = rec
	seedDocs(t, s, testDoc{source: "pool", category: "database", body: "# Pool\n\nmax_connections reached: raise the pool size."})
	if len(rec.texts[kb.Passage]) == 0 || len(rec.texts[kb.Query]) != 0 || len(rec.texts) != 1 {
		t.Fatalf("seeding embedded %v; want passages only", rec.texts)
	}
	run(t, newPipeline(s, nil), "the pool is full")
	if !slices.Equal(rec.texts[kb.Query], []string{"the pool is full"}) {
		t.Errorf("the lookup embedded %q as queries; want the query alone", rec.texts[kb.Query])
	}
}
