// Package sqlite is the catalog of the embedded default: kb.Catalog in a
// SQLite file under the data dir. It goes through the pure-Go driver
// modernc.org/sqlite, with the driver name "sqlite" and no cgo. All SQL is
// shared with the MySQL backend in package sqlcatalog.
//
// Every connection sets busy_timeout 5000 ms, journal_mode WAL,
// foreign_keys on and synchronous NORMAL, and begins write transactions
// IMMEDIATE. Writes in this process go one at a time through the catalog's
// write semaphore, sqlcatalog.Options.SerializeWrites. So they never race
// each other for SQLite's single write lock. Reads use the pool and, in WAL
// mode, run beside a write. A writer in another process or on another
// handle waits up to the busy timeout. The embedding cache in the same file
// is such a handle.
//
// synchronous NORMAL, the usual setting with WAL, makes a commit atomic and
// durable against a crash of the process. A killed rag-seed loses nothing
// it committed. A power loss or OS crash may roll back the last commits,
// leaving the database consistent. A lost BeginIndexing or MarkReady leaves
// a document with its old hash or Indexing, which the next rag-seed
// re-indexes. A lost DeleteDocument brings back a pruned document, which
// the next rag-seed --prune removes again. FULL, an fsync per commit,
// measured 3.5 to 4 times slower on a busy disk. That was about 300 against
// 1,200 documents of 20 chunks per second, close to the seed's whole budget
// of 5,000 chunks/s.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/sqlcatalog"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Catalog is the SQLite kb.Catalog.
type Catalog struct {
	*sqlcatalog.Catalog
}

var _ kb.Catalog = (*Catalog)(nil)

// Dialect is SQLite's SQL: TEXT keys compared with the default BINARY
// collation (bytewise, case-sensitive, no padding) in STRICT tables.
var Dialect = &sqlcatalog.Dialect{
	Name:            "sqlite",
	KeyType:         func(int) string { return "TEXT" },
	TextType:        "TEXT",
	IntType:         "INTEGER",
	TableOptions:    "STRICT",
	IgnoreDuplicate: func(string) string { return "ON CONFLICT DO NOTHING" },
	IsDuplicate: func(err error) bool {
		var e *msqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	},
	IsNoTable: func(err error) bool {
		// SQLite has no code of its own for it: a missing table is a
		// plain SQLITE_ERROR whose message says so.
		var e *msqlite.Error
		return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_ERROR && strings.Contains(e.Error(), "no such table")
	},
	IsNoColumn: func(err error) bool {
		var e *msqlite.Error
		return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_ERROR && strings.Contains(e.Error(), "no such column")
	},
}

// DSN returns the data source name Open uses for the file at path: a
// file: URI of the absolute path (so '?', '#' and '%' in a path are
// allowed) with the connection settings described in the package
// documentation.
func DSN(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String(), nil
}

// Open opens the catalog in the SQLite file at path, creating the file
// and its directory if needed. Call Init to create the tables.
func Open(path string) (*Catalog, error) {
	label := "sqlite catalog " + path
	if path == "" {
		return nil, errors.New("sqlite catalog: empty database path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	dsn, err := DSN(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	// Opening a connection applies the pragmas: a file that is not a
	// database, or a directory that is not writable, fails here.
	var mode string
	if err := db.QueryRowContext(context.Background(), "PRAGMA journal_mode").Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return &Catalog{sqlcatalog.New(db, Dialect, sqlcatalog.Options{Label: label, SerializeWrites: true})}, nil
}
