//go:build unix

package fslock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Two opens of one file conflict like two processes: exclusive excludes
// everything, shared excludes only exclusive, and closing releases.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "LOCK")
	a, b := open(t, path), open(t, path)
	if err := TryLock(a, false); err != nil {
		t.Fatal(err)
	}
	for _, shared := range []bool{false, true} {
		if err := TryLock(b, shared); !errors.Is(err, ErrBusy) {
			t.Errorf("shared=%v under an exclusive lock: %v, want ErrBusy", shared, err)
		}
	}
	a.Close()
	if err := TryLock(b, true); err != nil {
		t.Fatalf("shared after the holder closed: %v", err)
	}
	c := open(t, path)
	if err := TryLock(c, true); err != nil {
		t.Errorf("second shared lock: %v", err)
	}
	if err := TryLock(open(t, path), false); !errors.Is(err, ErrBusy) {
		t.Errorf("exclusive under shared locks: %v, want ErrBusy", err)
	}
}
