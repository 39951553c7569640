package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// WriteAll replaces every file, or none: when fn fails after writing, the
// old contents stay and no temporary file is left.
func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "sub", "b.txt")
	if err := WriteFile(a, []byte("old a"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteAll([]string{a, b}, 0o644, func(ws []io.Writer) error {
		io.WriteString(ws[0], "new a")
		io.WriteString(ws[1], "new b")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WriteAll = %v, want the error of fn", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old a" {
		t.Errorf("a = %q after a failed WriteAll, want the old content", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b exists after a failed WriteAll: %v", err)
	}
	for _, d := range []string{dir, filepath.Dir(b)} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if e.Name() != "a.txt" && e.Name() != "sub" {
				t.Errorf("left behind in %s: %s", d, e.Name())
			}
		}
	}

	if err := WriteAll([]string{a, b}, 0o600, func(ws []io.Writer) error {
		io.WriteString(ws[0], "new a")
		_, err := io.WriteString(ws[1], "new b")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{a: "new a", b: "new b"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	// a keeps its mode, b is new: perm.
	if fi, _ := os.Stat(a); fi.Mode().Perm() != 0o644 {
		t.Errorf("a's mode %v, want it kept (0644)", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(b); fi.Mode().Perm() != 0o600 {
		t.Errorf("b's mode %v, want 0600", fi.Mode().Perm())
	}
}
