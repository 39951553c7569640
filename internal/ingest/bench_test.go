package ingest_test

import (
	"context"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// benchDocs loads the kbtest benchmark corpus: docs documents of sections
// sections, every section one chunk of about 500 characters.
func benchDocs(b *testing.B, docs, sections int) []kb.Document {
	out, err := corpus.LoadDir(kbtest.WriteBenchCorpus(b, scope, docs, sections), scope)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkSeed10k seeds 10,000 chunks (500 documents × 20 sections) with
// the local embedder into fresh backends and reports chunks/s.
//
//	go test -run '^$' -bench Seed10k -benchtime 1x ./internal/ingest
//	. .ragbaseline/services.env && go test -run '^$' -bench Seed10k -benchtime 1x ./internal/ingest
func BenchmarkSeed10k(b *testing.B) {
	docs := benchDocs(b, 500, 20)
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			chunks := 0
			for b.Loop() {
				b.StopTimer()
				bk := be.open(b, hooks{})
				b.StartTimer()
				sum, err := ingest.Seed(context.Background(), docs, bk, ingest.Options{KBScope: scope, BatchSize: 256})
				if err != nil {
					b.Fatal(err)
				}
				chunks += sum.ChunksWritten
			}
			b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}
