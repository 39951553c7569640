package embedded

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// logWithRecords seeds dir with an index of dimension 4 whose log holds n
// upsert records (document doc<i>, one chunk each) and is left as a crash
// leaves it: not compacted. It returns the offset of each record and the
// log's size.
func logWithRecords(t *testing.T, dir string, n int) ([]int64, int64) {
	t.Helper()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ix.Ensure(ctx, 4); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		c := chunk("s", fmt.Sprintf("doc%d", i), 0, fmt.Sprintf("record %d quokka", i), unit(1, float32(i), 0, 0))
		if err := ix.Upsert(ctx, []kb.Chunk{c}); err != nil {
			t.Fatal(err)
		}
	}
	ix.wal.Close()
	ix.lock.Close()
	b, err := os.ReadFile(filepath.Join(dir, walName))
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for off := int64(headerSize); off < int64(len(b)); off += frameSize + int64(binary.LittleEndian.Uint32(b[off:])) {
		offs = append(offs, off)
	}
	if len(offs) != n {
		t.Fatalf("log holds %d records, want %d", len(offs), n)
	}
	return offs, int64(len(b))
}

// hashDir returns the SHA-256 of every file in dir, by name.
func hashDir(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

func checkUnchanged(t *testing.T, dir string, before map[string][32]byte, when string) {
	t.Helper()
	after := hashDir(t, dir)
	if reflect.DeepEqual(before, after) {
		return
	}
	for name, h := range before {
		if a, ok := after[name]; !ok {
			t.Errorf("%s: %s was removed", when, name)
		} else if a != h {
			t.Errorf("%s: %s was changed", when, name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s: %s was created", when, name)
		}
	}
}

func editFile(t *testing.T, path string, fn func(b []byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkCorruptErr checks err reports corruption of path at offset off and
// the way out.
func checkCorruptErr(t *testing.T, what string, err error, path string, off int64) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error on a corrupt index", what)
		return
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("%s: %v does not match ErrCorrupt", what, err)
	}
	var ce *CorruptError
	if errors.As(err, &ce) && (ce.Path != path || ce.Offset != off) {
		t.Errorf("%s: corrupt at %s:%d, want %s:%d (%v)", what, ce.Path, ce.Offset, path, off, err)
	}
	for _, want := range []string{path, fmt.Sprintf("byte offset %d", off), "rag-seed --recreate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not name %q", what, err, want)
		}
	}
}

