package kbtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// RunIndexTests runs the kb.Index contract. open is called once per
// subtest. It must return a new index that nothing else uses, such as a new
// directory or a new collection, and that has not been Ensured. The suite
// calls Ensure and Close itself. open should drop what it created in
// t.Cleanup.
//
// The suite asserts membership and order of hits, never raw BM25 scores,
// because BM25 statistics differ between backends. The vectors are built so
// that every expected order is known. The query is e0 and each chunk vector
// is cos·e0 + √(1 − cos²)·e_axis.
func RunIndexTests(t *testing.T, open func(t *testing.T) kb.Index) {
	t.Run("BeforeEnsure", func(t *testing.T) {
		ix := open(t)
		t.Cleanup(func() { ix.Close() })
		ctx := context.Background()
		if _, err := ix.Search(ctx, ixDenseReq(3, kb.Filter{})); err == nil {
			t.Error("Search before Ensure: no error")
		}
		if _, err := ix.Count(ctx, kb.Filter{}); err == nil {
			t.Error("Count before Ensure: no error")
		}
	})
	tests := []struct {
		name string
		fn   func(t *testing.T, ix kb.Index)
	}{
		{"EnsureIdempotent", testIndexEnsureIdempotent},
		{"DimensionMismatch", testIndexDimensionMismatch},
		{"Recreate", testIndexRecreate},
		{"UpsertCount", testIndexUpsertCount},
		{"UpsertTwiceOneCopy", testIndexUpsertTwice},
		{"UpsertReplaces", testIndexUpsertReplaces},
		{"UpsertInvalid", testIndexUpsertInvalid},
		{"DeleteDocument", testIndexDeleteDocument},
		{"Filters", testIndexFilters},
		{"HostileValues", testIndexHostileValues},
		{"DenseOrder", testIndexDenseOrder},
		{"HybridFindsBM25Only", testIndexHybridBM25Only},
		{"BM25Words", testIndexBM25Words},
		{"HybridFiltered", testIndexHybridFiltered},
		{"RRFK", testIndexRRFK},
		{"AnchoredFusion", testIndexAnchoredFusion},
		{"DenseDistance", testIndexDenseDistance},
		{"KRespected", testIndexKRespected},
		{"HitFields", testIndexHitFields},
		{"Deterministic", testIndexDeterministic},
		{"InvalidSearch", testIndexInvalidSearch},
		{"Concurrent", testIndexConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := open(t)
			t.Cleanup(func() {
				if err := ix.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			if err := ix.Ensure(context.Background(), IndexDim); err != nil {
				t.Fatalf("Ensure(%d): %v", IndexDim, err)
			}
			tt.fn(t, ix)
		})
	}
}

// IndexDim is the dimension of the suite's vectors.
const IndexDim = 8

// ixQuery is the query vector of the suite: e0.
func ixQuery() []float32 { return ixAxis(0, IndexDim) }

func ixAxis(i, dim int) []float32 {
	v := make([]float32, dim)
	v[i] = 1
	return v
}

// ixVec returns the unit vector cos·e0 + √(1 − cos²)·e_axis, whose cosine
// to ixQuery is cos.
func ixVec(cos float64, axis int) []float32 {
	v := make([]float32, IndexDim)
	v[0] = float32(cos)
	v[axis] = float32(math.Sqrt(1 - cos*cos))
	return v
}

// ixChunk builds a chunk of document docID (evidence key docID#i: the
// section headed "<i>").
func ixChunk(scope, docID string, i int, category, text string, vec []float32) kb.Chunk {
	source := docID
	if j := strings.LastIndex(docID, "/"); j >= 0 {
		source = docID[j+1:]
	}
	return kb.Chunk{
		EvidenceKey: kb.EvidenceKey(docID, strconv.Itoa(i), 1, 1), // a section headed "<i>"
		DocID:       docID,
		Source:      source,
		Title:       "Title of " + source,
		Breadcrumb:  "Suite > " + category + " > " + source,
		Category:    category,
		KBScope:     scope,
		ChunkIndex:  i,
		Text:        text,
		Vector:      vec,
	}
}

// Scopes of the fixture.
const (
	ixScopeA = "kbt-a"
	ixScopeB = "kbt-b"
)

// ixFixture is the suite's corpus. In kbt-a the dense order for ixQuery,
// with each cosine, is alpha#0 0.9, alpha#1 0.7, shared#0 0.6, beta#0 0.5,
// gamma#0 0.3, cjk#0 0.1, zeta#0 0 and delta#0 −0.2. Some words only one
// chunk has: quokka in zeta#0, inode in gamma#0 and 连接池 in cjk#0. kbt-b has
// a chunk with the same document id and evidence key as one in kbt-a.
func ixFixture() []kb.Chunk {
	a, b := ixScopeA, ixScopeB
	return []kb.Chunk{
		ixChunk(a, "kbt-a/alpha", 0, "database", "MySQL connection pool exhausted: too many connections.", ixVec(0.9, 1)),
		ixChunk(a, "kbt-a/alpha", 1, "database", "Raise max_connections and check the pool size of every service.", ixVec(0.7, 2)),
		ixChunk(a, "shared", 0, "network", "Shared document id, scope a: gateway routes.", ixVec(0.6, 3)),
		ixChunk(a, "kbt-a/beta", 0, "network", "Timeouts between services behind the load balancer.", ixVec(0.5, 3)),
		ixChunk(a, "kbt-a/gamma", 0, "storage", "Disk full: inode exhausted on the data volume.", ixVec(0.3, 4)),
		ixChunk(a, "kbt-a/cjk", 0, "database", "连接池 耗尽 排查 步骤", ixVec(0.1, 7)),
		ixChunk(a, "kbt-a/zeta", 0, "misc", "The quokka lives on Rottnest island.", ixVec(0, 6)),
		ixChunk(a, "kbt-a/delta", 0, "storage", "Backup rotation keeps seven daily snapshots.", ixVec(-0.2, 5)),
		ixChunk(b, "shared", 0, "network", "Shared document id, scope b: gateway routes.", ixVec(0.95, 1)),
		ixChunk(b, "kbt-b/alpha", 0, "database", "Replica lag on the read pool.", ixVec(0.4, 2)),
	}
}

// ixVectors maps kbScope and evidence key to the stored vector.
func ixVectors(chunks []kb.Chunk) map[[2]string][]float32 {
	m := map[[2]string][]float32{}
	for _, c := range chunks {
		m[[2]string{c.KBScope, c.EvidenceKey}] = c.Vector
	}
	return m
}

func ixUpsert(t *testing.T, ix kb.Index, chunks []kb.Chunk) {
	t.Helper()
	if err := ix.Upsert(context.Background(), chunks); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
}

func ixCount(t *testing.T, ix kb.Index, f kb.Filter) int {
	t.Helper()
	n, err := ix.Count(context.Background(), f)
	if err != nil {
		t.Fatalf("Count(%+v): %v", f, err)
	}
	return n
}

func ixCheckCount(t *testing.T, ix kb.Index, f kb.Filter, want int) {
	t.Helper()
	if got := ixCount(t, ix, f); got != want {
		t.Errorf("Count(%+v) = %d, want %d", f, got, want)
	}
}

func ixDenseReq(k int, f kb.Filter) kb.SearchRequest {
	return kb.SearchRequest{Mode: kb.Dense, Vector: ixQuery(), Filter: f, K: k}
}

func ixHybridReq(k int, f kb.Filter, text string) kb.SearchRequest {
	return kb.SearchRequest{Mode: kb.Hybrid, Vector: ixQuery(), Text: text, Filter: f, K: k}
}

func ixSearch(t *testing.T, ix kb.Index, req kb.SearchRequest) []kb.Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%s, k=%d, %+v, %q): %v", req.Mode, req.K, req.Filter, req.Text, err)
	}
	if len(hits) > req.K {
		t.Errorf("Search(%s, k=%d): %d hits", req.Mode, req.K, len(hits))
	}
	return hits
}

