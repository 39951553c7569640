package lookuphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// fakePipeline answers every lookup with a result built from the request,
// records the requests, and can fail or stall.
type fakePipeline struct {
	mu    sync.Mutex
	reqs  []pipeline.Request
	err   error
	delay time.Duration
}

func (f *fakePipeline) Lookup(ctx context.Context, req pipeline.Request) (*contract.LookupResult, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(f.delay):
		}
	}
	if f.err != nil {
		return nil, f.err
	}
	return sampleResult(req.Query), nil
}

func (f *fakePipeline) Describe() contract.Pipeline {
	return contract.Pipeline{Name: "builtin", Version: "test", Store: "embedded", Embedder: "local-hash-v1", Dim: 512,
		Params: &contract.PipelineParams{TopK: 5, CandidateK: 20, LowQuality: 0.2, Rerank: "none", ContextBudget: 3000}}
}

func sampleResult(query string) *contract.LookupResult {
	reason := contract.FallbackLowQuality
	return &contract.LookupResult{
		Found:          true,
		EvidenceStatus: contract.EvidenceSufficient,
		EvidenceBlocks: []contract.EvidenceBlock{{
			Rank: 1, EvidenceKey: "rag-eval/pool#2", DocID: "rag-eval/pool", Source: "pool", Title: "连接池 <&>",
			Breadcrumb: "Database > Pool", Category: "database", ChunkIndex: 2, Excerpt: "excerpt of " + query,
			QualityScore: 0.8123456789, RelevanceLevel: contract.LevelHigh, DenseDistance: 0.61, FusedScore: 0.0325, ScoreLabel: "RRF",
		}},
		ContextPack: contract.ContextPack{Sources: []string{"pool"}, BlockCount: 1, UsedChars: 10, BudgetChars: 3000, PackedText: "x"},
		RetrievalTrace: contract.RetrievalTrace{
			SearchMode: "hybrid", KBScope: "rag-eval",
			L0Hints: contract.L0Hints{Categories: []string{"database"}, MatchedTerms: []string{"连接池"}, MatchedSources: []string{"pool"}},
			Attempts: []contract.Attempt{
				{Name: contract.AttemptFiltered, Filter: contract.Filter{KBScope: "rag-eval", Categories: []string{"database"}}, Candidates: 3, BestQuality: 0.1, LowQuality: true, LatencyMs: 4},
				{Name: contract.AttemptUnfilteredRetry, Filter: contract.Filter{KBScope: "rag-eval"}, Candidates: 7, BestQuality: 0.81, LatencyMs: 3},
			},
			SelectedAttempt: contract.AttemptUnfilteredRetry,
			FallbackReason:  &reason,
		},
		RerankTrace: contract.RerankTrace{Model: "none", InputOrder: []string{"rag-eval/pool#2"}, OutputOrder: []string{"rag-eval/pool#2"}, TopSource: "pool"},
	}
}

