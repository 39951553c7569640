package sqlcatalog

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Options configure a Catalog.
type Options struct {
	// Label names the store at the start of every error, e.g.
	// "sqlite catalog .ragbaseline/catalog.db". It must not hold a secret.
	Label string
	// SerializeWrites runs one write at a time in this process, waiting for
	// the previous one or for the context. SQLite has one writer per file.
	// Readers are not held up.
	SerializeWrites bool
	// Explain, if set, may rewrite an error of the database before it is
	// wrapped (to say that a connection was lost, for example). It must
	// keep the error in the chain.
	Explain func(error) error
}

// Catalog is a kb.Catalog over database/sql. It is safe for concurrent
// use.
type Catalog struct {
	db      *sql.DB
	d       *Dialect
	label   string
	writeMu chan struct{} // a one-slot semaphore, nil unless SerializeWrites
	explain func(error) error
}

var _ kb.Catalog = (*Catalog)(nil)

// New returns a Catalog over db in dialect d. Close closes db.
func New(db *sql.DB, d *Dialect, opts Options) *Catalog {
	c := &Catalog{db: db, d: d, label: opts.Label, explain: opts.Explain}
	if c.label == "" {
		c.label = d.Name + " catalog"
	}
	if opts.SerializeWrites {
		c.writeMu = make(chan struct{}, 1)
	}
	return c
}

// DB returns the database handle, for a store that shares the database
// (the embedded embedding cache lives in the catalog's SQLite file).
func (c *Catalog) DB() *sql.DB { return c.db }

// Label names the catalog in messages (Options.Label).
func (c *Catalog) Label() string { return c.label }

// Close closes the database.
func (c *Catalog) Close() error { return c.db.Close() }

// SourceConflictError is returned by BeginIndexing when the document's
// source is already the source of another document of the kbScope.
type SourceConflictError struct {
	KBScope, Source string
	DocID           string // the document being indexed
	Holder          string // the document that has the source, "" if unknown
}

func (e *SourceConflictError) Error() string {
	holder := "another document"
	if e.Holder != "" {
		holder = "document " + quote(e.Holder)
	}
	return fmt.Sprintf("source %s of document %s is already the source of %s in kb_scope %s; delete that document first (rag-seed --prune)",
		quote(e.Source), quote(e.DocID), holder, quote(e.KBScope))
}

