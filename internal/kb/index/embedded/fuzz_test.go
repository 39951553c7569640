package embedded

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// FuzzDecodeOp: no payload makes the record decoder panic.
func FuzzDecodeOp(f *testing.F) {
	f.Add(encodeUpsert([]kb.Chunk{chunk("s", "d", 0, "text 中文", unit(1, 2, 3, 4))}))
	f.Add(encodeDelete("s", "d"))
	f.Add([]byte{opEnd, 3})
	f.Add([]byte{opUpsert, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, payload []byte) {
		o, err := decodeOp(payload, 4)
		if err == nil && o.kind == opUpsert {
			for _, c := range o.chunks {
				if len(c.Vector) != 4 {
					t.Fatalf("decoded a vector of dimension %d", len(c.Vector))
				}
			}
		}
	})
}

// FuzzOpen: whatever the files of an index directory hold, neither open
// panics nor loads a damaged index silently. OpenReadOnly either loads the
// index or returns an error. It never changes, creates or removes a file,
// Close included. Open agrees with it: both give the same chunk count, or
// both refuse. Open changes nothing either but what the package comment
// allows. It may cut a torn tail off the log or replace a stale one. An
// index it refuses is left untouched, Close included.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	ix, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	seed(f, ix)
	snap, _ := os.ReadFile(filepath.Join(dir, snapName))
	wal, _ := os.ReadFile(filepath.Join(dir, walName))
	ix.Close()
	f.Add(snap, wal)
	f.Add(snap[:len(snap)/2], wal)
	f.Add(snap, wal[:len(wal)-1])
	f.Add(snap, wal[:len(wal)-9])
	f.Add(snap, append(wal[:len(wal):len(wal)], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
	flipped := append([]byte{}, wal...)
	flipped[len(flipped)/2] ^= 0x40
	f.Add(snap, flipped)
	f.Add([]byte(snapMagic), []byte{})
	f.Fuzz(func(t *testing.T, snap, wal []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, snapName), snap, 0o644)
		os.WriteFile(filepath.Join(dir, walName), wal, 0o644)
		os.WriteFile(filepath.Join(dir, lockName), nil, 0o644) // as Open leaves it
		before := hashDir(t, dir)
		ctx := context.Background()

		roCount := -1
		ro, err := OpenReadOnly(dir)
		if err == nil {
			n, cerr := ro.Count(ctx, kb.Filter{})
			if cerr != nil {
				t.Fatalf("OpenReadOnly succeeded, Count failed: %v", cerr)
			}
			roCount = n
			ro.Search(ctx, kb.SearchRequest{Mode: kb.Hybrid, Vector: make([]float32, ro.st.dim), Text: "alpha", K: 3})
			if err := ro.Close(); err != nil {
				t.Fatalf("read-only Close: %v", err)
			}
		} else if !strings.Contains(err.Error(), dir) && !strings.Contains(err.Error(), "--recreate") {
			t.Fatalf("OpenReadOnly error names neither the index nor the way out: %v", err)
		}
		checkUnchanged(t, dir, before, "OpenReadOnly")

		ix, err := Open(dir)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		n, err := ix.Count(ctx, kb.Filter{})
		if err != nil {
			// Unreadable: refused, as it should be, and left alone.
			if roCount >= 0 {
				t.Fatalf("read-only open loaded %d chunks, Open refuses: %v", roCount, err)
			}
			if err := ix.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			checkUnchanged(t, dir, before, "Open of an unreadable index")
			return
		}
		defer ix.Close()
		if n != roCount {
			t.Fatalf("Open loaded %d chunks, OpenReadOnly %d", n, roCount)
		}
		after, _ := os.ReadFile(filepath.Join(dir, walName))
		if got, _ := os.ReadFile(filepath.Join(dir, snapName)); !bytes.Equal(got, snap) {
			t.Fatal("Open changed the snapshot")
		}
		// The log is the same, cut of a torn tail, or replaced by an empty
		// one. The log replaced had a stale or unreadable header of another
		// generation.
		if !bytes.HasPrefix(wal, after) && len(after) != headerSize {
			t.Fatalf("Open changed the log from %d to %d bytes, not by a cut", len(wal), len(after))
		}
		ix.Search(ctx, kb.SearchRequest{Mode: kb.Hybrid, Vector: make([]float32, ix.st.dim), Text: "alpha", K: 3})
	})
}
