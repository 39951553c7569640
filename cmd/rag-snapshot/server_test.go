package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
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
		"--milvus-collection", cfg.MilvusCollection, "--data-dir", cfg.DataDir, "--embedder", cfg.Embedder}
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
		for _, want := range []string{`"store": "server"`, fmt.Sprintf("\"searchMode\": %q", mode)} {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s fixture lacks %s:\n%s", mode, want, data)
			}
		}
	}
}

// TestMilvusDiesMidSnapshot reaches Milvus through a TCP proxy and cuts
// its listener and connections a few cases into a snapshot. The lookups
// fail after their retries, and the fixture directory is left as it was,
// though with --top-k 3 every fixture would have changed. The shared
// Milvus itself is never stopped.
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
	b, err := config.OpenBuiltin(context.Background(), cfg, "rag-eval", kb.FusionAnchored)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := snapshot.Options{Cases: g, FixturesDir: dir, Lookuper: b.Pipeline, Concurrency: 2, Timeout: 3 * time.Second, Backoff: 50 * time.Millisecond}
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

// startServe runs rag-snapshot serve with args on a free loopback port.
// Unless args give a store, it serves an embedded store seeded with the
// shipped corpus. It returns the base URL, the stderr, and a stop function
// that cancels serve, as SIGINT does, and returns its exit code.
func startServe(t *testing.T, args ...string) (base string, stderr *kbtest.SyncBuffer, stop func() int) {
	t.Helper()
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
	t.Setenv("RAG_EMBEDDER", "local") // as seed seeds
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(args, "--store") {
		dataDir := t.TempDir()
		if _, err := seed("../../eval/rag-retrieval/seed-docs", dataDir); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--data-dir", dataDir)
	}
	stderr = &kbtest.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- int(run(ctx, append([]string{"serve", "--addr", addr}, args...), io.Discard, stderr)) }()
	base = "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("serve exited %d before answering: %s", code, stderr)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not answer within 20s: %v\n%s", err, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var once sync.Once
	code := -1
	stop = func() int {
		once.Do(func() { cancel(); code = <-done })
		return code
	}
	t.Cleanup(func() { stop() })
	return base, stderr, stop
}

// postLookup posts body to base's /v1/lookup with the Content-Type ct,
// none when it is empty, and returns the status and the {"error": …}
// message.
func postLookup(t *testing.T, base, ct, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/v1/lookup", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error string `json:"error"`
	}
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		if err := json.Unmarshal(data, &e); err != nil {
			t.Errorf("%d body is not JSON: %.200s", resp.StatusCode, data)
		}
	}
	return resp.StatusCode, e.Error
}

// TestServeBadRequests sends rag-snapshot serve, on the real pipeline and
// embedded store, the bad requests of the reliability issue: each is a 4xx
// naming the problem, none reaches the log, and serve keeps answering.
func TestServeBadRequests(t *testing.T) {
	base, stderr, stop := startServe(t)
	const js = "application/json"
	hugeQuery := strings.Repeat("x", 1_000_000)
	tests := []struct {
		name, ct, body string
		status         int
		msg            string
	}{
		{"kbScope with a line break", js, `{"query":"连接池满了","kbScope":"rag\neval"}`, 400, `kbScope "rag\neval" is not a kb scope: it must start with a letter or digit`},
		{"kbScope with a path", js, `{"query":"连接池满了","kbScope":"../rag-eval"}`, 400, `kbScope "../rag-eval" is not a kb scope`},
		{"kbScope with a quote", js, `{"query":"连接池满了","kbScope":"rag-eval\" || true"}`, 400, `kbScope "rag-eval\" || true" is not a kb scope`},
		{"1 MB query", js, `{"query":"` + hugeQuery + `","kbScope":"rag-eval"}`, 400, "query longer than 4096 characters"},
		{"text/plain", "text/plain", `{"query":"连接池满了","kbScope":"rag-eval"}`, 415, "Content-Type must be application/json, got text/plain"},
		{"form", "application/x-www-form-urlencoded", `{"query":"连接池满了","kbScope":"rag-eval"}`, 415, "Content-Type must be application/json"},
		{"no Content-Type", "", `{"query":"连接池满了","kbScope":"rag-eval"}`, 415, "Content-Type must be application/json, got none"},
		{"unknown field", js, `{"query":"q","kbScope":"rag-eval","top_k":3}`, 400, `unknown field "top_k"`},
		{"topK too large", js, `{"query":"q","kbScope":"rag-eval","topK":1001}`, 400, "topK must be between 1 and"},
		{"too large", js, `{"query":"` + strings.Repeat("x", 2<<20) + `"}`, 413, "request body larger than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, msg := postLookup(t, base, tt.ct, tt.body)
			if status != tt.status || !strings.Contains(msg, tt.msg) {
				t.Errorf("got %d %q, want %d containing %q", status, msg, tt.status, tt.msg)
			}
		})
	}
	// A good request, with a charset, still works after all that.
	if status, msg := postLookup(t, base, "application/json; charset=utf-8", `{"query":"连接池满了","kbScope":"rag-eval"}`); status != 200 {
		t.Errorf("good request: %d %s", status, msg)
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exited %d", code)
	}
	// Client errors are answered, not logged: serve's stderr has its start
	// and stop lines only.
	for line := range strings.Lines(stderr.String()) {
		if !strings.HasPrefix(line, "rag-snapshot: serving ") && line != "rag-snapshot: shutting down\n" {
			t.Errorf("unexpected log line (%d bytes): %.300s", len(line), line)
		}
	}
}