// ixKeys lists the evidence keys of hits, prefixed by their kbScope when
// it is not kbt-a.
func ixKeys(hits []kb.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.EvidenceKey
		if h.KBScope != ixScopeA {
			out[i] = h.KBScope + ":" + h.EvidenceKey
		}
	}
	return out
}

func ixCheckKeys(t *testing.T, what string, hits []kb.Hit, want ...string) {
	t.Helper()
	if got := ixKeys(hits); !slices.Equal(got, want) {
		t.Errorf("%s: hits %q, want %q", what, got, want)
	}
}

// ixCheckDistances checks DenseDistance = √(2 − 2·cos) of the known
// vectors for every hit, and in dense mode Score = cos.
func ixCheckDistances(t *testing.T, what string, hits []kb.Hit, q []float32, vecs map[[2]string][]float32, mode kb.SearchMode) {
	t.Helper()
	for _, h := range hits {
		v, ok := vecs[[2]string{h.KBScope, h.EvidenceKey}]
		if !ok {
			t.Errorf("%s: unexpected hit %s/%s", what, h.KBScope, h.EvidenceKey)
			continue
		}
		cos := Cosine(q, v)
		want := math.Sqrt(max(0, 2-2*cos))
		if math.Abs(h.DenseDistance-want) > 1e-5 {
			t.Errorf("%s: %s DenseDistance = %.7f, want %.7f (cos %.4f)", what, h.EvidenceKey, h.DenseDistance, want, cos)
		}
		if mode == kb.Dense && math.Abs(h.Score-cos) > 1e-5 {
			t.Errorf("%s: %s dense Score = %.7f, want the cosine %.7f", what, h.EvidenceKey, h.Score, cos)
		}
		if h.Vector != nil {
			t.Errorf("%s: %s has Vector set", what, h.EvidenceKey)
		}
	}
}

// Cosine is the cosine similarity of a and b, in float64. It is 0 when
// either is the zero vector.
func Cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

func ixRRF(k int, ranks ...int) float64 {
	s := 0.0
	for _, r := range ranks {
		s += 1 / float64(k+r)
	}
	return s
}

func ixCheckScores(t *testing.T, what string, hits []kb.Hit, want ...float64) {
	t.Helper()
	if len(hits) != len(want) {
		return // the key check reports it
	}
	for i, h := range hits {
		if math.Abs(h.Score-want[i]) > 1e-6 {
			t.Errorf("%s: hit %d (%s) Score = %.7f, want %.7f", what, i, h.EvidenceKey, h.Score, want[i])
		}
	}
}

func testIndexEnsureIdempotent(t *testing.T, ix kb.Index) {
	ctx := context.Background()
	ixUpsert(t, ix, ixFixture())
	for range 2 {
		if err := ix.Ensure(ctx, IndexDim); err != nil {
			t.Fatalf("second Ensure: %v", err)
		}
	}
	ixCheckCount(t, ix, kb.Filter{}, len(ixFixture()))
}

