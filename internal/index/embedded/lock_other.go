//go:build !unix

package embedded

import (
	"errors"
	"os"
)

// lockDir opens the lock file; without flock, concurrent processes are not
// detected on this platform.
func lockDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// lockShared opens the lock file read-only, without creating it (a
// missing file is (nil, nil)); concurrent processes are not detected on
// this platform.
func lockShared(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return f, err
}