// encodeResult renders a result the way a fixture holds it.
func encodeResult(t *testing.T, lr *contract.LookupResult) string {
	t.Helper()
	b, err := contract.EncodeFixture(&contract.Fixture{CaseID: "c", Query: "q", LookupResult: lr})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRoundTrip(t *testing.T) {
	fp := &fakePipeline{}
	srv := httptest.NewServer(NewHandler(fp, HandlerOptions{}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Timeout: 5 * time.Second}

	req := pipeline.Request{Query: "连接池满了 <too many> & connections", KBScope: "rag-eval", SearchMode: kb.Dense, TopK: 3}
	got, err := c.Lookup(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(fp.reqs) != 1 || fp.reqs[0] != req {
		t.Errorf("pipeline got %+v, want [%+v]", fp.reqs, req)
	}
	if g, w := encodeResult(t, got), encodeResult(t, sampleResult(req.Query)); g != w {
		t.Errorf("round trip changed the result:\n got %s\nwant %s", g, w)
	}

	// Describe before and after the health check.
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	d := c.Describe()
	check("before Health: Describe().Name", d.Name, "http")
	check("before Health: Describe().Store", d.Store, srv.URL)
	check("before Health: Describe().Embedder", d.Embedder, "")
	if err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	d = c.Describe()
	check("after Health: Describe().Name", d.Name, "http")
	check("after Health: Describe().Store", d.Store, srv.URL)
	check("after Health: Describe().Version", d.Version, "builtin test")
	check("after Health: Describe().Embedder", d.Embedder, "local-hash-v1")
	check("after Health: Describe().Dim", d.Dim, 512)
	if d.Params == nil {
		t.Error("after Health: Describe().Params = nil")
	} else {
		check("after Health: Describe().Params.TopK", d.Params.TopK, 5)
	}

	// A base URL given with the endpoint path works too; an empty
	// searchMode means hybrid.
	c2 := &Client{BaseURL: srv.URL + "/v1/lookup"}
	if _, err := c2.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "s"}); err != nil {
		t.Fatal(err)
	}
	if m := fp.reqs[len(fp.reqs)-1].SearchMode; m != kb.Hybrid {
		t.Errorf("default searchMode = %q, want hybrid", m)
	}
}

// TestResponseShape pins the wire format: lists are [] not null, and the
// body is {"lookupResult": …}.
func TestResponseShape(t *testing.T) {
	empty := lookupFunc(func(context.Context, pipeline.Request) (*contract.LookupResult, error) {
		return &contract.LookupResult{EvidenceStatus: contract.EvidenceNone}, nil
	})
	srv := httptest.NewServer(NewHandler(empty, HandlerOptions{}))
	defer srv.Close()
	resp, err := http.Post(srv.URL+LookupPath, "application/json", strings.NewReader(`{"query":"q","kbScope":"s"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	if got := resp.Header.Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q, want application/json; charset=utf-8", got)
	}
	for _, want := range []string{`{"lookupResult":{"found":false,"evidenceStatus":"none","evidenceBlocks":[]`, `"sources":[]`, `"attempts":[]`, `"fallbackReason":null`, `"inputOrder":[]`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("body lacks %s:\n%s", want, body)
		}
	}
}

type lookupFunc func(context.Context, pipeline.Request) (*contract.LookupResult, error)

func (f lookupFunc) Lookup(ctx context.Context, r pipeline.Request) (*contract.LookupResult, error) {
	return f(ctx, r)
}
func (f lookupFunc) Describe() contract.Pipeline { return contract.Pipeline{Name: "func"} }

func TestHandlerErrors(t *testing.T) {
	fp := &fakePipeline{}
	srv := httptest.NewServer(NewHandler(fp, HandlerOptions{MaxTopK: 50}))
	defer srv.Close()
	big := `{"query":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `","kbScope":"s"}`
	long := strings.Repeat("é", 100_000)
	const js = "application/json"
	tests := []struct {
		name, method, path, body string
		status                   int
		msg                      string
		ct                       string // Content-Type; "-" none
	}{
		{"unknown field", "POST", LookupPath, `{"query":"q","kbScope":"s","topk":3}`, 400, `unknown field "topk"`, js},
		{"empty query", "POST", LookupPath, `{"query":"  ","kbScope":"s"}`, 400, "query must not be empty", js},
		{"no query", "POST", LookupPath, `{"kbScope":"s"}`, 400, "query must not be empty", js},
		{"bad search mode", "POST", LookupPath, `{"query":"q","kbScope":"s","searchMode":"sparse"}`, 400, `searchMode must be "hybrid" or "dense", got "sparse"`, js},
		{"negative topK", "POST", LookupPath, `{"query":"q","kbScope":"s","topK":-1}`, 400, "topK must be between 1 and 50", js},
		{"huge topK", "POST", LookupPath, `{"query":"q","kbScope":"s","topK":51}`, 400, "topK must be between 1 and 50", js},
		{"wrong type", "POST", LookupPath, `{"query":"q","kbScope":"s","topK":"5"}`, 400, "cannot unmarshal string", js},
		{"no kbScope", "POST", LookupPath, `{"query":"q"}`, 400, "kbScope must not be empty", js},
		{"trailing data", "POST", LookupPath, `{"query":"q","kbScope":"s"} {}`, 400, "data after the JSON object", js},
		{"not JSON", "POST", LookupPath, `query=q`, 400, "invalid request", js},
		{"empty body", "POST", LookupPath, ``, 400, "empty request body", js},
		{"bad UTF-8", "POST", LookupPath, "{\"query\":\"\xff\",\"kbScope\":\"s\"}", 400, "not valid UTF-8", js},
		{"too large", "POST", LookupPath, big, 413, "request body larger than 1048576 bytes", js},
		{"GET lookup", "GET", LookupPath, ``, 405, "method GET not allowed", js},
		{"POST health", "POST", HealthPath, `{}`, 405, "method POST not allowed", js},
		{"unknown path", "GET", "/v2/lookup", ``, 404, "no such endpoint /v2/lookup", js},

		// kbScope must be what rag-seed accepts as --kb-scope.
		{"kbScope with a line break", "POST", LookupPath, `{"query":"q","kbScope":"rag\neval"}`, 400, `kbScope "rag\neval" is not a kb scope: it must start with a letter or digit`, js},
		{"kbScope with a space", "POST", LookupPath, `{"query":"q","kbScope":"rag eval"}`, 400, `kbScope "rag eval" is not a kb scope`, js},
		{"kbScope with a quote", "POST", LookupPath, `{"query":"q","kbScope":"s\" || kb_scope != \"x"}`, 400, `kbScope "s\" || kb_scope != \"x" is not a kb scope`, js},
		{"kbScope with a path", "POST", LookupPath, `{"query":"q","kbScope":"../s"}`, 400, `kbScope "../s" is not a kb scope`, js},
		{"kbScope with a NUL", "POST", LookupPath, `{"query":"q","kbScope":"s\u0000"}`, 400, `kbScope "s\x00" is not a kb scope`, js},
		{"kbScope too long", "POST", LookupPath, `{"query":"q","kbScope":"` + strings.Repeat("s", kb.MaxKBScopeLen+1) + `"}`, 400, "is 256 bytes long, at most 255", js},

		// Only JSON is accepted.
		{"text/plain", "POST", LookupPath, `{"query":"q","kbScope":"s"}`, 415, "Content-Type must be application/json, got text/plain", "text/plain"},
		{"text/plain with charset", "POST", LookupPath, `{"query":"q","kbScope":"s"}`, 415, "Content-Type must be application/json, got text/plain;charset=UTF-8", "text/plain;charset=UTF-8"},
		{"form", "POST", LookupPath, `{"query":"q","kbScope":"s"}`, 415, "got application/x-www-form-urlencoded", "application/x-www-form-urlencoded"},
		{"no Content-Type", "POST", LookupPath, `{"query":"q","kbScope":"s"}`, 415, "Content-Type must be application/json, got none", "-"},
		{"JSON in latin-1", "POST", LookupPath, `{"query":"q","kbScope":"s"}`, 415, "Content-Type charset must be utf-8, got iso-8859-1", "application/json; charset=iso-8859-1"},
		{"malformed Content-Type", "POST", LookupPath, `{"query":"q","kbScope":"s"}`, 415, "Content-Type must be application/json, got application/json; charset", "application/json; charset"},

		// Duplicates are ambiguous; echoed request text is cut.
		{"duplicate field", "POST", LookupPath, `{"query":"q","kbScope":"s","query":"r"}`, 400, `duplicate field "query"`, js},
		{"long unknown field", "POST", LookupPath, `{"query":"q","kbScope":"s","` + long + `":1}`, 400, `unknown field "` + strings.Repeat("é", 64) + `"… (the fields are`, js},
		{"long searchMode", "POST", LookupPath, `{"query":"q","kbScope":"s","searchMode":"` + long + `"}`, 400, `got "` + strings.Repeat("é", 64) + `"…`, js},
		{"null body", "POST", LookupPath, `null`, 400, "query must not be empty", js},
		{"array body", "POST", LookupPath, `[]`, 400, "the body must be a JSON object, not array", js},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			if tt.ct != "-" {
				req.Header.Set("Content-Type", tt.ct)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e errorResponse
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatalf("error body is not JSON: %v", err)
			}
			if resp.StatusCode != tt.status || !strings.Contains(e.Error, tt.msg) {
				t.Errorf("got %d %q, want %d containing %q", resp.StatusCode, e.Error, tt.status, tt.msg)
			}
			if len(e.Error) > 400 {
				t.Errorf("%d-byte message, want at most 400: %.100s…", len(e.Error), e.Error)
			}
			if tt.status == 405 && resp.Header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
	if len(fp.reqs) != 0 {
		t.Errorf("invalid requests reached the pipeline: %+v", fp.reqs)
	}
}

func TestDefaultKBScope(t *testing.T) {
	fp := &fakePipeline{}
	srv := httptest.NewServer(NewHandler(fp, HandlerOptions{DefaultKBScope: "rag-eval"}))
	defer srv.Close()
	if _, err := (&Client{BaseURL: srv.URL}).Lookup(context.Background(), pipeline.Request{Query: "q"}); err != nil {
		t.Fatal(err)
	}
	if fp.reqs[0].KBScope != "rag-eval" {
		t.Errorf("kbScope = %q, want the default rag-eval", fp.reqs[0].KBScope)
	}
}

func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	req := pipeline.Request{Query: "q", KBScope: "s"}

	t.Run("pipeline error is a permanent 500", func(t *testing.T) {
		srv := httptest.NewServer(NewHandler(&fakePipeline{err: errors.New("milvus: connection lost")}, HandlerOptions{}))
		defer srv.Close()
		_, err := (&Client{BaseURL: srv.URL}).Lookup(ctx, req)
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != 500 || se.Transient() {
			t.Fatalf("got %T %v, want a permanent 500 StatusError", err, err)
		}
		if want := "POST " + srv.URL + "/v1/lookup: 500 Internal Server Error: lookup failed: milvus: connection lost"; err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	})

	t.Run("bad request is not transient", func(t *testing.T) {
		srv := httptest.NewServer(NewHandler(&fakePipeline{}, HandlerOptions{}))
		defer srv.Close()
		_, err := (&Client{BaseURL: srv.URL}).Lookup(ctx, pipeline.Request{Query: "", KBScope: "s"})
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != 400 || se.Transient() || !strings.Contains(err.Error(), "query must not be empty") {
			t.Fatalf("got %v, want a 400 naming the problem", err)
		}
	})

	t.Run("a request the pipeline refuses is a 400", func(t *testing.T) {
		srv := httptest.NewServer(NewHandler(&fakePipeline{err: fmt.Errorf("lookup: %w: query longer than 4096 characters", pipeline.ErrInvalidRequest)}, HandlerOptions{}))
		defer srv.Close()
		_, err := (&Client{BaseURL: srv.URL}).Lookup(ctx, req)
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != 400 || se.Transient() || !strings.HasSuffix(err.Error(), "400 Bad Request: lookup: invalid lookup request: query longer than 4096 characters") {
			t.Fatalf("got %v, want a 400", err)
		}
	})

	t.Run("slow pipeline is a 504 from the server", func(t *testing.T) {
		srv := httptest.NewServer(NewHandler(&fakePipeline{delay: time.Second}, HandlerOptions{Timeout: 50 * time.Millisecond}))
		defer srv.Close()
		_, err := (&Client{BaseURL: srv.URL}).Lookup(ctx, req)
		var se *StatusError
		if !errors.As(err, &se) || se.StatusCode != 504 || !se.Transient() || !strings.Contains(err.Error(), "did not finish within 50ms") {
			t.Fatalf("got %v, want a transient 504", err)
		}
	})

	t.Run("client timeout", func(t *testing.T) {
		srv := httptest.NewServer(NewHandler(&fakePipeline{delay: 2 * time.Second}, HandlerOptions{}))
		defer srv.Close()
		_, err := (&Client{BaseURL: srv.URL, Timeout: 50 * time.Millisecond}).Lookup(ctx, req)
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("got %T %v, want a *TimeoutError", err, err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%v is not context.DeadlineExceeded", err)
		}
		if !strings.Contains(err.Error(), "no response within 50ms") {
			t.Errorf("error %v, want it to say no response within 50ms", err)
		}
	})

	t.Run("unreachable names the URL without credentials", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		withCreds := strings.Replace(url, "http://", "http://alice:s3cret@", 1) + "/?token=t0ps3cret"
		c := &Client{BaseURL: withCreds}
		_, err := c.Lookup(ctx, req)
		var ue *UnreachableError
		if !errors.As(err, &ue) || !ue.Transient() {
			t.Fatalf("got %T %v, want an UnreachableError", err, err)
		}
		if !strings.Contains(err.Error(), url+"/v1/lookup unreachable") {
			t.Errorf("error %q does not name %s/v1/lookup", err, url)
		}
		for _, cred := range []string{"s3cret", "alice"} {
			if strings.Contains(err.Error(), cred) {
				t.Errorf("error %q shows the credential %s", err, cred)
			}
		}
		if err := c.Health(ctx); !errors.As(err, &ue) {
			t.Errorf("Health: %v, want unreachable", err)
		}
		d := c.Describe()
		if d.Store != url+"/" {
			t.Errorf("Describe().Store = %q, want %q", d.Store, url+"/")
		}
		if strings.Contains(d.Store, "s3cret") {
			t.Errorf("Describe().Store = %q shows the password", d.Store)
		}
	})

	t.Run("credentials are sent as basic auth", func(t *testing.T) {
		var user, pass string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, pass, _ = r.BasicAuth()
			NewHandler(&fakePipeline{}, HandlerOptions{}).ServeHTTP(w, r)
		}))
		defer srv.Close()
		c := &Client{BaseURL: strings.Replace(srv.URL, "http://", "http://alice:s3cret@", 1)}
		if _, err := c.Lookup(ctx, req); err != nil {
			t.Fatal(err)
		}
		if user != "alice" || pass != "s3cret" {
			t.Errorf("basic auth %q:%q, want alice:s3cret", user, pass)
		}
	})

	protocol := []struct {
		name, body string
		status     int
		msg        string
	}{
		{"HTML error page", "<html><body>\n  502 Bad   Gateway</body></html>", 502, "502 Bad Gateway: <html><body> 502 Bad Gateway</body></html>"},
		{"not JSON", "hello", 200, "response is not JSON"},
		{"no lookupResult", `{"result":{}}`, 200, `response has no lookupResult: {"result":{}}`},
		{"lookupResult not an object", `{"lookupResult":[1]}`, 200, "lookupResult is not an object"},
		{"lookupResult without found", `{"lookupResult":{"evidenceStatus":"none","evidenceBlocks":[]}}`, 200, "lookupResult has no found"},
		{"mistyped field", `{"lookupResult":{"found":true,"evidenceStatus":"none","evidenceBlocks":[{"rank":"1"}]}}`, 200, "lookupResult.evidenceBlocks[0].rank: expected an integer, got string"},
		{"block not an object", `{"lookupResult":{"found":true,"evidenceBlocks":[1]}}`, 200, "lookupResult.evidenceBlocks[0] is not an object: 1"},
		{"null found", `{"lookupResult":{"found":null,"evidenceBlocks":[]}}`, 200, "lookupResult has no found"},
		{"trace not an object", `{"lookupResult":{"found":true,"evidenceBlocks":[],"retrievalTrace":[]}}`, 200, "lookupResult.retrievalTrace is not an object: []"},
		{"mistyped fallbackReason", `{"lookupResult":{"found":true,"evidenceBlocks":[],"retrievalTrace":{"fallbackReason":3}}}`, 200, "lookupResult.retrievalTrace.fallbackReason: expected a string, got number"},
	}
	for _, tt := range protocol {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			_, err := (&Client{BaseURL: srv.URL}).Lookup(ctx, req)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want an error containing %q", err, tt.msg)
			}
		})
	}

	t.Run("invalid base URL", func(t *testing.T) {
		for _, u := range []string{"", "ftp://h/", "localhost:8080", "http://"} {
			if err := (&Client{BaseURL: u}).Validate(); err == nil {
				t.Errorf("Validate(%q) = nil", u)
			}
		}
	})
}

