// Package trecgen writes random but reproducible TREC qrels and run files
// for benchmarks and for cross-checking package metrics against trec_eval.
// The command tools/trecgen and scripts/bench_trec.py use it.
//
// The files exercise what matters to trec_eval's semantics. They have
// graded judgments 0-3, where grade 0 is judged non-relevant. They have
// judged documents that are not retrieved and retrieved documents that are
// not judged. They have heavily tied scores, so the docno tie-break decides
// ranks. They have a rank column that disagrees with the scores and result
// lines in random order within a query. They have query ids whose byte
// order differs from their numeric order. They have run queries without
// judgments, judged queries without results, and queries without any
// relevant document. The same Config always gives the same bytes.
package trecgen

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
	Queries int // queries in the run (default 20000)
	Docs    int // results per query (default 100)
	Judged  int // judgments per query (default 40)
}

func (c *Config) defaults() {
	if c.Queries == 0 {
		c.Queries = 20000
	}
	if c.Docs == 0 {
		c.Docs = 100
	}
	if c.Judged == 0 {
		c.Judged = 40
	}
}

// Write writes the qrels and the run described by c.
func Write(qrels, run io.Writer, c Config) error {
	c.defaults()
	if c.Queries < 0 || c.Docs < 0 || c.Judged < 0 {
		return fmt.Errorf("%d queries, %d documents, %d judgments: none may be negative", c.Queries, c.Docs, c.Judged)
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x7472656367656e)) // "trecgen"
	qw := bufio.NewWriterSize(qrels, 1<<20)
	rw := bufio.NewWriterSize(run, 1<<20)

	// Query i is "q<i>". The run lists queries in numeric order, not byte
	// order. 2% of the run's queries have no judgments, and 2% more judged
	// queries have no results.
	extra := c.Queries / 50
	var line []byte
	docs := make([]string, 0, c.Docs)
	seen := make(map[string]bool, c.Docs+c.Judged)
	order := make([]int, c.Docs)
	for i := 1; i <= c.Queries+extra; i++ {
		qid := "q" + strconv.Itoa(i)
		inRun := i <= c.Queries
		judged := !inRun || rng.IntN(50) != 0
		clear(seen)
		docs = docs[:0]
		newDoc := func() string {
			for {
				d := "D" + strconv.Itoa(100000+rng.IntN(900000))
				if !seen[d] {
					seen[d] = true
					return d
				}
			}
		}
		if inRun {
			for range c.Docs {
				docs = append(docs, newDoc())
			}
			// Scores on a grid of 64 values: plenty of ties. Lines in
			// random order, rank column a random permutation.
			for j := range order {
				order[j] = j
			}
			rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
			for j, d := range docs {
				score := float64(rng.IntN(64)) / 8
				line = append(line[:0], qid...)
				line = append(line, " Q0 "...)
				line = append(line, d...)
				line = append(line, ' ')
				line = strconv.AppendInt(line, int64(order[j]+1), 10)
				line = append(line, ' ')
				line = strconv.AppendFloat(line, score, 'f', 3, 64)
				line = append(line, " trecgen\n"...)
				if _, err := rw.Write(line); err != nil {
					return err
				}
			}
		}
		if !judged {
			continue
		}
		// About 60% of the judgments are retrieved documents, and the rest
		// are not retrieved. 1% of the queries have no relevant document.
		allZero := rng.IntN(100) == 0
		for j := 0; j < c.Judged; j++ {
			var d string
			if len(docs) > 0 && rng.IntN(5) < 3 {
				d = docs[rng.IntN(len(docs))]
				if seen[d+"#judged"] {
					continue
				}
				seen[d+"#judged"] = true
			} else {
				d = newDoc()
				seen[d+"#judged"] = true
			}
			grade := 0
			if !allZero {
				switch r := rng.IntN(20); {
				case r < 10:
					grade = 0
				case r < 15:
					grade = 1
				case r < 18:
					grade = 2
				default:
					grade = 3
				}
			}
			line = fmt.Appendf(line[:0], "%s 0 %s %d\n", qid, d, grade)
			if _, err := qw.Write(line); err != nil {
				return err
			}
		}
	}
	if err := qw.Flush(); err != nil {
		return err
	}
	return rw.Flush()
}
