// Package sqlitecache is the embedding cache of the embedded default. It is
// a table in the embedded store's SQLite file, through the pure-Go
// modernc.org/sqlite with the driver name "sqlite".
//
//	CREATE TABLE embedding_cache (
//	    key    TEXT PRIMARY KEY,   -- embed.CacheKey(model, dim, kind, text)
//	    model  TEXT NOT NULL,      -- the embedder's Name, '' when Put did not say
//	    dim    INTEGER NOT NULL,   -- number of float32 values in vector
//	    vector BLOB NOT NULL       -- little-endian IEEE-754 float32, by embed.EncodeVector
//	)
//
// Every statement uses query parameters. Lookups go in batches of at most
// 500 keys per IN list. The database is opened in WAL mode with a 5 s busy
// timeout and immediate write transactions. So the cache can share its file
// with the catalog and with concurrent readers.
package sqlitecache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Table is the name of the cache table.
const Table = "embedding_cache"

// MaxKeysPerQuery bounds the IN list of one lookup (well under SQLite's
// limit on bound parameters).
const MaxKeysPerQuery = 500

const schema = `CREATE TABLE IF NOT EXISTS embedding_cache (
	key    TEXT PRIMARY KEY,
	model  TEXT NOT NULL,
	dim    INTEGER NOT NULL,
	vector BLOB NOT NULL
)`

const upsert = `INSERT INTO embedding_cache (key, model, dim, vector) VALUES (?, ?, ?, ?)
ON CONFLICT (key) DO UPDATE SET model = excluded.model, dim = excluded.dim, vector = excluded.vector`

// Cache is a kb.EmbedCache in a SQLite table. It is safe for concurrent use.
type Cache struct {
	db    *sql.DB
	name  string // the file, for messages
	ownDB bool
}

var (
	_ kb.EmbedCache     = (*Cache)(nil)
	_ embed.ModelPutter = (*Cache)(nil)
)

// DSN returns the modernc.org/sqlite data source name Open uses for the
// database file path. It is a file: URI, so that any character in the path
// is allowed. It sets busy_timeout(5000), journal_mode(WAL) and immediate
// transactions.
func DSN(path string) string {
	u := url.URL{Path: filepath.ToSlash(path)}
	return "file:" + u.EscapedPath() + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_txlock=immediate"
}

// Open opens (creating if needed) the SQLite database file at path and the
// cache table in it. Close closes the database.
func Open(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("sqlite embedding cache: empty database path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite embedding cache %s: %w", path, err)
		}
	}
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, fmt.Errorf("sqlite embedding cache %s: %w", path, err)
	}
	c := &Cache{db: db, name: path, ownDB: true}
	if err := c.init(context.Background()); err != nil {
		db.Close()
		return nil, err
	}
	return c, nil
}

// New uses an already open database (for example the catalog's handle on
// the same file) and creates the cache table in it. Close does not close
// db. name identifies the database in error messages.
func New(ctx context.Context, db *sql.DB, name string) (*Cache, error) {
	c := &Cache{db: db, name: name}
	if err := c.init(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cache) init(ctx context.Context) error {
	if _, err := c.db.ExecContext(ctx, schema); err != nil {
		return c.wrap("create table", err)
	}
	return nil
}

func (c *Cache) wrap(op string, err error) error {
	return fmt.Errorf("sqlite embedding cache %s: %s: %w", c.name, op, err)
}

// Get returns the cached vectors of the keys it has. Keys it does not have
// are absent from the map. Duplicate keys are looked up once.
func (c *Cache) Get(ctx context.Context, keys []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, c.wrap("get", err)
	}
	keys = uniq(keys)
	args := make([]any, 0, min(len(keys), MaxKeysPerQuery))
	for start, end := range embed.Batches(len(keys), MaxKeysPerQuery) {
		batch := keys[start:end]
		args = args[:0]
		for _, k := range batch {
			args = append(args, k)
		}
		// Only the number of placeholders is built into the text. Every key
		// is a bound parameter.
		q := "SELECT key, vector FROM embedding_cache WHERE key IN (?" + strings.Repeat(", ?", len(batch)-1) + ")"
		if err := c.query(ctx, q, args, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *Cache) query(ctx context.Context, q string, args []any, out map[string][]float32) error {
	rows, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return c.wrap("get", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var blob []byte
		if err := rows.Scan(&key, &blob); err != nil {
			return c.wrap("get", err)
		}
		v, err := embed.DecodeVector(blob)
		if err != nil || len(v) == 0 {
			continue // a damaged entry is a miss, and the next Put overwrites it
		}
		out[key] = v
	}
	if err := rows.Err(); err != nil {
		return c.wrap("get", err)
	}
	return nil
}

// Put stores vectors with an empty model name. PutModel names the model.
func (c *Cache) Put(ctx context.Context, entries map[string][]float32) error {
	return c.PutModel(ctx, "", entries)
}

// PutModel stores vectors recorded as made by model, in one transaction.
// Storing a key again replaces its entry. A zero-length vector is an error
// and nothing is stored.
func (c *Cache) PutModel(ctx context.Context, model string, entries map[string][]float32) error {
	if len(entries) == 0 {
		return nil
	}
	keys := make([]string, 0, len(entries))
	for k, v := range entries {
		if len(v) == 0 {
			return c.wrap("put", fmt.Errorf("key %s: empty vector", k))
		}
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic write order
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.wrap("put", err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, upsert)
	if err != nil {
		return c.wrap("put", err)
	}
	defer stmt.Close()
	for _, k := range keys {
		v := entries[k]
		if _, err := stmt.ExecContext(ctx, k, model, len(v), embed.EncodeVector(v)); err != nil {
			return c.wrap("put", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return c.wrap("put", err)
	}
	return nil
}

// Len counts the entries.
func (c *Cache) Len(ctx context.Context) (int, error) {
	var n int
	if err := c.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM embedding_cache").Scan(&n); err != nil {
		return 0, c.wrap("count", err)
	}
	return n, nil
}

// DeleteModel removes every entry recorded as made by model (after the
// embedding model changed) and returns how many it removed.
func (c *Cache) DeleteModel(ctx context.Context, model string) (int64, error) {
	res, err := c.db.ExecContext(ctx, "DELETE FROM embedding_cache WHERE model = ?", model)
	if err != nil {
		return 0, c.wrap("delete model", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, c.wrap("delete model", err)
	}
	return n, nil
}

// Close closes the database if Open opened it.
func (c *Cache) Close() error {
	if !c.ownDB {
		return nil
	}
	if err := c.db.Close(); err != nil {
		return c.wrap("close", err)
	}
	return nil
}

// uniq returns keys without repeats, keeping the first occurrence of each.
func uniq(keys []string) []string {
	seen := make(map[string]struct{}, len(keys))
	out := keys[:0:0]
	for _, k := range keys {
		if _, ok := seen[k]; !ok {
			seen[k] = struct{}{}
			out = append(out, k)
		}
	}
	return out
}