func testIndexDimensionMismatch(t *testing.T, ix kb.Index) {
	ctx := context.Background()
	ixUpsert(t, ix, ixFixture()[:2])
	err := ix.Ensure(ctx, 2*IndexDim)
	var dm *kb.DimensionMismatchError
	if !errors.As(err, &dm) {
		t.Fatalf("Ensure with another dimension: %v, want a *kb.DimensionMismatchError", err)
	}
	if dm.Have != IndexDim || dm.Want != 2*IndexDim {
		t.Errorf("DimensionMismatchError{Have: %d, Want: %d}, want {%d, %d}", dm.Have, dm.Want, IndexDim, 2*IndexDim)
	}
	if !strings.Contains(err.Error(), "--recreate") {
		t.Errorf("error %q does not name --recreate", err)
	}
	// Nothing was dropped.
	ixCheckCount(t, ix, kb.Filter{}, 2)
	// A vector of another dimension is refused, and nothing is written.
	bad := ixFixture()[2:4]
	bad[1].Vector = make([]float32, 2*IndexDim)
	bad[1].Vector[0] = 1
	if err := ix.Upsert(ctx, bad); err == nil {
		t.Error("Upsert with a vector of another dimension: no error")
	}
	ixCheckCount(t, ix, kb.Filter{}, 2)
	// A query of another dimension is refused.
	req := ixDenseReq(3, kb.Filter{})
	req.Vector = ixAxis(0, 2*IndexDim)
	if _, err := ix.Search(ctx, req); err == nil {
		t.Error("Search with a query of another dimension: no error")
	}
}

func testIndexRecreate(t *testing.T, ix kb.Index) {
	ctx := context.Background()
	ixUpsert(t, ix, ixFixture())
	dim := 2 * IndexDim
	if err := ix.Recreate(ctx, dim); err != nil {
		t.Fatalf("Recreate(%d): %v", dim, err)
	}
	ixCheckCount(t, ix, kb.Filter{}, 0)
	if err := ix.Ensure(ctx, dim); err != nil {
		t.Fatalf("Ensure(%d) after Recreate(%d): %v", dim, dim, err)
	}
	var dm *kb.DimensionMismatchError
	if err := ix.Ensure(ctx, IndexDim); !errors.As(err, &dm) {
		t.Errorf("Ensure(%d) after Recreate(%d): %v, want a *kb.DimensionMismatchError", IndexDim, dim, err)
	}
	c := ixChunk(ixScopeA, "kbt-a/wide", 0, "misc", "sixteen dimensions", ixAxis(3, dim))
	ixUpsert(t, ix, []kb.Chunk{c})
	ixCheckCount(t, ix, kb.Filter{}, 1)
	hits := ixSearch(t, ix, kb.SearchRequest{Mode: kb.Dense, Vector: ixAxis(3, dim), K: 5})
	ixCheckKeys(t, "dense after Recreate", hits, "kbt-a/wide#0")
	if len(hits) == 1 && math.Abs(hits[0].DenseDistance) > 1e-3 {
		t.Errorf("DenseDistance of the identical vector = %g, want 0", hits[0].DenseDistance)
	}
	// Recreate with the same dimension empties the index too.
	if err := ix.Recreate(ctx, dim); err != nil {
		t.Fatalf("Recreate(%d) again: %v", dim, err)
	}
	ixCheckCount(t, ix, kb.Filter{}, 0)
}

func testIndexUpsertCount(t *testing.T, ix kb.Index) {
	ixCheckCount(t, ix, kb.Filter{}, 0)
	if err := ix.Upsert(context.Background(), nil); err != nil {
		t.Errorf("Upsert(nil): %v", err)
	}
	fx := ixFixture()
	ixUpsert(t, ix, fx)
	ixCheckCount(t, ix, kb.Filter{}, len(fx))
	ixCheckCount(t, ix, kb.Filter{KBScope: ixScopeA}, 8)
	ixCheckCount(t, ix, kb.Filter{KBScope: ixScopeB}, 2)
}

func testIndexUpsertTwice(t *testing.T, ix kb.Index) {
	fx := ixFixture()
	ixUpsert(t, ix, fx)
	ixUpsert(t, ix, fx)
	ixUpsert(t, ix, fx[:3])
	ixCheckCount(t, ix, kb.Filter{}, len(fx))
	ixCheckCount(t, ix, kb.Filter{KBScope: ixScopeA}, 8)
	// Every chunk is found exactly once.
	hits := ixSearch(t, ix, ixDenseReq(50, kb.Filter{}))
	if len(hits) != len(fx) {
		t.Errorf("dense search over everything: %d hits, want %d: %q", len(hits), len(fx), ixKeys(hits))
	}
	// Two chunks with the same key in one call: one copy, the last.
	c1 := ixChunk(ixScopeA, "kbt-a/dup", 0, "misc", "first version", ixVec(0.2, 5))
	c2 := c1
	c2.Text = "second version"
	ixUpsert(t, ix, []kb.Chunk{c1, c2})
	ixCheckCount(t, ix, kb.Filter{}, len(fx)+1)
	hits = ixSearch(t, ix, ixDenseReq(50, kb.Filter{KBScope: ixScopeA, Categories: []string{"misc"}}))
	for _, h := range hits {
		if h.EvidenceKey == "kbt-a/dup#0" && h.Text != "second version" {
			t.Errorf("duplicate key in one Upsert kept %q, want the last, %q", h.Text, "second version")
		}
	}
}

