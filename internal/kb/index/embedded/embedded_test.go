package embedded

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

func TestIndexContract(t *testing.T) {
	kbtest.RunIndexTests(t, func(t *testing.T) kb.Index {
		ix, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return ix
	})
}

// TestIndexContractReopened runs the contract on an index that is closed
// and reopened after every write, so every test also checks that what was
// written survives Close/Open.
func TestIndexContractReopened(t *testing.T) {
	kbtest.RunIndexTests(t, func(t *testing.T) kb.Index {
		dir := t.TempDir()
		ix, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return &reopening{t: t, dir: dir, ix: ix}
	})
}

// reopening closes and reopens its index after each write. Searches
// running during a write wait for the reopen.
type reopening struct {
	t   *testing.T
	dir string
	mu  sync.RWMutex
	ix  *Index
}

func (r *reopening) write(fn func(ix *Index) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := fn(r.ix)
	if cerr := r.ix.Close(); cerr != nil {
		r.t.Errorf("Close: %v", cerr)
	}
	ix, oerr := Open(r.dir)
	if oerr != nil {
		r.t.Fatalf("reopen: %v", oerr)
	}
	r.ix = ix
	return err
}

func (r *reopening) Ensure(ctx context.Context, dim int) error {
	return r.write(func(ix *Index) error { return ix.Ensure(ctx, dim) })
}

func (r *reopening) Recreate(ctx context.Context, dim int) error {
	return r.write(func(ix *Index) error { return ix.Recreate(ctx, dim) })
}

func (r *reopening) Upsert(ctx context.Context, chunks []kb.Chunk) error {
	return r.write(func(ix *Index) error { return ix.Upsert(ctx, chunks) })
}

func (r *reopening) DeleteDocument(ctx context.Context, kbScope, docID string) error {
	return r.write(func(ix *Index) error { return ix.DeleteDocument(ctx, kbScope, docID) })
}

func (r *reopening) Count(ctx context.Context, f kb.Filter) (int, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.ix.Count(ctx, f)
}

func (r *reopening) Search(ctx context.Context, req kb.SearchRequest) ([]kb.Hit, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.ix.Search(ctx, req)
}

func (r *reopening) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ix.Close()
}

