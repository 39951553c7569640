package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kbtest"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// serverConfig returns a server-stack configuration on a fresh MySQL
// database and Milvus collection (make services), dropped after the test.
func serverConfig(t *testing.T) config.Config {
	t.Helper()
	addr := kbtest.ServiceEnv(t, "RAG_MILVUS_ADDR")
	coll := kbtest.RandomName("t_")
	t.Cleanup(func() {
		if ix, err := milvus.Open(context.Background(), milvus.Config{Addr: addr, Collection: coll}); err == nil {
			ix.Drop(context.Background())
			ix.Close()
		}
	})
	return config.Config{
		Store: config.StoreServer, DataDir: t.TempDir(), MySQLDSN: kbtest.FreshMySQL(t), MilvusAddr: addr,
		MilvusCollection: coll, RedisAddr: kbtest.ServiceEnv(t, "RAG_REDIS_ADDR"), Embedder: config.EmbedderLocal,
		Timeout: 30 * time.Second,
	}
}

func seedConfig(t *testing.T, cfg config.Config, docs string) {
	t.Helper()
	ctx := context.Background()
	stack, err := config.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer stack.Close()
	ds, err := corpus.LoadDir(docs, "rag-eval")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Seed(ctx, ds, ingest.Backends{Catalog: stack.Catalog, Index: stack.Index, Embedder: stack.Embedder},
		ingest.Options{KBScope: "rag-eval", Chunk: corpus.ChunkOptions{MaxChars: corpus.DefaultMaxChars, Overlap: corpus.DefaultOverlap}}); err != nil {
		t.Fatal(err)
	}
}

func serverFlags(cfg config.Config) []string {
	f := []string{"--store", "server", "--mysql-dsn", cfg.MySQLDSN, "--milvus-addr", cfg.MilvusAddr,
		"--milvus-collection", cfg.MilvusCollection, "--data-dir", cfg.DataDir}
	if cfg.RedisAddr != "" {
		f = append(f, "--redis-addr", cfg.RedisAddr)
	}
	return f
}

// TestServerStack seeds the shipped corpus into MariaDB + Milvus (+ Redis)
// and snapshots it hybrid and dense, twice: the rerun changes nothing.
func TestServerStack(t *testing.T) {
	cfg := serverConfig(t)
	seedConfig(t, cfg, "../../eval/rag-retrieval/seed-docs")
	n := shippedCaseCount(t)
	for _, mode := range []string{"hybrid", "dense"} {
		fixtures := filepath.Join(t.TempDir(), "fixtures")
		args := append([]string{"--cases", "../../eval/rag-retrieval/cases/golden-cases.json", "--fixtures", fixtures,
			"--search-mode", mode}, serverFlags(cfg)...)
		for i, want := range []string{
			fmt.Sprintf(" %d written (%d changed, 0 unchanged), 0 failed", n, n),
			fmt.Sprintf(" %d written (0 changed, %d unchanged), 0 failed", n, n),
		} {
			var out, errb strings.Builder
			if code := run(context.Background(), args, &out, &errb); code != 0 {
				t.Fatalf("%s run %d: exit %d: %s", mode, i+1, code, errb.String())
			}
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s run %d: %q lacks %q", mode, i+1, out.String(), want)
			}
		}
		data, _ := os.ReadFile(filepath.Join(fixtures, "chat-mysql-pool.json"))
		if !strings.Contains(string(data), `"store": "server"`) || !strings.Contains(string(data), fmt.Sprintf("\"searchMode\": %q", mode)) {
			t.Errorf("%s fixture:\n%s", mode, data)
		}
	}
}

// TestMilvusDiesMidSnapshot reaches Milvus through a TCP proxy and cuts it
// (listener and connections) a few cases into a snapshot: the lookups fail
// after their retries and the fixture directory is left as it was, though
// every fixture would have changed (--top-k 3). The shared Milvus itself is
// never stopped.
func TestMilvusDiesMidSnapshot(t *testing.T) {
	cfg := serverConfig(t)
	seedConfig(t, cfg, "../../eval/rag-retrieval/seed-docs")
	proxy := kbtest.NewProxy(t, cfg.MilvusAddr)
	cfg.MilvusAddr = proxy.Addr()

	g := &contract.GoldenFile{Version: 1, KBScope: "rag-eval"}
	shipped, err := contract.LoadGolden("../../eval/rag-retrieval/cases/golden-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		c := shipped.Cases[i%len(shipped.Cases)]
		c.CaseID, c.Query = fmt.Sprintf("%s-%02d", c.CaseID, i), fmt.Sprintf("%s %d", c.Query, i)
		g.Cases = append(g.Cases, c)
	}
	p, stack, err := openBuiltin(context.Background(), cfg, "rag-eval")
	if err != nil {
		t.Fatal(err)
	}
	defer stack.Close()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := snapshot.Options{Cases: g, FixturesDir: dir, Lookuper: p, Concurrency: 2, Timeout: 3 * time.Second, Backoff: 50 * time.Millisecond}
	// The first run is through the proxy too, so the stack's connections
	// are the proxy's.
	if _, err := snapshot.Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	before := readDir(t, dir)

	opts.TopK = 3
	opts.Progress = func(done, total int) {
		if done == 10 {
			proxy.Cut()
		}
	}
	opts.Timeout, opts.Retries = time.Second, 1
	start := time.Now()
	sum, err := snapshot.Run(context.Background(), opts)
	var fe *snapshot.FailedError
	if !errors.As(err, &fe) || fe.Moved || sum.Moved {
		t.Fatalf("err %v, want failures and nothing moved", err)
	}
	last := fe.Failures[len(fe.Failures)-1].Error
	if len(fe.Failures) < 40 || !strings.HasPrefix(last, "not run: gave up after 5 lookups in a row failed") {
		t.Errorf("%d failures, the last %q; want at least 40, ending with the give-up", len(fe.Failures), last)
	}
	t.Logf("%d failures in %s, first: %s", len(fe.Failures), time.Since(start).Round(time.Millisecond), fe.Failures[0].Error)
	if after := readDir(t, dir); !maps.Equal(before, after) {
		t.Error("fixture dir changed by a snapshot whose Milvus died")
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := e.Info()
		m[e.Name()] = string(data) + fi.ModTime().String()
	}
	return m
}
