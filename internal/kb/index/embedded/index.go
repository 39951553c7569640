// Package embedded is the zero-setup kb.Index: an in-process index
// persisted under a directory of the data dir.
//
// Search is exact. Dense mode scores every chunk passing the filter by its
// cosine to the query. It computes float32 dot products over one contiguous
// slab of vectors, split across CPUs for large indexes, then recomputes the
// survivors' cosines in float64. Hybrid mode fuses the dense top K and the
// BM25 top K by reciprocal rank fusion, 1/(k + rank). BM25 runs with
// k1 = 1.2, b = 0.75 and idf = ln(1 + (N − df + 0.5)/(df + 0.5)). It runs
// over an inverted index of textnorm.Tokens of the chunk text, the same
// tokens the local embedder and the judge use. Ties are broken by
// kb.CompareTies, as in every index, so results are deterministic.
// CompareTies orders by the chunk's position, then evidence key and
// kbScope. Every hit carries its true DenseDistance = √(2 − 2·cos), in both
// modes.
//
// Persistence: index.snap holds the whole index. It is replaced atomically
// by writing a temporary file, syncing it and renaming it. index.wal logs
// every write since, one synced write per Upsert or DeleteDocument, before
// the call returns. Open loads the snapshot and replays the log. When the
// log outgrows the snapshot, and at Close, the index is compacted into a
// new snapshot. See file.go for the format.
//
// Faults. Only a torn last append is dropped. That is a crash in the middle
// of a write, which never returned. The file then ends inside the record
// being appended, with nothing after it but the beginning of that record.
// The beginning may be zero bytes, or fewer bytes than a frame header. Open
// cuts it off the file, and OpenReadOnly drops it in memory only. Any other
// bad record is corruption, and so is any flaw in index.snap. A bad record
// is a checksum mismatch, even in a complete last record, an undecodable
// payload or an impossible length. On corruption nothing is truncated,
// compacted or rewritten. The error is a *CorruptError, and errors.Is(err,
// ErrCorrupt) holds. It names the file, the byte offset and the way out,
// rag-seed --recreate. Open still succeeds so that Recreate can rebuild the
// index, but every other call returns that error. OpenReadOnly returns it.
// The exact rule is in file.go.
//
// Two ways to open. Open, for rag-seed, creates the directory if needed and
// may write. It cuts a torn tail, replaces a stale or missing log, removes
// leftover temporary files of an interrupted compaction and compacts at
// Close. It takes the directory's lock, the file LOCK, exclusively.
// OpenReadOnly, for rag-snapshot and serve, never creates, truncates,
// compacts or writes anything, not even the LOCK file. A directory without
// index.snap is ErrNoIndex, and the log is replayed in memory. Ensure,
// Recreate, Upsert and DeleteDocument return ErrReadOnly, and Close only
// releases the lock. OpenReadOnly takes the lock shared. So readers run
// side by side but never alongside a writer that could be in the middle of
// an append or a compaction. The one that comes second gets an "in use"
// error saying whether a reader or a writer probably holds the directory.
// Readers hold their shared lock until Close, so rag-seed cannot change an
// index under a running serve. Open creates LOCK before anything else. So a
// directory without a LOCK file was never opened for writing by this
// package, and a reader opens it without a lock rather than create the
// file. If LOCK appears while it loads, a writer started, and the reader
// loads again under the lock.
//
// Within the process an Index is safe for concurrent use: searches run in
// parallel, writes are serialised.
//
// Platforms: a Unix, such as Linux, macOS or the BSDs. The locks are
// flock(2), and crash safety rests on Unix rename and fsync semantics.
// Windows is not supported. The package does not build there, by
// unsupported.go, rather than let two writers at one index.
package embedded

