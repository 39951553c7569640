// Package snapshot runs every golden case's query through a lookup pipeline
// (the builtin one, or any pipeline over HTTP) and freezes each result as a
// fixture, fixtures/<caseId>.json (SPEC §7, §10). cmd/snapshot is its
// command line; Run is the whole job.
//
// # All or nothing
//
// Every fixture is first written into a staging directory beside the fixture
// directory (.<name>.staging-*, on the same file system). Only when every
// case succeeded are the fixtures moved in, each with an atomic rename, and
// the manifest _snapshot.json written last (atomically). When a case fails
// after its retries, the fixture directory is left exactly as it was — no
// fixture, no manifest, no removal — the failures are returned in a
// *FailedError and the staging directory is removed. With Options.Partial
// the successes are moved in anyway (a failed case keeps its old fixture,
// if any) and the manifest lists the failures. An interrupted run
// (ctx cancelled) moves nothing in, even with Partial.
//
// The set of renames is not one atomic step: a crash or a full disk half way
// through the move leaves some new and some old fixtures (each file whole)
// and the old manifest; running again converges.
//
// # Unchanged stays unchanged
//
// A new fixture that equals the existing file once retrievedAt and every
// latencyMs are removed (both compared as canonical JSON) is not written:
// the old file is kept byte for byte, modification time included. When no
// fixture was written or removed and the manifest would only differ in its
// run-specific fields (started, finished and the counts), _snapshot.json is
// not rewritten either, so a rerun without retrieval changes leaves no git
// diff.
//
// # Fixtures of removed cases
//
// A *.json file in the fixture directory that is a valid fixture but matches
// no golden case (compared ignoring letter case, for case-insensitive file
// systems) is removed when the snapshot is moved in, and counted as
// Removed: the fixture directory mirrors the golden file, and the judge would
// only warn about it as an orphan. Files starting with "_" and files that
// are not fixtures are never touched.
//
// # Retries
//
// Each lookup gets Options.Timeout. A transient failure (see Transient: a
// timeout, a network error, a 5xx or 429 from an HTTP pipeline, a gRPC
// Unavailable) is retried up to Options.Retries times, after
// Backoff·2^attempt with ±50% jitter. Other errors fail the case at once.
// When Options.MaxConsecutiveFailures lookups in a row (default 5) failed
// with transient errors, the service is taken to be down: the remaining
// cases are not run and fail with "not run: gave up after …", instead of
// each waiting out its timeouts and retries (a Milvus that dies mid-run
// makes every call wait for its deadline).
//
// # Sidecar
//
// With Options.Sidecar the same cases also go to a second pipeline, written
// to Options.SidecarDir with the same rules. When the sidecar is unreachable
// — its health check fails (404 or 405 means it has none, which is fine),
// or its first failure is a connection error before any success — SidecarDir gets only a manifest with "status":
// "unavailable" and the reason (its old fixtures are left alone and are
// ignored by the comparison), and the current path is still written. A
// reachable sidecar whose cases fail is a failure like any other (its
// directory is left untouched) but does not stop the current path.
//
// # Manifest
//
// _snapshot.json (SPEC §7) holds manifestVersion, tool, status
// (available|unavailable), reason, searchMode, kbScope, pipeline, store,
// embedder, started, finished (RFC 3339 UTC seconds), cases, written,
// changed, unchanged, removed and failed ([{caseId, error}]). written =
// changed + unchanged; a new fixture counts as changed.
package snapshot
