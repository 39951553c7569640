package goldenfile

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	for _, tt := range []struct {
		name, want, got, diff string
	}{
		{"equal", "same\n", "same\n", ""},
		{"changed and appended", "a\nb\nc\n", "a\nB\nc\nd\n",
			"diff want got\n--- want\n+++ got\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n"},
		// One inserted line is one "+" line: the lines after it are not
		// reported as different.
		{"insertion", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n9\n",
			"diff want got\n--- want\n+++ got\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n"},
		{"deletion", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\n6\n7\n8\n9\n",
			"diff want got\n--- want\n+++ got\n@@ -2,7 +2,6 @@\n 2\n 3\n 4\n-5\n 6\n 7\n 8\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := LineDiff(tt.want, tt.got); d != tt.diff {
				t.Errorf("LineDiff =\n%s\nwant\n%s", d, tt.diff)
			}
		})
	}
}

// TestLineDiffInsertionInLongFile: one line inserted near the top of a
// long file yields one changed line, however many lines follow it.
func TestLineDiffInsertionInLongFile(t *testing.T) {
	var lines []string
	for i := range 500 {
		lines = append(lines, strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i))
	}
	want := strings.Join(lines, "\n") + "\n"
	got := strings.Join(append(lines[:10:10], append([]string{"inserted"}, lines[10:]...)...), "\n") + "\n"
	var plus, minus int
	for _, l := range strings.Split(LineDiff(want, got), "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			plus++
		case strings.HasPrefix(l, "-"):
			minus++
		}
	}
	if plus != 1 || minus != 0 {
		t.Errorf("one inserted line gave %d added and %d removed lines:\n%s", plus, minus, LineDiff(want, got))
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