func unit(v ...float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

func chunk(scope, doc string, i int, text string, vec []float32) kb.Chunk {
	return kb.Chunk{EvidenceKey: kb.EvidenceKey(doc, strconv.Itoa(i), 1, 1), DocID: doc, Source: doc, KBScope: scope,
		Category: "c", ChunkIndex: i, Text: text, Vector: vec}
}

func mustOpen(t *testing.T, dir string) *Index {
	t.Helper()
	ix, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func count(t *testing.T, ix *Index) int {
	t.Helper()
	n, err := ix.Count(context.Background(), kb.Filter{})
	if err != nil {
		t.Fatalf("Count: %v", err)
	}
	return n
}

func search(t *testing.T, ix *Index, text string) []string {
	t.Helper()
	hits, err := ix.Search(context.Background(), kb.SearchRequest{Mode: kb.Hybrid, Vector: unit(1, 0, 0, 0), Text: text, K: 10})
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	var keys []string
	for _, h := range hits {
		keys = append(keys, h.EvidenceKey)
	}
	return keys
}

// seed writes three chunks of two documents, then deletes one document,
// without closing: the state lives in the snapshot and the log.
func seed(t testing.TB, ix *Index) {
	t.Helper()
	ctx := context.Background()
	if err := ix.Ensure(ctx, 4); err != nil {
		t.Fatal(err)
	}
	err := ix.Upsert(ctx, []kb.Chunk{
		chunk("s", "d1", 0, "alpha quokka", unit(1, 0, 0, 0)),
		chunk("s", "d1", 1, "beta", unit(1, 1, 0, 0)),
		chunk("s", "d2", 0, "gamma 连接池", unit(0, 1, 0, 0)),
		chunk("s", "d3", 0, "delta", unit(0, 0, 1, 0)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.DeleteDocument(ctx, "s", "d3"); err != nil {
		t.Fatal(err)
	}
}

func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, ix)
	want := search(t, ix, "连接池 quokka")
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix = mustOpen(t, dir)
	if n := count(t, ix); n != 3 {
		t.Errorf("after reopen: %d chunks, want 3", n)
	}
	if got := search(t, ix, "连接池 quokka"); !reflect.DeepEqual(got, want) {
		t.Errorf("after reopen: hits %q, want %q", got, want)
	}
	var dm *kb.DimensionMismatchError
	if err := ix.Ensure(context.Background(), 8); !errors.As(err, &dm) {
		t.Errorf("Ensure(8) after reopen: %v, want a *kb.DimensionMismatchError", err)
	} else if !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q does not name the directory", err)
	}
}

// TestCrashWithoutClose reopens an index that was never closed: the
// writes are in the log only.
func TestCrashWithoutClose(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, ix)
	want := search(t, ix, "gamma")
	// Simulate a crash: release the lock and the log without compacting.
	ix.wal.Close()
	ix.lock.Close()
	ix2 := mustOpen(t, dir)
	if n := count(t, ix2); n != 3 {
		t.Errorf("after crash: %d chunks, want 3", n)
	}
	if got := search(t, ix2, "gamma"); !reflect.DeepEqual(got, want) {
		t.Errorf("after crash: hits %q, want %q", got, want)
	}
}

// TestTornLogRecord appends half a record to the log, as a crash in the
// middle of an append would: the record is dropped, nothing else.
func TestTornLogRecord(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, ix)
	ix.wal.Close()
	ix.lock.Close()
	rec := frame(encodeUpsert([]kb.Chunk{chunk("s", "d9", 0, "torn", unit(0, 0, 0, 1))}))
	for _, tail := range [][]byte{rec[:5], rec[:len(rec)-3], append(rec[:len(rec):len(rec)], 0xff)} {
		f, err := os.OpenFile(filepath.Join(dir, walName), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(tail)
		f.Close()
		ix2, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := count(t, ix2)
		// The complete record, with one stray byte after it, is kept. The
		// torn ones are dropped.
		if len(tail) > len(rec) {
			if n != 4 {
				t.Errorf("complete record + stray byte: %d chunks, want 4", n)
			}
		} else if n != 3 {
			t.Errorf("torn record of %d bytes: %d chunks, want 3", len(tail), n)
		}
		// Writes after the cut land on a clean log.
		if err := ix2.Upsert(context.Background(), []kb.Chunk{chunk("s", "d5", 0, "after", unit(0, 0, 1, 1))}); err != nil {
			t.Fatal(err)
		}
		ix2.wal.Close()
		ix2.lock.Close()
		ix3 := mustOpen(t, dir)
		if got := search(t, ix3, "after"); len(got) == 0 {
			t.Errorf("write after a torn record lost")
		}
		if err := ix3.DeleteDocument(context.Background(), "s", "d5"); err != nil {
			t.Fatal(err)
		}
		if err := ix3.DeleteDocument(context.Background(), "s", "d9"); err != nil {
			t.Fatal(err)
		}
		ix3.Close()
	}
}

// TestLeftoverTempFile leaves a half-written snapshot behind, as a crash
// in the middle of a compaction would: the old snapshot is intact.
func TestLeftoverTempFile(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, ix)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	snap, err := os.ReadFile(filepath.Join(dir, snapName))
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "."+snapName+".tmp-123456")
	if err := os.WriteFile(tmp, snap[:len(snap)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	ix = mustOpen(t, dir)
	if n := count(t, ix); n != 3 {
		t.Errorf("with a leftover temp file: %d chunks, want 3", n)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("leftover temp file not removed: %v", err)
	}
}

// TestStaleLog simulates a crash between the two renames of a compaction:
// the new snapshot contains everything, the old log must not be replayed
// on top of it.
func TestStaleLog(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, ix)
	oldLog, err := os.ReadFile(filepath.Join(dir, walName))
	if err != nil {
		t.Fatal(err)
	}
	// Re-add d3 after the log above was taken, then compact.
	if err := ix.Upsert(context.Background(), []kb.Chunk{chunk("s", "d3", 0, "delta again", unit(0, 0, 1, 0))}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	// Put the old log back: it ends with "delete d3".
	if err := os.WriteFile(filepath.Join(dir, walName), oldLog, 0o644); err != nil {
		t.Fatal(err)
	}
	ix = mustOpen(t, dir)
	if n := count(t, ix); n != 4 {
		t.Errorf("stale log replayed: %d chunks, want 4", n)
	}
}

func TestCorruptSnapshot(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, ix)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, snapName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x55
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ix = mustOpen(t, dir)
	ctx := context.Background()
	if _, err := ix.Count(ctx, kb.Filter{}); err == nil || !strings.Contains(err.Error(), "--recreate") {
		t.Errorf("Count on a corrupt index: %v, want an error naming --recreate", err)
	}
	if err := ix.Ensure(ctx, 4); err == nil {
		t.Error("Ensure on a corrupt index: no error")
	}
	// Recreate repairs it.
	if err := ix.Recreate(ctx, 4); err != nil {
		t.Fatalf("Recreate: %v", err)
	}
	if n := count(t, ix); n != 0 {
		t.Errorf("after Recreate: %d chunks", n)
	}
}

