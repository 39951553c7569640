package mapped

// The shipped configs end to end against the real servers of `make
// ext-services` (docs/external-servers.md): each test loads the shipped
// corpus into its server under a name of its own (internal/testkit/exttest),
// snapshots the shipped eval set through the shipped config into a
// temporary directory with snapshot.Run, judges it, and compares it with
// the builtin pipeline's committed fixtures. Without a server's URL the
// test is skipped, or fails with RAG_REQUIRE_EXT_SERVICES=1 (CI).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/local"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
	"github.com/ragbaseline/ragbaseline/internal/testkit/exttest"
)

// builtinFixtures are the builtin pipeline's committed fixtures of the
// shipped eval set (hybrid), the comparison's left side.
var builtinFixtures = filepath.Join("..", "..", "..", "eval", "rag-retrieval", "fixtures")

// Pass floors of the shipped configs on the shipped eval set (77 cases on
// 2026-12-01), a few cases below what was measured then (in parentheses),
// so that a regression of the configs, the mapping or the judge fails while
// the approximate indexes' small variations do not.
const (
	floorWeaviate = 68 // (71) hybrid, maxVectorDistance 0.84
	floorChroma   = 64 // (67) dense, exact on this corpus
	floorOSKNN    = 64 // (67) k-NN, k 100: the exact neighbours
	floorOSBM25   = 48 // (51)
	floorOSHybrid = 48 // (51) bool of match + knn: ranks like BM25
)

// builtinOnly are the checks on the builtin pipeline's own steps, which a
// mapped pipeline declares it lacks: skipped, never passed, never failed.
var builtinOnly = map[string]func(*contract.Case) bool{
	judge.CheckSelectedAttempt: func(c *contract.Case) bool { return c.ExpectedSelectedAttempt != "" },
	judge.CheckFallbackReason:  (*contract.Case).UsesFallbackReason,
	judge.CheckContextSources:  func(c *contract.Case) bool { return len(c.ExpectedContextSources) > 0 },
	judge.CheckRerankTopSource: func(c *contract.Case) bool { return c.ExpectedRerankTopSource != "" },
}

func extContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func shippedCases(t testing.TB) *contract.GoldenFile {
	t.Helper()
	g, err := contract.LoadGolden(shippedGolden)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// checkShipped snapshots the shipped eval set through the shipped config
// with env, judges it and compares it with the builtin pipeline, failing
// unless every case has a fixture, the builtin pipeline's checks are
// skipped (and no other), at least floor cases pass, and the comparison
// runs. It returns the judgement.
func checkShipped(t *testing.T, config string, env map[string]string, c *exttest.Corpus, floor int) *judge.Result {
	t.Helper()
	g := shippedCases(t)
	dir := filepath.Join(t.TempDir(), "fixtures")
	sum, res, err := endToEnd{Config: shipped(config), Env: env, Embed: c.Embedder, Dir: dir}.run(t)
	if err != nil {
		t.Fatalf("%s: %v", config, err)
	}
	// Empty: at most the off-topic questions find nothing.
	offTopic := 0
	for i := range g.Cases {
		gc := &g.Cases[i]
		if gc.ExpectedFound != nil && !*gc.ExpectedFound || gc.ExpectedEvidenceStatus == contract.EvidenceNone || slices.Contains(gc.ExpectedEvidenceStatuses, contract.EvidenceNone) {
			offTopic++
		}
	}
	if sum.Written != len(g.Cases) {
		t.Errorf("%s: %d written, want all %d cases", config, sum.Written, len(g.Cases))
	}
	if sum.Failed != 0 {
		t.Errorf("%s: %d failed, want 0", config, sum.Failed)
	}
	if sum.Empty > offTopic {
		t.Errorf("%s: %d empty, want at most the %d off-topic cases", config, sum.Empty, offTopic)
	}
	for i := range g.Cases {
		if _, err := os.Stat(judge.FixturePath(dir, g.Cases[i].CaseID)); err != nil {
			t.Errorf("%s: %v", config, err)
		}
	}
	m, err := contract.ReadManifest(dir)
	if err != nil {
		t.Fatalf("%s: manifest: %v", config, err)
	}
	if m.Pipeline == nil || m.Pipeline.Name != "mapped" {
		t.Fatalf("%s: manifest pipeline %+v, want mapped", config, m.Pipeline)
	}
	if m.Written != len(g.Cases) {
		t.Fatalf("%s: manifest written %d, want %d", config, m.Written, len(g.Cases))
	}

	// The builtin pipeline's checks: skipped with the reason, as often as
	// the golden cases declare them; every other check judged.
	want := map[string]int{}
	for i := range g.Cases {
		for name, declares := range builtinOnly {
			if declares(&g.Cases[i]) {
				want[name]++
			}
		}
	}
	got := map[string]int{}
	pass := 0
	for _, cr := range res.Cases {
		if cr.Status == judge.StatusPass {
			pass++
		}
		if cr.Status != judge.StatusPass && cr.Status != judge.StatusFail {
			t.Errorf("%s: case %s is %s", config, cr.CaseID, cr.Status)
		}
		for _, ch := range cr.Checks {
			if _, only := builtinOnly[ch.Name]; !only {
				if ch.Skipped {
					t.Errorf("%s: case %s: check %s skipped: %s", config, cr.CaseID, ch.Name, *ch.Message)
				}
				continue
			}
			got[ch.Name]++
			if !ch.Skipped || ch.Passed {
				t.Errorf("%s: case %s: check %s: skipped %v, passed %v; want skipped, not passed", config, cr.CaseID, ch.Name, ch.Skipped, ch.Passed)
			}
			if want := judge.SkipReason(judge.Needs(ch.Name)); ch.Message == nil || *ch.Message != want {
				t.Errorf("%s: case %s: check %s: message %v, want %q", config, cr.CaseID, ch.Name, ch.Message, want)
			}
		}
	}
	for name := range builtinOnly {
		if got[name] != want[name] || want[name] == 0 {
			t.Errorf("%s: %s skipped %d times, the golden cases declare it %d times", config, name, got[name], want[name])
		}
	}
	s := judge.Summarize(ptrs(res.Cases))
	t.Logf("%s: %d of %d cases pass (floor %d), recall@5 %s, mrr %s, ndcg@5 %s, evidenceStatus %v",
		config, pass, len(g.Cases), floor, f6(s.RecallAtK), f6(s.MRR), f6(s.NDCGAtK), s.EvidenceStatus)
	if pass < floor {
		t.Errorf("%s: %d cases pass, below the floor %d", config, pass, floor)
	}
	if s.PassCount != pass {
		t.Errorf("%s: summary %d passed, want %d", config, s.PassCount, pass)
	}
	if n := want[judge.CheckSelectedAttempt] + want[judge.CheckFallbackReason] + want[judge.CheckContextSources] + want[judge.CheckRerankTopSource]; s.SkippedCheckCount() != n {
		t.Errorf("%s: summary %d checks skipped, want %d", config, s.SkippedCheckCount(), n)
	}
	compareWithBuiltin(t, g, config, dir, pass)
	return res
}

func f6(f *contract.Float6) string {
	if f == nil {
		return "null"
	}
	return strconv.FormatFloat(contract.Round6(float64(*f)), 'f', -1, 64)
}

func ptrs(cs []judge.CaseResult) []*judge.CaseResult {
	out := make([]*judge.CaseResult, len(cs))
	for i := range cs {
		out[i] = &cs[i]
	}
	return out
}

// compareWithBuiltin compares dir with the builtin pipeline's committed
// fixtures as rag-eval compare --baseline builtin does, and checks the
// report says what the two judgements say.
func compareWithBuiltin(t *testing.T, g *contract.GoldenFile, name, dir string, pass int) {
	t.Helper()
	builtin, err := compare.LoadSide("builtin", builtinFixtures, g, judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mapped, err := compare.LoadSide(name, dir, g, judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(shippedGolden)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	rep := compare.Build(compare.Inputs{Cases: shippedGolden, CasesSHA256: hex.EncodeToString(sum[:]), K: g.ReportK(0)},
		[]compare.Side{builtin, mapped}, 0, 0)
	if len(rep.Sides) != 2 {
		t.Fatalf("%s: compare: %d sides, want 2", name, len(rep.Sides))
	}
	for i, side := range rep.Sides {
		if side.Status != compare.Available {
			t.Fatalf("%s: compare: side %d is %s, want %s", name, i, side.Status, compare.Available)
		}
	}
	if len(rep.Pairs) != 1 || rep.Pairs[0].A != name || rep.Pairs[0].B != "builtin" {
		t.Fatalf("%s: compare: pairs %+v, want only %s vs builtin", name, rep.Pairs, name)
	}
	if len(rep.Cases) != len(g.Cases) {
		t.Fatalf("%s: compare: %d cases, want %d", name, len(rep.Cases), len(g.Cases))
	}
	if n := rep.Sides[0].Summary.PassCount; n != len(g.Cases) {
		t.Errorf("%s: compare: builtin passes %d, want all %d", name, n, len(g.Cases))
	}
	if n := rep.Sides[1].Summary.PassCount; n != pass {
		t.Errorf("%s: compare: mapped passes %d, want %d as judged", name, n, pass)
	}
	expectDocs := 0
	for i := range g.Cases {
		if g.Cases[i].UsesExpectedDocs() {
			expectDocs++
		}
	}
	for _, m := range rep.Pairs[0].Metrics {
		if m.Name == compare.MetricRecallAtK && (m.Pairs != expectDocs || m.A == nil || m.B == nil) {
			t.Errorf("%s: compare: recallAtK %d pairs, want %d", name, m.Pairs, expectDocs)
		}
	}
	// The mapped side has no retrieval trace: the selected attempt differs
	// wherever the builtin pipeline records one.
	if sub, _ := rep.Differing(0); sub == 0 {
		t.Errorf("%s: compare: no case differs from the builtin pipeline", name)
	}
	var js, md bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), name) {
		t.Errorf("%s: compare: the Markdown report does not name the side %s", name, name)
	}
	if !strings.Contains(js.String(), `"name": "builtin"`) {
		t.Errorf("%s: compare: the JSON report does not name the side builtin", name)
	}
}

// proxy is a loopback reverse proxy in front of a real server: it records
// every request's headers, can require a header, and can die (close its
// listener and every connection) at the n-th request of a method, as a
// server process that is killed does.
type proxy struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
	paths   []string
	require [2]string // header name and value every request must carry; a 401 otherwise
	dieAt   int       // the dieMethod request that kills it; 0: never
	method  string
	count   int
	dead    bool
}

