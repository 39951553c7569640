// Command benchcorpus writes the synthetic seed corpus of the seed and
// lookup benchmarks into a directory, for the fault-injection and load
// scripts. kbtest.WriteBenchCorpus makes it. It writes -docs documents of
// -sections sections of about 500 characters, one chunk each,
// deterministically.
//
//	go run ./tools/benchcorpus -docs 2000 -sections 7 -out .ragbaseline/faults/docs
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

func main() {
	docs := flag.Int("docs", 2000, "number of documents")
	sections := flag.Int("sections", 7, "sections (chunks) per document")
	scope := flag.String("kb-scope", "rag-eval", "kb_scope of every document")
	out := flag.String("out", "", "output directory (created; must be empty or missing)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "benchcorpus: -out is required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "benchcorpus:", err)
		os.Exit(1)
	}
	if err := kbtest.WriteBenchCorpusDir(*out, *scope, *docs, *sections); err != nil {
		fmt.Fprintln(os.Stderr, "benchcorpus:", err)
		os.Exit(1)
	}
}
