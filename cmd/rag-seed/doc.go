// Command rag-seed loads an eval set's corpus into the retrieval stack
// through the ingestion path a production upload takes. Each document gets
// a metadata row, L0 index entries, a copy of its text, chunk rows and
// vectors (docs/corpus.md).
//
// Usage:
//
//	rag-seed [flags]
//
// The eval set, --dir, gives the defaults. The documents are
// <dir>/seed-docs, Markdown files with a front matter. The kb scope every
// one of them must declare is the kbScope of the golden file
// <dir>/cases/golden-cases.json, else rag-eval. --docs and --kb-scope
// override them.
//
// Every document is validated before anything is written. Problems are
// listed as file:line: message, documents of another kb scope in one line,
// and the run exits 2. Seeding is idempotent: unchanged documents are
// skipped and changed ones replaced. It is crash-safe too: a document is
// marked indexing before its vectors are written and ready after. So a
// rerun after a failure converges. --dry-run validates and reports what
// would change. Documents of the kb scope that are no longer in --docs are
// reported, and --prune removes them.
//
// The store is --store. embedded, the default, is a SQLite catalog and an
// in-process index under --data-dir, and needs no service. server is
// MySQL, Milvus and Redis, which make services starts. Two seeds of one
// server database and collection do not interleave: the second waits for
// the first, up to --lock-wait. The embedder is --embedder. use, the
// default, runs the multilingual Universal Sentence Encoder in process,
// and make models installs it. local hashes n-grams and needs no model.
// openai calls any OpenAI-compatible server. After a change of embedding
// model or dimension, --recreate drops and rebuilds the vector collection.
// The flags of the store and the embedder default to the environment
// variable named in brackets in their help.
//
// # Exit status
//
// 0: done. 1: a backend failed mid-run, and a rerun converges. 2: a usage
// error or invalid documents, and nothing was written.
//
// Flags of rag-seed:
//
//	    --cases string               golden cases file whose kbScope is the default of --kb-scope (default <dir>/cases/golden-cases.json)
//	    --chunk-overlap int          characters of overlap between pieces of a long section (default 100)
//	    --chunk-size int             maximum chunk size in Unicode characters (default 800)
//	    --data-dir string            data directory of the embedded store and the knowledge copies [RAG_DATA_DIR] (default ".ragbaseline")
//	    --dir string                 eval set directory: the defaults of --docs and --kb-scope come from it (default "eval/rag-retrieval")
//	    --docs string                directory of seed documents (*.md) (default <dir>/seed-docs)
//	    --dry-run                    validate and report what would change; write nothing
//	    --embed-concurrency int      openai: embedding requests in flight at once [RAG_EMBED_CONCURRENCY] (default 4)
//	    --embed-dim int              embedding dimension (use: 512, fixed; local: default 512; openai: the model's) [RAG_EMBED_DIM]
//	    --embed-input-type string    openai: how query/passage is sent: auto, field (input_type), prefix ("query: "/"passage: "), none [RAG_EMBED_INPUT_TYPE] (default "auto")
//	    --embed-model string         embedding model for --embedder openai [RAG_EMBED_MODEL]
//	    --embedder string            embedder: use (multilingual Universal Sentence Encoder in process; make models installs it), local (lexical hashed n-grams, no model) or openai (any OpenAI-compatible server) [RAG_EMBEDDER] (default "use")
//	-h, --help                       help for rag-seed
//	    --kb-scope string            kb_scope every document must declare (default: the golden file's kbScope, else rag-eval)
//	    --lock-wait duration         server store: how long to wait for another rag-seed of the same database and collection to finish (default 10m0s)
//	    --milvus-addr string         Milvus host:port for --store server [RAG_MILVUS_ADDR]
//	    --milvus-collection string   Milvus collection [RAG_MILVUS_COLLECTION] (default "rag_eval")
//	    --mysql-dsn string           MySQL/MariaDB DSN for --store server [RAG_MYSQL_DSN]
//	    --openai-base-url string     OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 [OPENAI_BASE_URL]; the key is read from OPENAI_API_KEY
//	    --prune                      remove documents of the kb_scope that are no longer in --docs (default: report them)
//	    --recreate                   drop and recreate the vector collection (after an embedding model or dimension change)
//	    --redis-addr string          Redis host:port for the embedding cache with --store server [RAG_REDIS_ADDR]
//	    --store string               backend: embedded (SQLite + in-process index, no services) or server (MySQL + Milvus + Redis) [RAG_STORE] (default "embedded")
//	    --timeout duration           timeout of each call to a service (default 30s)
//	-v, --version                    version for rag-seed
//
// # Examples
//
// On the small eval set of the source tree, cmd/rag-seed/testdata/manual,
// with the lexical embedder, which needs no model. It has two documents in
// eval/rag-retrieval/seed-docs and, in drafts, one with mistakes. Run
// there, each command prints what is shown, elapsed times aside
// (TestManual runs them).
//
//	$ rag-seed --embedder local
//	rag-seed: 2 added, 0 updated, 0 unchanged, 0 pruned documents; 4 chunks written in 0.03s (embedded store in .ragbaseline, embedder local-hash-v1)
//
//	$ rag-seed --embedder local
//	rag-seed: 0 added, 0 updated, 2 unchanged, 0 pruned documents; 0 chunks written in 0.00s (embedded store in .ragbaseline, embedder local-hash-v1)
//
//	$ rag-seed --embedder local --docs drafts
//	rag-seed: invalid seed documents:
//	rag-seed: drafts/cert.md:1: missing required key "category"
//	rag-seed: drafts/cert.md:4: unknown key "categroy" (known keys: source, title, breadcrumb, category, kb_scope, keywords, aliases, doc_id)
//	rag-seed: kb_scope: 1 document in drafts declares another kb scope than "rag-eval" (the kbScope of eval/rag-retrieval/cases/golden-cases.json): "payments" in cert.md:5; set kb_scope in the documents or pass --kb-scope
//	[exit status 2]
//
//	$ rag-seed --embedder local --embed-dim 64
//	rag-seed: index: collection .ragbaseline/index has dimension 512, the embedder gives 64; rerun rag-seed with --recreate to rebuild it
//	[exit status 2]
//
//	$ rag-seed --embedder local --embed-dim 64 --recreate
//	rag-seed: 0 added, 2 updated, 0 unchanged, 0 pruned documents; 4 chunks written in 0.02s (embedded store in .ragbaseline, embedder local-hash-v1)
//
// On the server stack, with the services make services started:
//
//	. .ragbaseline/services.env && rag-seed --store server
//
// Another eval set, its seed-docs and the kbScope of its golden file:
//
//	rag-seed --dir eval/team-a
package main
