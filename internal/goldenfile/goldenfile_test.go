package goldenfile

import (
	"path/filepath"
	"testing"
)

func TestLineDiff(t *testing.T) {
	if d := LineDiff("a\nb\nc", "a\nB\nc\nd"); d != "line 2:\n- b\n+ B\nline 4:\n- \n+ d\n" {
		t.Fatalf("LineDiff = %q", d)
	}
	if d := LineDiff("same", "same"); d != "" {
		t.Fatalf("equal inputs: %q", d)
	}
}

func TestCheckFailsOnADifference(t *testing.T) {
	path := filepath.Join(t.TempDir(), "want.txt")
	*Update = true
	Check(t, path, []byte("one\n"))
	*Update = false
	Check(t, path, []byte("one\n"))
	var rec recorder
	Check(&rec, path, []byte("two\n"))
	if !rec.failed {
		t.Fatal("a difference did not fail the check")
	}
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }
