package milvus

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// BenchmarkSearch reports the p50 and p99 latency of a search over 10,000
// chunks of dimension 512 in a Milvus collection (RAG_MILVUS_ADDR), K = 20,
// filtered by kbScope, and the upsert throughput of loading them:
//
//	. .ragbaseline/services.env
//	go test -run '^$' -bench . -benchtime 200x ./internal/kb/index/milvus/
func BenchmarkSearch(b *testing.B) {
	addr := milvusAddr(b)
	const n, dim = 10_000, 512
	ctx := context.Background()
	ix := openTest(b, addr)
	defer ix.Close()
	if err := ix.Ensure(ctx, dim); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 3000)
	for i := range words {
		w := make([]byte, 3+r.IntN(8))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		words[i] = string(w)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(words)-1))
	text := func(k int) string {
		var sb strings.Builder
		for i := range k {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[zipf.Uint64()])
		}
		return sb.String()
	}
	vector := func() []float32 {
		v := make([]float32, dim)
		var s float64
		for i := range v {
			x := r.NormFloat64()
			v[i], s = float32(x), s+x*x
		}
		for i := range v {
			v[i] = float32(float64(v[i]) / math.Sqrt(s))
		}
		return v
	}
	chunks := make([]kb.Chunk, n)
	for i := range chunks {
		doc := fmt.Sprintf("bench/doc%05d", i/5)
		chunks[i] = kb.Chunk{EvidenceKey: kb.EvidenceKey(doc, strconv.Itoa(i%5), 1, 1), DocID: doc, Source: doc, KBScope: "bench",
			Category: fmt.Sprintf("cat%d", i%8), ChunkIndex: i % 5, Text: text(80 + r.IntN(80)), Vector: vector()}
	}
	start := time.Now()
	if err := ix.Upsert(ctx, chunks); err != nil {
		b.Fatal(err)
	}
	b.Logf("upsert of %d chunks: %s (%.0f chunks/s)", n, time.Since(start).Round(time.Millisecond), float64(n)/time.Since(start).Seconds())
	for _, mode := range []kb.SearchMode{kb.Dense, kb.Hybrid} {
		b.Run(fmt.Sprintf("%s/n=%d", mode, n), func(b *testing.B) {
			reqs := make([]kb.SearchRequest, 64)
			for i := range reqs {
				reqs[i] = kb.SearchRequest{Mode: mode, Vector: vector(), Text: text(6), Filter: kb.Filter{KBScope: "bench"}, K: 20}
			}
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				hits, err := ix.Search(ctx, reqs[i%len(reqs)])
				lat = append(lat, time.Since(t0))
				if err != nil || len(hits) != 20 {
					b.Fatalf("Search: %d hits, %v", len(hits), err)
				}
			}
			slices.Sort(lat)
			pct := func(p float64) float64 {
				return float64(lat[max(0, int(math.Ceil(p*float64(len(lat))))-1)].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
		})
	}
}