const (
	stmtFindSource = `SELECT doc_id FROM documents WHERE kb_scope = ? AND source = ? AND doc_id <> ?`
	stmtDelTerms   = `DELETE FROM l0_terms WHERE kb_scope = ? AND doc_id = ?`
	stmtDelChunks  = `DELETE FROM chunks WHERE kb_scope = ? AND doc_id = ?`
	stmtDelDoc     = `DELETE FROM documents WHERE kb_scope = ? AND doc_id = ?`
	stmtInsDoc     = `INSERT INTO documents (kb_scope, doc_id, source, title, breadcrumb, category, content_hash, status, chunk_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	headInsTerms   = `INSERT INTO l0_terms (kb_scope, term, norm_term, kind, doc_id, source, category) VALUES `
	colsTerms      = 7
	headInsChunks  = `INSERT INTO chunks (kb_scope, evidence_key, doc_id, chunk_index, breadcrumb, text_hash) VALUES `
	colsChunks     = 6
	stmtMarkReady  = `UPDATE documents SET status = ?, content_hash = ? WHERE kb_scope = ? AND doc_id = ? AND status = ?`
	stmtStatus     = `SELECT status FROM documents WHERE kb_scope = ? AND doc_id = ?`
	stmtDocuments  = `SELECT doc_id, source, kb_scope, title, breadcrumb, category, content_hash, status, chunk_count FROM documents WHERE kb_scope = ? ORDER BY doc_id`
	stmtL0Terms    = `SELECT t.term, t.kind, t.doc_id, t.source, t.category FROM l0_terms t JOIN documents d ON d.kb_scope = t.kb_scope AND d.doc_id = t.doc_id WHERE t.kb_scope = ? AND d.status = ?`
	stmtChunkCount = `SELECT COUNT(*) FROM chunks WHERE kb_scope = ?`
	stmtGetMeta    = `SELECT value FROM catalog_meta WHERE name = ?`
	stmtDelInfo    = `DELETE FROM index_info WHERE kb_scope = ?`
	stmtInsInfo    = `INSERT INTO index_info (kb_scope, embedder, dim, key_format, chunk_size, chunk_overlap, documents, corpus_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	stmtGetInfo    = `SELECT embedder, dim, key_format, chunk_size, chunk_overlap, documents, corpus_sha256 FROM index_info WHERE kb_scope = ?`
	// stmtGetInfoOld reads a catalog whose index_info lacks the optional
	// columns (no rag-seed of this build has run on it).
	stmtGetInfoOld = `SELECT embedder, dim, key_format FROM index_info WHERE kb_scope = ?`
	stmtDelSeed    = `DELETE FROM seed_runs WHERE kb_scope = ?`
	stmtInsSeed    = `INSERT INTO seed_runs (kb_scope, documents, corpus_sha256) VALUES (?, ?, ?)`
	stmtGetSeed    = `SELECT documents, corpus_sha256 FROM seed_runs WHERE kb_scope = ?`
	headInsMeta    = `INSERT INTO catalog_meta (name, value) VALUES (?, ?) `

	metaSchemaVersion = "schema_version"
	// maxRowsPerInsert bounds a multi-row INSERT (3,500 parameters, far
	// below SQLite's 32,766 and MySQL's 65,535).
	maxRowsPerInsert = 500
)

// Init creates the tables and indexes if they do not exist and records the
// schema version. A catalog of another version is an error. Init is
// idempotent.
func (c *Catalog) Init(ctx context.Context) error {
	unlock, err := c.lockWrite(ctx)
	if err != nil {
		return c.fail("create schema", err)
	}
	defer unlock()
	for _, stmt := range Schema(c.d) {
		if _, err := c.db.ExecContext(ctx, stmt); err != nil {
			return c.fail("create schema", err)
		}
	}
	for _, a := range addedColumns {
		err := c.probe(ctx, a.table, a.column)
		if err == nil {
			continue
		}
		if c.d.IsNoColumn == nil || !c.d.IsNoColumn(err) {
			return c.fail("check column "+a.table+"."+a.column, err)
		}
		stmt := fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s NOT NULL DEFAULT %s", a.table, a.column, columnType(c.d, a.kind, a.size), a.def)
		if _, err := c.db.ExecContext(ctx, stmt); err != nil {
			return c.fail("add column "+a.table+"."+a.column, err)
		}
	}
	if _, err := c.db.ExecContext(ctx, headInsMeta+c.d.IgnoreDuplicate("name"), metaSchemaVersion, SchemaVersion); err != nil {
		return c.fail("record schema version", err)
	}
	var v string
	if err := c.db.QueryRowContext(ctx, stmtGetMeta, metaSchemaVersion).Scan(&v); err != nil {
		return c.fail("read schema version", err)
	}
	if v != SchemaVersion {
		return fmt.Errorf("%s: the catalog has schema version %q, this build reads version %q", c.label, v, SchemaVersion)
	}
	return nil
}

// Documents lists the documents of kbScope, ordered by doc ID (bytewise).
func (c *Catalog) Documents(ctx context.Context, kbScope string) ([]kb.DocumentState, error) {
	op := "list documents of kb_scope " + quote(kbScope)
	rows, err := c.db.QueryContext(ctx, stmtDocuments, kbScope)
	if err != nil {
		return nil, c.fail(op, err)
	}
	defer rows.Close()
	var out []kb.DocumentState
	for rows.Next() {
		var d kb.DocumentState
		if err := rows.Scan(&d.DocID, &d.Source, &d.KBScope, &d.Title, &d.Breadcrumb, &d.Category, &d.ContentHash, &d.Status, &d.ChunkCount); err != nil {
			return nil, c.fail(op, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, c.fail(op, err)
	}
	return out, nil
}

// BeginIndexing records doc as Indexing with no content hash and replaces
// its L0 terms and chunk rows, in one transaction: afterwards the
// catalog holds exactly one row per chunk in chunks. See the package
// documentation for what is checked.
func (c *Catalog) BeginIndexing(ctx context.Context, doc kb.Document, chunks []kb.Chunk) error {
	op := "begin indexing " + docRef(doc.KBScope, doc.DocID)
	terms, err := checkDocument(doc, chunks)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", c.label, op, err)
	}
	termArgs := make([]any, 0, len(terms)*colsTerms)
	for _, t := range terms {
		termArgs = append(termArgs, doc.KBScope, t.Term, t.norm, t.Kind, doc.DocID, doc.Source, doc.Category)
	}
	chunkArgs := make([]any, 0, len(chunks)*colsChunks)
	for _, ch := range chunks {
		sum := sha256.Sum256([]byte(ch.Text))
		chunkArgs = append(chunkArgs, doc.KBScope, ch.EvidenceKey, doc.DocID, ch.ChunkIndex, ch.Breadcrumb, hex.EncodeToString(sum[:]))
	}

	err = c.write(ctx, func(tx *sql.Tx) error {
		var holder string
		switch err := tx.QueryRowContext(ctx, stmtFindSource, doc.KBScope, doc.Source, doc.DocID).Scan(&holder); {
		case err == nil:
			return &SourceConflictError{KBScope: doc.KBScope, Source: doc.Source, DocID: doc.DocID, Holder: holder}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		// Children first: they reference the document row.
		for _, stmt := range []string{stmtDelTerms, stmtDelChunks, stmtDelDoc} {
			if _, err := tx.ExecContext(ctx, stmt, doc.KBScope, doc.DocID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, stmtInsDoc, doc.KBScope, doc.DocID, doc.Source, doc.Title, doc.Breadcrumb,
			doc.Category, "", kb.StatusIndexing, len(chunks)); err != nil {
			if c.d.IsDuplicate(err) { // another writer took the source meanwhile
				return &SourceConflictError{KBScope: doc.KBScope, Source: doc.Source, DocID: doc.DocID}
			}
			return err
		}
		if err := insertRows(ctx, tx, headInsTerms, colsTerms, termArgs); err != nil {
			return err
		}
		return insertRows(ctx, tx, headInsChunks, colsChunks, chunkArgs)
	})
	if err != nil {
		return c.fail(op, err)
	}
	return nil
}

// MarkReady sets a document Ready with contentHash. It fails, wrapping
// kb.ErrNotIndexing, if the document is missing or not Indexing.
func (c *Catalog) MarkReady(ctx context.Context, kbScope, docID, contentHash string) error {
	op := "mark ready " + docRef(kbScope, docID)
	if err := checkKey("content hash", contentHash, MaxContentHash); err != nil {
		return fmt.Errorf("%s: %s: %w", c.label, op, err)
	}
	unlock, err := c.lockWrite(ctx)
	if err != nil {
		return c.fail(op, err)
	}
	res, err := c.db.ExecContext(ctx, stmtMarkReady, kb.StatusReady, contentHash, kbScope, docID, kb.StatusIndexing)
	unlock()
	if err != nil {
		return c.fail(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return c.fail(op, err)
	}
	if n > 0 {
		return nil
	}
	// Say why, for the message only.
	var status string
	switch err := c.db.QueryRowContext(ctx, stmtStatus, kbScope, docID).Scan(&status); {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%s: %s: %w (there is no such document)", c.label, op, kb.ErrNotIndexing)
	case err != nil:
		return fmt.Errorf("%s: %s: %w", c.label, op, kb.ErrNotIndexing)
	default:
		return fmt.Errorf("%s: %s: %w (its status is %q)", c.label, op, kb.ErrNotIndexing, status)
	}
}

// DeleteDocument removes a document, its L0 terms and its chunk rows in
// one transaction. Deleting a missing document is not an error.
func (c *Catalog) DeleteDocument(ctx context.Context, kbScope, docID string) error {
	err := c.write(ctx, func(tx *sql.Tx) error {
		for _, stmt := range []string{stmtDelTerms, stmtDelChunks, stmtDelDoc} {
			if _, err := tx.ExecContext(ctx, stmt, kbScope, docID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return c.fail("delete "+docRef(kbScope, docID), err)
	}
	return nil
}

// L0Terms returns the L0 terms of the Ready documents of kbScope, ordered
// by term, then doc ID, then kind (bytewise).
func (c *Catalog) L0Terms(ctx context.Context, kbScope string) ([]kb.L0Term, error) {
	op := "list L0 terms of kb_scope " + quote(kbScope)
	rows, err := c.db.QueryContext(ctx, stmtL0Terms, kbScope, kb.StatusReady)
	if err != nil {
		return nil, c.fail(op, err)
	}
	defer rows.Close()
	var out []kb.L0Term
	for rows.Next() {
		var t kb.L0Term
		if err := rows.Scan(&t.Term, &t.Kind, &t.DocID, &t.Source, &t.Category); err != nil {
			return nil, c.fail(op, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, c.fail(op, err)
	}
	slices.SortFunc(out, func(a, b kb.L0Term) int {
		return cmp.Or(strings.Compare(a.Term, b.Term), strings.Compare(a.DocID, b.DocID), strings.Compare(a.Kind, b.Kind))
	})
	return out, nil
}

// ChunkCount counts the chunk rows of kbScope, of Ready and Indexing
// documents alike.
func (c *Catalog) ChunkCount(ctx context.Context, kbScope string) (int, error) {
	var n int
	if err := c.db.QueryRowContext(ctx, stmtChunkCount, kbScope).Scan(&n); err != nil {
		return 0, c.fail("count chunks of kb_scope "+quote(kbScope), err)
	}
	return n, nil
}

// Verify checks that Init has run on this catalog (every table exists and
// the recorded schema version is this build's) without creating anything.
func (c *Catalog) Verify(ctx context.Context) error {
	var v string
	if err := c.db.QueryRowContext(ctx, stmtGetMeta, metaSchemaVersion).Scan(&v); err != nil {
		if errors.Is(err, sql.ErrNoRows) || c.d.IsNoTable != nil && c.d.IsNoTable(err) {
			return fmt.Errorf("%s: no catalog tables: %w (run rag-seed first)", c.label, kb.ErrNotSeeded)
		}
		return c.fail("read schema version", err)
	}
	if v != SchemaVersion {
		return fmt.Errorf("%s: the catalog has schema version %q, this build reads version %q", c.label, v, SchemaVersion)
	}
	for _, t := range tables {
		// Zero rows of each table's columns: an error means the table or
		// a column is missing (a catalog of an older build that no
		// rag-seed has run on since).
		var cols []string
		for _, col := range t.cols {
			if !optionalColumn(t.name, col.name) {
				cols = append(cols, col.name)
			}
		}
		err := c.probe(ctx, t.name, strings.Join(cols, ", "))
		switch {
		case err == nil:
		case t.optional && c.d.IsNoTable != nil && c.d.IsNoTable(err):
		case c.d.IsNoTable != nil && c.d.IsNoTable(err):
			return fmt.Errorf("%s: no table %s (written by an older rag-seed): %w (run rag-seed again)", c.label, t.name, kb.ErrNotSeeded)
		case c.d.IsNoColumn != nil && c.d.IsNoColumn(err):
			return fmt.Errorf("%s: table %s lacks columns of this build (written by an older rag-seed): %w (run rag-seed again)", c.label, t.name, kb.ErrNotSeeded)
		default:
			return c.fail("check table "+t.name, err)
		}
	}
	return nil
}

// probe selects no row of cols of table: an error says one is missing.
func (c *Catalog) probe(ctx context.Context, table, cols string) error {
	rows, err := c.db.QueryContext(ctx, "SELECT "+cols+" FROM "+table+" WHERE 1 = 0")
	if err != nil {
		return err
	}
	return rows.Close()
}

// SetIndexInfo records info for kbScope, or forgets the record when info
// is nil.
func (c *Catalog) SetIndexInfo(ctx context.Context, kbScope string, info *kb.IndexInfo) error {
	return c.setIndexInfo(ctx, kbScope, info, false)
}

// CompleteSeed records info for kbScope and deletes its seed_runs row, in
// one transaction.
func (c *Catalog) CompleteSeed(ctx context.Context, kbScope string, info kb.IndexInfo) error {
	return c.setIndexInfo(ctx, kbScope, &info, true)
}

func (c *Catalog) setIndexInfo(ctx context.Context, kbScope string, info *kb.IndexInfo, complete bool) error {
	op := "record the index of kb_scope " + quote(kbScope)
	if complete {
		op = "complete the seed of kb_scope " + quote(kbScope)
	}
	if err := checkKey("kb_scope", kbScope, MaxKBScope); err != nil {
		return fmt.Errorf("%s: %s: %w", c.label, op, err)
	}
	if info != nil {
		if err := checkKey("embedder", info.Embedder, MaxText); err != nil {
			return fmt.Errorf("%s: %s: %w", c.label, op, err)
		}
		if info.Dim <= 0 {
			return fmt.Errorf("%s: %s: dimension %d is not positive", c.label, op, info.Dim)
		}
		if info.KeyFormat <= 0 || info.KeyFormat > math.MaxInt32 {
			return fmt.Errorf("%s: %s: key format %d is not in [1, %d]", c.label, op, info.KeyFormat, math.MaxInt32)
		}
		for _, n := range []struct {
			name string
			v    int
		}{{"chunk size", info.ChunkSize}, {"chunk overlap", info.ChunkOverlap}, {"document count", info.Documents}} {
			if n.v < 0 || n.v > math.MaxInt32 {
				return fmt.Errorf("%s: %s: %s %d is not in [0, %d]", c.label, op, n.name, n.v, math.MaxInt32)
			}
		}
		if err := checkKey("corpus fingerprint", info.CorpusSHA256, 64); err != nil && info.CorpusSHA256 != "" {
			return fmt.Errorf("%s: %s: %w", c.label, op, err)
		}
	}
	err := c.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, stmtDelInfo, kbScope); err != nil {
			return err
		}
		if complete {
			if _, err := tx.ExecContext(ctx, stmtDelSeed, kbScope); err != nil {
				return err
			}
		}
		if info == nil {
			return nil
		}
		_, err := tx.ExecContext(ctx, stmtInsInfo, kbScope, info.Embedder, info.Dim, info.KeyFormat,
			info.ChunkSize, info.ChunkOverlap, info.Documents, info.CorpusSHA256)
		return err
	})
	if err != nil {
		return c.fail(op, err)
	}
	return nil
}

// IndexInfo returns the record of kbScope. A catalog whose index_info lacks
// the optional columns (a seed of an older build) gives a record without
// chunk sizes and corpus fingerprint.
func (c *Catalog) IndexInfo(ctx context.Context, kbScope string) (kb.IndexInfo, bool, error) {
	var info kb.IndexInfo
	err := c.db.QueryRowContext(ctx, stmtGetInfo, kbScope).Scan(&info.Embedder, &info.Dim, &info.KeyFormat,
		&info.ChunkSize, &info.ChunkOverlap, &info.Documents, &info.CorpusSHA256)
	if err != nil && c.d.IsNoColumn != nil && c.d.IsNoColumn(err) {
		info = kb.IndexInfo{}
		err = c.db.QueryRowContext(ctx, stmtGetInfoOld, kbScope).Scan(&info.Embedder, &info.Dim, &info.KeyFormat)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return kb.IndexInfo{}, false, nil
	case err != nil:
		return kb.IndexInfo{}, false, c.fail("read the index record of kb_scope "+quote(kbScope), err)
	}
	return info, true, nil
}

// BeginSeed records run as the seed in progress of kbScope, replacing
// the row of one that did not complete.
func (c *Catalog) BeginSeed(ctx context.Context, kbScope string, run kb.SeedRun) error {
	op := "begin the seed of kb_scope " + quote(kbScope)
	if err := checkKey("kb_scope", kbScope, MaxKBScope); err != nil {
		return fmt.Errorf("%s: %s: %w", c.label, op, err)
	}
	if run.Documents < 0 || run.Documents > math.MaxInt32 {
		return fmt.Errorf("%s: %s: document count %d is not in [0, %d]", c.label, op, run.Documents, math.MaxInt32)
	}
	if err := checkString("corpus fingerprint", run.CorpusSHA256, 64); err != nil {
		return fmt.Errorf("%s: %s: %w", c.label, op, err)
	}
	err := c.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, stmtDelSeed, kbScope); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, stmtInsSeed, kbScope, run.Documents, run.CorpusSHA256)
		return err
	})
	if err != nil {
		return c.fail(op, err)
	}
	return nil
}

// SeedInProgress returns the seed_runs row of kbScope. A catalog without
// the table (an older build's, no rag-seed of this build since) has none.
func (c *Catalog) SeedInProgress(ctx context.Context, kbScope string) (kb.SeedRun, bool, error) {
	var run kb.SeedRun
	err := c.db.QueryRowContext(ctx, stmtGetSeed, kbScope).Scan(&run.Documents, &run.CorpusSHA256)
	switch {
	case errors.Is(err, sql.ErrNoRows), err != nil && c.d.IsNoTable != nil && c.d.IsNoTable(err):
		return kb.SeedRun{}, false, nil
	case err != nil:
		return kb.SeedRun{}, false, c.fail("read the seed in progress of kb_scope "+quote(kbScope), err)
	}
	return run, true, nil
}

// docRef names a document in a message.
func docRef(kbScope, docID string) string {
	return "document " + quote(docID) + " in kb_scope " + quote(kbScope)
}

func (c *Catalog) fail(op string, err error) error {
	if c.explain != nil {
		err = c.explain(err)
	}
	return fmt.Errorf("%s: %s: %w", c.label, op, err)
}

// lockWrite takes the write semaphore, if there is one.
func (c *Catalog) lockWrite(ctx context.Context) (unlock func(), err error) {
	if c.writeMu == nil {
		return func() {}, nil
	}
	select {
	case c.writeMu <- struct{}{}:
		return func() { <-c.writeMu }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// write runs fn in a write transaction, committed if fn succeeds.
func (c *Catalog) write(ctx context.Context, fn func(*sql.Tx) error) error {
	unlock, err := c.lockWrite(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	tx, err := c.db.BeginTx(ctx, c.d.WriteTx)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// insertRows inserts len(args)/ncols rows with multi-row INSERTs of at most
// maxRowsPerInsert rows. head is a constant "INSERT INTO t (cols) VALUES ".
// Only placeholders are added to it.
func insertRows(ctx context.Context, tx *sql.Tx, head string, ncols int, args []any) error {
	row := "(?" + strings.Repeat(", ?", ncols-1) + ")"
	per := maxRowsPerInsert * ncols
	for lo := 0; lo < len(args); lo += per {
		hi := min(lo+per, len(args))
		q := head + row + strings.Repeat(", "+row, (hi-lo)/ncols-1)
		if _, err := tx.ExecContext(ctx, q, args[lo:hi]...); err != nil {
			return err
		}
	}
	return nil
}

// term is an L0 term to store.
type term struct {
	kb.L0Term
	norm string
}
