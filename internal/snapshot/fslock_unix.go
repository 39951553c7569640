//go:build unix

package snapshot

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting. It returns
// errLockBusy when another open file holds one (another process, or another
// open of the same file in this process), and errLockUnsupported when the
// file system does not support flock. The lock goes with f's open file
// description: it is released when f is closed or the process ends, however
// it ends, so a killed run never leaves a stale lock.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLockBusy
		}
		return errLockUnsupported
	}
}
