package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/sqlite"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

func openTemp(t testing.TB) *sqlite.Catalog {
	t.Helper()
	c, err := sqlite.Open(filepath.Join(t.TempDir(), "data", "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCatalog(t *testing.T) {
	kbtest.RunCatalogTests(t, func(t *testing.T) kb.Catalog { return openTemp(t) })
}

func TestPersistsAcrossOpen(t *testing.T) {
	ctx := context.Background()
	// A path with characters that mean something in a URI.
	path := filepath.Join(t.TempDir(), "we?ird #dir%41", "catalog.db")
	c, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	doc := kbtest.CatalogDoc("rag-eval", "pool")
	if err := c.BeginIndexing(ctx, doc, kbtest.CatalogChunks(doc, 3, "v")); err != nil {
		t.Fatal(err)
	}
	if err := c.MarkReady(ctx, doc.KBScope, doc.DocID, doc.ContentHash); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the catalog is not at the path it was given: %v", err)
	}

	c, err = sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	docs, err := c.Documents(ctx, "rag-eval")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Fatalf("after reopening: %d documents, want 1: %+v", len(docs), docs)
	}
	if docs[0].Status != kb.StatusReady {
		t.Errorf("after reopening: status %s, want %s", docs[0].Status, kb.StatusReady)
	}
	if docs[0].ChunkCount != 3 {
		t.Errorf("after reopening: %d chunks, want 3", docs[0].ChunkCount)
	}

	for pragma, want := range map[string]string{
		"journal_mode": "wal", "foreign_keys": "1", "synchronous": "1", "busy_timeout": "5000",
	} {
		var got string
		if err := c.DB().QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

// TestTwoHandlesOneFile: two catalogs on one file write at once, as two
// processes or the catalog and the embedding cache do. The busy timeout and
// immediate transactions keep both going.
func TestTwoHandlesOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog.db")
	var cs [2]*sqlite.Catalog
	for i := range cs {
		c, err := sqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Init(context.Background()); err != nil {
			t.Fatal(err)
		}
		cs[i] = c
	}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i, c := range cs {
		wg.Go(func() {
			for j := range 50 {
				doc := kbtest.CatalogDoc("s", fmt.Sprintf("h%d-%02d", i, j))
				if err := c.BeginIndexing(context.Background(), doc, kbtest.CatalogChunks(doc, 5, "v")); err != nil {
					errs <- err
				} else if err := c.MarkReady(context.Background(), "s", doc.DocID, doc.ContentHash); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n, err := cs[0].ChunkCount(context.Background(), "s"); err != nil || n != 500 {
		t.Errorf("ChunkCount = %d, %v; want 500", n, err)
	}
}

// TestNewerSchemaRefused: a catalog written by a newer build is refused,
// not misread.
func TestNewerSchemaRefused(t *testing.T) {
	c := openTemp(t)
	defer c.Close()
	ctx := context.Background()
	if err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DB().ExecContext(ctx, "UPDATE catalog_meta SET value = ? WHERE name = ?", "99", "schema_version"); err != nil {
		t.Fatal(err)
	}
	err := c.Init(ctx)
	if err == nil || !strings.Contains(err.Error(), `schema version "99"`) {
		t.Fatalf("Init on a newer schema: %v", err)
	}
	t.Log(err)
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "not-a-db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("this is not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", notDB, dir} {
		c, err := sqlite.Open(path)
		if err == nil {
			err = c.Init(context.Background())
			c.Close()
		}
		if err == nil {
			t.Errorf("Open(%q) and Init succeeded", path)
			continue
		}
		if path != "" && !strings.Contains(err.Error(), path) {
			t.Errorf("error does not name the file: %v", err)
		}
		t.Logf("%q: %v", path, err)
	}
}

func BenchmarkIndexing(b *testing.B) {
	c := openTemp(b)
	defer c.Close()
	kbtest.BenchmarkCatalogIndexing(b, c)
}
