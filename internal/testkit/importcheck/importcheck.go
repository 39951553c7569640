// Package importcheck holds the test of a package that promises to import
// little: the standard library, and at most a few packages its
// documentation names. metrics, diag and report/mdcell make that promise,
// so that any package may use them.
package importcheck

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// StandardLibraryOnly fails t when the package in the current directory
// imports anything but the standard library and allowed. Only its non-test
// files count. A standard library path has no dot in its first element.
func StandardLibraryOnly(t testing.TB, allowed ...string) {
	t.Helper()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && !slices.Contains(allowed, imp) {
			if len(allowed) == 0 {
				t.Errorf("package %s imports %s: it imports only the standard library", pkg.Name, imp)
			} else {
				t.Errorf("package %s imports %s: it imports only the standard library and %s", pkg.Name, imp, strings.Join(allowed, ", "))
			}
		}
	}
}