// TestCorruptLog damages one record of a log of several in many ways:
// every open reports it, naming the file, the offset and --recreate, and
// nothing is changed on disk, not even by Close. Recreate is the way out.
func TestCorruptLog(t *testing.T) {
	const n = 6
	setLen := func(off int64, v uint32) func([]byte, []int64) []byte {
		return func(b []byte, offs []int64) []byte {
			binary.LittleEndian.PutUint32(b[offs[off]:], v)
			return b
		}
	}
	cases := []struct {
		name   string
		damage func(b []byte, offs []int64) []byte
		// record is the index of the record reported (n: the one appended).
		record int
	}{
		{"payload byte", func(b []byte, offs []int64) []byte { b[offs[2]+frameSize+5] ^= 0xff; return b }, 2},
		{"checksum", func(b []byte, offs []int64) []byte { b[offs[2]+5] ^= 0x01; return b }, 2},
		{"length one longer", func(b []byte, offs []int64) []byte {
			binary.LittleEndian.PutUint32(b[offs[2]:], binary.LittleEndian.Uint32(b[offs[2]:])+1)
			return b
		}, 2},
		{"length one shorter", func(b []byte, offs []int64) []byte {
			binary.LittleEndian.PutUint32(b[offs[2]:], binary.LittleEndian.Uint32(b[offs[2]:])-1)
			return b
		}, 2},
		{"length past the end", setLen(2, 1<<24), 2},
		{"length zero", setLen(2, 0), 2},
		{"length impossible", setLen(2, 0xffffffff), 2},
		{"first record", func(b []byte, offs []int64) []byte { b[offs[0]+frameSize+1] ^= 0x10; return b }, 0},
		// The reported repro: 8 bytes flipped in the middle of the file.
		{"8 bytes in the middle", func(b []byte, offs []int64) []byte {
			for i := len(b) / 2; i < len(b)/2+8; i++ {
				b[i] ^= 0xa5
			}
			return b
		}, -1},
		// A complete last record with a bad checksum is not a torn append.
		{"complete last record", func(b []byte, offs []int64) []byte { b[len(b)-2] ^= 0x01; return b }, n - 1},
		// The last record's length grown past the end of the file: its
		// payload decodes completely, so it is not a torn append.
		{"last length past the end", setLen(n-1, 1<<20), n - 1},
		{"end record in the log", func(b []byte, offs []int64) []byte {
			return append(b, frame([]byte{opEnd, 0})...)
		}, n},
		{"undecodable payload", func(b []byte, offs []int64) []byte {
			return append(b, frame([]byte{opDelete, 0x7f, 'x'})...)
		}, n},
		{"undecodable payload then more", func(b []byte, offs []int64) []byte {
			b = append(b, frame([]byte{opUpsert, 5, 1})...)
			return append(b, frame(encodeDelete("s", "doc1"))...)
		}, n},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			offs, size := logWithRecords(t, dir, n)
			wal := filepath.Join(dir, walName)
			editFile(t, wal, func(b []byte) []byte { return tc.damage(b, offs) })
			var off int64
			switch {
			case tc.record == n:
				off = size
			case tc.record >= 0:
				off = offs[tc.record]
			default:
				for _, o := range offs {
					if o <= size/2 {
						off = o
					}
				}
			}
			before := hashDir(t, dir)
			ctx := context.Background()

			ro, err := OpenReadOnly(dir)
			checkCorruptErr(t, "OpenReadOnly", err, wal, off)
			if err == nil {
				ro.Close()
			}
			checkUnchanged(t, dir, before, "OpenReadOnly")

			ix, err := Open(dir)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			_, err = ix.Count(ctx, kb.Filter{})
			checkCorruptErr(t, "Count", err, wal, off)
			_, err = ix.Search(ctx, kb.SearchRequest{Mode: kb.Hybrid, Vector: unit(1, 0, 0, 0), Text: "quokka", K: 3})
			checkCorruptErr(t, "Search", err, wal, off)
			checkCorruptErr(t, "Ensure", ix.Ensure(ctx, 4), wal, off)
			checkCorruptErr(t, "Upsert", ix.Upsert(ctx, []kb.Chunk{chunk("s", "new", 0, "x", unit(1, 0, 0, 0))}), wal, off)
			checkCorruptErr(t, "DeleteDocument", ix.DeleteDocument(ctx, "s", "doc0"), wal, off)
			if d, ok := ix.Dim(); ok {
				t.Errorf("Dim of a corrupt index: %d, true", d)
			}
			checkUnchanged(t, dir, before, "Open")
			if err := ix.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			checkUnchanged(t, dir, before, "Open+Close")

			// The way out.
			ix = mustOpen(t, dir)
			if err := ix.Recreate(ctx, 4); err != nil {
				t.Fatalf("Recreate: %v", err)
			}
			if c := count(t, ix); c != 0 {
				t.Errorf("after Recreate: %d chunks", c)
			}
		})
	}
}

