// Package goldenfile is the golden-file check the report tests share:
// compare rendered bytes with a committed file, or rewrite the file with
// `go test -update`, and show a failing difference line by line.
package goldenfile

import (
	"bytes"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Update is the -update flag of every test binary that imports this
// package: rewrite golden files instead of comparing with them.
var Update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with the file at path, or writes got there with
// -update. A difference fails t with the differing lines.
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

// LineDiff lists the lines that differ between want and got, by line
// number: "- " the wanted line, "+ " the one got.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n- " + wl + "\n+ " + gl + "\n")
		}
	}
	return b.String()
}
