package embedded

import (
	"context"
	"os"
	"path/filepath"
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

// FuzzOpen: whatever the files of an index directory hold, Open neither
// panics nor loads a corrupt index silently.
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
	f.Add([]byte(snapMagic), []byte{})
	f.Fuzz(func(t *testing.T, snap, wal []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, snapName), snap, 0o644)
		os.WriteFile(filepath.Join(dir, walName), wal, 0o644)
		ix, err := Open(dir)
		if err != nil {
			return
		}
		defer ix.Close()
		ctx := context.Background()
		if _, err := ix.Count(ctx, kb.Filter{}); err != nil {
			return // unreadable: refused, as it should be
		}
		ix.Search(ctx, kb.SearchRequest{Mode: kb.Hybrid, Vector: make([]float32, ix.st.dim), Text: "alpha", K: 3})
	})
}
