package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// BenchmarkSnapshot measures the wall time of a 1,000-case snapshot on the
// shipped corpus, eval/rag-retrieval/seed-docs, in the embedded store with
// the local embedder, at concurrency 1 and 8:
//
//	go test -run '^$' -bench Snapshot -benchtime 3x ./cmd/rag-snapshot/
//
// "first" writes 1,000 new fixtures into an empty directory. "rerun" runs
// again over them: every fixture is unchanged and nothing is written.
// "http" is "first" with the pipeline behind rag-snapshot serve's handler
// on a loopback server. The 1,000 queries are distinct: the golden queries
// of the shipped cases, each with a different extra word. So the embedding
// cache does not answer them within a run. It does across iterations, as
// it would for a real rerun. ms/snapshot is the figure to read.
func BenchmarkSnapshot(b *testing.B) {
	for _, k := range ragEnv {
		b.Setenv(k, "")
	}
	dataDir := b.TempDir()
	if _, err := seed("../../eval/rag-retrieval/seed-docs", dataDir); err != nil {
		b.Fatal(err)
	}
	shipped, err := contract.LoadGolden("../../eval/rag-retrieval/cases/golden-cases.json")
	if err != nil {
		b.Fatal(err)
	}
	g := &contract.GoldenFile{Version: 1, KBScope: "rag-eval", K: 5}
	words := strings.Fields("pool disk cert gateway redis memory slow query log rotation timeout inode latency replica index")
	for i := range 1000 {
		c := shipped.Cases[i%len(shipped.Cases)]
		c.CaseID = fmt.Sprintf("%s-%04d", c.CaseID, i)
		c.Query = fmt.Sprintf("%s %s %d", c.Query, words[i%len(words)], i)
		g.Cases = append(g.Cases, c)
	}

	cfg := config.Config{Store: config.StoreEmbedded, DataDir: dataDir, Embedder: config.EmbedderLocal,
		MilvusCollection: "rag_eval", Timeout: 30 * time.Second}
	builtin, err := config.OpenBuiltin(context.Background(), cfg, "rag-eval", kb.FusionAnchored)
	if err != nil {
		b.Fatal(err)
	}
	defer builtin.Close()
	p := builtin.Pipeline
	srv := httptest.NewServer(lookuphttp.NewHandler(p, lookuphttp.HandlerOptions{}))
	defer srv.Close()

	for _, variant := range []string{"first", "rerun", "http"} {
		for _, conc := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/concurrency=%d", variant, conc), func(b *testing.B) {
				var l pipeline.Lookuper = p
				if variant == "http" {
					l = &lookuphttp.Client{BaseURL: srv.URL, Timeout: 30 * time.Second}
				}
				opts := snapshot.Options{Cases: g, Lookuper: l, Concurrency: conc}
				dir := filepath.Join(b.TempDir(), "fixtures")
				if variant == "rerun" {
					opts.FixturesDir = dir
					if _, err := snapshot.Run(context.Background(), opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if variant != "rerun" {
						b.StopTimer()
						os.RemoveAll(dir)
						b.StartTimer()
					}
					opts.FixturesDir = dir
					sum, err := snapshot.Run(context.Background(), opts)
					if err != nil {
						b.Fatal(err)
					}
					if sum.Written != 1000 {
						b.Fatalf("%d written, want 1000", sum.Written)
					}
					unchanged := 0 // a fresh directory
					if variant == "rerun" {
						unchanged = 1000
					}
					if sum.Unchanged != unchanged {
						b.Fatalf("%d unchanged, want %d", sum.Unchanged, unchanged)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/snapshot")
			})
		}
	}
}
