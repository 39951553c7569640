// Package mapped is a lookup pipeline over any HTTP retrieval API that a
// config file describes (docs/mapped-pipeline.md): rag-snapshot --pipeline
// mapped --pipeline-config FILE. No adapter service is needed between
// this project and a Weaviate, OpenSearch, Chroma or in-house search
// endpoint. Its Pipeline is a pipeline.Lookuper and a
// pipeline.HealthChecker, and the package pipeline documentation is its
// contract.
//
// # Config
//
// Load, or Parse, reads a YAML or JSON config strictly. Unknown fields,
// duplicate keys, values of the wrong type, jq programs that do not compile
// and unknown {placeholders} are *diag.Error values naming the file, the
// 1-based line and the field path. The document is walked as a yaml.Node
// tree rather than decoded into structs, because struct decoding cannot
// report the line of a semantic error, such as a bad enum or a jq syntax
// error, nor refuse unknown keys inside custom types.
//
// jq programs (github.com/itchyny/gojq, compiled once at load) build the
// request body and query parameters from the input {query, topK, kbScope,
// searchMode, vector}. They read the response too: errorIf is a predicate
// whose true makes a 2xx answer an error, then come errorMessage and
// blocks. jq rather than a text template, because jq produces JSON values.
// No query can break a body through an escaping mistake, and GraphQL bodies
// interpolate with tojson, whose escapes are GraphQL's. gojq gets no
// environment, $ENV being empty, so a mapping cannot copy a secret into a
// fixture. Setup steps' values are $name in later programs, and $request
// is the input in the response programs. A setup value of null is an
// error, and so is an object or an array that a later URL's {name} needs.
//
// # Secrets
//
// ${NAME} and ${NAME:-default} in URLs and header values are read from the
// environment once, by New. In a URL a value is escaped by where it stands:
// one path segment in the path, one parameter value in the query string,
// as it is in the scheme and host, where white space is refused. Every value read, and the host and user info of
// a value that is a URL, is replaced by ${NAME} in every error the pipeline
// returns. The wrapped error stays reachable for errors.As, so the
// transient and unreachable classification still works. Describe's store
// is the URL as the config writes it. The string fields of blocks have the
// credentials among the values replaced the same way, so a service echoing
// a token cannot put it into a fixture. The credentials are a header's
// value, a value in a URL's query string and a URL's user info, but not its
// host nor a name in its path. Values under 4 bytes are left alone. The
// reference syntax and the scrubbing are package internal/secret's, which
// rag-snapshot's --lookup-header and --sidecar-header share.
//
// # Calls and errors
//
// Setup steps run once, in Health or at the first Lookup, and again after a
// failure. rag-snapshot calls Health, with its retries, before any lookup.
// Each call is bounded by Options.Timeout. The errors are lookuphttp's
// types, so internal/snapshot treats them exactly like the HTTP pipeline's.
// *lookuphttp.UnreachableError (no response) and *lookuphttp.TimeoutError
// are transient. *lookuphttp.StatusError is transient for 502, 503, 504 and
// 429. *lookuphttp.ProtocolError, for an answer that is not JSON or is too
// large, is not. An errorIf that holds is a *ServiceError, not transient.
// A failed setup step is a *SetupError, which is never "no such endpoint":
// a 404 there, such as a missing collection, stops the run at the health
// check, before any lookup. A config without setup steps has a Health that
// calls nothing, so its first lookup is what finds a service unreachable.
// A request the pipeline refuses by builtin.ResolveRequest wraps
// pipeline.ErrInvalidRequest and is refused before any call. A service's
// own 400 answer is a *lookuphttp.StatusError, not a refused request,
// since the config made that request.
//
// # Limits
//
// An answer is decoded in two passes (decode.go). The first checks it and
// reckons the memory its values will take. The second builds them only
// when that fits in Options.MaxDecodedBytes, which all lookups in flight
// share through a semaphore. Each jq evaluation is bounded by
// Options.MaxJQTime and stopped when the heap grows by more than
// Options.MaxJQMemory while it runs. Either stop is a *JQLimitError, not
// transient. A program yields at most 10,000 values, and the blocks
// program's array holds at most 10,000 blocks.
//
// # Blocks and scores
//
// The blocks program yields one array of objects or the objects one by
// one. The first pipeline.MaxBlocks(topK), 4 × topK, are read. The rest are dropped
// unread and counted in contract.LookupResult.DroppedBlocks, which the
// manifest adds up. Each object may have the fields BlockFields lists, with strict
// types: a number as a string is an error saying to use tonumber. null or
// a missing field stays absent. The score is converted to qualityScore by
// the declared Score.Quality: identity, 2s-1, 1-d, 1-d/2, 1-d^2/2, minmax
// over the result list, or none. It is clamped to [0, 1] and rounded to 6
// decimals. The raw score is kept as denseDistance for a distance, or
// fusedScore for a similarity. builtin.Grade then applies the thresholds
// exactly as the builtin pipeline does: the minQuality floor, relevance
// levels and evidenceStatus. The blocks are cut to topK and ranked by
// position. The thresholds are declared, or taken from the embedder's
// calibrated ones with thresholds: embedder, for conversions that give back
// the cosine of this project's embedder. Otherwise they are the
// uncalibrated defaults with a warning (Pipeline.Warnings). Describe
// records them as pipeline.params.
//
// # What a result holds
//
// A result holds found and evidenceBlocks always, and evidenceStatus when
// the config declares that capability. It never holds the context pack, the
// retrieval trace or the rerank trace, which are steps of the builtin
// pipeline. The config's capabilities say so in the manifest, and the
// judge skips the checks on them.
package mapped