import (
	"bufio"
	"context"
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

// ErrNoIndex is returned (wrapped) by OpenReadOnly for a directory that
// does not exist or holds no index.snap: nothing was seeded there.
var ErrNoIndex = errors.New("no index")

// ErrReadOnly is returned (wrapped) by the writing calls of an index
// opened with OpenReadOnly.
var ErrReadOnly = errors.New("opened read-only")

// Index is the embedded kb.Index.
type Index struct {
	dir      string
	readOnly bool

	mu       sync.RWMutex
	st       *store // nil until Ensure or Recreate
	gen      uint64
	wal      *os.File // nil when read-only
	walSize  int64
	snapSize int64
	lock     *os.File // nil when read-only without a LOCK file
	closed   bool
	// loadErr is why the files could not be read (a corrupt file, another
	// format version): every call but Recreate returns it.
	loadErr error
	// broken is set when a failed append could not be rolled back: the
	// log may hold a partial record, so further writes are refused.
	broken error
}

var _ kb.Index = (*Index)(nil)

// Open opens the index in dir for reading and writing, creating it if
// needed, and loads it. A directory in use by another process is an error.
// An index whose files cannot be read opens untouched, but every call
// except Recreate returns the reason. Such files are corrupt or of another
// format version.
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

// OpenReadOnly opens the index in dir for searching only and loads it,
// without creating or changing any file. The package comment says more. A
// missing directory or index.snap is an error matching ErrNoIndex. An
// unreadable index is an error, a *CorruptError for a damaged file. A
// directory being written by another process is an error.
func OpenReadOnly(dir string) (*Index, error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("embedded index %s: %w (the directory does not exist): run rag-seed first", dir, ErrNoIndex)
	}
	if err != nil {
		return nil, fmt.Errorf("embedded index: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("embedded index %s: not a directory", dir)
	}
	lockPath := filepath.Join(dir, lockName)
	for attempt := 0; ; attempt++ {
		lock, err := lockShared(lockPath)
		if err != nil {
			return nil, fmt.Errorf("embedded index %s: %w", dir, err)
		}
		ix := &Index{dir: dir, readOnly: true, lock: lock}
		if err := ix.loadReadOnly(); err != nil {
			if lock != nil {
				lock.Close()
			}
			return nil, err
		}
		if lock == nil && attempt == 0 {
			if afterUnlockedLoad != nil {
				afterUnlockedLoad()
			}
			if _, err := os.Stat(lockPath); err == nil {
				// A writer started while the files were read: read
				// them again under the lock.
				continue
			}
		}
		return ix, nil
	}
}

// afterUnlockedLoad, when set (by tests), runs after a reader loaded the
// files without a lock file to lock.
var afterUnlockedLoad func()

// Dir returns the directory of the index.
func (ix *Index) Dir() string { return ix.dir }

// Dim returns the dimension of the index's vectors. It returns false when
// there is no usable index: not created yet, unreadable, or closed. With
// Count(ctx, kb.Filter{KBScope: s}), the number of chunks of a kbScope, it
// lets a caller check that the index agrees with the catalog.
func (ix *Index) Dim() (int, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.usable() != nil {
		return 0, false
	}
	return ix.st.dim, true
}

// ExistingDim returns the dimension of the index a seed created, creating
// nothing: an index with no usable data is an error wrapping
// kb.ErrNotSeeded (config.Stack.Verify calls it, as it calls Milvus').
func (ix *Index) ExistingDim(context.Context) (int, error) {
	if d, ok := ix.Dim(); ok {
		return d, nil
	}
	return 0, fmt.Errorf("embedded index %s holds no index: %w", ix.dir, kb.ErrNotSeeded)
}

// ReadOnly reports whether the index was opened with OpenReadOnly.
func (ix *Index) ReadOnly() bool { return ix.readOnly }

func (ix *Index) path(name string) string { return filepath.Join(ix.dir, name) }

// fileErr is the error for the file name of the index that could not be
// read: a *CorruptError as it is, anything else with the file and the way
// out.
func (ix *Index) fileErr(name string, err error) error {
	var ce *CorruptError
	if errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("embedded index: read %s: %w; rebuild the index with rag-seed --recreate", ix.path(name), err)
}

// load reads the snapshot and replays the log, for Open. A file that cannot
// be read sets loadErr and is left untouched. Only I/O errors on the
// directory fail Open.
func (ix *Index) load() error {
	f, err := os.Open(ix.path(snapName))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(ix.path(walName)); err == nil {
			ix.loadErr = ix.walWithoutSnap()
			return nil
		}
		ix.removeTemps()
		return nil
	}
	if err != nil {
		return fmt.Errorf("embedded index: %w", err)
	}
	st, gen, size, err := readSnapshot(f, ix.path(snapName))
	f.Close()
	if err != nil {
		ix.loadErr = ix.fileErr(snapName, err)
		return nil
	}
	ix.st, ix.gen, ix.snapSize = st, gen, size
	if err := ix.openWAL(); err != nil {
		ix.st = nil
		ix.loadErr = ix.fileErr(walName, err)
		return nil
	}
	ix.removeTemps()
	return nil
}

func (ix *Index) walWithoutSnap() error {
	return fmt.Errorf("embedded index %s: %s exists without %s; rebuild the index with rag-seed --recreate", ix.dir, walName, snapName)
}

// removeTemps removes the leftovers of a crash in the middle of an atomic
// write. They are left alone when the index cannot be read.
func (ix *Index) removeTemps() {
	for _, name := range []string{snapName, walName} {
		tmps, _ := filepath.Glob(filepath.Join(ix.dir, "."+name+".tmp-*"))
		for _, t := range tmps {
			os.Remove(t)
		}
	}
}

