// Package mapped is a lookup pipeline over any HTTP retrieval API that a
// config file describes (docs/mapped-pipeline.md): rag-snapshot --pipeline
// mapped --pipeline-config FILE. No adapter service is needed between
// this project and a Weaviate, OpenSearch, Chroma or in-house search
// endpoint.
//
// # Config
//
// Load (or Parse) reads a YAML or JSON config strictly: unknown fields,
// duplicate keys, values of the wrong type, jq programs that do not compile
// and unknown {placeholders} are *diag.Error values naming the file, the
// 1-based line and the field path. The document is walked as a yaml.Node
// tree rather than decoded into structs, because struct decoding cannot
// report the line of a semantic error (a bad enum, a jq syntax error) nor
// refuse unknown keys inside custom types.
//
// jq programs (github.com/itchyny/gojq, compiled once at load) build the
// request body and query parameters from the input {query, topK, kbScope,
// searchMode, vector}, and read the response: errorIf (a predicate: true
// makes a 2xx answer an error), errorMessage and blocks. jq rather than a
// text template, because jq produces JSON values: no query can break a
// body through an escaping mistake, and GraphQL bodies interpolate with
// tojson, whose escapes are GraphQL's. gojq gets no environment ($ENV is
// empty), so a mapping cannot copy a secret into a fixture. Setup steps'
// values are $name in later programs; $request is the input in the
// response programs.
//
// # Secrets
//
// ${NAME} and ${NAME:-default} in URLs and header values are read from the
// environment once, by New. Every value read (and the host and user info
// of a value that is a URL) is replaced by ${NAME} in every error the
// pipeline returns (the wrapped error stays reachable for errors.As, so
// the transient and unreachable classification still works); Describe's
// store is the URL as the config writes it; the string fields of blocks
// have the credentials among them (a header's value, a value in a URL's
// query string, a URL's user info; not its host nor a name in its path)
// replaced the same way, so a service echoing a token cannot put it into
// a fixture. Values under 4 bytes are left alone. The reference syntax
// and the scrubbing are package internal/secret's, which rag-snapshot's
// --lookup-header and --sidecar-header share.
//
// # Calls and errors
//
// Setup steps run once, in Health (which rag-snapshot calls with its
// retries before any lookup) or at the first Lookup, and again after a
// failure. Each call is bounded by Options.Timeout; the errors are
// lookuphttp's types, so internal/snapshot treats them exactly like the
// HTTP pipeline's: *lookuphttp.UnreachableError (no response) and
// *lookuphttp.TimeoutError are transient, *lookuphttp.StatusError is
// transient for 502, 503, 504 and 429, *lookuphttp.ProtocolError (not
// JSON, too large) is not; an errorIf that holds is a *ServiceError, not
// transient. A failed setup step is a *SetupError, which is never "no
// such endpoint": a 404 there (a missing collection) stops the run at the
// health check, before any lookup.
//
// # Blocks and scores
//
// The blocks program yields one array of objects or the objects one by
// one; each object may have the fields BlockFields lists, with strict
// types (a number as a string is an error saying to use tonumber). null
// or a missing field stays absent. The score is converted to qualityScore
// by the declared Score.Quality (identity, 2s-1, 1-d, 1-d/2, 1-d^2/2,
// minmax over the result list, or none), clamped to [0, 1] and rounded to
// 6 decimals; the raw score is kept as denseDistance (a distance) or
// fusedScore (a similarity). builtin.Grade then applies the thresholds
// exactly as the builtin pipeline does (minQuality floor, relevance
// levels, evidenceStatus), and the blocks are cut to topK and ranked by
// position. The thresholds are declared, taken from the embedder's
// calibrated ones (thresholds: embedder, for conversions that give back
// the cosine of this project's embedder), or the uncalibrated defaults with
// a warning (Pipeline.Warnings); Describe records them as pipeline.params.
//
// # What a result holds
//
// found and evidenceBlocks always; evidenceStatus when the config declares
// that capability; never the context pack, the retrieval trace or the
// rerank trace, which are steps of the builtin pipeline: the config's
// capabilities say so in the manifest and the judge skips the checks on
// them.
package mapped
