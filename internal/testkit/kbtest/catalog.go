// Package kbtest holds the contract test suites that every implementation
// of a kb interface runs, so the embedded default and the server stack
// cannot drift apart. They work like litestream's RunWithReplicaClient.
// RunCatalogTests runs over catalog/sqlite and catalog/mysql. RunIndexTests
// runs over index/embedded and index/milvus. RunEmbedCacheTests runs over
// embed/cache/sqlitecache and embed/cache/rediscache. A backend's test
// opens a fresh, empty store per subtest and hands it to the suite.
package kbtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// RunCatalogTests runs the kb.Catalog contract. open is called once per
// subtest. It must return a new, empty catalog that nothing else uses, such
// as a new file or a new database. The suite calls Init and Close itself.
func RunCatalogTests(t *testing.T, open func(t *testing.T) kb.Catalog) {
	tests := []struct {
		name string
		fn   func(t *testing.T, c kb.Catalog)
	}{
		{"InitIdempotent", testCatalogInitIdempotent},
		{"UpgradeKeyFormat", testCatalogUpgradeKeyFormat},
		{"UpgradeSeedRecord", testCatalogUpgradeSeedRecord},
		{"UpgradeSeedRuns", testCatalogUpgradeSeedRuns},
		{"Empty", testCatalogEmpty},
		{"BeginIndexingThenMarkReady", testCatalogBeginThenReady},
		{"ReindexReplaces", testCatalogReindexReplaces},
		{"MarkReadyNotIndexing", testCatalogMarkReadyNotIndexing},
		{"DocumentsOrder", testCatalogDocumentsOrder},
		{"DeleteDocument", testCatalogDeleteDocument},
		{"L0Terms", testCatalogL0Terms},
		{"ChunkCount", testCatalogChunkCount},
		{"ManyChunks", testCatalogManyChunks},
		{"HostileValues", testCatalogHostileValues},
		{"ScopesIsolated", testCatalogScopesIsolated},
		{"SourceConflict", testCatalogSourceConflict},
		{"InvalidInput", testCatalogInvalidInput},
		{"LongValues", testCatalogLongValues},
		{"ContextCanceled", testCatalogContextCanceled},
		{"Concurrent", testCatalogConcurrent},
		{"IndexInfo", testCatalogIndexInfo},
		{"SeedInProgress", testCatalogSeedInProgress},
	}
	t.Run("VerifyBeforeInit", func(t *testing.T) {
		c := open(t)
		t.Cleanup(func() { c.Close() })
		if err := c.Verify(catBG); !errors.Is(err, kb.ErrNotSeeded) {
			t.Errorf("Verify of a catalog never initialised = %v, want an error wrapping kb.ErrNotSeeded", err)
		}
		if err := c.Init(catBG); err != nil {
			t.Fatal(err)
		}
		if err := c.Verify(catBG); err != nil {
			t.Errorf("Verify after Init: %v", err)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := open(t)
			t.Cleanup(func() {
				if err := c.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			if err := c.Init(context.Background()); err != nil {
				t.Fatalf("Init: %v", err)
			}
			tt.fn(t, c)
		})
	}
}

// CatalogDoc returns a document of kbScope with DocID "<kbScope>/<source>"
// and every field filled.
func CatalogDoc(kbScope, source string) kb.Document {
	return kb.Document{
		DocID:       kbScope + "/" + source,
		Source:      source,
		Title:       "Title of " + source,
		Breadcrumb:  "Root > " + source,
		Category:    "cat-" + source,
		KBScope:     kbScope,
		Keywords:    []string{"kw-" + source},
		Aliases:     []string{"alias-" + source},
		Body:        "body of " + source,
		ContentHash: fmt.Sprintf("%064x", len(source)),
	}
}

// CatalogChunks returns n chunks of doc, with texts tagged by tag.
func CatalogChunks(doc kb.Document, n int, tag string) []kb.Chunk {
	out := make([]kb.Chunk, n)
	for i := range out {
		out[i] = kb.Chunk{
			EvidenceKey: kb.EvidenceKey(doc.DocID, kb.SectionLabel([]string{"section " + fmt.Sprint(i)}), 1, 1),
			DocID:       doc.DocID,
			Source:      doc.Source,
			Title:       doc.Title,
			Breadcrumb:  doc.Breadcrumb + " > section " + fmt.Sprint(i),
			Category:    doc.Category,
			KBScope:     doc.KBScope,
			ChunkIndex:  i,
			Text:        fmt.Sprintf("%s chunk %d of %s", tag, i, doc.DocID),
		}
	}
	return out
}

var catBG = context.Background()

// catIndex runs BeginIndexing and MarkReady.
func catIndex(t *testing.T, c kb.Catalog, doc kb.Document, nChunks int) {
	t.Helper()
	if err := c.BeginIndexing(catBG, doc, CatalogChunks(doc, nChunks, "v")); err != nil {
		t.Fatalf("BeginIndexing %q: %v", doc.DocID, err)
	}
	if err := c.MarkReady(catBG, doc.KBScope, doc.DocID, doc.ContentHash); err != nil {
		t.Fatalf("MarkReady %q: %v", doc.DocID, err)
	}
}

func catDocuments(t *testing.T, c kb.Catalog, kbScope string) []kb.DocumentState {
	t.Helper()
	docs, err := c.Documents(catBG, kbScope)
	if err != nil {
		t.Fatalf("Documents(%q): %v", kbScope, err)
	}
	return docs
}

func catL0Terms(t *testing.T, c kb.Catalog, kbScope string) []kb.L0Term {
	t.Helper()
	terms, err := c.L0Terms(catBG, kbScope)
	if err != nil {
		t.Fatalf("L0Terms(%q): %v", kbScope, err)
	}
	return terms
}

func catChunkCount(t *testing.T, c kb.Catalog, kbScope string) int {
	t.Helper()
	n, err := c.ChunkCount(catBG, kbScope)
	if err != nil {
		t.Fatalf("ChunkCount(%q): %v", kbScope, err)
	}
	return n
}

func catState(doc kb.Document, status, hash string, chunks int) kb.DocumentState {
	return kb.DocumentState{
		DocID: doc.DocID, Source: doc.Source, KBScope: doc.KBScope, Title: doc.Title,
		Breadcrumb: doc.Breadcrumb, Category: doc.Category, ContentHash: hash,
		Status: status, ChunkCount: chunks,
	}
}

func catCheckDocuments(t *testing.T, c kb.Catalog, kbScope string, want ...kb.DocumentState) {
	t.Helper()
	got := catDocuments(t, c, kbScope)
	if !slices.Equal(got, want) {
		t.Errorf("Documents(%q):\n got %#v\nwant %#v", kbScope, got, want)
	}
}

func catCheckTerms(t *testing.T, c kb.Catalog, kbScope string, want ...kb.L0Term) {
	t.Helper()
	got := catL0Terms(t, c, kbScope)
	if !slices.Equal(got, want) {
		t.Errorf("L0Terms(%q):\n got %#v\nwant %#v", kbScope, got, want)
	}
}

func catCheckChunkCount(t *testing.T, c kb.Catalog, kbScope string, want int) {
	t.Helper()
	if got := catChunkCount(t, c, kbScope); got != want {
		t.Errorf("ChunkCount(%q) = %d, want %d", kbScope, got, want)
	}
}

// catDocTerms are the L0 terms of a CatalogDoc, in order.
func catDocTerms(doc kb.Document) []kb.L0Term {
	mk := func(term, kind string) kb.L0Term {
		return kb.L0Term{Term: term, Kind: kind, DocID: doc.DocID, Source: doc.Source, Category: doc.Category}
	}
	return []kb.L0Term{
		mk(doc.Title, kb.TermTitle), // "Title of …" < "alias-…" < "kw-…"
		mk(doc.Aliases[0], kb.TermAlias),
		mk(doc.Keywords[0], kb.TermKeyword),
	}
}

// catSortedTerms returns a and b in the order L0Terms promises: by term, then
// docId, then kind, comparing bytes.
func catSortedTerms(a []kb.L0Term, b ...kb.L0Term) []kb.L0Term {
	out := append(slices.Clone(a), b...)
	slices.SortFunc(out, func(x, y kb.L0Term) int {
		if c := strings.Compare(x.Term, y.Term); c != 0 {
			return c
		}
		if c := strings.Compare(x.DocID, y.DocID); c != 0 {
			return c
		}
		return strings.Compare(x.Kind, y.Kind)
	})
	return out
}

func testCatalogInitIdempotent(t *testing.T, c kb.Catalog) {
	if err := c.Init(catBG); err != nil {
		t.Fatalf("second Init: %v", err)
	}
	doc := CatalogDoc("s", "a")
	catIndex(t, c, doc, 2)
	if err := c.Init(catBG); err != nil {
		t.Fatalf("Init on a filled catalog: %v", err)
	}
	catCheckDocuments(t, c, "s", catState(doc, kb.StatusReady, doc.ContentHash, 2))
	catCheckTerms(t, c, "s", catDocTerms(doc)...)
	catCheckChunkCount(t, c, "s", 2)
}

func testCatalogEmpty(t *testing.T, c kb.Catalog) {
	catCheckDocuments(t, c, "s")
	catCheckTerms(t, c, "s")
	catCheckChunkCount(t, c, "s", 0)
	if err := c.DeleteDocument(catBG, "s", "s/missing"); err != nil {
		t.Errorf("DeleteDocument of a missing document: %v", err)
	}
	if err := c.MarkReady(catBG, "s", "s/missing", "h"); !errors.Is(err, kb.ErrNotIndexing) {
		t.Errorf("MarkReady of a missing document = %v, want kb.ErrNotIndexing", err)
	}
}

func testCatalogBeginThenReady(t *testing.T, c kb.Catalog) {
	doc := kb.Document{
		DocID: "rag-eval/mysql-connection-pool", Source: "mysql-connection-pool",
		Title: "MySQL 连接池耗尽排查", Breadcrumb: "Database > MySQL > Connection Pool",
		Category: "database", KBScope: "rag-eval",
		Keywords: []string{"连接池", "too many connections"}, Aliases: []string{"pool exhausted"},
		ContentHash: strings.Repeat("ab", 32),
	}
	if err := c.BeginIndexing(catBG, doc, CatalogChunks(doc, 3, "v1")); err != nil {
		t.Fatalf("BeginIndexing: %v", err)
	}
	catCheckDocuments(t, c, "rag-eval", catState(doc, kb.StatusIndexing, "", 3))
	catCheckTerms(t, c, "rag-eval") // an indexing document steers no lookup
	catCheckChunkCount(t, c, "rag-eval", 3)

	if err := c.MarkReady(catBG, "rag-eval", doc.DocID, doc.ContentHash); err != nil {
		t.Fatalf("MarkReady: %v", err)
	}
	catCheckDocuments(t, c, "rag-eval", catState(doc, kb.StatusReady, doc.ContentHash, 3))
	mk := func(term, kind string) kb.L0Term {
		return kb.L0Term{Term: term, Kind: kind, DocID: doc.DocID, Source: doc.Source, Category: "database"}
	}
	catCheckTerms(t, c, "rag-eval",
		mk("MySQL 连接池耗尽排查", kb.TermTitle),
		mk("pool exhausted", kb.TermAlias),
		mk("too many connections", kb.TermKeyword),
		mk("连接池", kb.TermKeyword),
	)
	catCheckChunkCount(t, c, "rag-eval", 3)
}

func testCatalogReindexReplaces(t *testing.T, c kb.Catalog) {
	other := CatalogDoc("s", "other")
	catIndex(t, c, other, 4)
	doc := CatalogDoc("s", "doc")
	doc.Keywords = []string{"old-1", "old-2"}
	catIndex(t, c, doc, 5)
	catCheckChunkCount(t, c, "s", 9)

	// Re-index with fewer chunks and other keywords: the old rows go.
	doc.Keywords = []string{"new-1"}
	doc.Title = "New title"
	doc.ContentHash = strings.Repeat("2", 64)
	if err := c.BeginIndexing(catBG, doc, CatalogChunks(doc, 2, "v2")); err != nil {
		t.Fatalf("BeginIndexing again: %v", err)
	}
	catCheckDocuments(t, c, "s",
		catState(doc, kb.StatusIndexing, "", 2),
		catState(other, kb.StatusReady, other.ContentHash, 4))
	catCheckChunkCount(t, c, "s", 6)
	catCheckTerms(t, c, "s", catDocTerms(other)...) // the re-indexed document's old and new terms are hidden

	// A crash before MarkReady, then a rerun: BeginIndexing on an
	// indexing document replaces again.
	for i, n := range []int{7, 7, 3} {
		if err := c.BeginIndexing(catBG, doc, CatalogChunks(doc, n, fmt.Sprint("v", 3+i))); err != nil {
			t.Fatalf("BeginIndexing #%d: %v", 3+i, err)
		}
		catCheckChunkCount(t, c, "s", 4+n)
	}
	if err := c.MarkReady(catBG, "s", doc.DocID, doc.ContentHash); err != nil {
		t.Fatalf("MarkReady: %v", err)
	}
	catCheckDocuments(t, c, "s",
		catState(doc, kb.StatusReady, doc.ContentHash, 3),
		catState(other, kb.StatusReady, other.ContentHash, 4))
	mk := func(term, kind string) kb.L0Term {
		return kb.L0Term{Term: term, Kind: kind, DocID: doc.DocID, Source: doc.Source, Category: doc.Category}
	}
	catCheckTerms(t, c, "s", catSortedTerms(catDocTerms(other), mk("New title", kb.TermTitle), mk("alias-doc", kb.TermAlias), mk("new-1", kb.TermKeyword))...)
	catCheckChunkCount(t, c, "s", 7)
}

func testCatalogMarkReadyNotIndexing(t *testing.T, c kb.Catalog) {
	ready := CatalogDoc("s", "ready")
	catIndex(t, c, ready, 1)
	indexing := CatalogDoc("s", "indexing")
	if err := c.BeginIndexing(catBG, indexing, nil); err != nil {
		t.Fatal(err)
	}
	deleted := CatalogDoc("s", "deleted")
	catIndex(t, c, deleted, 1)
	if err := c.DeleteDocument(catBG, "s", deleted.DocID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, scope, docID string }{
		{"missing", "s", "s/missing"},
		{"ready", "s", ready.DocID},
		{"deleted", "s", deleted.DocID},
		{"other scope", "t", indexing.DocID},
		{"other case", "s", strings.ToUpper(indexing.DocID)},
		{"trailing space", "s", indexing.DocID + " "},
	} {
		err := c.MarkReady(catBG, tc.scope, tc.docID, strings.Repeat("f", 64))
		if !errors.Is(err, kb.ErrNotIndexing) {
			t.Errorf("MarkReady(%s) = %v, want kb.ErrNotIndexing", tc.name, err)
		}
	}
	if err := c.MarkReady(catBG, "s", indexing.DocID, ""); err == nil {
		t.Error("MarkReady with an empty content hash succeeded")
	}
	catCheckDocuments(t, c, "s",
		catState(indexing, kb.StatusIndexing, "", 0),
		catState(ready, kb.StatusReady, ready.ContentHash, 1))
}

func testCatalogDocumentsOrder(t *testing.T, c kb.Catalog) {
	ids := []string{"b", "a", "B", "A", "a b", "a-b", "a/b", "a#1", "a ", "ab", "ä", "中文", "😀", "Z", "_", "~", "a\tb", "0"}
	var want []kb.DocumentState
	for i, id := range ids {
		doc := CatalogDoc("s", fmt.Sprintf("src-%02d", i))
		doc.DocID = id
		catIndex(t, c, doc, 1)
		want = append(want, catState(doc, kb.StatusReady, doc.ContentHash, 1))
	}
	// Go's string order: bytes, no case folding, no padding.
	slices.SortFunc(want, func(a, b kb.DocumentState) int { return strings.Compare(a.DocID, b.DocID) })
	catCheckDocuments(t, c, "s", want...)
}

func testCatalogDeleteDocument(t *testing.T, c kb.Catalog) {
	d1, d2 := CatalogDoc("s", "one"), CatalogDoc("s", "two")
	catIndex(t, c, d1, 3)
	catIndex(t, c, d2, 2)
	t1 := d1
	t1.KBScope = "t" // the same docId in another scope
	catIndex(t, c, t1, 4)

	if err := c.DeleteDocument(catBG, "s", d1.DocID); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	catCheckDocuments(t, c, "s", catState(d2, kb.StatusReady, d2.ContentHash, 2))
	catCheckTerms(t, c, "s", catDocTerms(d2)...)
	catCheckChunkCount(t, c, "s", 2)
	catCheckDocuments(t, c, "t", catState(t1, kb.StatusReady, t1.ContentHash, 4))
	catCheckTerms(t, c, "t", catDocTerms(t1)...)
	catCheckChunkCount(t, c, "t", 4)

	for range 2 {
		if err := c.DeleteDocument(catBG, "s", d1.DocID); err != nil {
			t.Errorf("DeleteDocument again: %v", err)
		}
	}
	// An indexing document can be deleted, and its source reused.
	if err := c.BeginIndexing(catBG, d2, CatalogChunks(d2, 5, "v2")); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteDocument(catBG, "s", d2.DocID); err != nil {
		t.Fatalf("DeleteDocument of an indexing document: %v", err)
	}
	catCheckDocuments(t, c, "s")
	catCheckTerms(t, c, "s")
	catCheckChunkCount(t, c, "s", 0)
	reuse := CatalogDoc("s", "two")
	reuse.DocID = "s/two-renamed"
	catIndex(t, c, reuse, 1)
	catCheckDocuments(t, c, "s", catState(reuse, kb.StatusReady, reuse.ContentHash, 1))
}

func testCatalogL0Terms(t *testing.T, c kb.Catalog) {
	d1 := CatalogDoc("s", "d1")
	d1.Title, d1.Keywords, d1.Aliases = "T1", []string{"b", "a", "Pool"}, []string{"pool"}
	d2 := CatalogDoc("s", "d2")
	d2.Title, d2.Keywords, d2.Aliases = "a", []string{"a", "pool "}, nil
	d3 := CatalogDoc("s", "d3") // stays indexing
	d3.Title, d3.Keywords, d3.Aliases = "a", []string{"a", "zzz"}, nil
	d4 := CatalogDoc("s", "d4")
	d4.Title, d4.Keywords, d4.Aliases = "T4", []string{"x", "x", ""}, []string{""}
	for _, d := range []kb.Document{d4, d3, d2, d1} {
		if err := c.BeginIndexing(catBG, d, CatalogChunks(d, 1, "v")); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []kb.Document{d1, d2, d4} {
		if err := c.MarkReady(catBG, "s", d.DocID, d.ContentHash); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(d kb.Document, term, kind string) kb.L0Term {
		return kb.L0Term{Term: term, Kind: kind, DocID: d.DocID, Source: d.Source, Category: d.Category}
	}
	catCheckTerms(t, c, "s",
		mk(d1, "Pool", kb.TermKeyword),
		mk(d1, "T1", kb.TermTitle),
		mk(d4, "T4", kb.TermTitle),
		mk(d1, "a", kb.TermKeyword),
		mk(d2, "a", kb.TermKeyword),
		mk(d2, "a", kb.TermTitle),
		mk(d1, "b", kb.TermKeyword),
		mk(d1, "pool", kb.TermAlias),
		mk(d2, "pool ", kb.TermKeyword),
		mk(d4, "x", kb.TermKeyword),
	)
	catCheckTerms(t, c, "other")
}

func testCatalogChunkCount(t *testing.T, c kb.Catalog) {
	ready := CatalogDoc("s", "ready")
	catIndex(t, c, ready, 3)
	indexing := CatalogDoc("s", "indexing")
	if err := c.BeginIndexing(catBG, indexing, CatalogChunks(indexing, 4, "v")); err != nil {
		t.Fatal(err)
	}
	empty := CatalogDoc("s", "empty")
	catIndex(t, c, empty, 0)
	catCheckChunkCount(t, c, "s", 7)
	catCheckChunkCount(t, c, "S", 0)
	catCheckChunkCount(t, c, "", 0)
	catCheckDocuments(t, c, "s",
		catState(empty, kb.StatusReady, empty.ContentHash, 0),
		catState(indexing, kb.StatusIndexing, "", 4),
		catState(ready, kb.StatusReady, ready.ContentHash, 3))
}

func testCatalogManyChunks(t *testing.T, c kb.Catalog) {
	doc := CatalogDoc("s", "big")
	doc.Keywords = nil
	for i := range 1200 {
		doc.Keywords = append(doc.Keywords, fmt.Sprintf("keyword-%04d", i))
	}
	catIndex(t, c, doc, 1234)
	catCheckChunkCount(t, c, "s", 1234)
	if got := len(catL0Terms(t, c, "s")); got != 1202 {
		t.Errorf("len(L0Terms) = %d, want 1202", got)
	}
	doc.Keywords = doc.Keywords[:1]
	catIndex(t, c, doc, 3)
	catCheckChunkCount(t, c, "s", 3)
	if got := len(catL0Terms(t, c, "s")); got != 3 {
		t.Errorf("len(L0Terms) after re-index = %d, want 3", got)
	}
}

// HostileValues are strings that break string-built SQL or filter
// expressions, or that a collation would fold together.
var HostileValues = []string{
	`"`, `" || true`, `' OR '1'='1`, `'; DROP TABLE documents; --`, `\`, `\\'`, `\"`,
	`%`, `_`, `*`, `$1`, `?`, `:name`, "a\nb", "\t", "\x1a", `<script>`, "`x`",
	`连接池`, `😀🔥`, `Pool`, `pool`, `pool `, ` pool`, `POOL`, `pöol`, "po\u0308ol",
}

func testCatalogHostileValues(t *testing.T, c kb.Catalog) {
	control := CatalogDoc("control", "doc")
	catIndex(t, c, control, 1)

	// Every field of a document, in a scope of its own.
	hostileDoc := func(h string) kb.Document {
		return kb.Document{
			DocID: h, Source: h, Title: h, Breadcrumb: h, Category: h, KBScope: h,
			Keywords: []string{h, "kw " + h}, Aliases: []string{h}, ContentHash: h,
		}
	}
	for _, h := range HostileValues {
		catIndex(t, c, hostileDoc(h), 2)
	}
	for _, h := range HostileValues {
		doc := hostileDoc(h)
		catCheckDocuments(t, c, h, catState(doc, kb.StatusReady, h, 2))
		mk := func(term, kind string) kb.L0Term {
			return kb.L0Term{Term: term, Kind: kind, DocID: h, Source: h, Category: h}
		}
		catCheckTerms(t, c, h, catSortedTerms(nil, mk(h, kb.TermAlias), mk(h, kb.TermKeyword), mk(h, kb.TermTitle), mk("kw "+h, kb.TermKeyword))...)
		catCheckChunkCount(t, c, h, 2)
	}
	catCheckDocuments(t, c, "control", catState(control, kb.StatusReady, control.ContentHash, 1))

	// The same values as sources of one scope: all distinct documents.
	var want []kb.DocumentState
	for i, h := range HostileValues {
		doc := CatalogDoc("mixed", h)
		doc.DocID = fmt.Sprintf("mixed/%02d", i)
		catIndex(t, c, doc, 1)
		want = append(want, catState(doc, kb.StatusReady, doc.ContentHash, 1))
	}
	catCheckDocuments(t, c, "mixed", want...)
	catCheckChunkCount(t, c, "mixed", len(HostileValues))
	// Deleting one removes that one only.
	if err := c.DeleteDocument(catBG, "mixed", want[0].DocID); err != nil {
		t.Fatal(err)
	}
	catCheckDocuments(t, c, "mixed", want[1:]...)
	if err := c.DeleteDocument(catBG, `' OR '1'='1`, `' OR '1'='1`); err != nil {
		t.Fatal(err)
	}
	catCheckDocuments(t, c, `' OR '1'='1`)
	catCheckDocuments(t, c, "control", catState(control, kb.StatusReady, control.ContentHash, 1))
	catCheckChunkCount(t, c, `%`, 2)
}

func testCatalogScopesIsolated(t *testing.T, c kb.Catalog) {
	a := CatalogDoc("a", "doc")
	a.DocID = "shared-id"
	b := a
	b.KBScope = "b"
	b.Keywords = []string{"only-b"}
	catIndex(t, c, a, 3)
	catIndex(t, c, b, 5)
	catCheckChunkCount(t, c, "a", 3)
	catCheckChunkCount(t, c, "b", 5)

	if err := c.BeginIndexing(catBG, a, CatalogChunks(a, 1, "v2")); err != nil {
		t.Fatal(err)
	}
	if err := c.MarkReady(catBG, "b", a.DocID, "h"); !errors.Is(err, kb.ErrNotIndexing) {
		t.Errorf("MarkReady in scope b while a is indexing = %v, want kb.ErrNotIndexing", err)
	}
	catCheckDocuments(t, c, "a", catState(a, kb.StatusIndexing, "", 1))
	catCheckDocuments(t, c, "b", catState(b, kb.StatusReady, b.ContentHash, 5))
	catCheckTerms(t, c, "a")
	catCheckTerms(t, c, "b", catDocTerms(b)...)
	catCheckChunkCount(t, c, "a", 1)
	catCheckChunkCount(t, c, "b", 5)

	if err := c.DeleteDocument(catBG, "a", a.DocID); err != nil {
		t.Fatal(err)
	}
	catCheckDocuments(t, c, "a")
	catCheckDocuments(t, c, "b", catState(b, kb.StatusReady, b.ContentHash, 5))
	catCheckChunkCount(t, c, "b", 5)
}

func testCatalogSourceConflict(t *testing.T, c kb.Catalog) {
	one := CatalogDoc("s", "shared")
	catIndex(t, c, one, 2)
	two := CatalogDoc("s", "shared")
	two.DocID = "s/two"
	err := c.BeginIndexing(catBG, two, CatalogChunks(two, 3, "v"))
	if err == nil {
		t.Fatal("BeginIndexing of a second document with the same source succeeded")
	}
	t.Logf("source conflict: %v", err)
	catCheckDocuments(t, c, "s", catState(one, kb.StatusReady, one.ContentHash, 2))
	catCheckTerms(t, c, "s", catDocTerms(one)...)
	catCheckChunkCount(t, c, "s", 2)

	// The same source in another scope is no conflict.
	other := two
	other.KBScope = "t"
	catIndex(t, c, other, 1)

	if err := c.DeleteDocument(catBG, "s", one.DocID); err != nil {
		t.Fatal(err)
	}
	catIndex(t, c, two, 3)
	catCheckDocuments(t, c, "s", catState(two, kb.StatusReady, two.ContentHash, 3))
}

func testCatalogInvalidInput(t *testing.T, c kb.Catalog) {
	valid := CatalogDoc("s", "doc")
	for _, tc := range []struct {
		name   string
		edit   func(d *kb.Document, ch []kb.Chunk) []kb.Chunk
		scopes []string
	}{
		{"empty kb_scope", func(d *kb.Document, ch []kb.Chunk) []kb.Chunk {
			d.KBScope = ""
			for i := range ch {
				ch[i].KBScope = ""
			}
			return ch
		}, []string{""}},
		{"empty doc_id", func(d *kb.Document, _ []kb.Chunk) []kb.Chunk { d.DocID = ""; return nil }, nil},
		{"empty source", func(d *kb.Document, ch []kb.Chunk) []kb.Chunk { d.Source = ""; return ch }, nil},
		{"invalid UTF-8 source", func(d *kb.Document, ch []kb.Chunk) []kb.Chunk { d.Source = "a\xffb"; return ch }, nil},
		{"NUL in category", func(d *kb.Document, ch []kb.Chunk) []kb.Chunk { d.Category = "a\x00b"; return ch }, nil},
		{"invalid UTF-8 keyword", func(d *kb.Document, ch []kb.Chunk) []kb.Chunk { d.Keywords = []string{"\xc3"}; return ch }, nil},
		{"chunk of another document", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk {
			ch[1].DocID = "s/other"
			ch[1].EvidenceKey = "s/other#section 1"
			return ch
		}, nil},
		{"chunk of another scope", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk { ch[0].KBScope = "t"; return ch }, []string{"t"}},
		{"repeated chunk index", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk {
			ch[2].ChunkIndex, ch[2].EvidenceKey = 1, ch[1].EvidenceKey
			return ch
		}, nil},
		{"evidence key of another document", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk { ch[0].EvidenceKey = "s/other#7"; return ch }, nil},
		{"evidence key with a '#' in its label", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk { ch[0].EvidenceKey = "s/doc#7#1"; return ch }, nil},
		{"evidence key without a label", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk { ch[0].EvidenceKey = "s/doc"; return ch }, nil},
		{"evidence key too long", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk {
			ch[0].EvidenceKey = "s/doc#" + strings.Repeat("k", kb.MaxEvidenceKeyLen)
			return ch
		}, nil},
		{"repeated evidence key", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk { ch[2].EvidenceKey = ch[1].EvidenceKey; return ch }, nil},
		{"negative chunk index", func(_ *kb.Document, ch []kb.Chunk) []kb.Chunk {
			ch[0].ChunkIndex = -1
			return ch
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := valid
			doc.Keywords = slices.Clone(valid.Keywords)
			chunks := tc.edit(&doc, CatalogChunks(valid, 3, "v"))
			err := c.BeginIndexing(catBG, doc, chunks)
			if err == nil {
				t.Fatal("BeginIndexing succeeded")
			}
			t.Logf("%v", err)
			for _, scope := range append([]string{"s"}, tc.scopes...) {
				catCheckDocuments(t, c, scope)
				catCheckChunkCount(t, c, scope, 0)
			}
		})
	}
}

// Every catalog holds at least these sizes, in bytes of UTF-8, exactly.
const (
	CatalogMinKBScope = 255
	CatalogMinDocID   = 512
	CatalogMinSource  = 512
	CatalogMinText    = 65535 // title, breadcrumb, category, each L0 term
)

// catBytesOf returns a string of exactly n bytes of multi-byte characters
// (so a limit counted in characters would show), padded with ASCII.
func catBytesOf(n int, unit string) string {
	s := strings.Repeat(unit, n/len(unit))
	return s + strings.Repeat("x", n-len(s))
}

// testCatalogLongValues: values up to the minimum sizes are stored exactly.
// Longer ones are stored exactly or refused, never truncated.
func testCatalogLongValues(t *testing.T, c kb.Catalog) {
	for _, tc := range []struct {
		name string
		edit func(d *kb.Document)
		must bool // must be stored
	}{
		{"kb_scope at the minimum", func(d *kb.Document) { d.KBScope = catBytesOf(CatalogMinKBScope, "é") }, true},
		{"doc_id at the minimum", func(d *kb.Document) { d.DocID = catBytesOf(CatalogMinDocID, "文") }, true},
		{"source at the minimum", func(d *kb.Document) { d.Source = catBytesOf(CatalogMinSource, "😀") }, true},
		{"title at the minimum", func(d *kb.Document) { d.Title = catBytesOf(CatalogMinText, "標題") }, true},
		{"category at the minimum", func(d *kb.Document) { d.Category = catBytesOf(CatalogMinText, "c") }, true},
		{"keyword at the minimum", func(d *kb.Document) { d.Keywords = []string{catBytesOf(CatalogMinText, "ü")} }, true},
		{"kb_scope", func(d *kb.Document) { d.KBScope = strings.Repeat("s", 300) }, false},
		{"doc_id", func(d *kb.Document) { d.DocID = strings.Repeat("d", 1000) }, false},
		{"source", func(d *kb.Document) { d.Source = strings.Repeat("é", 400) }, false},
		{"title", func(d *kb.Document) { d.Title = strings.Repeat("標題", 12000) }, false},
		{"breadcrumb", func(d *kb.Document) { d.Breadcrumb = strings.Repeat("b > ", 20000) }, false},
		{"keyword", func(d *kb.Document) { d.Keywords = []string{strings.Repeat("k", 70000)} }, false},
		{"keyword that grows when normalised", func(d *kb.Document) { d.Keywords = []string{strings.Repeat("ﷺ", 2000)} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := CatalogDoc("s", "doc")
			tc.edit(&doc)
			chunks := CatalogChunks(doc, 2, "v")
			if err := c.BeginIndexing(catBG, doc, chunks); err != nil {
				if tc.must {
					t.Fatalf("BeginIndexing: %v", err)
				}
				t.Logf("refused: %.300v", err)
				catCheckDocuments(t, c, doc.KBScope)
				catCheckChunkCount(t, c, doc.KBScope, 0)
				return
			}
			if err := c.MarkReady(catBG, doc.KBScope, doc.DocID, doc.ContentHash); err != nil {
				t.Fatal(err)
			}
			got := catDocuments(t, c, doc.KBScope)
			if len(got) != 1 || got[0] != catState(doc, kb.StatusReady, doc.ContentHash, 2) {
				t.Errorf("the document did not come back exactly (%d documents)", len(got))
			}
			terms := catL0Terms(t, c, doc.KBScope)
			for _, want := range []string{doc.Title, doc.Keywords[0], doc.Aliases[0]} {
				if !slices.ContainsFunc(terms, func(x kb.L0Term) bool {
					return x.Term == want && x.DocID == doc.DocID && x.Source == doc.Source && x.Category == doc.Category
				}) {
					t.Errorf("L0 term of %d bytes not returned exactly", len(want))
				}
			}
			catCheckChunkCount(t, c, doc.KBScope, 2)
			if err := c.DeleteDocument(catBG, doc.KBScope, doc.DocID); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func testCatalogContextCanceled(t *testing.T, c kb.Catalog) {
	ready := CatalogDoc("s", "ready")
	catIndex(t, c, ready, 2)
	indexing := CatalogDoc("s", "indexing")
	if err := c.BeginIndexing(catBG, indexing, CatalogChunks(indexing, 1, "v")); err != nil {
		t.Fatal(err)
	}

	canceled, cancel := context.WithCancel(catBG)
	cancel()
	expired, cancel2 := context.WithTimeout(catBG, -1)
	defer cancel2()
	for _, cc := range []struct {
		ctx  context.Context
		want error
	}{{canceled, context.Canceled}, {expired, context.DeadlineExceeded}} {
		ctx := cc.ctx
		newDoc := CatalogDoc("s", "new")
		calls := map[string]func() error{
			"Init":          func() error { return c.Init(ctx) },
			"Documents":     func() error { _, err := c.Documents(ctx, "s"); return err },
			"BeginIndexing": func() error { return c.BeginIndexing(ctx, newDoc, CatalogChunks(newDoc, 3, "v")) },
			"re-BeginIndexing": func() error {
				return c.BeginIndexing(ctx, ready, CatalogChunks(ready, 9, "v2"))
			},
			"MarkReady":      func() error { return c.MarkReady(ctx, "s", indexing.DocID, indexing.ContentHash) },
			"DeleteDocument": func() error { return c.DeleteDocument(ctx, "s", ready.DocID) },
			"L0Terms":        func() error { _, err := c.L0Terms(ctx, "s"); return err },
			"ChunkCount":     func() error { _, err := c.ChunkCount(ctx, "s"); return err },
		}
		for name, call := range calls {
			if err := call(); !errors.Is(err, cc.want) {
				t.Errorf("%s with a done context = %v, want %v", name, err, cc.want)
			}
		}
	}
	// Nothing was written, and the catalog still works.
	catCheckDocuments(t, c, "s",
		catState(indexing, kb.StatusIndexing, "", 1),
		catState(ready, kb.StatusReady, ready.ContentHash, 2))
	catCheckChunkCount(t, c, "s", 3)
	if err := c.MarkReady(catBG, "s", indexing.DocID, indexing.ContentHash); err != nil {
		t.Fatalf("MarkReady after canceled calls: %v", err)
	}
	catCheckTerms(t, c, "s", catSortedTerms(catDocTerms(indexing), catDocTerms(ready)...)...)
}

func testCatalogConcurrent(t *testing.T, c kb.Catalog) {
	const writers, perWriter, nChunks = 8, 10, 4
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter*3)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				doc := CatalogDoc("s", fmt.Sprintf("w%d-%02d", w, i))
				if err := c.BeginIndexing(catBG, doc, CatalogChunks(doc, nChunks, "v")); err != nil {
					errs <- err
					continue
				}
				if err := c.MarkReady(catBG, "s", doc.DocID, doc.ContentHash); err != nil {
					errs <- err
				}
				if _, err := c.L0Terms(catBG, "s"); err != nil {
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
	docs := catDocuments(t, c, "s")
	if len(docs) != writers*perWriter {
		t.Errorf("%d documents, want %d", len(docs), writers*perWriter)
	}
	for _, d := range docs {
		if d.Status != kb.StatusReady {
			t.Errorf("%s: status %q", d.DocID, d.Status)
		}
	}
	catCheckChunkCount(t, c, "s", writers*perWriter*nChunks)
	if got := len(catL0Terms(t, c, "s")); got != writers*perWriter*3 {
		t.Errorf("%d L0 terms, want %d", got, writers*perWriter*3)
	}
}

func testCatalogIndexInfo(t *testing.T, c kb.Catalog) {
	if _, ok, err := c.IndexInfo(catBG, "s"); err != nil || ok {
		t.Fatalf("IndexInfo of a new catalog = %v, %v; want no record", ok, err)
	}
	a := kb.IndexInfo{Embedder: "local-hash-v1", Dim: 512, KeyFormat: kb.EvidenceKeyFormat,
		ChunkSize: 800, ChunkOverlap: 100, Documents: 40, CorpusSHA256: strings.Repeat("ab", 32)}
	b := kb.IndexInfo{Embedder: "openai:multilingual-e5-small-q4", Dim: 384, KeyFormat: 1}
	if err := c.SetIndexInfo(catBG, "s", &a); err != nil {
		t.Fatal(err)
	}
	if err := c.SetIndexInfo(catBG, "other", &b); err != nil {
		t.Fatal(err)
	}
	check := func(scope string, want kb.IndexInfo, wantOK bool) {
		t.Helper()
		got, ok, err := c.IndexInfo(catBG, scope)
		if err != nil || ok != wantOK || got != want {
			t.Errorf("IndexInfo(%q) = %+v, %v, %v; want %+v, %v", scope, got, ok, err, want, wantOK)
		}
	}
	check("s", a, true)
	check("other", b, true)
	if err := c.SetIndexInfo(catBG, "s", &b); err != nil {
		t.Fatal(err)
	}
	check("s", b, true)
	if err := c.SetIndexInfo(catBG, "s", nil); err != nil {
		t.Fatal(err)
	}
	check("s", kb.IndexInfo{}, false)
	check("other", b, true)
	if err := c.SetIndexInfo(catBG, "s", nil); err != nil {
		t.Errorf("forgetting a missing record: %v", err)
	}
	for _, bad := range []*kb.IndexInfo{{Embedder: "", Dim: 3, KeyFormat: 2}, {Embedder: "x", Dim: 0, KeyFormat: 2}, {Embedder: "x", Dim: 3},
		{Embedder: "x", Dim: 3, KeyFormat: 2, ChunkSize: -1}, {Embedder: "x", Dim: 3, KeyFormat: 2, CorpusSHA256: strings.Repeat("a", 65)}} {
		if err := c.SetIndexInfo(catBG, "s", bad); err == nil {
			t.Errorf("SetIndexInfo(%+v) accepted", *bad)
		}
	}
	check("s", kb.IndexInfo{}, false)
}

// testCatalogSeedInProgress: BeginSeed marks a kbScope's seed in
// progress, keeping the record of the seed before. CompleteSeed writes the
// new record and forgets the mark at once. A mark of one kbScope is not
// another's, and a second BeginSeed replaces the first.
func testCatalogSeedInProgress(t *testing.T, c kb.Catalog) {
	check := func(scope string, want kb.SeedRun, wantOK bool) {
		t.Helper()
		got, ok, err := c.SeedInProgress(catBG, scope)
		if err != nil || ok != wantOK || got != want {
			t.Errorf("SeedInProgress(%q) = %+v, %v, %v; want %+v, %v", scope, got, ok, err, want, wantOK)
		}
	}
	check("s", kb.SeedRun{}, false)
	old := kb.IndexInfo{Embedder: "local-hash-v1", Dim: 512, KeyFormat: kb.EvidenceKeyFormat, Documents: 2, CorpusSHA256: strings.Repeat("01", 32)}
	if err := c.SetIndexInfo(catBG, "s", &old); err != nil {
		t.Fatal(err)
	}
	first := kb.SeedRun{Documents: 3, CorpusSHA256: strings.Repeat("ab", 32)}
	if err := c.BeginSeed(catBG, "s", first); err != nil {
		t.Fatal(err)
	}
	check("s", first, true)
	check("other", kb.SeedRun{}, false)
	if got, ok, err := c.IndexInfo(catBG, "s"); err != nil || !ok || got != old {
		t.Errorf("the record during a seed = %+v, %v, %v; want the one before, %+v", got, ok, err, old)
	}
	again := kb.SeedRun{Documents: 4, CorpusSHA256: strings.Repeat("cd", 32)}
	if err := c.BeginSeed(catBG, "s", again); err != nil {
		t.Fatalf("a seed after one that died: %v", err)
	}
	check("s", again, true)
	if err := c.BeginSeed(catBG, "other", first); err != nil {
		t.Fatal(err)
	}
	// A SetIndexInfo is not a completed seed: only CompleteSeed forgets
	// the mark.
	if err := c.SetIndexInfo(catBG, "s", nil); err != nil {
		t.Fatal(err)
	}
	check("s", again, true)
	now := kb.IndexInfo{Embedder: "local-hash-v1", Dim: 512, KeyFormat: kb.EvidenceKeyFormat, Documents: 4, CorpusSHA256: again.CorpusSHA256}
	if err := c.CompleteSeed(catBG, "s", now); err != nil {
		t.Fatal(err)
	}
	check("s", kb.SeedRun{}, false)
	check("other", first, true)
	if got, ok, err := c.IndexInfo(catBG, "s"); err != nil || !ok || got != now {
		t.Errorf("the record after CompleteSeed = %+v, %v, %v; want %+v", got, ok, err, now)
	}
	// An invalid record completes nothing: the mark stays.
	if err := c.CompleteSeed(catBG, "other", kb.IndexInfo{Embedder: "x"}); err == nil {
		t.Error("CompleteSeed of a record without a dimension accepted")
	}
	check("other", first, true)
	for _, bad := range []kb.SeedRun{{Documents: -1}, {CorpusSHA256: strings.Repeat("a", 65)}} {
		if err := c.BeginSeed(catBG, "s", bad); err == nil {
			t.Errorf("BeginSeed(%+v) accepted", bad)
		}
	}
	if err := c.BeginSeed(catBG, "", first); err == nil {
		t.Error("BeginSeed of an empty kbScope accepted")
	}
	check("s", kb.SeedRun{}, false)
}

// testCatalogUpgradeSeedRuns: a catalog of a build before seed_runs passes
// Verify and has no seed in progress. Init adds the table.
func testCatalogUpgradeSeedRuns(t *testing.T, c kb.Catalog) {
	catalogAsBefore(t, c, "DROP TABLE seed_runs")
	if err := c.Verify(catBG); err != nil {
		t.Fatalf("Verify of a catalog without seed_runs: %v", err)
	}
	if _, ok, err := c.SeedInProgress(catBG, "s"); err != nil || ok {
		t.Fatalf("SeedInProgress of a catalog without seed_runs = %v, %v; want none", ok, err)
	}
	for range 2 {
		if err := c.Init(catBG); err != nil {
			t.Fatal(err)
		}
	}
	run := kb.SeedRun{Documents: 1, CorpusSHA256: strings.Repeat("0f", 32)}
	if err := c.BeginSeed(catBG, "s", run); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := c.SeedInProgress(catBG, "s"); err != nil || !ok || got != run {
		t.Fatalf("SeedInProgress = %+v, %v, %v; want %+v", got, ok, err, run)
	}
}

// catalogAsBefore initialises c and runs stmts on its database, turning it
// into a catalog as an older build left it. It skips catalogs that do not
// expose their database.
func catalogAsBefore(t *testing.T, c kb.Catalog, stmts ...string) {
	t.Helper()
	sc, ok := c.(interface{ DB() *sql.DB })
	if !ok {
		t.Skipf("%T does not expose its database", c)
	}
	db := sc.DB()
	if err := c.Init(catBG); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range stmts {
		if _, err := db.ExecContext(catBG, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// testCatalogUpgradeSeedRecord: a catalog of a build before the chunking
// and corpus columns of index_info passes Verify and gives records without
// them. Those columns are a record for people, not a reason to refuse a
// store. Init adds them, and a seed of this build fills them.
func testCatalogUpgradeSeedRecord(t *testing.T, c kb.Catalog) {
	catalogAsBefore(t, c,
		"ALTER TABLE index_info DROP COLUMN chunk_size",
		"ALTER TABLE index_info DROP COLUMN chunk_overlap",
		"ALTER TABLE index_info DROP COLUMN documents",
		"ALTER TABLE index_info DROP COLUMN corpus_sha256",
		"INSERT INTO index_info (kb_scope, embedder, dim, key_format) VALUES ('s', 'local-hash-v1', 512, 2)",
	)
	if err := c.Verify(catBG); err != nil {
		t.Fatalf("Verify of a catalog without the seed record columns: %v", err)
	}
	old := kb.IndexInfo{Embedder: "local-hash-v1", Dim: 512, KeyFormat: 2}
	if got, ok, err := c.IndexInfo(catBG, "s"); err != nil || !ok || got != old {
		t.Fatalf("the old record: %+v, %v, %v; want %+v", got, ok, err, old)
	}
	for range 2 { // Init adds the columns once
		if err := c.Init(catBG); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, err := c.IndexInfo(catBG, "s"); err != nil || !ok || got != old {
		t.Fatalf("the old record after Init: %+v, %v, %v; want %+v", got, ok, err, old)
	}
	now := kb.IndexInfo{Embedder: "local-hash-v1", Dim: 512, KeyFormat: 2, ChunkSize: 120, ChunkOverlap: 20, Documents: 3,
		CorpusSHA256: strings.Repeat("0f", 32)}
	if err := c.SetIndexInfo(catBG, "s", &now); err != nil {
		t.Fatal(err)
	}
	if got, _, err := c.IndexInfo(catBG, "s"); err != nil || got != now {
		t.Fatalf("IndexInfo = %+v, %v; want %+v", got, err, now)
	}
}

// testCatalogUpgradeKeyFormat: a catalog of a build before
// index_info.key_format is refused by Verify (a reading command must not
// take its old evidence keys for current ones) until Init adds the
// column, which records the old format, 1, for the rows it has.
func testCatalogUpgradeKeyFormat(t *testing.T, c kb.Catalog) {
	catalogAsBefore(t, c, // index_info as that build made it
		"ALTER TABLE index_info DROP COLUMN key_format",
		"ALTER TABLE index_info DROP COLUMN chunk_size",
		"ALTER TABLE index_info DROP COLUMN chunk_overlap",
		"ALTER TABLE index_info DROP COLUMN documents",
		"ALTER TABLE index_info DROP COLUMN corpus_sha256",
		"INSERT INTO index_info (kb_scope, embedder, dim) VALUES ('s', 'local-hash-v1', 512)",
	)
	if err := c.Verify(catBG); !errors.Is(err, kb.ErrNotSeeded) || !strings.Contains(err.Error(), "index_info") {
		t.Fatalf("Verify of a catalog without key_format: %v, want ErrNotSeeded naming index_info", err)
	}
	for range 2 { // Init adds the column once
		if err := c.Init(catBG); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Verify(catBG); err != nil {
		t.Fatal(err)
	}
	want := kb.IndexInfo{Embedder: "local-hash-v1", Dim: 512, KeyFormat: 1}
	if got, ok, err := c.IndexInfo(catBG, "s"); err != nil || !ok || got != want {
		t.Fatalf("the old record after Init: %+v, %v, %v; want %+v", got, ok, err, want)
	}
	now := kb.IndexInfo{Embedder: "local-hash-v1", Dim: 512, KeyFormat: kb.EvidenceKeyFormat}
	if err := c.SetIndexInfo(catBG, "s", &now); err != nil {
		t.Fatal(err)
	}
	if got, _, err := c.IndexInfo(catBG, "s"); err != nil || got != now {
		t.Fatalf("IndexInfo = %+v, %v; want %+v", got, err, now)
	}
}
