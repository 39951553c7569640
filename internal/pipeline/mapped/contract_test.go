package mapped

import (
	"net"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/testkit/pipelinetest"
)

// The contract of pipeline.Lookuper for the mapped pipeline, on two of the
// shipped configs against fakes of their services answering the recorded
// responses: weaviate.yaml (a setup step, the query embedded, GraphQL) and
// opensearch-bm25.yaml (no setup, no embedding, so a health check that
// calls nothing). Unreachable is the same config pointed at a port nothing
// listens on.
func TestLookuperContract(t *testing.T) {
	shippedCaps := []string{contract.CapEvidenceStatus, contract.CapQualityScore, contract.CapBreadcrumb}
	req := pipeline.Request{Query: "too many connections", KBScope: "rag-eval"}
	t.Run("weaviate", func(t *testing.T) {
		pipelinetest.RunLookuperTests(t, pipelinetest.Config{
			New: func(t *testing.T) pipeline.Lookuper {
				api := weaviateAPI(t, func() (int, []byte) { return 200, readResponse(t, "weaviate-hybrid.json") })
				return openConfig(t, shipped("weaviate.yaml"), map[string]string{"WEAVIATE_URL": api.URL})
			},
			Request: req, Name: DefaultName, SearchMode: contract.ModeHybrid, Capabilities: shippedCaps,
			Unreachable: func(t *testing.T) pipeline.Lookuper {
				return openConfig(t, shipped("weaviate.yaml"), map[string]string{"WEAVIATE_URL": "http://" + closedAddr(t)})
			},
		})
	})
	t.Run("opensearch-bm25", func(t *testing.T) {
		pipelinetest.RunLookuperTests(t, pipelinetest.Config{
			New: func(t *testing.T) pipeline.Lookuper {
				api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, readResponse(t, "opensearch-hits.json") })
				return openConfig(t, shipped("opensearch-bm25.yaml"), map[string]string{"OPENSEARCH_URL": api.URL})
			},
			Request: req, Name: DefaultName, SearchMode: contract.ModeBM25, Capabilities: shippedCaps,
			HealthCallsNothing: true,
			Unreachable: func(t *testing.T) pipeline.Lookuper {
				return openConfig(t, shipped("opensearch-bm25.yaml"), map[string]string{"OPENSEARCH_URL": "http://" + closedAddr(t)})
			},
		})
	})
}

// closedAddr is an address nothing listens on any more.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
