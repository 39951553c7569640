package sqlitecache

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

func TestContract(t *testing.T) {
	kbtest.RunEmbedCacheTests(t, func(t *testing.T) kb.EmbedCache {
		c, err := Open(filepath.Join(t.TempDir(), "store.db"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

func TestContractSharedDB(t *testing.T) {
	kbtest.RunEmbedCacheTests(t, func(t *testing.T) kb.EmbedCache {
		db, err := sql.Open("sqlite", DSN(filepath.Join(t.TempDir(), "store.db")))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		c, err := New(context.Background(), db, "shared")
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

func TestPersistsAcrossReopen(t *testing.T) {
	ctx := context.Background()
	// A path with characters that mean something in a URI or a DSN.
	path := filepath.Join(t.TempDir(), "a dir?x=1#frag", "数据 %41.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PutModel(ctx, "local-hash-v1", map[string][]float32{"k": {0.25, -1}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not at the given path: %v", err)
	}
	c, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m, err := c.Get(ctx, []string{"k"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m["k"], []float32{0.25, -1}; !slices.Equal(got, want) {
		t.Errorf("after reopen Get = %v, want k: %v", m, want)
	}
}

func TestSchemaAndModelColumn(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := embed.CacheKey("local-hash-v1", 3, kb.Passage, "hello")
	if err := c.PutModel(ctx, "local-hash-v1", map[string][]float32{key: {1, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(ctx, map[string][]float32{"other": {1}}); err != nil {
		t.Fatal(err)
	}

	var mode string
	if err := c.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var timeout int
	if err := c.db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&timeout); err != nil || timeout != 5000 {
		t.Errorf("busy_timeout = %d, %v; want 5000", timeout, err)
	}

	rows, err := c.db.QueryContext(ctx, "SELECT name, type, pk FROM pragma_table_info('embedding_cache') ORDER BY cid")
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for rows.Next() {
		var name, typ string
		var pk int
		if err := rows.Scan(&name, &typ, &pk); err != nil {
			t.Fatal(err)
		}
		if pk == 1 {
			typ += " PK"
		}
		cols = append(cols, name+" "+typ)
	}
	rows.Close()
	if got, want := strings.Join(cols, ", "), "key TEXT PK, model TEXT, dim INTEGER, vector BLOB"; got != want {
		t.Errorf("columns = %s, want %s", got, want)
	}

	var model string
	var dim int
	var blob []byte
	if err := c.db.QueryRowContext(ctx, "SELECT model, dim, vector FROM embedding_cache WHERE key = ?", key).Scan(&model, &dim, &blob); err != nil {
		t.Fatal(err)
	}
	if model != "local-hash-v1" || dim != 3 || string(blob) != "\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\x00\x00" {
		t.Errorf("row = (%q, %d, % x), want (local-hash-v1, 3, little-endian float32 1,0,0)", model, dim, blob)
	}

	n, err := c.DeleteModel(ctx, "local-hash-v1")
	if err != nil || n != 1 {
		t.Fatalf("DeleteModel = %d, %v; want 1", n, err)
	}
	if l, _ := c.Len(ctx); l != 1 {
		t.Errorf("after DeleteModel Len = %d, want 1 (the entry of the other model stays)", l)
	}
}

func TestHostileKeysAreParameters(t *testing.T) {
	ctx := context.Background()
	c, err := Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hostile := []string{"'; DROP TABLE embedding_cache; --", `" OR 1=1 --`, "?", "k') OR ('1'='1"}
	entries := map[string][]float32{}
	for i, k := range hostile {
		entries[k] = []float32{float32(i + 1)}
	}
	if err := c.Put(ctx, entries); err != nil {
		t.Fatal(err)
	}
	m, err := c.Get(ctx, append(hostile, "absent"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != len(hostile) {
		t.Fatalf("Get returned %d entries, want %d: %v", len(m), len(hostile), m)
	}
	for i, k := range hostile {
		if v, want := m[k], []float32{float32(i + 1)}; !slices.Equal(v, want) {
			t.Errorf("key %q: %v, want %v", k, v, want)
		}
	}
	if m, err := c.Get(ctx, []string{"' OR '1'='1"}); err != nil || len(m) != 0 {
		t.Errorf("injection-shaped lookup = %v, %v; want no entries", m, err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\") succeeded")
	}
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "store.db") // parent is a regular file
	_, err := Open(path)
	if err == nil {
		t.Fatal("Open under a regular file succeeded")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the path", err)
	}
}

func TestCachedOverSQLite(t *testing.T) {
	ctx := context.Background()
	c, err := Open(filepath.Join(t.TempDir(), "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	inner := &countingEmbedder{}
	ce := embed.Cached(inner, c)
	texts := []string{"a", "b", "a"}
	if _, err := ce.Embed(ctx, kb.Passage, texts); err != nil {
		t.Fatal(err)
	}
	if _, err := ce.Embed(ctx, kb.Passage, texts); err != nil {
		t.Fatal(err)
	}
	if inner.texts != 2 {
		t.Errorf("inner embedder saw %d texts, want 2", inner.texts)
	}
	var model string
	if err := c.db.QueryRowContext(ctx, "SELECT DISTINCT model FROM embedding_cache").Scan(&model); err != nil || model != "counting" {
		t.Errorf("model column = %q, %v; want counting (Cached uses PutModel)", model, err)
	}
}

type countingEmbedder struct{ texts int }

func (e *countingEmbedder) Name() string { return "counting" }
func (e *countingEmbedder) Dim() int     { return 2 }
func (e *countingEmbedder) Embed(_ context.Context, _ kb.InputType, texts []string) ([][]float32, error) {
	e.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
		embed.Normalize(out[i])
	}
	return out, nil
}

// BenchmarkCachedHit measures embed.Cached over this cache when every text
// is cached: 64 texts of 800 characters, 512-dimensional vectors.
func BenchmarkCachedHit(b *testing.B) {
	c, err := Open(filepath.Join(b.TempDir(), "store.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchCachedHit(b, c)
}

func benchCachedHit(b *testing.B, c kb.EmbedCache) {
	ctx := context.Background()
	inner := &dimEmbedder{dim: 512}
	ce := embed.Cached(inner, c)
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = strings.Repeat("连接池 max_connections ", 40) + string(rune('a'+i%26)) + strings.Repeat("x", i)
	}
	if _, err := ce.Embed(ctx, kb.Passage, texts); err != nil { // fill
		b.Fatal(err)
	}
	inner.calls = 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ce.Embed(ctx, kb.Passage, texts); err != nil {
			b.Fatal(err)
		}
	}
	if inner.calls != 0 {
		b.Fatal("the embedder was called on the hit path")
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
}

type dimEmbedder struct{ dim, calls int }

func (e *dimEmbedder) Name() string { return "bench" }
func (e *dimEmbedder) Dim() int     { return e.dim }
func (e *dimEmbedder) Embed(_ context.Context, _ kb.InputType, texts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, e.dim)
		out[i][i%e.dim] = 1
	}
	return out, nil
}
