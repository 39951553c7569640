// Command rag-snapshot runs every golden case's query through the real
// lookup pipeline and freezes each result as a fixture,
// <fixtures>/<caseId>.json, beside a manifest, <fixtures>/_snapshot.json
// (docs/fixtures.md). Then it judges the fixtures offline, as rag-eval
// does, and prints the summary.
//
// Usage:
//
//	rag-snapshot [flags]                   the snapshot, then the judge
//	rag-snapshot serve [flags]             the builtin pipeline over HTTP
//
// Every path has its default inside the eval set, --dir. The golden cases
// are <dir>/cases/golden-cases.json. The fixtures go to <dir>/fixtures for
// hybrid search and to <dir>/fixtures-dense for dense. A sidecar's go to
// <dir>/fixtures-sidecar, or fixtures-sidecar-dense. The kbScope of every
// lookup is the golden file's kbScope, else rag-eval, and --kb-scope
// overrides it.
//
// # Fixtures
//
// A run is all or nothing. The fixtures are staged beside the fixture
// directory and moved in only when every case succeeded. When one fails,
// after the retries of transient errors, the directory is left untouched
// and the failures are listed. --partial moves the successes in anyway. A
// fixture whose result did not change keeps its file byte for byte, and
// only retrievedAt and latencyMs may differ for that. When nothing
// changed, the manifest is kept too, so a rerun without retrieval changes
// leaves no git diff. Fixtures of cases no longer in the golden file are
// removed.
//
// Transient errors are retried --retries times with backoff. They are
// timeouts, network errors, HTTP 502, 503, 504 and 429, and gRPC
// Unavailable. After 5 lookups in a row failed that way, the service is
// taken to be down and the remaining cases are not run. --timeout bounds
// each lookup attempt and each call to a service. Package
// internal/snapshot has the details.
//
// The judge runs only after a snapshot in which every case succeeded, and
// --skip-eval skips it. It prints rag-eval's summary and writes no report.
// rag-eval writes the reports, the baseline diff and the exit code that
// gates CI. The judge's verdict does not change rag-snapshot's exit
// status: a failing case is a finding about retrieval, not a failed
// snapshot. A dense or sidecar snapshot is expected to fail some cases.
//
// # Pipelines
//
// --pipeline builtin, the default, looks up the store of --store with the
// embedder of --embedder, as rag-seed loaded it. The store must hold
// chunks of the kbScope, else the run exits 1 saying to run rag-seed. They
// must be of the embedder's dimension, else the run exits 2, as rag-seed
// does.
//
// --pipeline http sends every lookup to a service at --lookup-url that
// speaks POST /v1/lookup and GET /healthz (docs/pipeline.md).
// --pipeline-search-mode and --pipeline-capabilities declare what it runs
// and produces, instead of what its /healthz says.
//
// --pipeline mapped --pipeline-config FILE sends the lookups to any HTTP
// retrieval API the config file describes, such as Weaviate, OpenSearch or
// Chroma, with no adapter service. deploy/mapped has configs for those
// three, and docs/mapped-pipeline.md explains every field.
//
// With --sidecar-url the same cases also go to a second pipeline over
// HTTP, into the sidecar fixtures. When it is unreachable, that directory
// only gets a manifest with "status": "unavailable" and the reason.
//
// # Headers and secrets
//
// --lookup-header 'Name: value' and --sidecar-header, each repeatable,
// send a header on every request to --lookup-url or --sidecar-url,
// /healthz included. ${NAME} and ${NAME:-default} in the value are read
// from the environment at start. Quote the flag in single quotes, so that
// the shell leaves them to rag-snapshot. A malformed header, an unset
// variable or a header flag without its URL is a usage error naming the
// flag. The values read are written nowhere. The manifest's pipeline.store
// is the URL without credentials. Every message and every string of a
// result has them replaced by ${NAME}, also when the service echoes them
// (package internal/secret). A value typed into the flag literally is sent
// as written and is not hidden, so put tokens in variables.
//
// # Serving
//
// rag-snapshot serve serves the builtin pipeline: POST /v1/lookup
// {"query", "kbScope", "searchMode", "topK"} answers {"lookupResult": …},
// and GET /healthz answers the pipeline's description (package
// internal/pipeline/lookuphttp). A request body is limited to
// --max-body-bytes, 1 MiB by default, and a lookup to --timeout. SIGINT or
// SIGTERM shuts it down gracefully. Only
// one process at a time may open an embedded data dir, so a sidecar served
// from the embedded store needs its own --data-dir.
//
// # Exit status
//
// 0: the snapshot was written, or nothing needed writing. 1: a case failed
// and nothing was moved in unless --partial, or the pipeline or the store
// failed or is not seeded. 2: a usage or input error in the flags, the
// golden cases or the configuration.
//
// Flags of rag-snapshot:
//
//	    --cases string                  golden cases file (default <dir>/cases/golden-cases.json)
//	    --concurrency int               lookups in flight at once (per pipeline) (default 4)
//	    --data-dir string               data directory of the embedded store and the knowledge copies [RAG_DATA_DIR] (default ".ragbaseline")
//	    --dir string                    eval set directory; the default of every other path is inside it (default "eval/rag-retrieval")
//	    --embed-dim int                 embedding dimension (use: 512, fixed; local: default 512; openai: the model's) [RAG_EMBED_DIM]
//	    --embed-input-type string       openai: how query/passage is sent: auto, field (input_type), prefix ("query: "/"passage: "), none [RAG_EMBED_INPUT_TYPE] (default "auto")
//	    --embed-model string            embedding model for --embedder openai [RAG_EMBED_MODEL]
//	    --embedder string               embedder: use (multilingual Universal Sentence Encoder in process; make models installs it), local (lexical hashed n-grams, no model) or openai (any OpenAI-compatible server) [RAG_EMBEDDER] (default "use")
//	    --fixtures string               fixture directory (default <dir>/fixtures, or <dir>/fixtures-dense with --search-mode dense)
//	    --fusion string                 how hybrid search fuses the dense and BM25 lists: anchored (RRF, but BM25 counts only inside the dense top 10 and the dense top 1 stays in the top 3) or rrf (plain reciprocal rank fusion, k = 60) (default "anchored")
//	-h, --help                          help for rag-snapshot
//	    --kb-scope string               kbScope of every lookup (default: the golden file's kbScope, else rag-eval)
//	    --lookup-header header          HTTP header "Name: value" sent on every request to --lookup-url (repeatable); ${NAME} and ${NAME:-default} in it are read from the environment at start and never written out: single-quote the flag
//	    --lookup-url string             base URL of a pipeline serving POST /v1/lookup, for --pipeline http
//	    --milvus-addr string            Milvus host:port for --store server [RAG_MILVUS_ADDR]
//	    --milvus-collection string      Milvus collection [RAG_MILVUS_COLLECTION] (default "rag_eval")
//	    --mysql-dsn string              MySQL/MariaDB DSN for --store server [RAG_MYSQL_DSN]
//	    --openai-base-url string        OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 [OPENAI_BASE_URL]; the key is read from OPENAI_API_KEY
//	    --partial                       move the successful cases in even when some failed
//	    --pipeline string               builtin (the store of --store), http (--lookup-url) or mapped (any HTTP retrieval API, --pipeline-config) (default "builtin")
//	    --pipeline-capabilities list    the parts of a lookup result the http pipeline produces, comma-separated: evidenceStatus, qualityScore, breadcrumb, contextPack, trace, fallback, rerank, or none (default: what its /healthz says, else all); checks that need a part it lacks are skipped
//	    --pipeline-config string        config file (YAML or JSON) describing an HTTP retrieval API, for --pipeline mapped (docs/mapped-pipeline.md; deploy/mapped has Weaviate, OpenSearch and Chroma)
//	    --pipeline-search-mode string   the search the http pipeline runs, as you declare it: hybrid, dense, bm25 or other (default: what its /healthz says; reports show it)
//	    --redis-addr string             Redis host:port for the embedding cache with --store server [RAG_REDIS_ADDR]
//	    --retries int                   retries of a lookup that failed with a transient error (timeout, network, HTTP 502/503/504/429, gRPC Unavailable) (default 2)
//	    --search-mode string            hybrid (dense + BM25, fused as --fusion says) or dense (default "hybrid")
//	    --sidecar-fixtures string       sidecar fixture directory (default <dir>/fixtures-sidecar, or fixtures-sidecar-dense)
//	    --sidecar-header header         HTTP header "Name: value" sent on every request to --sidecar-url (repeatable), expanded as --lookup-header's
//	    --sidecar-url string            base URL of a sidecar pipeline that also runs every case
//	    --skip-eval                     do not judge the fixtures after the snapshot
//	    --store string                  backend: embedded (SQLite + in-process index, no services) or server (MySQL + Milvus + Redis) [RAG_STORE] (default "embedded")
//	    --timeout duration              timeout of each lookup attempt, and of each call to a service (default 30s)
//	    --top-k int                     evidence blocks per lookup (default: the pipeline's, 5)
//	-v, --version                       version for rag-snapshot
//
// Flags of rag-snapshot serve:
//
//	    --addr string                host:port to listen on (port 0 picks a free one) (default "127.0.0.1:8080")
//	    --data-dir string            data directory of the embedded store and the knowledge copies [RAG_DATA_DIR] (default ".ragbaseline")
//	    --embed-dim int              embedding dimension (use: 512, fixed; local: default 512; openai: the model's) [RAG_EMBED_DIM]
//	    --embed-input-type string    openai: how query/passage is sent: auto, field (input_type), prefix ("query: "/"passage: "), none [RAG_EMBED_INPUT_TYPE] (default "auto")
//	    --embed-model string         embedding model for --embedder openai [RAG_EMBED_MODEL]
//	    --embedder string            embedder: use (multilingual Universal Sentence Encoder in process; make models installs it), local (lexical hashed n-grams, no model) or openai (any OpenAI-compatible server) [RAG_EMBEDDER] (default "use")
//	    --fusion string              how hybrid search fuses the dense and BM25 lists: anchored (RRF, but BM25 counts only inside the dense top 10 and the dense top 1 stays in the top 3) or rrf (plain reciprocal rank fusion, k = 60) (default "anchored")
//	-h, --help                       help for serve
//	    --kb-scope string            kbScope of requests that do not give one; the store must hold it (default "rag-eval")
//	    --max-body-bytes int         largest request body accepted (larger: 413) (default 1048576)
//	    --milvus-addr string         Milvus host:port for --store server [RAG_MILVUS_ADDR]
//	    --milvus-collection string   Milvus collection [RAG_MILVUS_COLLECTION] (default "rag_eval")
//	    --mysql-dsn string           MySQL/MariaDB DSN for --store server [RAG_MYSQL_DSN]
//	    --openai-base-url string     OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 [OPENAI_BASE_URL]; the key is read from OPENAI_API_KEY
//	    --redis-addr string          Redis host:port for the embedding cache with --store server [RAG_REDIS_ADDR]
//	    --store string               backend: embedded (SQLite + in-process index, no services) or server (MySQL + Milvus + Redis) [RAG_STORE] (default "embedded")
//	    --timeout duration           timeout of each lookup (then 504), and of each call to a service (default 30s)
//
// # Examples
//
// On the small eval set of the source tree, cmd/rag-snapshot/testdata/manual,
// seeded with rag-seed --embedder local: three cases, two that expect a
// document and one off-topic. With the lexical embedder, which needs no
// model, the off-topic question finds no evidence at all where its case
// expects weak evidence. The judge says so, and rag-snapshot still exits
// 0. Run there, each command prints what is shown, elapsed times aside
// (TestManual runs them).
//
//	$ rag-snapshot --embedder local
//	rag-snapshot: 3 written (3 changed, 0 unchanged), 0 failed, 0 removed in 0.03s
//	judge of eval/rag-retrieval/fixtures:
//	FAIL  3 cases: 2 pass, 1 fail, 0 not run, 0 error (pass rate 0.666667)
//	hit levels: strong 2, medium 0, weak 0, miss 0, n/a 1
//	recall@3 1  mrr 1  ndcg@3 1  keyword coverage —  fallback rate 0
//	  fail c3: evidence_status
//
//	$ rag-snapshot --embedder local
//	rag-snapshot: 3 written (0 changed, 3 unchanged), 0 failed, 0 removed in 0.01s
//	judge of eval/rag-retrieval/fixtures:
//	FAIL  3 cases: 2 pass, 1 fail, 0 not run, 0 error (pass rate 0.666667)
//	hit levels: strong 2, medium 0, weak 0, miss 0, n/a 1
//	recall@3 1  mrr 1  ndcg@3 1  keyword coverage —  fallback rate 0
//	  fail c3: evidence_status
//
//	$ rag-snapshot --embedder local --search-mode dense --skip-eval
//	rag-snapshot: 3 written (3 changed, 0 unchanged), 0 failed, 0 removed in 0.02s
//
//	$ rag-snapshot --embedder local --kb-scope payments
//	rag-snapshot: the store (embedded store in .ragbaseline, embedder local-hash-v1) holds no chunks of kbScope payments, given by --kb-scope (the golden file eval/rag-retrieval/cases/golden-cases.json has kbScope rag-eval): seed it (rag-seed --kb-scope payments), or snapshot the kbScope the store was seeded with (--kb-scope)
//	[exit status 1]
//
//	$ rag-snapshot --embedder local --embed-dim 64
//	rag-snapshot: kbScope rag-eval was seeded with embedder local-hash-v1 (dimension 512) but this run uses local-hash-v1 (dimension 64): choose the same embedder (--embedder, RAG_EMBEDDER, RAG_EMBED_MODEL), or rerun rag-seed with --recreate to re-embed it
//	[exit status 2]
//
//	$ rag-snapshot --pipeline http
//	rag-snapshot: --pipeline http needs --lookup-url
//	[exit status 2]
//
// Other pipelines, and a sidecar compared offline afterwards:
//
//	rag-snapshot --pipeline http --lookup-url http://127.0.0.1:9000 --fixtures /tmp/ext
//	rag-snapshot --lookup-url https://search.example --lookup-header 'Authorization: Bearer ${SVC_TOKEN}'
//	rag-snapshot --pipeline mapped --pipeline-config deploy/mapped/chroma.yaml --fixtures /tmp/chroma
//	rag-snapshot serve --addr 127.0.0.1:8081 --data-dir /tmp/sidecar-store &
//	rag-snapshot --sidecar-url http://127.0.0.1:8081
//	rag-eval compare --left eval/rag-retrieval/fixtures --right eval/rag-retrieval/fixtures-sidecar
package main