// TestServeKBScopeRule: serve refuses a request's kbScope exactly when
// rag-seed and serve itself would refuse it as --kb-scope. So no kbScope a
// store can hold is refused, and no other reaches the pipeline.
func TestServeKBScopeRule(t *testing.T) {
	base, _, stop := startServe(t)
	defer stop()
	for _, s := range []string{
		"rag-eval", "rag_eval", "rag.eval", "R2", "0", "a..b", "a-", "a_.-z",
		strings.Repeat("k", 255), strings.Repeat("k", 256), "-rag", ".rag", "_rag", "rag eval", "rag\neval", "rag\teval", "rag/eval", "../rag", "rag\x00",
		"rag\"eval", "rag'eval", "rag=eval", "连接池", "raǵ", "rag-eval\n", " rag", "rag\\eval",
	} {
		seedErr := config.ValidKBScope(s)
		status, msg := postLookup(t, base, "application/json", `{"query":"q","kbScope":`+strconv.Quote(s)+`}`)
		if served := status != http.StatusBadRequest; served != (seedErr == nil) {
			t.Errorf("kbScope %q: serve answers %d %s; rag-seed --kb-scope: %v", s, status, msg, seedErr)
		}
	}
}

// TestServeLogsFailures: a lookup over --timeout is a 504 logged on one
// short line, however long the query.
func TestServeLogsFailures(t *testing.T) {
	base, stderr, stop := startServe(t, "--timeout", "1ns")
	query := "line one\nline two " + strings.Repeat("连", 4000)
	body, _ := json.Marshal(map[string]string{"query": query, "kbScope": "rag-eval"})
	status, msg := postLookup(t, base, "application/json", string(body))
	if status != http.StatusGatewayTimeout || !strings.Contains(msg, "lookup did not finish within 1ns") {
		t.Fatalf("got %d %q, want 504", status, msg)
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exited %d", code)
	}
	var lines []string
	for line := range strings.Lines(stderr.String()) {
		if strings.Contains(line, "/v1/lookup") && !strings.HasPrefix(line, "rag-snapshot: serving ") {
			lines = append(lines, line)
		}
	}
	want := fmt.Sprintf(`(query "line one\nline two %s"…, %d bytes; kbScope "rag-eval")`+"\n", strings.Repeat("连", 64-18), len(query))
	if len(lines) != 1 || len(lines[0]) > 600 || !strings.Contains(lines[0], "/v1/lookup 504: lookup did not finish within 1ns") || !strings.HasSuffix(lines[0], want) {
		t.Errorf("want one line of at most 600 bytes ending %s, got:\n%s", want, strings.Join(lines, ""))
	}
}

// TestServerServeBadKBScope: on MariaDB + Milvus, a kbScope that would end
// up in a Milvus filter expression or an SQL parameter with a line break or
// a quote is refused with 400 before it reaches them.
func TestServerServeBadKBScope(t *testing.T) {
	cfg := serverConfig(t)
	seedConfig(t, cfg, "../../eval/rag-retrieval/seed-docs")
	base, stderr, stop := startServe(t, serverFlags(cfg)...)
	for _, scope := range []string{"rag\neval", "rag-eval\n", `rag-eval" || kb_scope != "`, "rag-eval'; --"} {
		body, _ := json.Marshal(map[string]string{"query": "连接池满了", "kbScope": scope})
		status, msg := postLookup(t, base, "application/json", string(body))
		if want := "kbScope " + strconv.Quote(scope) + " is not a kb scope"; status != 400 || !strings.HasPrefix(msg, want) {
			t.Errorf("kbScope %q: got %d %q, want 400 %q", scope, status, msg, want)
		}
	}
	if status, msg := postLookup(t, base, "application/json", `{"query":"连接池满了","kbScope":"rag-eval"}`); status != 200 {
		t.Errorf("good request: %d %s", status, msg)
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exited %d", code)
	}
	if strings.Contains(stderr.String(), "/v1/lookup ") {
		t.Errorf("4xx logged:\n%s", stderr)
	}
}
