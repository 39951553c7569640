package embedded

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// usable reports why the index cannot serve a call. ix.mu is held.
func (ix *Index) usable() error {
	if ix.closed {
		return fmt.Errorf("embedded index %s is closed", ix.dir)
	}
	if ix.loadErr != nil {
		return ix.loadErr
	}
	if ix.st == nil {
		return fmt.Errorf("embedded index %s is empty: run rag-seed first", ix.dir)
	}
	return nil
}

// writable is usable plus no earlier failed write. ix.mu is held. Every
// writer has refused a read-only index already, before taking a lock.
func (ix *Index) writable() error {
	if err := ix.usable(); err != nil {
		return err
	}
	return ix.broken
}

// refuseReadOnly is the error of a write to a read-only index.
func (ix *Index) refuseReadOnly() error {
	if ix.readOnly {
		return fmt.Errorf("embedded index %s: %w: only rag-seed writes the index", ix.dir, ErrReadOnly)
	}
	return nil
}

// Ensure creates the index for vectors of dim if it does not exist. An
// index of another dimension is a *kb.DimensionMismatchError.
func (ix *Index) Ensure(ctx context.Context, dim int) error {
	if err := ix.refuseReadOnly(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if dim <= 0 {
		return fmt.Errorf("embedded index %s: invalid dimension %d", ix.dir, dim)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return fmt.Errorf("embedded index %s is closed", ix.dir)
	}
	if ix.loadErr != nil {
		return ix.loadErr
	}
	if ix.st != nil {
		if ix.st.dim != dim {
			return &kb.DimensionMismatchError{Collection: ix.dir, Have: ix.st.dim, Want: dim}
		}
		return nil
	}
	return ix.reset(dim, 1)
}

// Recreate drops every chunk and creates the index for dim. It also
// replaces files this build cannot read.
func (ix *Index) Recreate(ctx context.Context, dim int) error {
	if err := ix.refuseReadOnly(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if dim <= 0 {
		return fmt.Errorf("embedded index %s: invalid dimension %d", ix.dir, dim)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return fmt.Errorf("embedded index %s is closed", ix.dir)
	}
	gen := ix.gen + 1
	if ix.loadErr != nil {
		// The generation of the unreadable files is unknown. Any other
		// value makes their log stale.
		gen = uint64(time.Now().UnixNano())
	}
	return ix.reset(dim, gen)
}

// reset replaces the index by an empty one of dim, as generation gen: the
// snapshot first, then the log, so a crash in between leaves a log of an
// older generation, which Open discards.
func (ix *Index) reset(dim int, gen uint64) error {
	st := newStore(dim)
	if err := ix.writeSnapshot(st, gen); err != nil {
		return fmt.Errorf("embedded index %s: %w", ix.dir, err)
	}
	ix.st, ix.gen, ix.loadErr, ix.broken = st, gen, nil, nil
	if err := ix.resetWAL(); err != nil {
		ix.broken = fmt.Errorf("embedded index %s: create log: %w", ix.dir, err)
		return ix.broken
	}
	return nil
}

// compact writes the store as a new snapshot and starts an empty log.
func (ix *Index) compact() error {
	gen := ix.gen + 1
	if err := ix.writeSnapshot(ix.st, gen); err != nil {
		return fmt.Errorf("embedded index %s: compact: %w", ix.dir, err)
	}
	ix.gen = gen
	if err := ix.resetWAL(); err != nil {
		ix.broken = fmt.Errorf("embedded index %s: compact: new log: %w", ix.dir, err)
		return ix.broken
	}
	return nil
}

// appendRecords appends records to the log and syncs it once. On failure
// the log is cut back to where it was. If even that fails, the index
// refuses further writes, because the log could hold a partial record.
func (ix *Index) appendRecords(payloads ...[]byte) error {
	var err error
	n := int64(0)
	for _, p := range payloads {
		rec := frame(p)
		if _, err = ix.wal.Write(rec); err != nil {
			break
		}
		n += int64(len(rec))
	}
	if err == nil {
		err = ix.wal.Sync()
	}
	if err == nil {
		ix.walSize += n
		return nil
	}
	err = fmt.Errorf("embedded index %s: write log: %w", ix.dir, err)
	if terr := ix.wal.Truncate(ix.walSize); terr != nil {
		ix.broken = fmt.Errorf("%w (and the log could not be rolled back: %v; reopen the index)", err, terr)
		return ix.broken
	}
	if _, serr := ix.wal.Seek(ix.walSize, 0); serr != nil {
		ix.broken = fmt.Errorf("%w (and the log could not be rolled back: %v; reopen the index)", err, serr)
		return ix.broken
	}
	return err
}

// maybeCompact compacts when the log is large and larger than the
// snapshot. A failed compaction loses nothing (the log is intact), so its
// error is not the write's error.
func (ix *Index) maybeCompact() {
	if ix.walSize > compactMin && ix.walSize > ix.snapSize {
		_ = ix.compact()
	}
}

// Upsert writes chunks, replacing chunks with the same evidence key in the
// same kbScope. Within one call the last wins. Every chunk is checked
// before anything is written. The write is in the log, synced, when Upsert
// returns.
func (ix *Index) Upsert(ctx context.Context, chunks []kb.Chunk) error {
	if err := ix.refuseReadOnly(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(chunks) == 0 {
		return nil
	}
	ix.mu.RLock()
	err := ix.writable()
	dim := 0
	if err == nil {
		dim = ix.st.dim
	}
	ix.mu.RUnlock()
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if err := checkChunk(c, dim); err != nil {
			return fmt.Errorf("embedded index %s: upsert: %w", ix.dir, err)
		}
	}
	// Tokenise and encode outside the lock, so searches keep running.
	prep := prepare(chunks)
	payloads := encodeUpserts(chunks)

	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.writable(); err != nil {
		return err
	}
	if ix.st.dim != dim {
		return &kb.DimensionMismatchError{Collection: ix.dir, Have: ix.st.dim, Want: dim}
	}
	if err := ix.appendRecords(payloads...); err != nil {
		return err
	}
	ix.st.upsertAll(prep)
	ix.maybeCompact()
	return nil
}

// DeleteDocument removes every chunk of a document. Deleting a document
// without chunks writes nothing and is not an error.
func (ix *Index) DeleteDocument(ctx context.Context, kbScope, docID string) error {
	if err := ix.refuseReadOnly(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.writable(); err != nil {
		return err
	}
	if len(ix.st.byDoc[chunkRef{kbScope, docID}]) == 0 {
		return nil
	}
	if err := ix.appendRecords(encodeDelete(kbScope, docID)); err != nil {
		return err
	}
	ix.st.deleteDocument(kbScope, docID)
	ix.maybeCompact()
	return nil
}

// Count counts the chunks matching f.
func (ix *Index) Count(ctx context.Context, f kb.Filter) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if err := ix.usable(); err != nil {
		return 0, err
	}
	return ix.st.count(f), nil
}

// Search returns up to req.K hits, best first. Dense: the K chunks with
// the highest cosine, Score = cosine. Hybrid: the dense top K and the BM25
// top K of req.Text fused by kb.Fuse (req.Fusion, k = req.RRFK, default
// 60), the best K of the fusion, Score = fused score. Ties are broken by
// kb.CompareTies. Every hit has its true DenseDistance.
func (ix *Index) Search(ctx context.Context, req kb.SearchRequest) ([]kb.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Mode != kb.Dense && req.Mode != kb.Hybrid {
		return nil, fmt.Errorf("embedded index: search: unknown search mode %q (want %q or %q)", req.Mode, kb.Dense, kb.Hybrid)
	}
	if req.K <= 0 {
		return nil, fmt.Errorf("embedded index: search: k = %d, want at least 1", req.K)
	}
	if req.RRFK < 0 {
		return nil, fmt.Errorf("embedded index: search: negative RRF k %d", req.RRFK)
	}
	if err := req.Fusion.Valid(); err != nil {
		return nil, fmt.Errorf("embedded index: search: %w", err)
	}
	for _, x := range req.Vector {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, errors.New("embedded index: search: query vector has a non-finite value")
		}
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if err := ix.usable(); err != nil {
		return nil, err
	}
	if len(req.Vector) != ix.st.dim {
		return nil, fmt.Errorf("embedded index %s: search: query vector has dimension %d, the index %d", ix.dir, len(req.Vector), ix.st.dim)
	}
	req.K = min(req.K, ix.st.live)
	if req.K == 0 {
		return nil, nil
	}
	return ix.st.search(req), nil
}

// Close compacts a non-empty log into the snapshot, closes the files and
// releases the directory. The data is safe in the log even if the
// compaction fails (its error is returned). An index that could not be
// read is not compacted, and a read-only one only releases its lock.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return nil
	}
	ix.closed = true
	var err error
	if !ix.readOnly && ix.st != nil && ix.loadErr == nil && ix.broken == nil && ix.wal != nil && ix.walSize > headerSize {
		err = ix.compact()
	}
	if ix.wal != nil {
		if cerr := ix.wal.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("embedded index %s: %w", ix.dir, cerr)
		}
	}
	if ix.lock != nil {
		ix.lock.Close()
	}
	return err
}
