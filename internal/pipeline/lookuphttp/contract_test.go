package lookuphttp_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/testkit/pipelinetest"
)

// The contract of pipeline.Lookuper for the HTTP client, against the
// builtin pipeline served by NewHandler, as rag-snapshot serve serves it.
// Every refusal of the builtin pipeline reaches the client as a 400.
func TestLookuperContractServed(t *testing.T) {
	pipelinetest.RunLookuperTests(t, pipelinetest.Config{
		New: func(t *testing.T) pipeline.Lookuper {
			srv := httptest.NewServer(lookuphttp.NewHandler(pipelinetest.NewBuiltin(t), lookuphttp.HandlerOptions{}))
			t.Cleanup(srv.Close)
			return &lookuphttp.Client{BaseURL: srv.URL}
		},
		Request:     pipelinetest.BuiltinRequest,
		Name:        lookuphttp.PipelineName,
		Unreachable: closedClient,
	})
}

// The contract for the client against a minimal server of the protocol:
// no health endpoint, and answers with the two fields a lookupResult must
// have, found and evidenceBlocks, each block an excerpt only. The client
// declares the pipeline's search mode and capabilities itself, as
// rag-snapshot --pipeline-search-mode and --pipeline-capabilities do.
func TestLookuperContractMinimal(t *testing.T) {
	const why = "the minimal server answers every request, and the client refuses only what it cannot send as JSON"
	pipelinetest.RunLookuperTests(t, pipelinetest.Config{
		New: func(t *testing.T) pipeline.Lookuper {
			return &lookuphttp.Client{BaseURL: minimalProtocolServer(t).URL, SearchMode: contract.ModeBM25, Capabilities: []string{}}
		},
		Request:      pipeline.Request{Query: "too many connections", KBScope: "rag-eval"},
		Name:         lookuphttp.PipelineName,
		SearchMode:   contract.ModeBM25,
		Capabilities: []string{},
		Accepts: map[string]string{
			"empty query": why, "query too long": why, "no kbScope": why, "unknown search mode": why,
			"negative topK": why, "topK over the maximum": why,
		},
		Unreachable: closedClient,
	})
}

// minimalProtocolServer serves POST /v1/lookup with three excerpts, cut to
// the request's topK, and nothing else.
func minimalProtocolServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+lookuphttp.LookupPath, func(w http.ResponseWriter, r *http.Request) {
		var req struct{ TopK int }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error": %q}`, err.Error())
			return
		}
		blocks := []string{`{"excerpt": "max_connections"}`, `{"excerpt": "connection pool"}`, `{"excerpt": "PgBouncer"}`}
		if req.TopK > 0 && req.TopK < len(blocks) {
			blocks = blocks[:req.TopK]
		}
		fmt.Fprint(w, `{"lookupResult": {"found": true, "evidenceBlocks": [`)
		for i, b := range blocks {
			if i > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprint(w, b)
		}
		fmt.Fprint(w, `]}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// closedClient is a client of an address nothing listens on any more.
func closedClient(t *testing.T) pipeline.Lookuper {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return &lookuphttp.Client{BaseURL: "http://" + addr}
}