// TestCorruptSnapshotUntouched: a damaged snapshot is reported with its
// offset, and neither open changes a file.
func TestCorruptSnapshotUntouched(t *testing.T) {
	dir := t.TempDir()
	logWithRecords(t, dir, 3)
	ix := mustOpen(t, dir)
	if err := ix.Close(); err != nil { // compacts the records into the snapshot
		t.Fatal(err)
	}
	snap := filepath.Join(dir, snapName)
	editFile(t, snap, func(b []byte) []byte { b[headerSize+frameSize+3] ^= 0x08; return b })
	// A leftover of an interrupted compaction stays for inspection.
	if err := os.WriteFile(filepath.Join(dir, "."+snapName+".tmp-1"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := hashDir(t, dir)
	_, err := OpenReadOnly(dir)
	checkCorruptErr(t, "OpenReadOnly", err, snap, headerSize)
	ix, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ix.Count(context.Background(), kb.Filter{})
	checkCorruptErr(t, "Count", err, snap, headerSize)
	ix.Close()
	checkUnchanged(t, dir, before, "Open+Close")
}

// TestTornTail appends what a crash in the middle of an append leaves, and
// it is dropped. OpenReadOnly serves the records before it and leaves the
// file alone. Open cuts it off.
func TestTornTail(t *testing.T) {
	const n = 3
	rec := frame(encodeUpsert([]kb.Chunk{
		chunk("s", "torn", 0, "a torn record", unit(0, 0, 0, 1)),
		chunk("s", "torn", 1, "its second chunk", unit(0, 0, 1, 1)),
	}))
	del := frame(encodeDelete("s", "doc0"))
	cases := []struct {
		name string
		tail []byte
		keep int // bytes of the tail that are good records
		want int // chunks
	}{
		{"3 bytes of a frame", rec[:3], 0, n},
		{"7 bytes of a frame", rec[:7], 0, n},
		{"frame header only", rec[:frameSize], 0, n},
		{"header and op byte", rec[:frameSize+1], 0, n},
		{"half a record", rec[:len(rec)/2], 0, n},
		{"all but one byte", rec[:len(rec)-1], 0, n},
		{"half a delete", del[:len(del)-2], 0, n},
		{"zero-filled", make([]byte, 4096), 0, n},
		{"zero-filled frame", make([]byte, 5), 0, n},
		// A write of several records torn in its second one: the first
		// one is complete and kept.
		{"second record of a write", append(append([]byte{}, del...), rec[:len(rec)/3]...), len(del), n - 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, size := logWithRecords(t, dir, n)
			wal := filepath.Join(dir, walName)
			editFile(t, wal, func(b []byte) []byte { return append(b, tc.tail...) })
			before := hashDir(t, dir)

			ro, err := OpenReadOnly(dir)
			if err != nil {
				t.Fatalf("OpenReadOnly: %v", err)
			}
			if c := count(t, ro); c != tc.want {
				t.Errorf("read-only: %d chunks, want %d", c, tc.want)
			}
			if got := search(t, ro, "quokka"); len(got) == 0 {
				t.Error("read-only: no hits")
			}
			if err := ro.Close(); err != nil {
				t.Error(err)
			}
			checkUnchanged(t, dir, before, "OpenReadOnly")

			ix, err := Open(dir)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if c := count(t, ix); c != tc.want {
				t.Errorf("Open: %d chunks, want %d", c, tc.want)
			}
			fi, err := os.Stat(wal)
			if err != nil {
				t.Fatal(err)
			}
			if want := size + int64(tc.keep); fi.Size() != want {
				t.Errorf("Open: log of %d bytes, want the torn tail cut at %d", fi.Size(), want)
			}
			ix.wal.Close()
			ix.lock.Close()
			ix = mustOpen(t, dir)
			if c := count(t, ix); c != tc.want {
				t.Errorf("reopened: %d chunks, want %d", c, tc.want)
			}
		})
	}
}

// TestIsOpPrefix: every proper prefix of a record's payload is a prefix. A
// complete payload, or one with bytes after it, is not.
func TestIsOpPrefix(t *testing.T) {
	for _, p := range [][]byte{
		encodeUpsert([]kb.Chunk{chunk("s", "d", 0, "text 中文", unit(1, 2, 3, 4)), chunk("s", "d", 1, "more", unit(1, 0, 0, 0))}),
		encodeDelete("scope", "doc/id"),
	} {
		n := int64(len(p))
		for i := range p {
			if !isOpPrefix(p[:i], n, 4) {
				t.Errorf("%d bytes of a payload of %d: not a prefix", i, n)
			}
		}
		if isOpPrefix(p, n+1, 4) {
			t.Error("a complete payload with a longer declared length is a prefix")
		}
		if isOpPrefix(append(p[:len(p):len(p)], 0), n+10, 4) {
			t.Error("a payload followed by a byte is a prefix")
		}
	}
	if isOpPrefix([]byte{opEnd}, 3, 4) {
		t.Error("an end record is a prefix")
	}
	if isOpPrefix([]byte{0}, 3, 4) {
		t.Error("an unknown operation is a prefix")
	}
}

// TestOpenReadOnlyNoIndex: no directory, an empty one, or one without
// index.snap is ErrNoIndex, and nothing is created.
func TestOpenReadOnlyNoIndex(t *testing.T) {
	parent := t.TempDir()
	missing := filepath.Join(parent, "data", "index")
	_, err := OpenReadOnly(missing)
	if !errors.Is(err, ErrNoIndex) || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "rag-seed") {
		t.Errorf("OpenReadOnly(missing dir): %v, want ErrNoIndex naming the directory and rag-seed", err)
	}
	if _, err := os.Stat(filepath.Join(parent, "data")); !os.IsNotExist(err) {
		t.Errorf("OpenReadOnly created the directory: %v", err)
	}

	empty := t.TempDir()
	if _, err := OpenReadOnly(empty); !errors.Is(err, ErrNoIndex) {
		t.Errorf("OpenReadOnly(empty dir): %v, want ErrNoIndex", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("OpenReadOnly created %s in an empty directory", ents[0].Name())
	}

	// Opened for writing once, never seeded: only LOCK.
	dir := t.TempDir()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if _, err := OpenReadOnly(dir); !errors.Is(err, ErrNoIndex) {
		t.Errorf("OpenReadOnly(unseeded dir): %v, want ErrNoIndex", err)
	}

	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := OpenReadOnly(file); err == nil || errors.Is(err, ErrNoIndex) {
		t.Errorf("OpenReadOnly(a file): %v, want a 'not a directory' error", err)
	}

	// A log without its snapshot is damage, not "no index".
	dir = t.TempDir()
	logWithRecords(t, dir, 1)
	os.Remove(filepath.Join(dir, snapName))
	before := hashDir(t, dir)
	if _, err := OpenReadOnly(dir); err == nil || errors.Is(err, ErrNoIndex) || !strings.Contains(err.Error(), "--recreate") {
		t.Errorf("OpenReadOnly(log without snapshot): %v, want an error naming --recreate", err)
	}
	checkUnchanged(t, dir, before, "OpenReadOnly")
}

// TestOpenReadOnlyNeverWrites: whatever state the directory is in, a
// read-only open, searches and Close change no file (Open would compact
// the log, cut a torn tail, replace a stale log, remove temporary files),
// and every write is refused.
func TestOpenReadOnlyNeverWrites(t *testing.T) {
	const n = 5
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  int
	}{
		{"log to compact", func(t *testing.T, dir string) {}, n},
		{"torn tail", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, walName), func(b []byte) []byte { return append(b, 9, 0, 0, 0, 1) })
		}, n},
		{"leftover temporary files", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "."+snapName+".tmp-42"), []byte("half"), 0o644)
			os.WriteFile(filepath.Join(dir, "."+walName+".tmp-43"), []byte("half"), 0o644)
		}, n},
		{"no log", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, walName)) }, 0},
		{"stale log", func(t *testing.T, dir string) {
			wal := filepath.Join(dir, walName)
			old, _ := os.ReadFile(wal)
			ix := mustOpen(t, dir)
			if err := ix.Close(); err != nil { // compacts: the old log is stale
				t.Fatal(err)
			}
			os.WriteFile(wal, old, 0o644)
		}, n},
		{"no LOCK file", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, lockName)) }, n},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			logWithRecords(t, dir, n)
			tc.setup(t, dir)
			before := hashDir(t, dir)
			ix, err := OpenReadOnly(dir)
			if err != nil {
				t.Fatalf("OpenReadOnly: %v", err)
			}
			if !ix.ReadOnly() {
				t.Error("ReadOnly() = false")
			}
			ctx := context.Background()
			if c := count(t, ix); c != tc.want {
				t.Errorf("%d chunks, want %d", c, tc.want)
			}
			if c, err := ix.Count(ctx, kb.Filter{KBScope: "s"}); err != nil || c != tc.want {
				t.Errorf("Count(kbScope s) = %d, %v; want %d", c, err, tc.want)
			}
			if c, err := ix.Count(ctx, kb.Filter{KBScope: "other"}); err != nil || c != 0 {
				t.Errorf("Count(kbScope other) = %d, %v; want 0", c, err)
			}
			if d, ok := ix.Dim(); d != 4 || !ok {
				t.Errorf("Dim() = %d, %v; want 4, true", d, ok)
			}
			if tc.want > 0 {
				if got := search(t, ix, "quokka"); len(got) == 0 {
					t.Error("no hits")
				}
			}
			for name, err := range map[string]error{
				"Ensure":         ix.Ensure(ctx, 4),
				"Recreate":       ix.Recreate(ctx, 4),
				"Upsert":         ix.Upsert(ctx, []kb.Chunk{chunk("s", "new", 0, "x", unit(1, 0, 0, 0))}),
				"Upsert nothing": ix.Upsert(ctx, nil),
				"DeleteDocument": ix.DeleteDocument(ctx, "s", "doc0"),
			} {
				if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), dir) {
					t.Errorf("%s on a read-only index: %v, want ErrReadOnly naming the directory", name, err)
				}
			}
			checkUnchanged(t, dir, before, "OpenReadOnly+Search")
			if err := ix.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			checkUnchanged(t, dir, before, "OpenReadOnly+Search+Close")
			// The writer still finds everything.
			w := mustOpen(t, dir)
			if c := count(t, w); c != tc.want {
				t.Errorf("Open after the read-only open: %d chunks, want %d", c, tc.want)
			}
		})
	}
}

