// Command trecgen writes a reproducible random TREC qrels file and run
// file, by package internal/testkit/trecgen. They serve for benchmarking
// rag-eval trec and for cross-checking it against trec_eval or pytrec_eval:
//
//	go run ./tools/trecgen -seed 1 -queries 20000 -qrels /tmp/q.txt -run /tmp/r.txt
//	python3 scripts/bench_trec.py /tmp/q.txt /tmp/r.txt
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/testkit/trecgen"
)

func main() {
	var c trecgen.Config
	flag.Uint64Var(&c.Seed, "seed", 1, "random seed")
	flag.IntVar(&c.Queries, "queries", 20000, "queries in the run")
	flag.IntVar(&c.Docs, "docs", 100, "results per query")
	flag.IntVar(&c.Judged, "judged", 40, "judgments per query")
	qrelsPath := flag.String("qrels", "qrels.txt", "qrels file to write")
	runPath := flag.String("run", "run.txt", "run file to write")
	flag.Parse()
	if err := write(*qrelsPath, *runPath, c); err != nil {
		fmt.Fprintln(os.Stderr, "trecgen:", err)
		os.Exit(1)
	}
}

// write writes both files or neither (an error leaves no half-written one).
func write(qrelsPath, runPath string, c trecgen.Config) error {
	return atomicfile.WriteAll([]string{qrelsPath, runPath}, 0o644, func(ws []io.Writer) error {
		return trecgen.Write(ws[0], ws[1], c)
	})
}