func TestLocked(t *testing.T) {
	dir := t.TempDir()
	ix := mustOpen(t, dir)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second Open of %s: %v, want an 'in use' error", dir, err)
	}
	ix.Close()
	ix2, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	ix2.Close()
}

func TestClosed(t *testing.T) {
	ix := mustOpen(t, t.TempDir())
	ctx := context.Background()
	if err := ix.Ensure(ctx, 4); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if err := ix.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := ix.Count(ctx, kb.Filter{}); err == nil {
		t.Error("Count after Close: no error")
	}
	if err := ix.Upsert(ctx, []kb.Chunk{chunk("s", "d", 0, "x", unit(1, 0, 0, 0))}); err == nil {
		t.Error("Upsert after Close: no error")
	}
}

// TestCompaction forces compactions while writing and checks the result
// survives.
func TestCompaction(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, ix)
	for i := range 5 {
		c := chunk("s", "dx", i, "compacted chunk", unit(1, float32(i), 0, 0))
		if err := ix.Upsert(context.Background(), []kb.Chunk{c}); err != nil {
			t.Fatal(err)
		}
		ix.mu.Lock()
		if err := ix.compact(); err != nil {
			t.Fatal(err)
		}
		ix.mu.Unlock()
	}
	if err := ix.DeleteDocument(context.Background(), "s", "d2"); err != nil {
		t.Fatal(err)
	}
	ix.wal.Close()
	ix.lock.Close()
	ix = mustOpen(t, dir)
	if n := count(t, ix); n != 7 {
		t.Errorf("after compactions: %d chunks, want 7", n)
	}
	if got := search(t, ix, "连接池"); len(got) == 0 || got[0] != "d1#0" {
		t.Errorf("hits %q, want d1#0 first", got)
	}
}

func TestZeroVector(t *testing.T) {
	ix := mustOpen(t, t.TempDir())
	ctx := context.Background()
	ix.Ensure(ctx, 4)
	if err := ix.Upsert(ctx, []kb.Chunk{chunk("s", "z", 0, "zero", make([]float32, 4))}); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search(ctx, kb.SearchRequest{Mode: kb.Dense, Vector: unit(1, 0, 0, 0), K: 3})
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search: %v %v", hits, err)
	}
	if hits[0].Score != 0 || math.Abs(hits[0].DenseDistance-math.Sqrt2) > 1e-9 {
		t.Errorf("zero vector: score %g distance %g, want 0 and √2", hits[0].Score, hits[0].DenseDistance)
	}
}

// TestLargeUpsertSplits: an upsert larger than a record is logged as
// several records that decode back to the same chunks, in order.
func TestLargeUpsertSplits(t *testing.T) {
	big := strings.Repeat("x", maxRecordBytes/2+1)
	chunks := []kb.Chunk{
		chunk("s", "a", 0, big, unit(1, 0, 0, 0)),
		chunk("s", "a", 1, big, unit(0, 1, 0, 0)),
		chunk("s", "a", 2, "small", unit(0, 0, 1, 0)),
	}
	payloads := encodeUpserts(chunks)
	if len(payloads) != 2 {
		t.Fatalf("%d records, want 2", len(payloads))
	}
	var got []kb.Chunk
	for _, p := range payloads {
		if len(p) > maxPayload {
			t.Errorf("record of %d bytes", len(p))
		}
		o, err := decodeOp(p, 4)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.chunks...)
	}
	if !reflect.DeepEqual(got, chunks) {
		t.Error("chunks differ after encoding")
	}
}

// TestSlabGrowth: the store grows its per-slot arrays together, so the
// vector slab is never more than twice what it holds (a seed adds a
// document's chunks at a time; grown apart, the arrays' capacities drifted
// and the slab doubled while it still had room).
func TestSlabGrowth(t *testing.T) {
	const dim = 512
	s := newStore(dim)
	vec := make([]float32, dim)
	for d := range 3000 {
		ps := make([]prepared, 20)
		for i := range ps {
			ps[i] = prepared{chunk: kb.Chunk{KBScope: "s", DocID: strconv.Itoa(d), EvidenceKey: strconv.Itoa(d*20 + i), Vector: vec}}
		}
		s.upsertAll(ps)
		if slots := cap(s.slab) / dim; slots > max(64, 2*len(s.meta)) {
			t.Fatalf("after %d chunks the slab has room for %d", len(s.meta), slots)
		}
	}
}
