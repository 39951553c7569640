// Package rungen writes reproducible synthetic TREC qrels and runs of
// systems of known, different quality over the same queries. They are the
// input of rag-eval trec-compare's benchmark and of the README's worked
// comparison. The command tools/rungen writes them.
//
// Query i, from 1, is "q<i>" with Docs candidate documents "q<i>-d<j>".
// Each candidate's grade is 0 for 70% of them, 1 for 15%, 2 for 10% and 3
// for 5%. The qrels judge every candidate of grade ≥ 1 and the first 20 of
// grade 0. Run s retrieves every candidate of every query with the score
// Skills[s]·grade + ε, ε standard normal. Scores are printed with 9
// decimals, so no two scores of a query tie in practice. A run is tagged
// "run<s+1>" unless Names says otherwise. A higher skill ranks relevant
// documents higher. The same Config always gives the same bytes.
package rungen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// Config describes the files to generate.
type Config struct {
	Seed    uint64
	Queries int       // queries (default 500)
	Docs    int       // candidates per query, all retrieved (default 100)
	Skills  []float64 // one per run
	Names   []string  // run tags (default run1, run2, …)
}

// Write writes the qrels and one run per skill. runs must have
// len(c.Skills) writers.
func Write(qrels io.Writer, runs []io.Writer, c Config) error {
	if c.Queries == 0 {
		c.Queries = 500
	}
	if c.Docs == 0 {
		c.Docs = 100
	}
	if c.Queries < 0 || c.Docs < 0 {
		return fmt.Errorf("%d queries of %d documents: neither may be negative", c.Queries, c.Docs)
	}
	if len(runs) != len(c.Skills) {
		return fmt.Errorf("rungen: %d run writers for %d skills", len(runs), len(c.Skills))
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x72756e67656e)) // "rungen"
	qw := bufio.NewWriterSize(qrels, 1<<20)
	rws := make([]*bufio.Writer, len(runs))
	for s := range runs {
		rws[s] = bufio.NewWriterSize(runs[s], 1<<20)
	}
	grades := make([]int, c.Docs)
	var line []byte
	for q := 1; q <= c.Queries; q++ {
		qid := "q" + strconv.Itoa(q)
		zeros := 0
		for j := range grades {
			g := 0
			switch u := rng.Float64(); {
			case u < 0.05:
				g = 3
			case u < 0.15:
				g = 2
			case u < 0.30:
				g = 1
			}
			grades[j] = g
			if g > 0 || zeros < 20 {
				if g == 0 {
					zeros++
				}
				line = fmt.Appendf(line[:0], "%s 0 %s-d%d %d\n", qid, qid, j, g)
				qw.Write(line)
			}
		}
		for s, skill := range c.Skills {
			tag := "run" + strconv.Itoa(s+1)
			if s < len(c.Names) {
				tag = c.Names[s]
			}
			for j, g := range grades {
				score := skill*float64(g) + rng.NormFloat64()
				line = fmt.Appendf(line[:0], "%s Q0 %s-d%d %d %.9f %s\n", qid, qid, j, j+1, score, tag)
				rws[s].Write(line)
			}
		}
	}
	if err := qw.Flush(); err != nil {
		return err
	}
	for _, w := range rws {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}
