package builtin_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// benchQueries are 64 queries of 3 to 6 vocabulary words.
func benchQueries() []string {
	rng := rand.New(rand.NewPCG(5, 6))
	qs := make([]string, 64)
	for i := range qs {
		var ws []string
		for range 3 + rng.IntN(4) {
			ws = append(ws, kbtest.BenchWords[rng.IntN(len(kbtest.BenchWords))])
		}
		qs[i] = strings.Join(ws, " ")
	}
	return qs
}

// BenchmarkLookup measures whole lookups (embed, L0 hints, search with the
// retry when it happens, post-processing, context pack) on 10,000 chunks
// (500 documents × 20 sections), with the local embedder and the default
// configuration, sequentially and with 8 goroutines.
//
//	go test -run '^$' -bench Lookup -benchtime 2000x ./internal/pipeline/builtin
//	. .ragbaseline/services.env && go test -run '^$' -bench Lookup/server -benchtime 500x ./internal/pipeline/builtin
func BenchmarkLookup(b *testing.B) {
	dir := kbtest.WriteBenchCorpus(b, scope, 500, 20)
	queries := benchQueries()
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			s := be.open(b)
			seedDir(b, s, dir)
			p := newPipeline(s, nil)
			ctx := context.Background()
			for _, mode := range []kb.SearchMode{kb.Hybrid, kb.Dense} {
				var attempts atomic.Int64
				lookupOne := func(i int) error {
					q := queries[i%len(queries)]
					res, err := p.Lookup(ctx, pipeline.Request{Query: q, KBScope: scope, SearchMode: mode})
					if err == nil && len(res.EvidenceBlocks) == 0 {
						err = fmt.Errorf("no blocks for %q", q)
					}
					if err == nil {
						attempts.Add(int64(len(res.RetrievalTrace.Attempts)))
					}
					return err
				}
				b.Run(string(mode), func(b *testing.B) {
					attempts.Store(0)
					i := 0
					for b.Loop() {
						if err := lookupOne(i); err != nil {
							b.Fatal(err)
						}
						i++
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
					b.ReportMetric(float64(attempts.Load())/float64(b.N), "searches/lookup")
				})
				// 8 concurrent callers, as rag-snapshot --concurrency 8.
				b.Run(string(mode)+"-conc8", func(b *testing.B) {
					var next atomic.Int64
					var wg sync.WaitGroup
					b.ResetTimer()
					for range 8 {
						wg.Go(func() {
							for {
								i := int(next.Add(1)) - 1
								if i >= b.N {
									return
								}
								if err := lookupOne(i); err != nil {
									b.Error(err)
									return
								}
							}
						})
					}
					wg.Wait()
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
				})
			}
		})
	}
}
