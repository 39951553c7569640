// Package sqlcatalog is the kb.Catalog shared by the SQL backends: every
// statement, transaction and check lives here once, and a small Dialect
// says what differs (column types, table options, "insert unless it
// exists", how a duplicate key is reported). The backends
// (internal/kb/catalog/sqlite, internal/kb/catalog/mysql) only open the database,
// pick their dialect and run the one contract suite in internal/testkit/kbtest, so
// the embedded default and the server stack cannot drift apart.
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
// A catalog of an older build is brought up to date by Init: a missing
// table is created, a missing column is added with the value its rows
// stand for (index_info.key_format 1; chunk_size, chunk_overlap and
// documents 0 and corpus_sha256 "", unknown). Verify refuses a catalog
// without key_format until then; the chunking and corpus columns are a
// record for people and the fixtures' manifest, and a catalog without them
// is read as one whose record does not say.
//
// l0_terms and chunks reference documents (kb_scope, doc_id) by foreign
// key. There are no wall-clock columns. Schema returns the DDL for a
// dialect; deploy/mysql/schema.sql is the MySQL rendering, checked by a
// test.
//
// # Exact keys
//
// Every compared or ordered column (kb_scope, doc_id, source,
// evidence_key, status, kind, content_hash) is an exact byte string:
// TEXT with SQLite's default BINARY collation, VARBINARY on MySQL. MySQL's
// utf8mb4_bin is a PAD SPACE collation on both MySQL 8 and MariaDB, where
// 'pool' = 'pool ' and the two would collide in the unique key; the NO PAD
// binary collations have different names on the two servers
// (utf8mb4_0900_bin, utf8mb4_nopad_bin), and VARBINARY behaves the same on
// both. So "Pool" and "pool", "pool" and "pool ", are different sources
// everywhere, and Documents orders doc IDs exactly as Go orders strings.
// Values are validated in Go (non-empty keys, valid UTF-8, the byte limits
// below), so both backends accept and refuse the same values.
//
// # Behaviour the interface leaves open
//
//   - BeginIndexing replaces the document row, its L0 terms and its chunk
//     rows in one transaction. A document being indexed has no L0 terms
//     that L0Terms returns: its new terms are hidden until MarkReady and
//     its old ones are gone, so a half-indexed document never steers a
//     lookup to its category (after a crash it stays hidden until a rerun
//     re-indexes it).
//   - Keywords, aliases and the title become L0 terms as written; an empty
//     term is skipped and an exact duplicate (same kind and text) is
//     stored once. norm_term holds textnorm.Normalize(term) for inspection
//     in SQL; the lookup normalises Term itself, so a change of the
//     normalisation never needs a re-index.
//   - Each chunk must belong to the document (same KBScope and DocID) and
//     carry an evidence key of it (kb.CheckEvidenceKey: "<DocID>#" and a
//     label without '#', at most MaxEvidenceKey bytes); two chunks with
//     the same index or the same key are refused. chunk_count is
//     len(chunks).
//   - A source already used by another doc ID of the kbScope is a
//     *SourceConflictError, and nothing is written.
//   - MarkReady needs a non-empty content hash; on a missing or ready
//     document it returns an error wrapping kb.ErrNotIndexing that says
//     which. ChunkCount counts every chunk row of the kbScope, indexing
//     documents included.
//   - L0Terms orders by term, then doc ID, then kind, comparing bytes in
//     Go: MySQL sorts long TEXT values on a prefix (max_sort_length), so
//     the order must not depend on the server.
//   - Every error names the store (Options.Label) and the operation, with
//     hostile values quoted by %q.
//
// Only the number of placeholders in a multi-row INSERT is computed; every
// value is a bound parameter, and table and column names are constants.
package sqlcatalog
