package main

import (
	"regexp"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/testkit/manual"
)

// TestManual checks the manual, the package documentation in doc.go,
// against the binary, as benchstat's doc test does (package manual):
//
//   - Each "Flags of X:" paragraph is followed by X's flags exactly as
//     "X --help" lists them, and every command has one.
//   - Each "$ rag-eval …" example, run in a copy of testdata/manual, exits
//     0, says nothing on stderr and prints the lines that follow it.
//
// go test -update rewrites both from the binary. Review the diff.
func TestManual(t *testing.T) {
	manual.Check(t, manual.Binary{
		Tool:     tool,
		Version:  version,
		Examples: "testdata/manual",
		// The example eval set is small. calibrate says so, and nothing
		// else may go to stderr.
		Quiet:  smallSampleRE,
		Update: *update,
	})
}

// smallSampleRE matches calibrate's small-sample warning lines.
var smallSampleRE = regexp.MustCompile(`(?m)^rag-eval: warning: \w+: fewer than 5 scored members in a class .*\n`)