// loadReadOnly reads the snapshot and replays the log, for OpenReadOnly,
// opening both read-only. A missing snapshot is ErrNoIndex, a stale log is
// ignored and a torn tail of the log is dropped in memory. Anything the
// files hold that cannot be read is the error.
func (ix *Index) loadReadOnly() error {
	f, err := os.Open(ix.path(snapName))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(ix.path(walName)); err == nil {
			return ix.walWithoutSnap()
		}
		return fmt.Errorf("embedded index %s: %w (no %s): run rag-seed first", ix.dir, ErrNoIndex, snapName)
	}
	if err != nil {
		return fmt.Errorf("embedded index: %w", err)
	}
	st, gen, size, err := readSnapshot(f, ix.path(snapName))
	f.Close()
	if err != nil {
		return ix.fileErr(snapName, err)
	}
	ix.st, ix.gen, ix.snapSize = st, gen, size
	f, err = os.Open(ix.path(walName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("embedded index: %w", err)
	}
	defer f.Close()
	if _, _, _, err := ix.replayWAL(f); err != nil {
		ix.st = nil
		return ix.fileErr(walName, err)
	}
	return nil
}

// readSnapshot reads a whole snapshot. Anything short of a complete,
// checksummed file is an error. It is a *CorruptError except for another
// format version.
func readSnapshot(f *os.File, path string) (*store, uint64, int64, error) {
	size, err := fileSize(f)
	if err != nil {
		return nil, 0, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	h, err := readHeader(r, snapMagic)
	if err != nil {
		return nil, 0, 0, headerErr(path, err)
	}
	st := newStore(h.dim)
	off := int64(headerSize)
	for {
		payload, err := readRecord(r, path, off, size)
		if err == io.EOF {
			return nil, 0, 0, &CorruptError{Path: path, Offset: off, Reason: "truncated (no end record)"}
		}
		if err != nil {
			return nil, 0, 0, err
		}
		o, err := decodeOp(payload, h.dim)
		if err != nil {
			return nil, 0, 0, &CorruptError{Path: path, Offset: off, Reason: err.Error()}
		}
		next := off + frameSize + int64(len(payload))
		switch o.kind {
		case opUpsert:
			st.upsertAll(prepare(o.chunks))
		case opEnd:
			if o.count != uint64(st.live) {
				return nil, 0, 0, &CorruptError{Path: path, Offset: off, Reason: fmt.Sprintf("holds %d chunks, its end record says %d", st.live, o.count)}
			}
			if next != size {
				return nil, 0, 0, &CorruptError{Path: path, Offset: next, Reason: fmt.Sprintf("%d bytes after the end record", size-next)}
			}
			return st, h.gen, size, nil
		default:
			return nil, 0, 0, &CorruptError{Path: path, Offset: off, Reason: fmt.Sprintf("unexpected operation %d in a snapshot", o.kind)}
		}
		off = next
	}
}

// headerErr is the error for a header that cannot be read: another
// format version as it is, anything else as corruption at offset 0.
func headerErr(path string, err error) error {
	if errors.Is(err, errVersion) {
		return err
	}
	return &CorruptError{Path: path, Offset: 0, Reason: err.Error()}
}

// replayWAL replays the log f into ix.st. It returns the offset after the
// last good record, why the bytes after it are a torn tail if they are,
// and whether the log is stale (of another generation: already in the
// snapshot, nothing replayed). ix.st is left partly replayed on error.
func (ix *Index) replayWAL(f *os.File) (end int64, torn string, stale bool, err error) {
	size, err := fileSize(f)
	if err != nil {
		return 0, "", false, err
	}
	path := ix.path(walName)
	r := bufio.NewReaderSize(f, 1<<20)
	h, err := readHeader(r, walMagic)
	if err != nil {
		return 0, "", false, headerErr(path, err)
	}
	if h.gen != ix.gen {
		return 0, "", true, nil
	}
	if h.dim != ix.st.dim {
		return 0, "", false, &CorruptError{Path: path, Offset: 0, Reason: fmt.Sprintf("the log has dimension %d, the snapshot %d", h.dim, ix.st.dim)}
	}
	end, torn, err = scanLog(r, path, size, ix.st.dim, ix.st.apply)
	return end, torn, false, err
}

// openWAL opens the log for appending after replaying it into ix.st. A
// missing log is replaced by an empty one, and so is one of another
// generation, which the snapshot already contains. A torn tail is cut off.
// A corrupt log is an error and is left as it is.
func (ix *Index) openWAL() error {
	f, err := os.OpenFile(ix.path(walName), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return ix.resetWAL()
	}
	if err != nil {
		return err
	}
	end, torn, stale, err := ix.replayWAL(f)
	if err != nil {
		f.Close()
		return err
	}
	if stale {
		f.Close()
		return ix.resetWAL()
	}
	if torn != "" {
		// A crash in the middle of an append: the write never
		// returned, drop it.
		if err := f.Truncate(end); err != nil {
			f.Close()
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	ix.wal, ix.walSize = f, end
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