func newProxy(t *testing.T, target string) *proxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // requests cut off when it dies
	p := &proxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.headers = append(p.headers, r.Header.Clone())
		p.paths = append(p.paths, r.Method+" "+r.URL.Path)
		if r.Method == p.method {
			p.count++
		}
		die := p.dead || (p.dieAt > 0 && r.Method == p.method && p.count >= p.dieAt)
		if die && !p.dead {
			p.dead = true
			p.Listener.Close()
			go p.CloseClientConnections()
		}
		need := p.require
		p.mu.Unlock()
		if die { // the request in flight is dropped unanswered
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		if need[0] != "" && r.Header.Get(need[0]) != need[1] {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error": [{"message": "unauthorized: wrong or missing ` + need[0] + `"}]}`))
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *proxy) requests() ([]http.Header, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]http.Header(nil), p.headers...), append([]string(nil), p.paths...)
}

// TestWeaviateShipped: deploy/mapped/weaviate.yaml (hybrid) against the
// real Weaviate, then, against the same class: a header from the
// environment reaches the server and no file; the errors Weaviate answers
// with HTTP 200 (a query vector of the wrong dimension) fail every case and
// write nothing; a class that does not exist stops the run before any case.
func TestWeaviateShipped(t *testing.T) {
	server := exttest.WeaviateURL(t)
	c := exttest.Shipped(t)
	w := &exttest.Weaviate{URL: server, Class: exttest.TestName(true)}
	exttest.LoadForTest(t, extContext(t), w, "class "+w.Class, c.Chunks)
	env := map[string]string{"WEAVIATE_URL": server, "WEAVIATE_CLASS": w.Class}
	res := checkShipped(t, "weaviate.yaml", env, c, floorWeaviate)
	// maxVectorDistance: the off-topic questions find nothing.
	for _, cr := range res.Cases {
		if cr.Case.ExpectedFound != nil && !*cr.Case.ExpectedFound && (cr.EvidenceStatus == nil || *cr.EvidenceStatus != contract.EvidenceNone) {
			t.Errorf("off-topic case %s: evidenceStatus %v, want none", cr.CaseID, cr.EvidenceStatus)
		}
	}

	t.Run("header from the environment", func(t *testing.T) {
		const key = "wv-key-5c1e93a7d0b24f68"
		p := newProxy(t, server)
		p.require = [2]string{"X-Api-Key", key}
		data, err := os.ReadFile(shipped("weaviate.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		cfg := writeConfig(t, string(data)+"\nheaders:\n  X-Api-Key: ${RAG_TEST_WEAVIATE_KEY}\n")
		dir := filepath.Join(t.TempDir(), "fixtures")
		env := map[string]string{"WEAVIATE_URL": p.URL, "WEAVIATE_CLASS": w.Class, "RAG_TEST_WEAVIATE_KEY": key}
		sum, res, err := endToEnd{Config: cfg, Env: env, Golden: twoCases(t), Dir: dir, Embed: c.Embedder}.run(t)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Written != 2 {
			t.Errorf("written %d, want 2", sum.Written)
		}
		for i, c := range res.Cases {
			if c.Status != judge.StatusPass {
				t.Errorf("case %d is %s, want %s", i, c.Status, judge.StatusPass)
			}
		}
		headers, paths := p.requests()
		if len(headers) != 3 || paths[0] != "GET /v1/schema/"+w.Class {
			t.Errorf("want the setup and two lookups, got %v", paths)
		}
		for i, h := range headers {
			if h.Get("X-Api-Key") != key {
				t.Errorf("request %d (%s) carried X-Api-Key %q", i+1, paths[i], h.Get("X-Api-Key"))
			}
		}
		checkNoSecret(t, dir, []string{key, strings.TrimPrefix(p.URL, "http://")})

		// A wrong key: the setup step is refused, nothing is written, and
		// the message names the variable, not the key.
		const wrong = "wv-key-0000wrong0000"
		env["RAG_TEST_WEAVIATE_KEY"] = wrong
		dir2 := filepath.Join(t.TempDir(), "fixtures")
		_, _, err = endToEnd{Config: cfg, Env: env, Golden: twoCases(t), Dir: dir2, Embed: c.Embedder}.run(t)
		if err == nil || !strings.Contains(err.Error(), "GET ${WEAVIATE_URL}/v1/schema/${WEAVIATE_CLASS:-RagChunk}: 401 Unauthorized: unauthorized") ||
			strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), p.URL) {
			t.Errorf("got %v", err)
		}
		if _, err := os.Stat(dir2); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the fixture directory was created: %v", err)
		}
	})

	t.Run("error answered with 200", func(t *testing.T) {
		// The class holds 512-dimension vectors; local-hash-v1 at 256
		// dimensions sends a query vector Weaviate cannot compare.
		emb, err := local.New(256)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "fixtures")
		_, _, err = endToEnd{Config: shipped("weaviate.yaml"), Env: env, Golden: twoCases(t), Dir: dir, Embed: emb}.run(t)
		var fe *snapshot.FailedError
		if !errors.As(err, &fe) || len(fe.Failures) != 2 {
			t.Fatalf("got %v", err)
		}
		for _, f := range fe.Failures {
			if want := "POST ${WEAVIATE_URL}/v1/graphql: the service answered 200 with an error: explorer: get class: vector search:"; !strings.HasPrefix(f.Error, want) {
				t.Errorf("%s: %s\nwant it to start %s", f.CaseID, f.Error, want)
			}
			if !strings.Contains(f.Error, "512 vs 256: vector lengths don't match") {
				t.Errorf("%s: %s\nwant it to say 512 vs 256: vector lengths don't match", f.CaseID, f.Error)
			}
			if strings.Contains(f.Error, server) {
				t.Errorf("%s: %s names the server's address", f.CaseID, f.Error)
			}
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the fixture directory was created: %v", err)
		}
	})

	t.Run("class that does not exist", func(t *testing.T) {
		missing := map[string]string{"WEAVIATE_URL": server, "WEAVIATE_CLASS": w.Class + "Missing"}
		dir := filepath.Join(t.TempDir(), "fixtures")
		_, _, err := endToEnd{Config: shipped("weaviate.yaml"), Env: missing, Golden: twoCases(t), Dir: dir, Embed: c.Embedder}.run(t)
		want := "pipeline health check failed; nothing was written: ../../../deploy/mapped/weaviate.yaml: setup[0] (class): GET ${WEAVIATE_URL}/v1/schema/${WEAVIATE_CLASS:-RagChunk}: 404 Not Found"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("got  %v\nwant %s…", err, want)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the fixture directory was created: %v", err)
		}
	})
}