func testIndexUpsertReplaces(t *testing.T, ix kb.Index) {
	fx := ixFixture()
	ixUpsert(t, ix, fx)
	vecs := ixVectors(fx)
	// zeta#0 gets new text and a new vector.
	z := fx[6]
	z.Text = "The wombat digs burrows."
	z.Vector = ixVec(0.8, 6)
	vecs[[2]string{z.KBScope, z.EvidenceKey}] = z.Vector
	ixUpsert(t, ix, []kb.Chunk{z})
	ixCheckCount(t, ix, kb.Filter{}, len(fx))
	f := kb.Filter{KBScope: ixScopeA}
	// zeta#0 is the only chunk in misc: its RRF score is 1/61 from dense
	// alone, 2/61 when BM25 finds it too.
	misc := kb.Filter{KBScope: ixScopeA, Categories: []string{"misc"}}
	hits := ixSearch(t, ix, ixHybridReq(1, misc, "quokka"))
	ixCheckKeys(t, "old text", hits, z.EvidenceKey)
	ixCheckScores(t, "old text is not found by BM25", hits, ixRRF(60, 1))
	hits = ixSearch(t, ix, ixHybridReq(1, misc, "wombat"))
	ixCheckKeys(t, "new text", hits, z.EvidenceKey)
	ixCheckScores(t, "new text is found by BM25", hits, ixRRF(60, 1, 1))
	if len(hits) == 1 && hits[0].Text != z.Text {
		t.Errorf("text %q, want %q", hits[0].Text, z.Text)
	}
	hits = ixSearch(t, ix, ixDenseReq(3, f))
	ixCheckKeys(t, "dense with the new vector", hits, "kbt-a/alpha#0", "kbt-a/zeta#0", "kbt-a/alpha#1")
	ixCheckDistances(t, "dense with the new vector", hits, ixQuery(), vecs, kb.Dense)
}

func testIndexUpsertInvalid(t *testing.T, ix kb.Index) {
	ctx := context.Background()
	ixUpsert(t, ix, ixFixture()[:1])
	good := ixChunk(ixScopeA, "kbt-a/new", 0, "misc", "fine", ixVec(0.5, 2))
	for _, tt := range []struct {
		name   string
		mutate func(c *kb.Chunk)
	}{
		{"no vector", func(c *kb.Chunk) { c.Vector = nil }},
		{"NaN", func(c *kb.Chunk) { c.Vector[1] = float32(math.NaN()) }},
		{"no evidence key", func(c *kb.Chunk) { c.EvidenceKey = "" }},
		{"no kbScope", func(c *kb.Chunk) { c.KBScope = "" }},
		{"invalid UTF-8 text", func(c *kb.Chunk) { c.Text = "bad \xff\xfe text" }},
	} {
		bad := good
		bad.Vector = slices.Clone(good.Vector)
		tt.mutate(&bad)
		if err := ix.Upsert(ctx, []kb.Chunk{good, bad}); err == nil {
			t.Errorf("Upsert with %s: no error", tt.name)
		}
	}
	ixCheckCount(t, ix, kb.Filter{}, 1)
}

func testIndexDeleteDocument(t *testing.T, ix kb.Index) {
	ctx := context.Background()
	fx := ixFixture()
	ixUpsert(t, ix, fx)
	if err := ix.DeleteDocument(ctx, ixScopeA, "kbt-a/alpha"); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	ixCheckCount(t, ix, kb.Filter{KBScope: ixScopeA}, 6)
	ixCheckCount(t, ix, kb.Filter{KBScope: ixScopeB}, 2)
	hits := ixSearch(t, ix, ixDenseReq(2, kb.Filter{KBScope: ixScopeA}))
	ixCheckKeys(t, "dense after delete", hits, "shared#0", "kbt-a/beta#0")
	// The same document id in another scope is another document.
	if err := ix.DeleteDocument(ctx, ixScopeA, "shared"); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	ixCheckCount(t, ix, kb.Filter{KBScope: ixScopeA}, 5)
	ixCheckCount(t, ix, kb.Filter{KBScope: ixScopeB}, 2)
	hits = ixSearch(t, ix, ixDenseReq(5, kb.Filter{KBScope: ixScopeB}))
	ixCheckKeys(t, "other scope keeps its chunk", hits, "kbt-b:shared#0", "kbt-b:kbt-b/alpha#0")
	// Idempotent, and a missing document is not an error.
	for _, d := range [][2]string{{ixScopeA, "kbt-a/alpha"}, {ixScopeA, "kbt-a/nope"}, {"kbt-nope", "x"}} {
		if err := ix.DeleteDocument(ctx, d[0], d[1]); err != nil {
			t.Errorf("DeleteDocument(%q, %q): %v", d[0], d[1], err)
		}
	}
	ixCheckCount(t, ix, kb.Filter{}, len(fx)-3)
	// Re-adding works.
	ixUpsert(t, ix, fx[:2])
	ixCheckCount(t, ix, kb.Filter{KBScope: ixScopeA}, 7)
}

