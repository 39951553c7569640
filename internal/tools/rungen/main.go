// Command rungen writes synthetic TREC qrels and runs of systems of known
// quality over the same queries (package internal/compare/rungen), for
// rag-eval trec-compare's worked example and for cross-checking its
// statistics against scipy and ranx:
//
//	go run ./internal/tools/rungen -queries 500 -skills 0.6,0.62,0.66 -dir /tmp/cmp
//
// writes /tmp/cmp/qrels.txt and /tmp/cmp/run1.txt … (one per skill).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/compare/rungen"
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var files []*os.File
	var ws []io.Writer
	q, err := os.Create(filepath.Join(dir, "qrels.txt"))
	if err != nil {
		return err
	}
	files = append(files, q)
	for i := range c.Skills {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("run%d.txt", i+1)))
		if err != nil {
			return err
		}
		files, ws = append(files, f), append(ws, f)
	}
	err = rungen.Write(q, ws, c)
	for _, f := range files {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
