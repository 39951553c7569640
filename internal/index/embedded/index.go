// Package embedded is the zero-setup kb.Index: an in-process index
// persisted under a directory of the data dir.
//
// Search is exact: dense mode scores every chunk passing the filter by its
// cosine to the query (float32 dot products over one contiguous slab of
// vectors, split across CPUs for large indexes, then the survivors'
// cosines recomputed in float64); hybrid mode fuses the dense top K and the
// BM25 top K by reciprocal rank fusion, 1/(k + rank). BM25 (k1 = 1.2,
// b = 0.75, idf = ln(1 + (N − df + 0.5)/(df + 0.5))) runs over an inverted
// index of textnorm.Tokens of the chunk text, the same tokens the local
// embedder and the judge use. Ties are broken by evidence key, then
// kbScope, so results are deterministic. Every hit carries its true
// DenseDistance = √(2 − 2·cos), in both modes.
//
// Persistence: index.snap holds the whole index and is replaced atomically
// (temporary file, sync, rename); index.wal logs every write since, one
// synced record per Upsert or DeleteDocument, before the call returns. Open
// loads the snapshot and replays the log; a record torn by a crash is cut
// off. When the log outgrows the snapshot, and at Close, the index is
// compacted into a new snapshot. See file.go for the format.
//
// One process at a time: Open takes an exclusive lock on the directory
// (LOCK), so a second process gets a clear error instead of a lost update.
// Within the process an Index is safe for concurrent use: searches run in
// parallel, writes are serialised.
package embedded

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// compactMin is the log size below which the index is not compacted while
// open (Close compacts any non-empty log).
const compactMin = 64 << 20

// Index is the embedded kb.Index.
type Index struct {
	dir string

	mu       sync.RWMutex
	st       *store // nil until Ensure or Recreate
	gen      uint64
	wal      *os.File
	walSize  int64
	snapSize int64
	lock     *os.File
	closed   bool
	// loadErr is why the files could not be read (a corrupt file, another
	// format version): every call but Recreate returns it.
	loadErr error
	// broken is set when a failed append could not be rolled back: the
	// log may hold a partial record, so further writes are refused.
	broken error
}

var _ kb.Index = (*Index)(nil)

// Open opens (creating it if needed) the index in dir and loads it. A
// directory in use by another process is an error. An index whose files
// cannot be read opens, but every call except Recreate returns the reason.
func Open(dir string) (*Index, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("embedded index: %w", err)
	}
	lock, err := lockDir(filepath.Join(dir, lockName))
	if err != nil {
		return nil, fmt.Errorf("embedded index %s: %w", dir, err)
	}
	ix := &Index{dir: dir, lock: lock}
	if err := ix.load(); err != nil {
		if ix.wal != nil {
			ix.wal.Close()
		}
		lock.Close()
		return nil, err
	}
	return ix, nil
}

// Dir returns the directory of the index.
func (ix *Index) Dir() string { return ix.dir }

func (ix *Index) path(name string) string { return filepath.Join(ix.dir, name) }