func testIndexFilters(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	for _, tt := range []struct {
		f    kb.Filter
		want int
	}{
		{kb.Filter{}, 10},
		{kb.Filter{KBScope: ixScopeA}, 8},
		{kb.Filter{KBScope: "kbt-unknown"}, 0},
		{kb.Filter{KBScope: ixScopeA, Categories: []string{"database"}}, 3},
		{kb.Filter{KBScope: ixScopeA, Categories: []string{"database", "storage"}}, 5},
		{kb.Filter{KBScope: ixScopeA, Categories: []string{"database", "nope"}}, 3},
		{kb.Filter{KBScope: ixScopeA, Categories: []string{"nope"}}, 0},
		{kb.Filter{Categories: []string{"database"}}, 4},
		{kb.Filter{Categories: []string{"network"}}, 3},
		{kb.Filter{KBScope: ixScopeB, Categories: []string{"storage"}}, 0},
	} {
		ixCheckCount(t, ix, tt.f, tt.want)
		hits := ixSearch(t, ix, ixDenseReq(50, tt.f))
		if len(hits) != tt.want {
			t.Errorf("dense search %+v: %d hits %q, want %d", tt.f, len(hits), ixKeys(hits), tt.want)
		}
		for _, h := range hits {
			if (tt.f.KBScope != "" && h.KBScope != tt.f.KBScope) ||
				(len(tt.f.Categories) > 0 && !slices.Contains(tt.f.Categories, h.Category)) {
				t.Errorf("dense search %+v returned %s/%s (category %s)", tt.f, h.KBScope, h.EvidenceKey, h.Category)
			}
		}
	}
	hits := ixSearch(t, ix, ixDenseReq(5, kb.Filter{KBScope: ixScopeA, Categories: []string{"storage", "network"}}))
	ixCheckKeys(t, "dense, storage or network", hits, "shared#0", "kbt-a/beta#0", "kbt-a/gamma#0", "kbt-a/delta#0")
	hits = ixSearch(t, ix, ixDenseReq(2, kb.Filter{Categories: []string{"network"}}))
	ixCheckKeys(t, "dense, network in every scope", hits, "kbt-b:shared#0", "shared#0")
}

// ixHostile are values that would change the meaning of a filter built by
// string concatenation.
var ixHostile = []string{
	`" || true`,
	`" or kb_scope != "`,
	`x" || category != "`,
	`'; DROP TABLE chunks; --`,
	`back\slash`,
	`trailing\`,
	`\"`,
	`a"b'c`,
	`中文"引号`,
	"tab\there",
	`{cat}`,
	`50%_off`,
	`[1, 2]`,
	`)`,
}

