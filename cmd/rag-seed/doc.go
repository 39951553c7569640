// Command rag-seed loads the eval corpus (kb_scope: rag-eval markdown) into
// the retrieval stack through the same ingestion path a production upload
// takes: metadata row, L0 index entries, a copy of the document, chunk rows
// and vectors (docs/corpus.md).
//
// Every document is validated before anything is written; problems are
// listed as file:line: message and the run exits 2. Seeding is idempotent
// (unchanged documents are skipped) and crash-safe (a document is marked
// indexing before its vectors are written and ready after), so rerunning
// after a failure converges.
//
//	rag-seed                                   # embedded store under .ragbaseline/, no services
//	rag-seed --dir eval/team-a                 # another eval set: its seed-docs and its golden file's kbScope
//	. .ragbaseline/services.env && rag-seed --store server
//	rag-seed --recreate                        # after changing the embedding model or dimension
//	rag-seed --prune                           # also remove documents no longer in --docs
//	rag-seed --dry-run                         # show what would change
//
// Exit status: 0 done, 1 a backend failed mid-run (rerun to converge),
// 2 usage error or invalid documents (nothing written).
//
// This package is rag-seed's code and manual, importable so that the binary,
// cmd/rag-seed, is a few lines and go install names it rag-seed (docs/release.md).
package main
