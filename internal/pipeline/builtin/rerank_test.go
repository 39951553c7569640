package builtin_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
)

// rerankCorpus has a chunk that is near the query only by character
// 3-grams (high cosine, no shared word) and one that contains the query's
// words among many others (lower cosine): dense ranks near first, a
// cross-scorer reading words ranks exact first.
func rerankStore(t *testing.T) store {
	s := openEmbedded(t)
	seedDocs(t, s,
		testDoc{"near", "x", nil, "# N\n\nconnections pooled, connectionless poolings"},
		testDoc{"exact", "x", nil, "# E\n\nWhen the service restarts, the connection pooling layer drains idle sockets, rotates credentials, reloads settings, warms caches and reports health to the balancer before traffic resumes."},
		testDoc{"other", "x", nil, "# O\n\nThe pool of workers is sized by CPU count."})
	return s
}

const rerankQuery = "connection pooling"

func dense(r *pipeline.Request) { r.SearchMode = kb.Dense }

func TestRerankLocal(t *testing.T) {
	s := rerankStore(t)
	noFloor := func(c *builtin.Config) { c.MinQuality = 0 }
	before := run(t, newPipeline(s, noFloor), rerankQuery, dense)
	if got := sources(before); !slices.Equal(got, []string{"near", "exact", "other"}) {
		t.Fatalf("dense order %v, the test needs near, exact, other: %s", got, describe(before))
	}
	res := run(t, newPipeline(s, func(c *builtin.Config) { noFloor(c); c.Rerank = builtin.RerankLocal }), rerankQuery, dense)
	rt := res.RerankTrace
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("rerankTrace.enabled", rt.Enabled, true)
	check("rerankTrace.model", rt.Model, builtin.LocalRerankModel)
	check("rerankTrace.fallback", rt.Fallback, false)
	if !slices.Equal(rt.InputOrder, evidenceKeys(before)) {
		t.Errorf("inputOrder %v, want the dense order %v", rt.InputOrder, evidenceKeys(before))
	}
	if got, want := sources(res), []string{"exact", "near", "other"}; !slices.Equal(got, want) {
		t.Errorf("reranked %v, want %v: %s", got, want, describe(res))
	}
	check("rerankTrace.topSource", rt.TopSource, "exact")
	checkBlocks(t, res)
	if res.ContextPack.Sources[0] != "exact" {
		t.Errorf("the context pack does not follow the final order: %v", res.ContextPack.Sources)
	}
}

// rerankServer answers like a Jina/Cohere rerank endpoint with the scores
// score(documents) computes; it records the last request.
func rerankServer(t *testing.T, score func(docs []string) []float64) (*httptest.Server, *rerankCall) {
	call := &rerankCall{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call.method, call.path, call.auth, call.ctype = r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &call.body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out struct {
			Results []result `json:"results"`
		}
		for i, s := range score(call.body.Documents) {
			out.Results = append(out.Results, result{i, s})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv, call
}

type rerankCall struct {
	method, path, auth, ctype string
	body                      struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		TopN      int      `json:"top_n"`
	}
}

func TestRerankHTTP(t *testing.T) {
	s := rerankStore(t)
	before := run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0 }), rerankQuery, dense)
	// The server ranks the documents in reverse, returning results in index
	// order (not sorted): the pipeline sorts by relevance_score.
	srv, call := rerankServer(t, func(docs []string) []float64 {
		s := make([]float64, len(docs))
		for i := range docs {
			s[i] = float64(i) / 10
		}
		return s
	})
	res := run(t, newPipeline(s, func(c *builtin.Config) {
		c.MinQuality = 0
		c.Rerank, c.RerankURL, c.RerankModel, c.RerankAPIKey = builtin.RerankHTTP, srv.URL+"/v1", "bge-reranker-v2-m3", "secret-key"
	}), rerankQuery, dense)
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("request method", call.method, http.MethodPost)
	check("request path", call.path, "/v1/rerank")
	check("request Authorization", call.auth, "Bearer secret-key")
	check("request Content-Type", call.ctype, "application/json")
	var excerpts []string
	for _, b := range before.EvidenceBlocks {
		excerpts = append(excerpts, b.Excerpt)
	}
	check("request body model", call.body.Model, "bge-reranker-v2-m3")
	check("request body query", call.body.Query, rerankQuery)
	if !slices.Equal(call.body.Documents, excerpts) {
		t.Errorf("request body documents %q, want the excerpts %q", call.body.Documents, excerpts)
	}
	check("request body top_n", call.body.TopN, len(excerpts))
	rt := res.RerankTrace
	want := slices.Clone(evidenceKeys(before))
	slices.Reverse(want)
	check("rerankTrace.enabled", rt.Enabled, true)
	check("rerankTrace.model", rt.Model, "bge-reranker-v2-m3")
	check("rerankTrace.fallback", rt.Fallback, false)
	if !slices.Equal(rt.InputOrder, evidenceKeys(before)) {
		t.Errorf("rerankTrace.inputOrder %v, want the dense order %v", rt.InputOrder, evidenceKeys(before))
	}
	if !slices.Equal(rt.OutputOrder, want) {
		t.Errorf("rerankTrace.outputOrder %v, want %v", rt.OutputOrder, want)
	}
	check("rerankTrace.topSource", rt.TopSource, res.EvidenceBlocks[0].Source)
	check("first block", res.EvidenceBlocks[0].EvidenceKey, want[0])
	checkBlocks(t, res)
}