func testIndexHostileValues(t *testing.T, ix kb.Index) {
	ctx := context.Background()
	const scope = "kbt-h"
	var chunks []kb.Chunk
	for i, v := range ixHostile {
		doc := fmt.Sprintf("kbt-h/doc%02d", i)
		c := ixChunk(scope, doc, 0, v, "hostile value "+v, ixVec(0.5, 1+i%7))
		c.Source, c.Title, c.Breadcrumb = v, v, "H > "+v
		// Evidence keys hold heading text: quotes, backslashes and all.
		c.EvidenceKey = doc + "#" + v
		chunks = append(chunks, c)
	}
	// A hostile kbScope and document id.
	hs := `kbt" || true || "`
	hd := `doc" || doc_id != "`
	chunks = append(chunks, ixChunk(hs, hd, 0, "plain", "hostile scope", ixVec(0.5, 1)))
	ixUpsert(t, ix, append(chunks, ixFixture()...))
	total := len(chunks) + len(ixFixture())

	for i, v := range ixHostile {
		f := kb.Filter{KBScope: scope, Categories: []string{v}}
		ixCheckCount(t, ix, f, 1)
		hits := ixSearch(t, ix, ixDenseReq(50, f))
		want := chunks[i]
		if len(hits) != 1 || hits[0].EvidenceKey != want.EvidenceKey {
			t.Errorf("category %q: hits %q, want only %s", v, ixKeys(hits), want.EvidenceKey)
			continue
		}
		h := hits[0]
		if h.Category != v || h.Source != v || h.Title != v || h.Breadcrumb != want.Breadcrumb || h.Text != want.Text {
			t.Errorf("category %q: stored %+v, want the values back literally", v, h.Chunk)
		}
		hits = ixSearch(t, ix, ixHybridReq(50, f, v))
		if len(hits) != 1 || hits[0].EvidenceKey != want.EvidenceKey {
			t.Errorf("hybrid, category %q: hits %q, want only %s", v, ixKeys(hits), want.EvidenceKey)
		}
	}
	// Several hostile values at once match exactly those.
	ixCheckCount(t, ix, kb.Filter{KBScope: scope, Categories: ixHostile[:4]}, 4)
	// Values that match nothing stay matching nothing.
	for _, v := range []string{`nope" || true || "`, `nope" or category != "`, `"`, `\`} {
		ixCheckCount(t, ix, kb.Filter{Categories: []string{v}}, 0)
		ixCheckCount(t, ix, kb.Filter{KBScope: v}, 0)
	}
	ixCheckCount(t, ix, kb.Filter{KBScope: hs}, 1)
	ixCheckCount(t, ix, kb.Filter{KBScope: hs, Categories: []string{"plain"}}, 1)
	// Deleting a hostile id that is not stored deletes nothing.
	for _, d := range [][2]string{{scope, `x" || true || "`}, {`x" || true || "`, "kbt-a/alpha"}, {hs, `doc" || true || "`}} {
		if err := ix.DeleteDocument(ctx, d[0], d[1]); err != nil {
			t.Errorf("DeleteDocument(%q, %q): %v", d[0], d[1], err)
		}
	}
	ixCheckCount(t, ix, kb.Filter{}, total)
	// Deleting the hostile document deletes exactly it.
	if err := ix.DeleteDocument(ctx, hs, hd); err != nil {
		t.Fatalf("DeleteDocument(%q, %q): %v", hs, hd, err)
	}
	ixCheckCount(t, ix, kb.Filter{KBScope: hs}, 0)
	ixCheckCount(t, ix, kb.Filter{}, total-1)
}

func testIndexDenseOrder(t *testing.T, ix kb.Index) {
	fx := ixFixture()
	ixUpsert(t, ix, fx)
	hits := ixSearch(t, ix, ixDenseReq(8, kb.Filter{KBScope: ixScopeA}))
	ixCheckKeys(t, "dense order", hits, "kbt-a/alpha#0", "kbt-a/alpha#1", "shared#0", "kbt-a/beta#0",
		"kbt-a/gamma#0", "kbt-a/cjk#0", "kbt-a/zeta#0", "kbt-a/delta#0")
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hit %d has a higher score than hit %d", i, i-1)
		}
	}
	// Another query vector, another order: only delta#0 has a component
	// along e5.
	q := ixAxis(5, IndexDim)
	hits = ixSearch(t, ix, kb.SearchRequest{Mode: kb.Dense, Vector: q, Filter: kb.Filter{KBScope: ixScopeA}, K: 1})
	ixCheckKeys(t, "dense, query e5", hits, "kbt-a/delta#0")
	ixCheckDistances(t, "dense, query e5", hits, q, ixVectors(fx), kb.Dense)
}

func testIndexHybridBM25Only(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	f := kb.Filter{KBScope: ixScopeA}
	// zeta#0 is orthogonal to the query: dense cannot find it in its top 3.
	dense := ixSearch(t, ix, ixDenseReq(3, f))
	ixCheckKeys(t, "dense", dense, "kbt-a/alpha#0", "kbt-a/alpha#1", "shared#0")
	// BM25 ranks it first: RRF 1/61 ties with alpha#0 (dense rank 1),
	// broken by evidence key.
	hybrid := ixSearch(t, ix, ixHybridReq(3, f, "quokka"))
	ixCheckKeys(t, "hybrid", hybrid, "kbt-a/alpha#0", "kbt-a/zeta#0", "kbt-a/alpha#1")
	ixCheckScores(t, "hybrid", hybrid, ixRRF(60, 1), ixRRF(60, 1), ixRRF(60, 2))
	ixCheckDistances(t, "hybrid", hybrid, ixQuery(), ixVectors(ixFixture()), kb.Hybrid)
	// Case does not matter to BM25.
	ixCheckKeys(t, "hybrid QUOKKA", ixSearch(t, ix, ixHybridReq(3, f, "QUOKKA")),
		"kbt-a/alpha#0", "kbt-a/zeta#0", "kbt-a/alpha#1")
	// Without query text, hybrid is RRF over the dense list alone.
	hybrid = ixSearch(t, ix, ixHybridReq(3, f, ""))
	ixCheckKeys(t, "hybrid without text", hybrid, "kbt-a/alpha#0", "kbt-a/alpha#1", "shared#0")
	ixCheckScores(t, "hybrid without text", hybrid, ixRRF(60, 1), ixRRF(60, 2), ixRRF(60, 3))
	// Invalid UTF-8 in the query text is not an error.
	if _, err := ix.Search(context.Background(), ixHybridReq(3, f, "quo\xffkka \xe8\xbf")); err != nil {
		t.Errorf("hybrid with invalid UTF-8 text: %v", err)
	}
}

func testIndexBM25Words(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	f := kb.Filter{KBScope: ixScopeA}
	for _, tt := range []struct{ text, want string }{
		{"inode", "kbt-a/gamma#0"},   // a word inside punctuation
		{"连接池", "kbt-a/cjk#0"},       // Chinese
		{"Rottnest", "kbt-a/zeta#0"}, // capitalised in the text
		{"where is the inode?", "kbt-a/gamma#0"},
	} {
		// Dense top 2 is alpha#0, alpha#1. The BM25 top hit ties alpha#0 at
		// 1/61 and sorts after it by key.
		hits := ixSearch(t, ix, ixHybridReq(2, f, tt.text))
		ixCheckKeys(t, fmt.Sprintf("hybrid %q", tt.text), hits, "kbt-a/alpha#0", tt.want)
	}
	// A word no chunk has adds nothing.
	hits := ixSearch(t, ix, ixHybridReq(2, f, "xylophone"))
	ixCheckKeys(t, "hybrid, unknown word", hits, "kbt-a/alpha#0", "kbt-a/alpha#1")
	// A chunk at rank 4 of the dense list and rank 1 of the BM25 list ranks
	// first.
	hits = ixSearch(t, ix, ixHybridReq(4, f, "balancer"))
	ixCheckKeys(t, "hybrid balancer", hits, "kbt-a/beta#0", "kbt-a/alpha#0", "kbt-a/alpha#1", "shared#0")
	ixCheckScores(t, "hybrid balancer", hits, ixRRF(60, 4, 1), ixRRF(60, 1), ixRRF(60, 2), ixRRF(60, 3))
}

func testIndexHybridFiltered(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	// BM25 candidates obey the filter too.
	f := kb.Filter{KBScope: ixScopeA, Categories: []string{"database"}}
	hits := ixSearch(t, ix, ixHybridReq(10, f, "quokka"))
	ixCheckKeys(t, "hybrid, database only", hits, "kbt-a/alpha#0", "kbt-a/alpha#1", "kbt-a/cjk#0")
	hits = ixSearch(t, ix, ixHybridReq(10, kb.Filter{KBScope: ixScopeB}, "quokka"))
	ixCheckKeys(t, "hybrid, scope b", hits, "kbt-b:shared#0", "kbt-b:kbt-b/alpha#0")
	hits = ixSearch(t, ix, ixHybridReq(10, kb.Filter{KBScope: "kbt-unknown"}, "quokka"))
	ixCheckKeys(t, "hybrid, unknown scope", hits)
}

func testIndexRRFK(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	req := ixHybridReq(3, kb.Filter{KBScope: ixScopeA}, "quokka")
	req.RRFK = 10
	hits := ixSearch(t, ix, req)
	ixCheckKeys(t, "hybrid k=10", hits, "kbt-a/alpha#0", "kbt-a/zeta#0", "kbt-a/alpha#1")
	ixCheckScores(t, "hybrid k=10", hits, ixRRF(10, 1), ixRRF(10, 1), ixRRF(10, 2))
}

// testIndexAnchoredFusion: the dense list is d0..d5, with cosines from 0.95
// down to 0.7. d1..d4 also hold the query word. So plain RRF ranks them
// above d0 and lets b push d5 out of the top 6. Only BM25 finds b, which
// has cosine 0 and is outside the dense list. Anchored fusion keeps b out,
// because it only shares a word. It keeps d0, the dense top 1, at rank 3.
func testIndexAnchoredFusion(t *testing.T, ix kb.Index) {
	const scope = "kbt-fuse"
	f := kb.Filter{KBScope: scope}
	chunks := []kb.Chunk{
		ixChunk(scope, "fuse/d", 0, "database", "alpha", ixVec(0.95, 1)),
		ixChunk(scope, "fuse/d", 1, "database", "walrus", ixVec(0.9, 2)),
		ixChunk(scope, "fuse/d", 2, "database", "walrus", ixVec(0.85, 3)),
		ixChunk(scope, "fuse/d", 3, "database", "walrus", ixVec(0.8, 4)),
		ixChunk(scope, "fuse/d", 4, "database", "walrus", ixVec(0.75, 5)),
		ixChunk(scope, "fuse/d", 5, "database", "beta", ixVec(0.7, 6)),
		ixChunk(scope, "fuse/b", 0, "database", "walrus among many other words that make this chunk long", ixVec(0, 7)),
	}
	ixUpsert(t, ix, chunks)
	pos := func(hits []kb.Hit, key string) int {
		return slices.IndexFunc(hits, func(h kb.Hit) bool { return h.EvidenceKey == key }) + 1
	}
	req := ixHybridReq(6, f, "walrus")
	for _, fusion := range []kb.Fusion{"", kb.FusionRRF} {
		req.Fusion = fusion
		hits := ixSearch(t, ix, req)
		if len(hits) != 6 || pos(hits, "fuse/d#0") != 5 || pos(hits, "fuse/b#0") == 0 || pos(hits, "fuse/d#5") != 0 {
			t.Errorf("fusion %q: hits %q, want d#1..d#4, then d#0 5th, b#0 in and d#5 out", fusion, ixKeys(hits))
		}
	}
	req.Fusion = kb.FusionAnchored
	hits := ixSearch(t, ix, req)
	if len(hits) != 6 || pos(hits, "fuse/d#0") != 3 || pos(hits, "fuse/b#0") != 0 || pos(hits, "fuse/d#5") != 6 {
		t.Errorf("anchored: hits %q, want d#0 3rd, d#5 6th, b#0 out", ixKeys(hits))
	}
	// With k = 7 the dense list holds b too (7th, inside the window): its
	// BM25 rank counts again and it passes d5, as in RRF.
	req.K = 7
	hits = ixSearch(t, ix, req)
	if len(hits) != 7 || pos(hits, "fuse/d#0") != 3 || pos(hits, "fuse/b#0") != 6 || pos(hits, "fuse/d#5") != 7 {
		t.Errorf("anchored k=7: hits %q, want d#0 3rd, b#0 6th, d#5 7th", ixKeys(hits))
	}
	req.Fusion = "magic"
	if _, err := ix.Search(context.Background(), req); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("fusion magic: %v, want an error naming it", err)
	}
}

func testIndexDenseDistance(t *testing.T, ix kb.Index) {
	fx := ixFixture()
	ixUpsert(t, ix, fx)
	vecs := ixVectors(fx)
	for _, f := range []kb.Filter{{}, {KBScope: ixScopeA}, {KBScope: ixScopeB}} {
		for _, k := range []int{1, 4, 20} {
			dense := ixSearch(t, ix, ixDenseReq(k, f))
			ixCheckDistances(t, fmt.Sprintf("dense k=%d %+v", k, f), dense, ixQuery(), vecs, kb.Dense)
			for _, text := range []string{"quokka", "连接池 inode", ""} {
				hybrid := ixSearch(t, ix, ixHybridReq(k, f, text))
				ixCheckDistances(t, fmt.Sprintf("hybrid k=%d %+v %q", k, f, text), hybrid, ixQuery(), vecs, kb.Hybrid)
			}
		}
	}
	// A query that is not unit length: the cosine does not depend on it.
	q := []float32{3, 0, 0, 0, 0, 0, 4, 0}
	hits := ixSearch(t, ix, kb.SearchRequest{Mode: kb.Hybrid, Vector: q, Text: "quokka", Filter: kb.Filter{KBScope: ixScopeA}, K: 8})
	ixCheckDistances(t, "hybrid, query (3,0,0,0,0,0,4,0)", hits, q, vecs, kb.Hybrid)
	if len(hits) == 0 || hits[0].EvidenceKey != "kbt-a/zeta#0" {
		t.Errorf("hybrid, query (3,…,4,0): hits %q, want zeta#0 first (dense and BM25 rank 1)", ixKeys(hits))
	}
}

func testIndexKRespected(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	f := kb.Filter{KBScope: ixScopeA}
	for k := 1; k <= 10; k++ {
		want := min(k, 8)
		if hits := ixSearch(t, ix, ixDenseReq(k, f)); len(hits) != want {
			t.Errorf("dense k=%d: %d hits, want %d", k, len(hits), want)
		}
		if hits := ixSearch(t, ix, ixHybridReq(k, f, "quokka inode 连接池")); len(hits) != want {
			t.Errorf("hybrid k=%d: %d hits, want %d", k, len(hits), want)
		}
	}
}

func testIndexHitFields(t *testing.T, ix kb.Index) {
	fx := ixFixture()
	ixUpsert(t, ix, fx)
	for _, mode := range []kb.SearchMode{kb.Dense, kb.Hybrid} {
		req := ixHybridReq(1, kb.Filter{KBScope: ixScopeA}, "")
		req.Mode = mode
		hits := ixSearch(t, ix, req)
		if len(hits) != 1 {
			t.Fatalf("%s: %d hits, want 1", mode, len(hits))
		}
		want := fx[0]
		want.Vector = nil
		if !reflect.DeepEqual(hits[0].Chunk, want) {
			t.Errorf("%s: hit chunk\n%+v\nwant\n%+v", mode, hits[0].Chunk, want)
		}
	}
}

func testIndexDeterministic(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	// Exact ties: two chunks with the same vector sort by evidence key,
	// also when the tie is at the K-th place.
	tie := []kb.Chunk{
		ixChunk("kbt-t", "kbt-t/b", 0, "misc", "tied b", ixVec(0.5, 2)),
		ixChunk("kbt-t", "kbt-t/a", 0, "misc", "tied a", ixVec(0.5, 2)),
		ixChunk("kbt-t", "kbt-t/c", 0, "misc", "lower", ixVec(0.4, 2)),
	}
	ixUpsert(t, ix, tie)
	tf := kb.Filter{KBScope: "kbt-t"}
	ixCheckKeys(t, "tie, k=3", ixSearch(t, ix, ixDenseReq(3, tf)), "kbt-t:kbt-t/a#0", "kbt-t:kbt-t/b#0", "kbt-t:kbt-t/c#0")
	ixCheckKeys(t, "tie at the k-th place", ixSearch(t, ix, ixDenseReq(1, tf)), "kbt-t:kbt-t/a#0")
	reqs := []kb.SearchRequest{
		ixHybridReq(5, kb.Filter{}, "quokka gateway routes"),
		ixDenseReq(15, kb.Filter{}),
		ixHybridReq(3, tf, "tied"),
	}
	for _, req := range reqs {
		first := ixSearch(t, ix, req)
		for range 3 {
			again := ixSearch(t, ix, req)
			if !slices.EqualFunc(first, again, func(a, b kb.Hit) bool {
				return reflect.DeepEqual(a, b)
			}) {
				t.Errorf("%s %q: results differ between runs: %q then %q", req.Mode, req.Text, ixKeys(first), ixKeys(again))
			}
		}
	}
}

func testIndexInvalidSearch(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		req  kb.SearchRequest
	}{
		{"k = 0", ixDenseReq(0, kb.Filter{})},
		{"k < 0", ixDenseReq(-1, kb.Filter{})},
		{"unknown mode", kb.SearchRequest{Mode: "sparse", Vector: ixQuery(), K: 3}},
		{"no vector", kb.SearchRequest{Mode: kb.Dense, K: 3}},
		{"NaN in the vector", kb.SearchRequest{Mode: kb.Dense, Vector: []float32{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0}, K: 3}},
	} {
		if _, err := ix.Search(ctx, tt.req); err == nil {
			t.Errorf("Search with %s: no error", tt.name)
		}
	}
}

func testIndexConcurrent(t *testing.T, ix kb.Index) {
	ixUpsert(t, ix, ixFixture())
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 4 {
		wg.Go(func() {
			for i := range 10 {
				req := ixHybridReq(3, kb.Filter{KBScope: ixScopeA}, "quokka")
				if (g+i)%2 == 0 {
					req = ixDenseReq(3, kb.Filter{KBScope: ixScopeA})
				}
				hits, err := ix.Search(ctx, req)
				if err != nil {
					errs <- err
					return
				}
				if len(hits) != 3 || hits[0].EvidenceKey != "kbt-a/alpha#0" {
					errs <- fmt.Errorf("%s search during writes: %q", req.Mode, ixKeys(hits))
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 5 {
			c := ixChunk("kbt-c", "kbt-c/doc", i, "misc", fmt.Sprintf("concurrent write %d", i), ixVec(0.1, 2))
			if err := ix.Upsert(ctx, []kb.Chunk{c}); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ixCheckCount(t, ix, kb.Filter{KBScope: "kbt-c"}, 5)
}