// TestDim: no dimension before Ensure, the index's after.
func TestDim(t *testing.T) {
	dir := t.TempDir()
	ix := mustOpen(t, dir)
	if d, ok := ix.Dim(); ok {
		t.Errorf("Dim of an empty index: %d, true", d)
	}
	if err := ix.Ensure(context.Background(), 7); err != nil {
		t.Fatal(err)
	}
	if d, ok := ix.Dim(); d != 7 || !ok {
		t.Errorf("Dim() = %d, %v; want 7, true", d, ok)
	}
	ix.Close()
	if _, ok := ix.Dim(); ok {
		t.Error("Dim of a closed index: true")
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if d, ok := ro.Dim(); d != 7 || !ok {
		t.Errorf("read-only Dim() = %d, %v; want 7, true", d, ok)
	}
}

// TestEveryByteFlip flips each byte of a log in turn, the last record's
// included: each time the read-only open reports corruption of the
// record holding the byte (the header at 0), never a torn tail, and
// leaves the file as it is.
func TestEveryByteFlip(t *testing.T) {
	dir := t.TempDir()
	offs, size := logWithRecords(t, dir, 4)
	wal := filepath.Join(dir, walName)
	orig, err := os.ReadFile(wal)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(wal, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for p := range size {
		want := int64(0)
		for _, o := range offs {
			if o <= p {
				want = o
			}
		}
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			// In place: rewriting the file would flush it each time.
			b := append([]byte{}, orig...)
			b[p] ^= mask
			if _, err := f.WriteAt(b[p:p+1], p); err != nil {
				t.Fatal(err)
			}
			ix, err := OpenReadOnly(dir)
			if err == nil {
				ix.Close()
				t.Errorf("byte %d ^ %#x: opened, want a corrupt error", p, mask)
				continue
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Path != wal || ce.Offset != want {
				t.Errorf("byte %d ^ %#x: %v, want corruption of %s at %d", p, mask, err, wal, want)
			}
			if got, _ := os.ReadFile(wal); !reflect.DeepEqual(got, b) {
				t.Fatalf("byte %d ^ %#x: the log was changed", p, mask)
			}
			if _, err := f.WriteAt(orig[p:p+1], p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestReaderReloadsUnderALockThatAppeared: a reader that found no LOCK
// file loads again, under a shared lock, when a writer created one while
// it read the files (the package doc's promise).
func TestReaderReloadsUnderALockThatAppeared(t *testing.T) {
	dir := t.TempDir()
	logWithRecords(t, dir, 3)
	lockPath := filepath.Join(dir, lockName)
	if err := os.Remove(lockPath); err != nil {
		t.Fatal(err)
	}
	loads := 0
	afterUnlockedLoad = func() {
		loads++
		if err := os.WriteFile(lockPath, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { afterUnlockedLoad = nil }()
	ix, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if loads != 1 || ix.lock == nil {
		t.Errorf("unlocked loads %d, lock held %v: want one unlocked load, then one under the shared lock", loads, ix.lock != nil)
	}
}