func TestRerankHTTPFailureKeepsOrder(t *testing.T) {
	s := rerankStore(t)
	want := evidenceKeys(run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0 }), rerankQuery, dense))
	handlers := map[string]http.HandlerFunc{
		"500": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "model not loaded", 500) },
		"slow": func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // so the server notices the client leaving
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		},
		"not json": func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") },
		"index range": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"results":[{"index":7,"relevance_score":1}]}`)
		},
		"index twice": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"results":[{"index":0,"relevance_score":1},{"index":0,"relevance_score":0.5}]}`)
		},
		"no score":   func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"results":[{"index":1}]}`) },
		"no results": func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"data":[]}`) },
		"string index": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"results":[{"index":"1","relevance_score":1}]}`)
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			start := time.Now()
			res := run(t, newPipeline(s, func(c *builtin.Config) {
				c.MinQuality = 0
				c.Rerank, c.RerankURL, c.RerankModel, c.RerankTimeout = builtin.RerankHTTP, srv.URL+"/v1/rerank", "m", 200*time.Millisecond
			}), rerankQuery, dense)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("lookup took %v with a rerank timeout of 200ms", d)
			}
			rt := res.RerankTrace
			check := func(name string, got, want any) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			check("rerankTrace.enabled", rt.Enabled, true)
			check("rerankTrace.fallback", rt.Fallback, true)
			check("rerankTrace.model", rt.Model, "m")
			// The fallback keeps the order.
			if !slices.Equal(rt.InputOrder, want) {
				t.Errorf("rerankTrace.inputOrder %v, want %v", rt.InputOrder, want)
			}
			if !slices.Equal(rt.OutputOrder, want) {
				t.Errorf("rerankTrace.outputOrder %v, want %v", rt.OutputOrder, want)
			}
			if got := evidenceKeys(res); !slices.Equal(got, want) {
				t.Errorf("blocks %v, want %v", got, want)
			}
			check("rerankTrace.topSource", rt.TopSource, res.EvidenceBlocks[0].Source)
			checkBlocks(t, res)
		})
	}
	// A server that is not there.
	srv := httptest.NewServer(handlers["500"])
	srv.Close()
	res := run(t, newPipeline(s, func(c *builtin.Config) { c.Rerank, c.RerankURL = builtin.RerankHTTP, srv.URL }), rerankQuery, dense)
	if !res.RerankTrace.Fallback {
		t.Error("unreachable reranker: rerankTrace.fallback false, want true")
	}
	if res.RerankTrace.Model != builtin.RerankHTTP {
		t.Errorf("unreachable reranker: rerankTrace.model %q, want %q", res.RerankTrace.Model, builtin.RerankHTTP)
	}
}

func TestRerankHTTPPartialAnswer(t *testing.T) {
	s := rerankStore(t)
	before := evidenceKeys(run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0 }), rerankQuery, dense))
	// Only the last document comes back: it goes first, the others follow
	// in their original order.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"results":[{"index":2,"relevance_score":0.3}]}`)
	}))
	defer srv.Close()
	res := run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0; c.Rerank, c.RerankURL = builtin.RerankHTTP, srv.URL }), rerankQuery, dense)
	want := []string{before[2], before[0], before[1]}
	if rt := res.RerankTrace; rt.Fallback {
		t.Error("rerankTrace.fallback true, want false")
	}
	if rt := res.RerankTrace; !slices.Equal(rt.OutputOrder, want) {
		t.Errorf("rerankTrace.outputOrder %v, want %v", rt.OutputOrder, want)
	}
}

func TestRerankNoBlocksCallsNothing(t *testing.T) {
	s := rerankStore(t)
	called := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called = true }))
	defer srv.Close()
	res := run(t, newPipeline(s, func(c *builtin.Config) { c.Rerank, c.RerankURL = builtin.RerankHTTP, srv.URL }), "anything",
		func(r *pipeline.Request) { r.KBScope = "no-such-scope" })
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("reranker called", called, false)
	check("rerankTrace.fallback", res.RerankTrace.Fallback, false)
	check("rerankTrace.enabled", res.RerankTrace.Enabled, true)
	check("len(rerankTrace.outputOrder)", len(res.RerankTrace.OutputOrder), 0)
	check("rerankTrace.topSource", res.RerankTrace.TopSource, "")
	check("found", res.Found, false)
	check("evidenceStatus", res.EvidenceStatus, contract.EvidenceNone)
}

func TestRerankCancelledLookupFails(t *testing.T) {
	s := rerankStore(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	defer srv.Close()
	p := newPipeline(s, func(c *builtin.Config) {
		c.Rerank, c.RerankURL, c.RerankTimeout = builtin.RerankHTTP, srv.URL, 10*time.Second
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// A cancelled caller is not a failing reranker: the lookup fails rather
	// than returning a result marked fallback.
	res, err := p.Lookup(ctx, pipeline.Request{Query: rerankQuery, KBScope: scope})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("lookup with a cancelled context: %v, %+v", err, res)
	}
}
