//go:build unix

package embedded

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes an exclusive, non-blocking lock on the file path (created
// if needed). The lock is released when the file is closed or the process
// ends, so a crash never leaves a stale lock.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.New("in use by another process (close rag-seed or rag-snapshot serve first)")
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
