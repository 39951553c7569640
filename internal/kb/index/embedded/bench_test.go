package embedded

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Benchmarks of the README figures:
//
//	go test -run '^$' -bench . -benchtime 200x ./internal/kb/index/embedded/
//
// BenchmarkSearch reports, as p50-ms and p99-ms, the p50 and p99 latency of
// one search over n chunks of dimension 512 with K = 20. All chunks are in
// the filtered kbScope, so every chunk is scored.

const benchDim = 512

// benchVocab is a vocabulary of English-like words and Chinese words, so
// BM25 postings have a realistic spread of lengths (Zipf-distributed).
var benchVocab = func() []string {
	r := rand.New(rand.NewPCG(1, 2))
	zh := []rune("连接池耗尽排查步骤数据库慢查询索引主从复制延迟缓存穿透雪崩磁盘空间告警日志轮转内存泄漏线程死锁超时重试熔断限流网关证书过期域名解析")
	var out []string
	for i := range 4000 {
		if i%5 == 4 {
			n := 2 + r.IntN(3)
			var b strings.Builder
			for range n {
				b.WriteRune(zh[r.IntN(len(zh))])
			}
			out = append(out, b.String())
			continue
		}
		n := 3 + r.IntN(8)
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		out = append(out, string(b))
	}
	return out
}()

type benchCorpus struct {
	chunks []kb.Chunk
	zipf   *rand.Zipf
	r      *rand.Rand
}

func newBenchCorpus(n int, seed uint64) *benchCorpus {
	r := rand.New(rand.NewPCG(seed, 7))
	c := &benchCorpus{r: r, zipf: rand.NewZipf(r, 1.1, 1, uint64(len(benchVocab)-1))}
	c.chunks = make([]kb.Chunk, n)
	for i := range c.chunks {
		doc := fmt.Sprintf("bench/doc%06d", i/5)
		c.chunks[i] = kb.Chunk{
			EvidenceKey: kb.EvidenceKey(doc, strconv.Itoa(i%5), 1, 1),
			DocID:       doc,
			Source:      fmt.Sprintf("doc%06d", i/5),
			Title:       "Bench document",
			Breadcrumb:  "Bench > Section",
			Category:    fmt.Sprintf("cat%d", i%8),
			KBScope:     "bench",
			ChunkIndex:  i % 5,
			Text:        c.text(80 + r.IntN(80)),
			Vector:      c.vector(),
		}
	}
	return c
}

func (c *benchCorpus) text(words int) string {
	var b strings.Builder
	for i := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchVocab[c.zipf.Uint64()])
	}
	return b.String()
}

func (c *benchCorpus) vector() []float32 {
	v := make([]float32, benchDim)
	var n float64
	for i := range v {
		x := c.r.NormFloat64()
		v[i] = float32(x)
		n += x * x
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

var (
	benchMu      sync.Mutex
	benchIndexes = map[int]*Index{}
)

// benchIndex returns an index of n chunks, built once per process.
func benchIndex(b *testing.B, n int) *Index {
	benchMu.Lock()
	defer benchMu.Unlock()
	if ix, ok := benchIndexes[n]; ok {
		return ix
	}
	dir, err := mkdirTemp()
	if err != nil {
		b.Fatal(err)
	}
	ix, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := ix.Ensure(ctx, benchDim); err != nil {
		b.Fatal(err)
	}
	corpus := newBenchCorpus(n, uint64(n))
	for start := 0; start < n; start += 5000 {
		if err := ix.Upsert(ctx, corpus.chunks[start:min(n, start+5000)]); err != nil {
			b.Fatal(err)
		}
	}
	benchIndexes[n] = ix
	return ix
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, mode := range []kb.SearchMode{kb.Dense, kb.Hybrid} {
			b.Run(fmt.Sprintf("%s/n=%d", mode, n), func(b *testing.B) {
				ix := benchIndex(b, n)
				q := newBenchCorpus(0, 99)
				reqs := make([]kb.SearchRequest, 64)
				for i := range reqs {
					reqs[i] = kb.SearchRequest{Mode: mode, Vector: q.vector(), Text: q.text(6),
						Filter: kb.Filter{KBScope: "bench"}, K: 20}
				}
				ctx := context.Background()
				lat := make([]time.Duration, 0, b.N)
				for i := 0; b.Loop(); i++ {
					start := time.Now()
					hits, err := ix.Search(ctx, reqs[i%len(reqs)])
					lat = append(lat, time.Since(start))
					if err != nil || len(hits) != 20 {
						b.Fatalf("Search: %d hits, %v", len(hits), err)
					}
				}
				reportPercentiles(b, lat)
			})
		}
	}
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(lat)))) - 1
		return float64(lat[max(0, i)].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkUpsert measures write throughput (tokenising, logging with one
// fsync per call, indexing) in chunks per second, for a document-sized
// batch and a large batch.
func BenchmarkUpsert(b *testing.B) {
	corpus := newBenchCorpus(20_000, 3)
	for _, batch := range []int{5, 100, 1000} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			ix, err := Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			ctx := context.Background()
			if err := ix.Ensure(ctx, benchDim); err != nil {
				b.Fatal(err)
			}
			written := 0
			start := time.Now()
			for i := 0; b.Loop(); i++ {
				off := (i * batch) % (len(corpus.chunks) - batch)
				if err := ix.Upsert(ctx, corpus.chunks[off:off+batch]); err != nil {
					b.Fatal(err)
				}
				written += batch
			}
			b.ReportMetric(float64(written)/time.Since(start).Seconds(), "chunks/s")
		})
	}
}

// BenchmarkOpen measures loading a closed (compacted) index of 10,000
// chunks.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	ix, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ix.Ensure(ctx, benchDim)
	if err := ix.Upsert(ctx, newBenchCorpus(10_000, 5).chunks); err != nil {
		b.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ix, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}

// mkdirTemp makes a directory for an index shared by several benchmarks
// (b.TempDir would remove it after the first).
func mkdirTemp() (string, error) { return os.MkdirTemp("", "embedded-bench-*") }
