package lookuphttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// minimalServer answers every lookup with what a small BM25 service of a
// team's own would send, and describes itself at /healthz with health.
func minimalServer(t *testing.T, health string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+HealthPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(health))
	})
	mux.HandleFunc("POST "+LookupPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"lookupResult": {"found": true, "evidenceStatus": null, "evidenceBlocks": [
			{"rank": 1, "source": "mysql-connection-pool", "excerpt": "too many connections", "score": 7.5},
			{"rank": 2, "source": "redis-memory", "excerpt": "maxmemory", "breadcrumb": "Cache > Redis", "qualityScore": 0.25}
		], "retrievalTrace": {"fallbackReason": null}, "extra": 1}}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// What the service did not send stays absent in the written fixture: no
// qualityScore 0, no breadcrumb "", no context pack, no trace but the
// fallbackReason it did send; and the judge's decoder sees the absences.
func TestMinimalAnswerStaysMinimal(t *testing.T) {
	srv := minimalServer(t, `{"status":"ok","pipeline":{"name":"bm25svc","version":"2","searchMode":"bm25","capabilities":["fallback","breadcrumb"]}}`)
	c := &Client{BaseURL: srv.URL}
	if err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	lr, err := c.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
	if err != nil {
		t.Fatal(err)
	}
	p := c.Describe()
	data, err := contract.EncodeFixture(&contract.Fixture{CaseID: "c", Query: "q", RetrievedAt: "2026-12-01T00:00:00Z",
		SearchMode: "hybrid", KBScope: "rag-eval", Pipeline: &p, LookupResult: lr})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "fixtureVersion": 1,
  "caseId": "c",
  "query": "q",
  "retrievedAt": "2026-12-01T00:00:00Z",
  "searchMode": "hybrid",
  "kbScope": "rag-eval",
  "pipeline": {
    "name": "http",
    "version": "bm25svc 2",
    "store": "` + srv.URL + `",
    "embedder": "",
    "dim": 0,
    "searchMode": "bm25",
    "capabilities": [
      "breadcrumb",
      "fallback"
    ]
  },
  "lookupResult": {
    "found": true,
    "evidenceBlocks": [
      {
        "rank": 1,
        "source": "mysql-connection-pool",
        "excerpt": "too many connections"
      },
      {
        "rank": 2,
        "source": "redis-memory",
        "breadcrumb": "Cache > Redis",
        "excerpt": "maxmemory",
        "qualityScore": 0.25
      }
    ],
    "retrievalTrace": {
      "fallbackReason": null
    }
  }
}
`
	if string(data) != want {
		t.Fatalf("fixture:\n%s\nwant:\n%s", data, want)
	}
	f, err := contract.DecodeFixture(data)
	if err != nil {
		t.Fatal(err)
	}
	got := f.LookupResult
	if got.Has != contract.HasFound|contract.HasEvidenceBlocks|contract.HasFallbackReason {
		t.Errorf("decoded presence %b", got.Has)
	}
	b0, b1 := got.EvidenceBlocks[0], got.EvidenceBlocks[1]
	if b0.HasQuality {
		t.Error("block 0: HasQuality true, want false")
	}
	if b0.Has&contract.BlockHasBreadcrumb != 0 {
		t.Errorf("block 0: presence %b has the breadcrumb, want it absent", b0.Has)
	}
	if !b1.HasQuality {
		t.Error("block 1: HasQuality false, want true")
	}
	if b1.Has&contract.BlockHasBreadcrumb == 0 {
		t.Errorf("block 1: presence %b lacks the breadcrumb, want it present", b1.Has)
	}
	if !f.Pipeline.Lacks(contract.CapTrace) {
		t.Errorf("pipeline capabilities %q: trace declared, want it lacking", f.Pipeline.Capabilities)
	}
	if f.Pipeline.Lacks(contract.CapFallback) {
		t.Errorf("pipeline capabilities %q: fallback lacking, want it declared", f.Pipeline.Capabilities)
	}
	if f.Pipeline.SearchMode != "bm25" {
		t.Errorf("pipeline searchMode %q, want bm25", f.Pipeline.SearchMode)
	}
}

// The client's own declaration replaces the server's, even an invalid one;
// an invalid one the client does not replace fails the health check.
func TestDeclaredCapabilities(t *testing.T) {
	srv := minimalServer(t, `{"status":"ok","pipeline":{"name":"x","searchMode":"vector","capabilities":["trace","traces"]}}`)
	c := &Client{BaseURL: srv.URL}
	var pe *ProtocolError
	if err := c.Health(context.Background()); !errors.As(err, &pe) || !strings.Contains(err.Error(), `pipeline.searchMode: unknown search mode "vector"`) {
		t.Fatalf("Health = %v, want a ProtocolError about the search mode", err)
	}
	c.SearchMode = contract.ModeOther
	if err := c.Health(context.Background()); !errors.As(err, &pe) || !strings.Contains(err.Error(), `pipeline.capabilities: unknown capability "traces"`) {
		t.Fatalf("Health = %v, want a ProtocolError about the capabilities", err)
	}
	c.Capabilities = []string{}
	if err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := c.Describe()
	if p.SearchMode != "other" {
		t.Errorf("Describe().SearchMode = %q, want other", p.SearchMode)
	}
	if p.Capabilities == nil || len(p.Capabilities) != 0 {
		t.Errorf("Describe().Capabilities = %#v, want the client's []string{}", p.Capabilities)
	}

	// A server that declares nothing declares nothing: every capability.
	srv2 := minimalServer(t, `{"status":"ok","pipeline":{"name":"x"}}`)
	c2 := &Client{BaseURL: srv2.URL}
	if err := c2.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	p = c2.Describe()
	if p.SearchMode != "" {
		t.Errorf("Describe().SearchMode = %q, want none", p.SearchMode)
	}
	if p.Capabilities != nil {
		t.Errorf("Describe().Capabilities = %#v, want nil", p.Capabilities)
	}
}
