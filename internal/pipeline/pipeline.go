package pipeline

import (
	"context"
	"errors"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Request is one lookup. Its JSON is the body of POST /v1/lookup.
type Request struct {
	// Query is the golden case's query, sent as it is written.
	Query string `json:"query"`
	// KBScope is the kb scope to search. It is required.
	KBScope string `json:"kbScope"`
	// SearchMode is "hybrid" or "dense". Empty means hybrid.
	SearchMode kb.SearchMode `json:"searchMode"`
	// TopK is the number of evidence blocks wanted. 0 means the pipeline's
	// default, the params.topK of its Describe (5 for the builtin
	// pipeline).
	TopK int `json:"topK,omitempty"`
}

// Lookuper is a lookup pipeline: the builtin Pipeline, lookuphttp.Client
// and the mapped Pipeline implement it. internal/testkit/pipelinetest
// checks each implementation against what is written here. Where one does
// not promise something, its exception is written here too.
type Lookuper interface {
	// Lookup runs one request. It returns the result and a nil error, or
	// a nil result and the error.
	//
	// A request the pipeline refuses fails with an error that wraps
	// ErrInvalidRequest. It is not transient. The builtin and mapped
	// pipelines refuse by the rules of builtin.ResolveRequest, before they
	// call anything: an empty query, a query or kbScope that is not valid
	// UTF-8, a query over builtin.MaxQueryChars characters, no kbScope, a
	// search mode other than hybrid and dense, a topK outside
	// 0..builtin.MaxTopK. An HTTP pipeline refuses what its server answers
	// 400. lookuphttp.Client refuses a query or kbScope that is not valid
	// UTF-8 itself, since JSON would send another text.
	//
	// An error for which Transient reports true may go away when the same
	// request is sent again. Lookup sends each request once: retrying is
	// the caller's. internal/snapshot retries a transient error with
	// backoff (Options.Retries, 2 by default) and gives up on the
	// pipeline after Options.MaxConsecutiveFailures transient failures in
	// a row. lookuphttp's handler answers a transient error 503, which its
	// client takes as transient in turn. Any other error fails the case at
	// once. A backend may retry its own calls: embed/openai does, and its
	// error once it gave up is not transient.
	//
	// When ctx is cancelled or its deadline passes, Lookup fails with an
	// error that wraps ctx's error. A passed deadline is transient, since
	// the attempt ran out of time, and a cancellation is not. A call a
	// backend already sent may run on if that backend ignores ctx.
	//
	// Lookup is safe for concurrent use. internal/snapshot runs
	// Options.Concurrency lookups of one pipeline at once (4 by default),
	// and lookuphttp's handler one per request.
	//
	// For the same request the result is the same as long as what the
	// pipeline searches is the same. The fixture a rerun writes then
	// differs only in retrievedAt and in each
	// retrievalTrace.attempts[].latencyMs, which internal/snapshot ignores
	// when it decides whether a fixture changed. That is the builtin
	// pipeline on one store and config, unless its http reranker answers
	// differently. An HTTP or mapped pipeline is as deterministic as its
	// service.
	//
	// The result is what the fixture records as lookupResult
	// (docs/fixtures.md). It carries found and evidenceBlocks. found is
	// whether there is a block. The blocks are at most topK, ranked 1, 2, …
	// in order. A complete result, one whose Partial is false and Has
	// HasAll, is written whole: the builtin pipeline's. A Partial result
	// says in its Has, and in each block's HasRank, HasQuality and Has,
	// which fields it carries. The fixture leaves out the others rather
	// than write a zero, so a check on a field the pipeline did not give
	// fails with "fixture lacks <path>" instead of judging a made-up value.
	// lookuphttp's and mapped's results are Partial. A result carries no
	// part of a lookup result that Describe declares the pipeline lacks:
	// the mapped pipeline never gives the context pack, the retrieval
	// trace or the rerank trace, and gives evidenceStatus only when its
	// config declares it. lookuphttp.Client keeps what the server sent, as
	// it sent it: it does not number the blocks or drop a part the
	// pipeline declares it lacks. It keeps at most MaxBlocks(topK) blocks,
	// the first ones, and counts the others in the result's DroppedBlocks.
	Lookup(ctx context.Context, req Request) (*contract.LookupResult, error)

	// Describe says what produces the results. internal/snapshot calls it
	// once per run, after Health, and records the value as the pipeline of
	// the manifest and of every fixture of the run, with params.topK set to
	// the run's topK when one is given. It is stable: two calls return the
	// same value, and lookups do not change it. A directory whose fixtures
	// disagree with their manifest on it is one that mixes two snapshots,
	// and the judge warns. Only lookuphttp.Client's changes: after a
	// successful Health it reports what the server says of itself. The
	// value is the caller's to change. Describe is safe for concurrent use
	// with Lookup.
	//
	// Of contract.Pipeline, name is "builtin", "http" or "mapped". Version
	// names the pipeline's behaviour: config.BuiltinVersion for the
	// builtin pipeline, the server's name and version for an HTTP one, the
	// config's name and version for a mapped one. Store is where it
	// searches, never with credentials: the --store name, the URL, the
	// config's store or request URL as written. Embedder and dim name the
	// query embedder, when the pipeline says: the builtin pipeline, a
	// mapped config that embeds the query, a server that reports them.
	// Params are the parameters that decide the blocks and their grades:
	// topK, candidateK and the thresholds, which rag-eval calibrate reads
	// back from the manifest.
	// SearchMode is the search the pipeline runs as its user declares it,
	// empty for the builtin pipeline, whose search is the request's. The
	// judge reports it in place of the fixture's searchMode. Capabilities
	// are the parts of a lookup result it produces. Nil means all of them,
	// as for the builtin pipeline, and an empty list none. The judge skips
	// a check that needs a part the pipeline declares it lacks.
	Describe() contract.Pipeline
}

// BlocksPerTopK bounds the evidence blocks kept of an external pipeline's
// answer, whose server may send any number: at most BlocksPerTopK × topK.
// A pipeline asked for topK blocks should send no more, so the bound
// drops nothing a pipeline keeping to its topK sends, nor the few more a
// pipeline may send on purpose. It keeps the memory a lookup takes
// bounded by topK, not by what the server sends.
const BlocksPerTopK = 4

// MaxBlocks returns how many evidence blocks of an external pipeline's
// answer for topK are kept: BlocksPerTopK × topK. The others are dropped,
// and the result's DroppedBlocks counts them.
func MaxBlocks(topK int) int { return BlocksPerTopK * max(topK, 1) }

// ErrInvalidRequest is wrapped by the error of a request the pipeline
// refuses (see Lookuper.Lookup). lookuphttp's handler answers it 400
// instead of 500, and lookuphttp.Client wraps it in the error of a 400
// answer.
var ErrInvalidRequest = errors.New("invalid lookup request")

// HealthChecker is implemented by the pipelines that can say, before any
// lookup, whether they can serve: lookuphttp.Client, with GET /healthz,
// and the mapped Pipeline, which runs its setup steps. The builtin
// pipeline has none: config.OpenBuiltin checks its store before it builds
// it.
type HealthChecker interface {
	// Health reports whether the pipeline can serve lookups.
	// internal/snapshot calls it once before the first lookup, retrying a
	// transient error as it retries a lookup. When it fails the run stops
	// before any lookup, or, for a sidecar, the sidecar is marked
	// unavailable. An error whose NoEndpoint method reports true, an HTTP
	// 404 or 405, means that the pipeline has no health check, which is
	// fine: its lookups will tell.
	//
	// Health may learn what later calls use. lookuphttp.Client keeps the
	// pipeline the server describes, which its Describe then reports. The
	// mapped pipeline keeps the values of its setup steps, and a mapped
	// config without setup steps calls nothing. Health is safe for
	// concurrent use with Lookup and Describe.
	Health(ctx context.Context) error
}
