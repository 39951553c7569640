// Package goldenfile is the golden-file check the report tests share:
// compare rendered bytes with a committed file, or rewrite the file with
// `go test -update`, and show a failing difference as a unified diff.
package goldenfile

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

// Update is the -update flag of every test binary that imports this
// package: rewrite golden files instead of comparing with them.
var Update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with the file at path, or writes got there with
// -update. A difference fails t with a unified diff from the file to got.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update accepts it, after reading the diff):\n%s", path, LineDiff(string(want), string(got)))
	}
}

// LineDiff returns a unified diff from want to got ("-" lines wanted, "+"
// lines got, with three lines of context), or "" when they are equal. It
// is github.com/rogpeppe/go-internal/diff's anchored diff, so a line
// inserted or removed shows as that one line, not as every line after it.
func LineDiff(want, got string) string {
	return string(diff.Diff("want", []byte(want), "got", []byte(got)))
}
