package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	drv "github.com/go-sql-driver/mysql"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/mysql"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

var update = flag.Bool("update", false, "rewrite deploy/mysql/schema.sql from SchemaSQL")

var bg = context.Background()

func open(t testing.TB, cfg *drv.Config) *mysql.Catalog {
	t.Helper()
	c, err := mysql.Open(cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// openFresh opens and initialises a catalog in a new database.
func openFresh(t testing.TB) (*mysql.Catalog, *drv.Config) {
	t.Helper()
	cfg := freshDatabase(t)
	c := open(t, cfg)
	t.Cleanup(func() { c.Close() })
	if err := c.Init(bg); err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

func TestCatalog(t *testing.T) {
	serviceDSN(t)
	kbtest.RunCatalogTests(t, func(t *testing.T) kb.Catalog {
		return open(t, freshDatabase(t))
	})
}

const schemaFile = "../../../../deploy/mysql/schema.sql"

// TestSchemaFile: deploy/mysql/schema.sql is what the tool creates.
func TestSchemaFile(t *testing.T) {
	want := mysql.SchemaSQL()
	if *update {
		if err := os.WriteFile(schemaFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(want, "\n")
		for i := range max(len(gl), len(wl)) {
			g, w := "", ""
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from mysql.SchemaSQL at line %d:\n file: %q\n code: %q\nregenerate: go test ./internal/kb/catalog/mysql -run TestSchemaFile -update",
					filepath.Clean(schemaFile), i+1, g, w)
			}
		}
	}
}

// schemaStatements splits schema.sql into statements.
func schemaStatements(t *testing.T) []string {
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "--") {
			code = append(code, line)
		}
	}
	var stmts []string
	for _, s := range strings.Split(strings.Join(code, "\n"), ";\n") {
		if s = strings.TrimSpace(s); s != "" {
			stmts = append(stmts, s)
		}
	}
	return stmts
}

// TestSchemaFileOnServer: a database made with schema.sql has the same
// tables as one made by Init, and the catalog works on it.
func TestSchemaFileOnServer(t *testing.T) {
	serviceDSN(t)
	fromFile, fromInit := freshDatabase(t), freshDatabase(t)
	db, err := sql.Open("mysql", fromFile.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range schemaStatements(t) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
	}
	c := open(t, fromInit)
	defer c.Close()
	if err := c.Init(bg); err != nil {
		t.Fatal(err)
	}
	showCreate := func(db *sql.DB, table string) string {
		var name, ddl string
		if err := db.QueryRow("SHOW CREATE TABLE "+table).Scan(&name, &ddl); err != nil {
			t.Fatalf("SHOW CREATE TABLE %s: %v", table, err)
		}
		return ddl
	}
	for _, table := range []string{"catalog_meta", "documents", "l0_terms", "chunks"} {
		if a, b := showCreate(db, table), showCreate(c.DB(), table); a != b {
			t.Errorf("table %s from schema.sql:\n%s\nfrom Init:\n%s", table, a, b)
		}
	}
	t.Logf("documents:\n%s", showCreate(db, "documents"))

	c2 := open(t, fromFile)
	defer c2.Close()
	if err := c2.Init(bg); err != nil {
		t.Fatal(err)
	}
	doc := kbtest.CatalogDoc("rag-eval", "pool")
	if err := c2.BeginIndexing(bg, doc, kbtest.CatalogChunks(doc, 2, "v")); err != nil {
		t.Fatal(err)
	}
	if err := c2.MarkReady(bg, doc.KBScope, doc.DocID, doc.ContentHash); err != nil {
		t.Fatal(err)
	}
}

const secret = "Zq9/Xw@Kp%3y"

// leaks reports whether msg holds the secret or 4 bytes of it.
func leaks(msg string) bool {
	for i := 0; i+4 <= len(secret); i++ {
		if strings.Contains(msg, secret[i:i+4]) {
			return true
		}
	}
	return false
}

