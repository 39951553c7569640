package main

import (
	"regexp"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/testkit/manual"
)

// TestManual checks the manual, the package documentation in doc.go,
// against the binary (package manual):
//
//   - "Flags of rag-snapshot:" and "Flags of rag-snapshot serve:" are
//     followed by the flags exactly as --help lists them.
//   - Each "$ rag-snapshot …" example, run in order in one copy of
//     testdata/manual after its seed-docs were seeded with the lexical
//     embedder, prints the lines that follow it and exits as they say.
//     Elapsed times may differ.
//
// go test -update rewrites both from the binary. Review the diff.
func TestManual(t *testing.T) {
	// The help shows the defaults the environment gives.
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
	manual.Check(t, manual.Binary{
		Tool:     tool,
		Version:  version,
		Examples: "testdata/manual",
		Setup: func(t *testing.T) {
			if _, err := seed("eval/rag-retrieval/seed-docs", ".ragbaseline"); err != nil {
				t.Fatal(err)
			}
		},
		Varying: elapsedRE,
		Update:  *update,
	})
}

// elapsedRE matches the elapsed time of rag-snapshot's summary.
var elapsedRE = regexp.MustCompile(`in \d+\.\d\ds`)