// TestChromaShipped: deploy/mapped/chroma.yaml against the real Chroma;
// then Chroma dies in the middle of a second snapshot into the same
// directory, which stays as the first one left it.
func TestChromaShipped(t *testing.T) {
	server := exttest.ChromaURL(t)
	c := exttest.Shipped(t)
	ch := &exttest.Chroma{URL: server, Collection: exttest.TestName(false)}
	exttest.LoadForTest(t, extContext(t), ch, "collection "+ch.Collection, c.Chunks)
	env := map[string]string{"CHROMA_URL": server, "CHROMA_COLLECTION": ch.Collection}
	checkShipped(t, "chroma.yaml", env, c, floorChroma)

	t.Run("server dies mid-snapshot", func(t *testing.T) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "fixtures")
		if _, _, err := (endToEnd{Config: shipped("chroma.yaml"), Env: env, Embed: c.Embedder, Dir: dir}).run(t); err != nil {
			t.Fatal(err)
		}
		before := snapshotDir(t, dir)

		// Top 3 instead of 5: every fixture would change. The server dies
		// at the 20th query: that one is dropped, nothing answers after.
		p := newProxy(t, server)
		p.method, p.dieAt = http.MethodPost, 20
		penv := map[string]string{"CHROMA_URL": p.URL, "CHROMA_COLLECTION": ch.Collection}
		sum, _, err := endToEnd{Config: shipped("chroma.yaml"), Env: penv, Embed: c.Embedder, Dir: dir, TopK: 3, Retries: 1}.run(t)
		var fe *snapshot.FailedError
		if !errors.As(err, &fe) {
			t.Fatalf("got %v, want a *snapshot.FailedError", err)
		}
		if sum == nil {
			t.Fatal("no summary")
		}
		if sum.Moved {
			t.Fatal("summary Moved: the fixtures were moved in after a failure")
		}
		_, paths := p.requests()
		t.Logf("%d requests reached the proxy; %d cases failed, the first: %s: %s", len(paths), len(fe.Failures), fe.Failures[0].CaseID, fe.Failures[0].Error)
		if len(fe.Failures) < sum.Cases-20 {
			t.Errorf("%d failures", len(fe.Failures))
		}
		for _, f := range fe.Failures {
			if strings.Contains(f.Error, p.URL) || strings.Contains(f.Error, strings.TrimPrefix(p.URL, "http://")) {
				t.Errorf("%s: the error names the server's address: %s", f.CaseID, f.Error)
			}
		}
		if after := snapshotDir(t, dir); after != before {
			t.Error("the fixture directory changed")
		}
		entries, err := os.ReadDir(parent)
		if err != nil || len(entries) != 1 {
			t.Errorf("left beside the fixtures: %v %v", entries, err)
		}
	})
}

// TestOpenSearchShipped: deploy/mapped/opensearch-knn.yaml, -bm25.yaml
// and -hybrid.yaml against the real OpenSearch, one index for the three.
func TestOpenSearchShipped(t *testing.T) {
	server := exttest.OpenSearchURL(t)
	c := exttest.Shipped(t)
	o := &exttest.OpenSearch{URL: server, Index: exttest.TestName(false)}
	exttest.LoadForTest(t, extContext(t), o, "index "+o.Index, c.Chunks)
	env := map[string]string{"OPENSEARCH_URL": server, "OPENSEARCH_INDEX": o.Index}
	for _, tc := range []struct {
		config string
		floor  int
	}{
		{"opensearch-knn.yaml", floorOSKNN},
		{"opensearch-bm25.yaml", floorOSBM25},
		{"opensearch-hybrid.yaml", floorOSHybrid},
	} {
		checkShipped(t, tc.config, env, c, tc.floor)
	}
}
