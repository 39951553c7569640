// Package sqlcatalog is the kb.Catalog shared by the SQL backends. Every
// statement, transaction and check lives here once. A small Dialect says
// what differs: column types, table options, "insert unless it exists", and
// how a duplicate key is reported. The backends internal/kb/catalog/sqlite
// and internal/kb/catalog/mysql only open the database, pick their dialect
// and run the one contract suite in internal/testkit/kbtest. So the
// embedded default and the server stack cannot drift apart.
//
// # Tables
//
//	catalog_meta (name, value)                     schema_version
//	documents    (kb_scope, doc_id, source, title, breadcrumb, category,
//	              content_hash, status, chunk_count)
//	             PRIMARY KEY (kb_scope, doc_id), UNIQUE (kb_scope, source)
//	l0_terms     (kb_scope, term, norm_term, kind, doc_id, source, category)
//	             INDEX (kb_scope, doc_id)
//	chunks       (kb_scope, evidence_key, doc_id, chunk_index, breadcrumb,
//	              text_hash)
//	             PRIMARY KEY (kb_scope, evidence_key), INDEX (kb_scope, doc_id)
//	index_info   (kb_scope, embedder, dim, key_format, chunk_size,
//	              chunk_overlap, documents, corpus_sha256)
//	             PRIMARY KEY (kb_scope)
//
// Init brings a catalog of an older build up to date. A missing table is
// created. A missing column is added with the value its rows stand for.
// That is 1 for index_info.key_format, 0 for chunk_size, chunk_overlap and
// documents, and "" for corpus_sha256, which means unknown. Verify refuses
// a catalog without key_format until then. The chunking and corpus columns
// are a record for people and the fixtures' manifest. A catalog without
// them is read as one whose record does not say.
//
// l0_terms and chunks reference documents (kb_scope, doc_id) by foreign
// key. There are no wall-clock columns. Schema returns the DDL for a
// dialect. deploy/mysql/schema.sql is the MySQL rendering, and a test
// checks it.
//
// # Exact keys
//
// Every compared or ordered column is an exact byte string: kb_scope,
// doc_id, source, evidence_key, status, kind and content_hash. They are
// TEXT with SQLite's default BINARY collation and VARBINARY on MySQL.
// MySQL's utf8mb4_bin is a PAD SPACE collation on both MySQL 8 and MariaDB.
// Under it 'pool' = 'pool ', and the two would collide in the unique key.
// The NO PAD binary collations have different names on the two servers,
// utf8mb4_0900_bin and utf8mb4_nopad_bin. VARBINARY behaves the same on
// both. So "Pool" and "pool", and "pool" and "pool ", are different sources
// everywhere. Documents orders doc IDs exactly as Go orders strings. Values
// are validated in Go, so both backends accept and refuse the same values.
// The checks are non-empty keys, valid UTF-8 and the byte limits below.
//
// # Behaviour the interface leaves open
//
//   - BeginIndexing replaces the document row, its L0 terms and its chunk
//     rows in one transaction. L0Terms returns no term of a document being
//     indexed. Its new terms are hidden until MarkReady and its old ones are
//     gone, so a half-indexed document never steers a lookup to its
//     category. After a crash it stays hidden until a rerun re-indexes it.
//   - Keywords, aliases and the title become L0 terms as written. An empty
//     term is skipped. An exact duplicate, of the same kind and text, is
//     stored once. norm_term holds textnorm.Normalize(term) for inspection
//     in SQL. The lookup normalises Term itself, so a change of the
//     normalisation never needs a re-index.
//   - Each chunk must belong to the document, with the same KBScope and
//     DocID. It must carry an evidence key of the document, as
//     kb.CheckEvidenceKey checks: "<DocID>#" and a label without '#', at
//     most MaxEvidenceKey bytes. Two chunks with the same index or the same
//     key are refused. chunk_count is len(chunks).
//   - A source already used by another doc ID of the kbScope is a
//     *SourceConflictError, and nothing is written.
//   - MarkReady needs a non-empty content hash. On a missing or ready
//     document it returns an error wrapping kb.ErrNotIndexing that says
//     which. ChunkCount counts every chunk row of the kbScope, indexing
//     documents included.
//   - L0Terms orders by term, then doc ID, then kind, comparing bytes in
//     Go. MySQL sorts long TEXT values on a prefix, max_sort_length, so the
//     order must not depend on the server.
//   - Every error names the store, Options.Label, and the operation.
//     Hostile values are quoted by %q.
//
// Only the number of placeholders in a multi-row INSERT is computed. Every
// value is a bound parameter, and table and column names are constants.
package sqlcatalog
