package kbtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// BenchmarkChunksPerDoc is the number of chunks of each document in
// BenchmarkCatalogIndexing.
const BenchmarkChunksPerDoc = 20

// BenchmarkCatalogIndexing measures BeginIndexing + MarkReady of documents
// of BenchmarkChunksPerDoc chunks and 5 L0 terms on an empty catalog c
// (which it initialises): "new" adds a new document per iteration,
// "reindex" replaces one of 100 existing documents. It reports docs/s and
// chunks/s.
func BenchmarkCatalogIndexing(b *testing.B, c kb.Catalog) {
	ctx := context.Background()
	if err := c.Init(ctx); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, scope string, docID func(i int) int) {
		docs := make(map[int]kb.Document)
		chunks := make(map[int][]kb.Chunk)
		get := func(i int) (kb.Document, []kb.Chunk) {
			if d, ok := docs[i]; ok {
				return d, chunks[i]
			}
			d := CatalogDoc(scope, fmt.Sprintf("doc-%07d", i))
			d.Keywords = []string{"keyword one " + d.Source, "keyword two " + d.Source}
			d.Aliases = []string{"alias " + d.Source, "another alias"}
			docs[i], chunks[i] = d, CatalogChunks(d, BenchmarkChunksPerDoc, "bench")
			return docs[i], chunks[i]
		}
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			d, ch := get(docID(i))
			if err := c.BeginIndexing(ctx, d, ch); err != nil {
				b.Fatal(err)
			}
			if err := c.MarkReady(ctx, d.KBScope, d.DocID, d.ContentHash); err != nil {
				b.Fatal(err)
			}
		}
		docsPerSec := float64(b.N) / b.Elapsed().Seconds()
		b.ReportMetric(docsPerSec, "docs/s")
		b.ReportMetric(docsPerSec*BenchmarkChunksPerDoc, "chunks/s")
	}
	b.Run("new", func(b *testing.B) { run(b, "bench-new", func(i int) int { return i }) })
	b.Run("reindex", func(b *testing.B) { run(b, "bench-reindex", func(i int) int { return i % 100 }) })
}