// TestHealth checks /healthz on the server side.
func TestHealth(t *testing.T) {
	srv := httptest.NewServer(NewHandler(&fakePipeline{}, HandlerOptions{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + HealthPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("healthz: status %d, want 200", resp.StatusCode)
	}
	if want := `{"status":"ok","pipeline":{"name":"builtin"`; !bytes.HasPrefix(body, []byte(want)) {
		t.Errorf("healthz: %s\nwant it to start %s", body, want)
	}
}

// TestStatusErrorTransient pins which statuses are worth a retry, and
// which say the server has no such endpoint.
func TestStatusErrorTransient(t *testing.T) {
	for code := 100; code < 600; code++ {
		want := code == 429 || code == 502 || code == 503 || code == 504
		if got := (&StatusError{StatusCode: code}).Transient(); got != want {
			t.Errorf("StatusError %d: Transient() = %v, want %v", code, got, want)
		}
		want = code == 404 || code == 405
		if got := (&StatusError{StatusCode: code}).NoEndpoint(); got != want {
			t.Errorf("StatusError %d: NoEndpoint() = %v, want %v", code, got, want)
		}
	}
}

// TestErrorLog checks what the handler logs: one bounded line per 5xx,
// without credentials, and nothing for a 4xx, however large the request.
func TestErrorLog(t *testing.T) {
	hugeQuery := strings.Repeat("连", 300_000) // 900,000 bytes
	post := func(t *testing.T, h http.Handler, body string) (int, string) {
		t.Helper()
		srv := httptest.NewServer(h)
		defer srv.Close()
		resp, err := http.Post(srv.URL+LookupPath, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e errorResponse
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, e.Error
	}

	t.Run("4xx is not logged", func(t *testing.T) {
		var logged bytes.Buffer
		refusing := &fakePipeline{err: fmt.Errorf("lookup: %w: query longer than 4096 characters", pipeline.ErrInvalidRequest)}
		h := NewHandler(refusing, HandlerOptions{ErrorLog: log.New(&logged, "", 0)})
		for _, body := range []string{
			`{"query":"` + hugeQuery + `","kbScope":"rag-eval"}`, // refused by the pipeline
			`{"query":"` + hugeQuery + `","kbScope":"rag\neval"}`,
			`{"query":"` + hugeQuery + `","kbScope":"rag-eval","topK":-1}`,
			`{"query":"` + hugeQuery + `","kbScope":"rag-eval","extra":1}`,
		} {
			if status, msg := post(t, h, body); status != 400 {
				t.Errorf("status %d %.200s, want 400", status, msg)
			}
		}
		if logged.Len() != 0 {
			t.Errorf("4xx logged %d bytes: %.300s", logged.Len(), logged.String())
		}
	})

	secret := errors.New("embed: Post \"https://alice:s3cret@api.example.com/v1/embeddings?api_key=k3y\": " +
		"Authorization: Bearer tok3n, key sk-abcdefghijklmnop; mysql alice:s3cret@tcp(db:3306)/rag: " +
		"query " + hugeQuery)
	for _, tt := range []struct {
		name    string
		p       *fakePipeline
		timeout time.Duration
		status  int
		msg     string
	}{
		{"500", &fakePipeline{err: secret}, 0, 500, "lookup failed: embed: Post \"https://***@api.example.com/v1/embeddings?api_key=***\": Authorization: Bearer ***, key sk-***; mysql ***@tcp(db:3306)/rag: query 连连"},
		{"503", &fakePipeline{err: fmt.Errorf("%w: %v", syscall.ECONNREFUSED, secret)}, 0, 503, "lookup failed: connection refused: embed: Post \"https://***@"},
		{"504", &fakePipeline{delay: time.Second}, 20 * time.Millisecond, 504, "lookup did not finish within 20ms: context deadline exceeded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logged bytes.Buffer
			h := NewHandler(tt.p, HandlerOptions{Timeout: tt.timeout, ErrorLog: log.New(&logged, "", 0)})
			status, answer := post(t, h, `{"query":"line one\nline two `+hugeQuery+`","kbScope":"rag-eval"}`)
			if status != tt.status {
				t.Fatalf("status %d, want %d", status, tt.status)
			}
			// The answer says more than the log line, but is bounded too.
			if n := utf8.RuneCountInString(answer); !strings.HasPrefix(answer, tt.msg) || n > 1001 {
				t.Errorf("answer of %d characters: %.400s; want at most 1001 starting %s", n, answer, tt.msg)
			}
			line := logged.String()
			if strings.Count(line, "\n") != 1 || len(line) > 1500 {
				t.Fatalf("want one line of at most 1500 bytes, got %d bytes: %.300s", len(line), line)
			}
			prefix := fmt.Sprintf("/v1/lookup %d: %s", tt.status, tt.msg)
			suffix := fmt.Sprintf(` (query "line one\nline two %s"…, 900018 bytes; kbScope "rag-eval")`+"\n", strings.Repeat("连", 64-len("line one\nline two ")))
			if !strings.HasPrefix(line, prefix) || !strings.HasSuffix(line, suffix) {
				t.Errorf("log line\n%s\nwant prefix\n%s\nand suffix\n%s", line, prefix, suffix)
			}
			for _, s := range []string{"s3cret", "k3y", "tok3n", "abcdefghijklmnop"} {
				if strings.Contains(line, s) || strings.Contains(answer, s) {
					t.Errorf("log line or answer shows the secret %q: %s", s, line)
				}
			}
		})
	}
}