func TestRedactDSN(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"rag:pw@tcp(127.0.0.1:3306)/ragbaseline?parseTime=true", "rag:***@tcp(127.0.0.1:3306)/ragbaseline?parseTime=true"},
		{"rag@tcp(127.0.0.1:3306)/db", "rag@tcp(127.0.0.1:3306)/db"},
		{"tcp(127.0.0.1:3306)/db", "tcp(127.0.0.1:3306)/db"},
		{"/db", "/db"},
		{"rag:" + secret + "@tcp(h:1)/db", "rag:***@tcp(h:1)/db"},
		{"rag:" + secret + "@tcp(h:1)/db?connectionAttributes=k:v@x", "rag:***@tcp(h:1)/db?connectionAttributes=k:v@x"},
		{"rag:" + secret + "@tcp(h:1)", "rag:***@tcp(h:1)"},                  // malformed: no database
		{"rag:" + secret + "@tcp(h:1/db", "rag:***@tcp(h:1/db"},              // malformed: unterminated address
		{"rag:pa:ss@unix(/tmp/my.sock)/db", "rag:***@unix(/tmp/my.sock)/db"}, // ':' in the password
	} {
		if got := mysql.RedactDSN(tc.in); got != tc.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestOpenErrorsHideThePassword opens DSNs, well-formed and not, whose
// password is the secret: no error may contain it.
func TestOpenErrorsHideThePassword(t *testing.T) {
	closed := closedPort(t)
	for _, dsn := range []string{
		"rag:" + secret + "@tcp(" + closed + ")/db?timeout=2s",
		"rag:" + secret + "@tcp(" + closed + ")",
		"rag:" + secret + "@tcp(" + closed + "/db",
		"rag:" + secret + "@tcp(" + closed + ")/db%zz",
		"rag:" + secret + "@tcp(" + closed + ")/db?timeout=soon",
		"rag:" + secret + "@tcp(" + closed + ")/db?tls=unknown-config",
		"rag:" + secret + "@unix(/nonexistent/mysql.sock)/db",
		"rag:" + secret + "@bogus(" + closed + ")/db",
		"rag:" + secret + "@tcp(" + closed + ")/",
		"rag:" + secret,
	} {
		c, err := mysql.Open(dsn)
		if err == nil {
			c.Close()
			t.Errorf("Open(%s) succeeded", mysql.RedactDSN(dsn))
			continue
		}
		if leaks(err.Error()) {
			t.Errorf("error leaks the password: %v", err)
		}
		t.Logf("%v", err)
	}
}

func TestOpenClosedPort(t *testing.T) {
	addr := closedPort(t)
	start := time.Now()
	_, err := mysql.Open("rag:" + secret + "@tcp(" + addr + ")/ragbaseline?timeout=2s")
	if err == nil {
		t.Fatal("Open succeeded")
	}
	if want := "cannot reach MySQL at " + addr + ": "; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open took %v", d)
	}
	t.Log(err)
}

// TestOpenSilentServer: a server that accepts and never answers is an
// error after the dial timeout, not a hang.
func TestOpenSilentServer(t *testing.T) {
	addr := silentServer(t)
	start := time.Now()
	_, err := mysql.Open("rag:" + secret + "@tcp(" + addr + ")/ragbaseline?timeout=1s")
	if err == nil {
		t.Fatal("Open succeeded")
	}
	if want := "cannot reach MySQL at " + addr + ": no answer within 1s"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open took %v", d)
	}
	t.Log(err)
}