// load reads the snapshot and replays the log. A file that cannot be read
// sets loadErr; only I/O errors on the directory fail Open.
func (ix *Index) load() error {
	// Leftovers of a crash in the middle of an atomic write.
	for _, name := range []string{snapName, walName} {
		tmps, _ := filepath.Glob(filepath.Join(ix.dir, "."+name+".tmp-*"))
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	f, err := os.Open(ix.path(snapName))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(ix.path(walName)); err == nil {
			ix.loadErr = fmt.Errorf("embedded index %s: %s exists without %s; rerun rag-seed with --recreate to rebuild it", ix.dir, walName, snapName)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("embedded index: %w", err)
	}
	st, gen, size, err := readSnapshot(f)
	f.Close()
	if err != nil {
		ix.loadErr = fmt.Errorf("embedded index %s: read %s: %w; rerun rag-seed with --recreate to rebuild it", ix.dir, snapName, err)
		return nil
	}
	ix.st, ix.gen, ix.snapSize = st, gen, size
	if err := ix.openWAL(); err != nil {
		ix.st = nil
		ix.loadErr = fmt.Errorf("embedded index %s: read %s: %w; rerun rag-seed with --recreate to rebuild it", ix.dir, walName, err)
	}
	return nil
}

// readSnapshot reads a whole snapshot; anything short of a complete,
// checksummed file is an error.
func readSnapshot(f *os.File) (*store, uint64, int64, error) {
	size, err := fileSize(f)
	if err != nil {
		return nil, 0, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	h, err := readHeader(r, snapMagic)
	if err != nil {
		return nil, 0, 0, err
	}
	st := newStore(h.dim)
	off := int64(headerSize)
	for {
		payload, err := readRecord(r, size-off)
		if err == io.EOF {
			return nil, 0, 0, errors.New("truncated (no end record)")
		}
		if err != nil {
			return nil, 0, 0, err
		}
		off += frameSize + int64(len(payload))
		o, err := decodeOp(payload, h.dim)
		if err != nil {
			return nil, 0, 0, err
		}
		switch o.kind {
		case opUpsert:
			st.upsertAll(prepare(o.chunks))
		case opEnd:
			if o.count != uint64(st.live) {
				return nil, 0, 0, fmt.Errorf("holds %d chunks, its end record says %d", st.live, o.count)
			}
			if off != size {
				return nil, 0, 0, errors.New("data after the end record")
			}
			return st, h.gen, size, nil
		default:
			return nil, 0, 0, fmt.Errorf("unexpected operation %d in a snapshot", o.kind)
		}
	}
}

// openWAL opens the log for appending after replaying it into ix.st. A
// missing log, or one of another generation (already contained in the
// snapshot), is replaced by an empty one.
func (ix *Index) openWAL() error {
	f, err := os.OpenFile(ix.path(walName), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return ix.resetWAL()
	}
	if err != nil {
		return err
	}
	size, err := fileSize(f)
	if err != nil {
		f.Close()
		return err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	h, err := readHeader(r, walMagic)
	if err != nil {
		f.Close()
		return err
	}
	if h.gen != ix.gen {
		f.Close()
		return ix.resetWAL()
	}
	if h.dim != ix.st.dim {
		f.Close()
		return fmt.Errorf("log has dimension %d, the snapshot %d", h.dim, ix.st.dim)
	}
	off := int64(headerSize)
	for {
		payload, err := readRecord(r, size-off)
		if err == io.EOF {
			break
		}
		if errors.Is(err, errTorn) {
			// A crash in the middle of an append: the write never
			// returned, drop it.
			if err := f.Truncate(off); err != nil {
				f.Close()
				return err
			}
			if err := f.Sync(); err != nil {
				f.Close()
				return err
			}
			break
		}
		if err != nil {
			f.Close()
			return err
		}
		o, err := decodeOp(payload, ix.st.dim)
		if err != nil {
			f.Close()
			return err
		}
		ix.st.apply(o)
		off += frameSize + int64(len(payload))
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	ix.wal, ix.walSize = f, off
	return nil
}

// apply replays a logged operation.
func (s *store) apply(o op) {
	switch o.kind {
	case opUpsert:
		s.upsertAll(prepare(o.chunks))
	case opDelete:
		s.deleteDocument(o.kbScope, o.docID)
	}
}

// resetWAL atomically replaces the log with an empty one of generation
// ix.gen and opens it for appending.
func (ix *Index) resetWAL() error {
	if ix.wal != nil {
		ix.wal.Close()
		ix.wal = nil
	}
	hdr := appendHeader(nil, header{magic: walMagic, dim: ix.st.dim, gen: ix.gen})
	if err := atomicfile.WriteFile(ix.path(walName), hdr, 0o644); err != nil {
		return err
	}
	f, err := os.OpenFile(ix.path(walName), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return err
	}
	ix.wal, ix.walSize = f, int64(len(hdr))
	return nil
}

// writeSnapshot atomically replaces the snapshot with the store, as
// generation gen.
func (ix *Index) writeSnapshot(st *store, gen uint64) error {
	cw := &countWriter{}
	err := atomicfile.Write(ix.path(snapName), 0o644, func(w io.Writer) error {
		cw.w = w
		bw := bufio.NewWriterSize(cw, 1<<20)
		if _, err := bw.Write(appendHeader(nil, header{magic: snapMagic, dim: st.dim, gen: gen})); err != nil {
			return err
		}
		batch := make([]kb.Chunk, 0, snapBatch)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			_, err := bw.Write(frame(encodeUpsert(batch)))
			batch = batch[:0]
			return err
		}
		err := st.each(func(c kb.Chunk, vec []float32) error {
			c.Vector = vec
			batch = append(batch, c)
			if len(batch) == snapBatch {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if err != nil {
			return err
		}
		end := binary.AppendUvarint([]byte{opEnd}, uint64(st.live))
		if _, err := bw.Write(frame(end)); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	ix.snapSize = cw.n
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
