//go:build unix

package embedded

import (
	"errors"
	"fmt"
	"os"

	"github.com/ragbaseline/ragbaseline/internal/fslock"
)

// Writers take the lock file exclusively, readers shared (flock), both
// without waiting. The lock is released when the file is closed or the
// process ends, so a crash never leaves a stale lock.

// lockDir takes an exclusive lock on the file path (created if needed),
// for a writer.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := fslock.TryLock(f, false); err != nil {
		defer f.Close()
		if errors.Is(err, fslock.ErrBusy) {
			// Readers share the lock, a writer holds it alone: if a
			// shared lock can be had, readers hold it.
			holder := "a writer (rag-seed, or an older rag-snapshot)"
			if fslock.TryLock(f, true) == nil {
				holder = "a reader (rag-snapshot, or rag-snapshot serve)"
			}
			return nil, fmt.Errorf("in use by another process, probably %s: wait for it to finish or stop it, then retry", holder)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// lockShared takes a shared lock on the file path, for a reader, without
// creating it: a missing file is (nil, nil).
func lockShared(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := fslock.TryLock(f, true); err != nil {
		f.Close()
		if errors.Is(err, fslock.ErrBusy) {
			return nil, errors.New("in use by another process, probably a writer (rag-seed, or an older rag-snapshot) that could be in the middle of a write: wait for it to finish, then retry")
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
