// Package pipeline says what a lookup pipeline is to this project. A
// pipeline takes one golden query, a Request, and returns the evidence a
// retrieval system found for it as the lookupResult of a fixture
// (contract.LookupResult, docs/fixtures.md). rag-snapshot runs every golden
// case through one pipeline, and through a second one as the sidecar, and
// freezes each result as a fixture. rag-eval judges the fixtures offline
// and never calls a pipeline, so a pipeline is the one part of the project
// that touches a live retrieval system.
//
// The interface is Lookuper, with HealthChecker for the pipelines that can
// be checked before any lookup, and Transient and ErrInvalidRequest say
// what its errors mean. Each method's documentation is its contract:
// errors, retries, concurrency and what it records in the fixtures.
//
// # The pipelines
//
// Three implementations live side by side under this package. rag-snapshot
// picks one with --pipeline builtin, http or mapped, and internal/snapshot
// sees only the interface.
//
//   - builtin is the project's own pipeline over the kb interfaces: L0
//     hints, a filtered attempt, the quality gate and its fallback,
//     post-processing, a reranker and the context pack (docs/pipeline.md).
//     It runs on the embedded store or the server stack, and its results
//     carry every field.
//   - lookuphttp is the lookup protocol over HTTP: POST /v1/lookup and GET
//     /healthz. Its Client calls any pipeline that speaks it. Its handler
//     serves one, as rag-snapshot serve serves the builtin pipeline. The
//     Client's results carry what the server sent, and nothing else.
//   - mapped calls a retrieval API that speaks its own protocol, as a
//     config file describes: Weaviate, OpenSearch, Chroma or a service of
//     one's own (docs/mapped-pipeline.md). Its results carry found,
//     evidenceBlocks and, when the config declares it, evidenceStatus.
//
// # A run
//
// internal/snapshot calls a pipeline in this order. Health comes first,
// once, retried like a lookup, when the pipeline is a HealthChecker.
// Describe comes next, once: its value is the pipeline of the manifest and
// of every fixture the run writes. Then Lookup runs once per golden case,
// with Options.Concurrency lookups in flight, each attempt bounded by
// Options.Timeout and a transient failure retried with backoff. A result
// that equals the old fixture but for retrievedAt and latencyMs leaves the
// old file as it is, which is why a pipeline's results must be
// deterministic.
//
// # Errors
//
// An error of Lookup is one of three kinds, and none needs a type of this
// package. A refused request wraps ErrInvalidRequest: it fails the case
// and the handler answers it 400. A transient error is one Transient
// reports true for: snapshot retries it and the handler answers it 503, or
// 504 for a deadline. Anything else fails the case at once, and the
// handler answers it 500. The backends' errors answer the other questions
// a run asks through methods that errors.As finds: Unreachable (no response
// came back, so a sidecar is unavailable) and NoEndpoint (an HTTP 404 or
// 405, so a health check does not exist).
//
// # The contract suite
//
// internal/testkit/pipelinetest checks these promises on every
// implementation, as kbtest checks the kb backends. builtin runs it on the
// embedded store. lookuphttp runs it against the builtin pipeline served
// by its handler and against a minimal server of the protocol. mapped runs
// it against fakes of the services of two shipped configs. A new pipeline
// runs it too.
package pipeline
