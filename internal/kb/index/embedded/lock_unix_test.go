//go:build unix

package embedded

import (
	"strings"
	"testing"
)

// TestLockReadersAndWriters: readers share the directory, a writer has it
// alone, and whoever comes second is told who probably holds it.
func TestLockReadersAndWriters(t *testing.T) {
	dir := t.TempDir()
	logWithRecords(t, dir, 2)

	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(dir); err == nil || !strings.Contains(err.Error(), "in use") ||
		!strings.Contains(err.Error(), "writer") || !strings.Contains(err.Error(), dir) {
		t.Errorf("OpenReadOnly while a writer holds %s: %v, want an 'in use … writer' error", dir, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r1, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("OpenReadOnly: %v", err)
	}
	r2, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("second OpenReadOnly: %v", err)
	}
	for _, r := range []*Index{r1, r2} {
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), "reader") {
			t.Errorf("Open while a reader holds %s: %v, want an 'in use … reader' error", dir, err)
		}
		r.Close()
	}
	w, err = Open(dir)
	if err != nil {
		t.Fatalf("Open after the readers closed: %v", err)
	}
	if c := count(t, w); c != 2 {
		t.Errorf("%d chunks, want 2", c)
	}
	w.Close()
}
