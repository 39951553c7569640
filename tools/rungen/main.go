// Command rungen writes synthetic TREC qrels and runs of systems of known
// quality over the same queries, by package internal/testkit/rungen. They
// serve rag-eval trec-compare's worked example and the cross-check of its
// statistics against scipy and ranx:
//
//	go run ./tools/rungen -queries 500 -skills 0.6,0.62,0.66 -dir /tmp/cmp
//
// writes /tmp/cmp/qrels.txt and one run per skill, /tmp/cmp/run1.txt ….
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/testkit/rungen"
)

func main() {
	var c rungen.Config
	flag.Uint64Var(&c.Seed, "seed", 1, "random seed")
	flag.IntVar(&c.Queries, "queries", 500, "queries")
	flag.IntVar(&c.Docs, "docs", 100, "candidate documents per query, all retrieved")
	skills := flag.String("skills", "0.6,0.62,0.66", "comma-separated skill of each run")
	dir := flag.String("dir", ".", "directory to write qrels.txt and run<N>.txt into")
	flag.Parse()
	if err := run(c, *skills, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "rungen:", err)
		os.Exit(1)
	}
}

func run(c rungen.Config, skills, dir string) error {
	for _, s := range strings.Split(skills, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("-skills %q: %w", skills, err)
		}
		c.Skills = append(c.Skills, v)
	}
	paths := []string{filepath.Join(dir, "qrels.txt")}
	for i := range c.Skills {
		paths = append(paths, filepath.Join(dir, fmt.Sprintf("run%d.txt", i+1)))
	}
	// All the files or none: an error leaves no half-written qrels or run.
	return atomicfile.WriteAll(paths, 0o644, func(ws []io.Writer) error {
		return rungen.Write(ws[0], ws[1:], c)
	})
}