func TestWrongPassword(t *testing.T) {
	cfg, err := drv.ParseDSN(serviceDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Passwd = secret
	_, err = mysql.Open(cfg.FormatDSN())
	if err == nil {
		t.Fatal("Open with a wrong password succeeded")
	}
	if leaks(err.Error()) || !strings.Contains(err.Error(), "refused the connection") {
		t.Errorf("error: %v", err)
	}
	t.Log(err)
}

func TestUnknownDatabase(t *testing.T) {
	cfg, err := drv.ParseDSN(serviceDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = "ragbaseline_test_does_not_exist"
	_, err = mysql.Open(cfg.FormatDSN())
	if err == nil || !strings.Contains(err.Error(), "CREATE DATABASE") {
		t.Fatalf("Open of a missing database: %v", err)
	}
	t.Log(err)
}

// state is what the catalog holds for one kbScope.
type state struct {
	docs   []kb.DocumentState
	terms  []kb.L0Term
	chunks int
}

func readState(t *testing.T, c kb.Catalog, scope string) state {
	t.Helper()
	var s state
	var err error
	if s.docs, err = c.Documents(bg, scope); err != nil {
		t.Fatal(err)
	}
	if s.terms, err = c.L0Terms(bg, scope); err != nil {
		t.Fatal(err)
	}
	if s.chunks, err = c.ChunkCount(bg, scope); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s state) equal(o state) bool {
	return slices.Equal(s.docs, o.docs) && slices.Equal(s.terms, o.terms) && s.chunks == o.chunks
}

// proxied opens a catalog in a fresh database through a proxy, and a
// direct one to the same database.
func proxied(t *testing.T, edit func(*drv.Config)) (c, direct *mysql.Catalog, p *proxy, cfg *drv.Config) {
	direct, cfg = openFresh(t)
	p = startProxy(t, cfg.Addr)
	pc := cfg.Clone()
	pc.Addr = p.addr()
	pc.Timeout = 2 * time.Second
	if edit != nil {
		edit(pc)
	}
	c = open(t, pc)
	t.Cleanup(func() { c.Close() })
	return c, direct, p, cfg
}

// TestServerStopsMidSeed: the server goes away between two writes of a
// seed. The next call fails fast with a clear error. A rerun against the
// server converges.
func TestServerStopsMidSeed(t *testing.T) {
	c, direct, p, _ := proxied(t, nil)
	a, b := kbtest.CatalogDoc("s", "a"), kbtest.CatalogDoc("s", "b")
	if err := c.BeginIndexing(bg, a, kbtest.CatalogChunks(a, 3, "v")); err != nil {
		t.Fatal(err)
	}
	if err := c.MarkReady(bg, "s", a.DocID, a.ContentHash); err != nil {
		t.Fatal(err)
	}
	if err := c.BeginIndexing(bg, b, kbtest.CatalogChunks(b, 4, "v")); err != nil {
		t.Fatal(err)
	}
	p.kill() // the server stops before b is ready

	for name, call := range map[string]func() error{
		"MarkReady":     func() error { return c.MarkReady(bg, "s", b.DocID, b.ContentHash) },
		"BeginIndexing": func() error { return c.BeginIndexing(bg, b, kbtest.CatalogChunks(b, 4, "v")) },
		"Documents":     func() error { _, err := c.Documents(bg, "s"); return err },
	} {
		start := time.Now()
		err := call()
		if err == nil {
			t.Fatalf("%s succeeded with the server gone", name)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s took %v to fail", name, d)
		}
		if !strings.Contains(err.Error(), "MySQL at "+p.addr()) {
			t.Errorf("%s: the error does not name the server: %v", name, err)
		}
		t.Logf("%s: %v", name, err)
	}

	// A rerun converges: b is indexing, so it is indexed again.
	s := readState(t, direct, "s")
	if len(s.docs) != 2 {
		t.Fatalf("after the stop: %d documents, want 2: %+v", len(s.docs), s.docs)
	}
	if s.docs[0].Status != kb.StatusReady {
		t.Fatalf("after the stop: document a is %s, want %s", s.docs[0].Status, kb.StatusReady)
	}
	if s.docs[1].Status != kb.StatusIndexing {
		t.Fatalf("after the stop: document b is %s, want %s", s.docs[1].Status, kb.StatusIndexing)
	}
	for _, d := range []kb.Document{a, b} {
		if err := direct.BeginIndexing(bg, d, kbtest.CatalogChunks(d, 3, "v2")); err != nil {
			t.Fatal(err)
		}
		if err := direct.MarkReady(bg, "s", d.DocID, d.ContentHash); err != nil {
			t.Fatal(err)
		}
	}
	s = readState(t, direct, "s")
	if s.chunks != 6 {
		t.Errorf("after the rerun: %d chunks, want 6", s.chunks)
	}
	if len(s.docs) != 2 {
		t.Errorf("after the rerun: %d documents, want 2: %+v", len(s.docs), s.docs)
	} else if s.docs[1].Status != kb.StatusReady {
		t.Errorf("after the rerun: document b is %s, want %s", s.docs[1].Status, kb.StatusReady)
	}
}

// TestConnectionCutInTransaction cuts the connection before each command of
// BeginIndexing in turn, then of MarkReady and DeleteDocument. Every call
// either fails and leaves the catalog as it was, or succeeds completely. A
// rerun converges.
func TestConnectionCutInTransaction(t *testing.T) {
	c, direct, p, _ := proxied(t, nil)
	old := kbtest.CatalogDoc("s", "doc")
	updated := old
	updated.Keywords = []string{"new keyword"}
	updated.ContentHash = strings.Repeat("e", 64)
	newChunks := kbtest.CatalogChunks(updated, 5, "v2")
	other := kbtest.CatalogDoc("s", "other")

	// reset puts back: doc ready with 3 chunks, other ready with 2.
	reset := func() state {
		t.Helper()
		for _, d := range []kb.Document{old, other} {
			n := map[string]int{old.DocID: 3, other.DocID: 2}[d.DocID]
			if err := direct.BeginIndexing(bg, d, kbtest.CatalogChunks(d, n, "v1")); err != nil {
				t.Fatal(err)
			}
			if err := direct.MarkReady(bg, "s", d.DocID, d.ContentHash); err != nil {
				t.Fatal(err)
			}
		}
		return readState(t, direct, "s")
	}

	operations := []struct {
		name string
		call func() error
	}{
		{"BeginIndexing", func() error { return c.BeginIndexing(bg, updated, newChunks) }},
		{"DeleteDocument", func() error { return c.DeleteDocument(bg, "s", old.DocID) }},
	}
	for _, op := range operations {
		t.Run(op.name, func(t *testing.T) {
			before := reset()
			if err := op.call(); err != nil {
				t.Fatal(err)
			}
			after := readState(t, direct, "s")
			cuts := 0
			for n := int64(1); ; n++ {
				if n > 100 {
					t.Fatal("the operation never completed without a cut")
				}
				reset()
				fired := p.cuts.Load()
				p.arm(n)
				err := op.call()
				p.arm(0)
				cut := p.cuts.Load() > fired
				got := readState(t, direct, "s")
				switch {
				case err != nil && !cut:
					t.Fatalf("cut at command %d did not fire, but: %v", n, err)
				case err != nil:
					cuts++
					if !got.equal(before) {
						t.Fatalf("cut before command %d: %v\nthe catalog changed: %+v", n, err, got)
					}
					if n == 1 {
						t.Logf("cut before command %d: %v", n, err)
					}
					// The rerun converges.
					if err := op.call(); err != nil {
						t.Fatalf("rerun after the cut before command %d: %v", n, err)
					}
					if got := readState(t, direct, "s"); !got.equal(after) {
						t.Fatalf("rerun after the cut before command %d: %+v", n, got)
					}
				default:
					if !got.equal(after) {
						t.Fatalf("success with the cut before command %d, but the catalog is %+v", n, got)
					}
				}
				if !cut {
					t.Logf("%s: %d commands; %d cuts, each failing cleanly", op.name, n-1, cuts)
					break
				}
			}
			if cuts == 0 {
				t.Error("no cut made the operation fail")
			}
		})
	}

	t.Run("MarkReady", func(t *testing.T) {
		reset()
		if err := direct.BeginIndexing(bg, updated, newChunks); err != nil {
			t.Fatal(err)
		}
		p.arm(1)
		err := c.MarkReady(bg, "s", updated.DocID, updated.ContentHash)
		p.arm(0)
		docs := readState(t, direct, "s").docs
		if err == nil {
			if docs[0].Status != kb.StatusReady {
				t.Fatalf("MarkReady succeeded, status %q", docs[0].Status)
			}
			return
		}
		if docs[0].Status != kb.StatusIndexing {
			t.Fatalf("MarkReady failed (%v) but the document is %s, want %s", err, docs[0].Status, kb.StatusIndexing)
		}
		if docs[0].ContentHash != "" {
			t.Fatalf("MarkReady failed (%v) but the document has content hash %q, want none", err, docs[0].ContentHash)
		}
		if err := c.MarkReady(bg, "s", updated.DocID, updated.ContentHash); err != nil {
			t.Fatalf("rerun: %v", err)
		}
	})
}

// TestServerFreezes: a server that stops answering is an error after the
// context's deadline or the read timeout, not a hang.
func TestServerFreezes(t *testing.T) {
	c, direct, p, _ := proxied(t, func(cfg *drv.Config) { cfg.ReadTimeout = time.Second })
	doc := kbtest.CatalogDoc("s", "doc")
	if err := c.BeginIndexing(bg, doc, kbtest.CatalogChunks(doc, 2, "v")); err != nil {
		t.Fatal(err)
	}
	p.frozen.Store(true)

	ctx, cancel := context.WithTimeout(bg, 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Documents(ctx, "s")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Documents with a deadline on a frozen server = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Documents took %v", d)
	}
	t.Logf("with a deadline: %v", err)

	start = time.Now()
	err = c.MarkReady(bg, "s", doc.DocID, doc.ContentHash)
	if err == nil {
		t.Fatal("MarkReady succeeded on a frozen server")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("MarkReady took %v", d)
	}
	if !strings.Contains(err.Error(), "did not answer within 1s") {
		t.Errorf("error does not mention the timeout: %v", err)
	}
	t.Logf("read timeout: %v", err)

	p.frozen.Store(false)
	// The document is still indexing, or ready had the UPDATE reached the
	// server. A rerun converges.
	if err := direct.BeginIndexing(bg, doc, kbtest.CatalogChunks(doc, 2, "v")); err != nil {
		t.Fatal(err)
	}
	if err := c.MarkReady(bg, "s", doc.DocID, doc.ContentHash); err != nil {
		t.Fatalf("after the server answers again: %v", err)
	}
}

func BenchmarkIndexing(b *testing.B) {
	c, _ := openFresh(b)
	kbtest.BenchmarkCatalogIndexing(b, c)
}

func ExampleRedactDSN() {
	fmt.Println(mysql.RedactDSN("rag:hunter2@tcp(127.0.0.1:3306)/ragbaseline?parseTime=true"))
	// Output: rag:***@tcp(127.0.0.1:3306)/ragbaseline?parseTime=true
}
