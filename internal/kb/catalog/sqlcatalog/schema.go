package sqlcatalog

import (
	"fmt"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Size limits, in bytes of UTF-8. They are checked in Go before anything is
// written, so both backends reject the same values with the same message.
// SQLite would store anything. MySQL would refuse, or truncate in a lax
// sql_mode.
const (
	MaxKBScope     = 255
	MaxDocID       = 512
	MaxSource      = 512
	MaxEvidenceKey = kb.MaxEvidenceKeyLen // "<docId>#<section label>[@n][~n]"
	MaxContentHash = 128
	// MaxText bounds every other string: title, breadcrumb, category, L0
	// terms (MySQL TEXT holds 65,535 bytes).
	MaxText = 65535

	maxWord     = 16 // status, term kind
	maxMetaName = 64
)

// SchemaVersion is the version of the tables this package reads and
// writes, recorded in catalog_meta by Init. A catalog written by a newer
// build is refused rather than misread.
const SchemaVersion = "1"

type colKind int

const (
	colKey  colKind = iota // exact string, see Dialect.KeyType
	colText                // stored, never compared
	colInt
)

type column struct {
	name string
	kind colKind
	size int // bytes, for colKey
}

type index struct {
	name string
	cols []string
}

type foreignKey struct {
	name    string
	cols    []string
	refs    string // table
	refCols []string
}

type table struct {
	name        string
	cols        []column
	primaryKey  []string
	unique      []index
	indexes     []index
	foreignKeys []foreignKey
	// optional says that Verify accepts a catalog without the table: one
	// of a build before it, which a reading command does without.
	optional bool
}

// tables is the schema, in creation order. There are no wall-clock
// columns: nothing the catalog returns depends on when it was written.
var tables = []table{
	{
		name: "catalog_meta",
		cols: []column{
			{"name", colKey, maxMetaName},
			{"value", colText, 0},
		},
		primaryKey: []string{"name"},
	},
	{
		name: "documents",
		cols: []column{
			{"kb_scope", colKey, MaxKBScope},
			{"doc_id", colKey, MaxDocID},
			{"source", colKey, MaxSource},
			{"title", colText, 0},
			{"breadcrumb", colText, 0},
			{"category", colText, 0},
			{"content_hash", colKey, MaxContentHash}, // '' until ready
			{"status", colKey, maxWord},
			{"chunk_count", colInt, 0},
		},
		primaryKey: []string{"kb_scope", "doc_id"},
		unique:     []index{{"documents_scope_source", []string{"kb_scope", "source"}}},
	},
	{
		// l0_terms holds the keywords, aliases and title of every document,
		// ready or not. L0Terms joins documents to keep the ready ones.
		// source and category are copies of the document's, written in the
		// same transaction.
		name: "l0_terms",
		cols: []column{
			{"kb_scope", colKey, MaxKBScope},
			{"term", colText, 0},      // as written in the frontmatter
			{"norm_term", colText, 0}, // textnorm.Normalize(term), for SQL-side inspection only
			{"kind", colKey, maxWord},
			{"doc_id", colKey, MaxDocID},
			{"source", colKey, MaxSource},
			{"category", colText, 0},
		},
		// The index's leading column serves lookups by kb_scope. The second
		// serves the per-document replace and delete.
		indexes:     []index{{"l0_terms_scope_doc", []string{"kb_scope", "doc_id"}}},
		foreignKeys: []foreignKey{{"l0_terms_document", []string{"kb_scope", "doc_id"}, "documents", []string{"kb_scope", "doc_id"}}},
	},
	{
		// chunks holds the metadata of the chunks in the vector index,
		// not their text or vector: text_hash is the hex SHA-256 of the
		// chunk's text.
		name: "chunks",
		cols: []column{
			{"kb_scope", colKey, MaxKBScope},
			{"evidence_key", colKey, MaxEvidenceKey},
			{"doc_id", colKey, MaxDocID},
			{"chunk_index", colInt, 0},
			{"breadcrumb", colText, 0},
			{"text_hash", colKey, 64},
		},
		primaryKey:  []string{"kb_scope", "evidence_key"},
		indexes:     []index{{"chunks_scope_doc", []string{"kb_scope", "doc_id"}}},
		foreignKeys: []foreignKey{{"chunks_document", []string{"kb_scope", "doc_id"}, "documents", []string{"kb_scope", "doc_id"}}},
	},
	{
		// index_info records, as kb.IndexInfo, the embedder and dimension
		// of a kbScope's vectors, the format of its evidence keys, the
		// chunk sizes and the corpus fingerprint. A seed that completed
		// writes it. A catalog of an older build gains the table, and the
		// columns added since in addedColumns, at its next Init.
		name: "index_info",
		cols: []column{
			{"kb_scope", colKey, MaxKBScope},
			{"embedder", colText, 0},
			{"dim", colInt, 0},
			{"key_format", colInt, 0},
			{"chunk_size", colInt, 0},
			{"chunk_overlap", colInt, 0},
			{"documents", colInt, 0},
			{"corpus_sha256", colKey, 64},
		},
		primaryKey: []string{"kb_scope"},
	},
	{
		// seed_runs holds, as kb.SeedRun, the seeds that began and have not
		// completed: a seed writes its row before its first write and
		// deletes it with the index_info record it writes at the end. A
		// catalog of an older build gains the table at its next Init.
		// Until then it has no row, and reading it is not refused: it is
		// an optional table.
		name: "seed_runs",
		cols: []column{
			{"kb_scope", colKey, MaxKBScope},
			{"documents", colInt, 0},
			{"corpus_sha256", colKey, 64},
		},
		primaryKey: []string{"kb_scope"},
		optional:   true,
	},
}

// addedColumn is a column added to a table of an earlier build. Init adds
// it to a catalog that lacks it, with def as the value of the rows it
// already has. Verify refuses such a catalog rather than misread it, since
// no rag-seed has run on it since. It does not when the column is optional.
// An optional column is a record for people that a reading command does
// without, such as the chunking and corpus of a seed.
type addedColumn struct {
	table, column string
	kind          colKind // colInt or colKey
	size          int     // for colKey
	def           string  // an SQL literal
	optional      bool
}

var addedColumns = []addedColumn{
	// The records of seeds before key_format existed are of keys of
	// format 1, "<docId>#<chunkIndex>".
	{table: "index_info", column: "key_format", kind: colInt, def: "1"},
	// Seeds before the chunking and the corpus were recorded: unknown (0
	// and ""), until the next rag-seed records them.
	{table: "index_info", column: "chunk_size", kind: colInt, def: "0", optional: true},
	{table: "index_info", column: "chunk_overlap", kind: colInt, def: "0", optional: true},
	{table: "index_info", column: "documents", kind: colInt, def: "0", optional: true},
	{table: "index_info", column: "corpus_sha256", kind: colKey, size: 64, def: "''", optional: true},
}

// optionalColumn reports whether table.column is an optional added column.
func optionalColumn(table, column string) bool {
	for _, a := range addedColumns {
		if a.table == table && a.column == column {
			return a.optional
		}
	}
	return false
}

// columnType is the type of a column of kind in dialect d.
func columnType(d *Dialect, kind colKind, size int) string {
	switch kind {
	case colKey:
		return d.KeyType(size)
	case colText:
		return d.TextType
	}
	return d.IntType
}

// Schema returns the statements that create the catalog's tables and
// indexes in dialect d, each idempotent (IF NOT EXISTS) and without a
// trailing semicolon. Init executes them in order.
func Schema(d *Dialect) []string {
	var stmts []string
	for _, t := range tables {
		var b strings.Builder
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", t.name)
		var lines []string
		for _, c := range t.cols {
			lines = append(lines, fmt.Sprintf("%s %s NOT NULL", c.name, columnType(d, c.kind, c.size)))
		}
		if len(t.primaryKey) > 0 {
			lines = append(lines, fmt.Sprintf("PRIMARY KEY (%s)", strings.Join(t.primaryKey, ", ")))
		}
		for _, u := range t.unique {
			lines = append(lines, fmt.Sprintf("CONSTRAINT %s UNIQUE (%s)", u.name, strings.Join(u.cols, ", ")))
		}
		if d.InlineIndexes {
			for _, ix := range t.indexes {
				lines = append(lines, fmt.Sprintf("INDEX %s (%s)", ix.name, strings.Join(ix.cols, ", ")))
			}
		}
		for _, fk := range t.foreignKeys {
			lines = append(lines, fmt.Sprintf("CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)",
				fk.name, strings.Join(fk.cols, ", "), fk.refs, strings.Join(fk.refCols, ", ")))
		}
		b.WriteString("\t" + strings.Join(lines, ",\n\t") + "\n)")
		if d.TableOptions != "" {
			b.WriteString(" " + d.TableOptions)
		}
		stmts = append(stmts, b.String())
		if !d.InlineIndexes {
			for _, ix := range t.indexes {
				stmts = append(stmts, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)",
					ix.name, t.name, strings.Join(ix.cols, ", ")))
			}
		}
	}
	return stmts
}
