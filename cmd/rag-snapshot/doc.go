// Command rag-snapshot runs every golden case's query through the real
// lookup pipeline and freezes each result as a fixture,
// <fixtures>/<caseId>.json, with a manifest <fixtures>/_snapshot.json
// (docs/fixtures.md). Then it judges the fixtures offline, as rag-eval does,
// and prints the summary.
//
//	rag-seed                                   # once, after a collection rebuild
//	rag-snapshot                               # hybrid → eval/rag-retrieval/fixtures
//	rag-snapshot --search-mode dense           # dense  → eval/rag-retrieval/fixtures-dense
//	rag-snapshot --pipeline http --lookup-url http://127.0.0.1:9000
//	rag-snapshot --lookup-url https://search.example --lookup-header 'Authorization: Bearer ${SVC_TOKEN}'
//	rag-snapshot --pipeline mapped --pipeline-config deploy/mapped/chroma.yaml   # any HTTP retrieval API
//	rag-snapshot --sidecar-url http://127.0.0.1:8081   # also → eval/rag-retrieval/fixtures-sidecar
//	rag-snapshot serve --addr 127.0.0.1:8080   # the builtin pipeline over HTTP
//
// A run is all or nothing: the fixtures are staged beside the fixture
// directory and moved in only when every case succeeded; when one fails
// (after retries of transient errors) the directory is left untouched and
// the failures are listed (--partial moves the successes in). A fixture
// whose result did not change — equal but for retrievedAt and latencyMs —
// keeps its file byte for byte, and when nothing changed the manifest is
// kept too, so a rerun without retrieval changes leaves no git diff.
// Fixtures of cases no longer in the golden file are removed. Transient
// errors (timeouts, network errors, HTTP 502/503/504/429, gRPC Unavailable) are retried
// --retries times with backoff; after 5 lookups in a row failed that way
// the service is taken to be down and the remaining cases are not run. See
// package internal/snapshot for the details.
//
// Defaults: --cases <dir>/cases/golden-cases.json; --fixtures
// <dir>/fixtures for hybrid and <dir>/fixtures-dense for dense;
// --sidecar-fixtures <dir>/fixtures-sidecar (or fixtures-sidecar-dense);
// --kb-scope the golden file's kbScope. --timeout bounds each lookup
// attempt as well as each call to a service.
//
// The judge (skipped with --skip-eval) runs only after a snapshot in which
// every case succeeded; it prints rag-eval's summary and writes no report
// (run rag-eval for the reports, the baseline diff and the exit code that
// gates CI). Its verdict does not change rag-snapshot's exit status: a
// failing case is a finding about retrieval, not a failed snapshot, and a
// dense or sidecar snapshot is expected to fail some cases.
//
// --lookup-header 'Name: value' and --sidecar-header (repeatable) send a
// header on every request to --lookup-url or --sidecar-url, /healthz
// included. ${NAME} and ${NAME:-default} in the value are read from the
// environment at start (quote the flag in single quotes so the shell
// leaves them alone); a malformed header, an unset variable or a header
// flag without its URL is a usage error naming the flag. The values read
// are written nowhere: the manifest's pipeline.store is the URL without
// credentials, and every message (and every string of a result) has them
// replaced by ${NAME}, also when the service echoes them (package
// internal/secret). A value typed into the flag literally is sent as
// written and is not hidden: put tokens in variables.
//
// Before the builtin pipeline runs, the store must hold chunks of the
// kbScope (else "run rag-seed first", exit 1) of the embedder's dimension
// (else exit 2, as rag-seed does).
//
// rag-snapshot serve serves the builtin pipeline: POST /v1/lookup
// {"query", "kbScope", "searchMode", "topK"} → {"lookupResult": …} and GET
// /healthz (package internal/pipeline/lookuphttp), with a 1 MiB request limit, the
// --timeout per lookup, and a graceful shutdown on SIGINT or SIGTERM. Only
// one process at a time may open an embedded data dir, so a sidecar served
// from the embedded store needs its own --data-dir.
//
// Exit status: 0 the snapshot was written (or nothing needed writing),
// 1 a case failed (nothing moved in, unless --partial), the pipeline or the
// store failed or is not seeded, 2 usage or input error (flags, golden
// cases, configuration).
//
// This package is rag-snapshot's code and manual, importable so that the binary,
// cmd/rag-snapshot, is a few lines and go install names it rag-snapshot (docs/release.md).
package main
