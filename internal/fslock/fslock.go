//go:build unix

// Package fslock takes flock(2) locks without waiting. It is the one lock
// primitive of rag-seed and rag-snapshot. They lock the embedded index's
// lock file and the fixture directories' parent and staging locks with it.
// A lock goes with the open file description. It is released when the file
// is closed or the process ends, however it ends, so a killed run never
// leaves a stale lock. Like those packages, it builds on Unix only.
package fslock

import (
	"errors"
	"os"
	"syscall"
)

var (
	// ErrBusy: another open file holds a conflicting lock (another
	// process, or another open of the same file in this process).
	ErrBusy = errors.New("locked by another process")
	// ErrUnsupported: the file system does not support flock.
	ErrUnsupported = errors.New("file locks are not supported here")
)

// TryLock locks f, exclusively or shared, without waiting: nil, ErrBusy,
// or ErrUnsupported.
func TryLock(f *os.File, shared bool) error {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrBusy
		}
		return ErrUnsupported
	}
}
