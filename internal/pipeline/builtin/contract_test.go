package builtin_test

import (
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/testkit/pipelinetest"
)

// The contract of pipeline.Lookuper, on the embedded store with the local
// embedder. That setup calls no service, so there is no unreachable case:
// on the server stack the transient errors are the backends' own, which
// the pipeline returns wrapped (kbtest and internal/snapshot's
// backends_test check the backends').
func TestLookuperContract(t *testing.T) {
	pipelinetest.RunLookuperTests(t, pipelinetest.Config{
		New:     func(t *testing.T) pipeline.Lookuper { return pipelinetest.NewBuiltin(t) },
		Request: pipelinetest.BuiltinRequest,
		Name:    "builtin",
	})
}
