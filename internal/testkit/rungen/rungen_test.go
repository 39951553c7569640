package rungen

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/metrics"
)

func write(t *testing.T, c Config) (string, []string) {
	t.Helper()
	var q bytes.Buffer
	rs := make([]bytes.Buffer, len(c.Skills))
	ws := make([]io.Writer, len(rs))
	for i := range rs {
		ws[i] = &rs[i]
	}
	if err := Write(&q, ws, c); err != nil {
		t.Fatal(err)
	}
	var runs []string
	for i := range rs {
		runs = append(runs, rs[i].String())
	}
	return q.String(), runs
}

func TestSameConfigSameBytes(t *testing.T) {
	c := Config{Seed: 4, Queries: 20, Docs: 10, Skills: []float64{0.5, 1}, Names: []string{"bm25"}}
	q1, r1 := write(t, c)
	q2, r2 := write(t, c)
	if q1 != q2 {
		t.Fatal("two writes of the same config give different qrels")
	}
	for i := range r1 {
		if r1[i] != r2[i] {
			t.Fatalf("two writes of the same config give different run %d", i)
		}
	}
	if n := strings.Count(r1[0], "\n"); n != 200 {
		t.Fatalf("run has %d lines, want 20 queries × 10 documents", n)
	}
	for i, tag := range []string{"bm25", "run2"} {
		if first, _, _ := strings.Cut(r1[i], "\n"); !strings.HasSuffix(first, " "+tag) {
			t.Fatalf("run %d: first line %q, want it to end with the tag %s", i, first, tag)
		}
	}
	if q3, _ := write(t, Config{Seed: 5, Queries: 20, Docs: 10, Skills: []float64{1}}); q3 == q1 {
		t.Fatal("another seed gives the same qrels")
	}
	if err := Write(io.Discard, nil, Config{Skills: []float64{1}}); err == nil {
		t.Fatal("no error for a missing run writer")
	}
	if err := Write(io.Discard, []io.Writer{io.Discard}, Config{Docs: -1, Skills: []float64{1}}); err == nil {
		t.Fatal("no error for -1 documents per query")
	}
}

// The package's promises: the qrels judge every candidate of grade ≥ 1 and
// the first 20 of grade 0, every run retrieves every candidate, and a
// higher skill is a better run.
func TestKnownQuality(t *testing.T) {
	c := Config{Seed: 2, Queries: 200, Docs: 60, Skills: []float64{0, 0.5, 2}}
	q, runs := write(t, c)
	qrels, err := metrics.ReadQrels(strings.NewReader(q), "qrels")
	if err != nil {
		t.Fatal(err)
	}
	for _, qid := range qrels.QueryIDs() {
		zeros, rel := 0, 0
		for _, g := range qrels.Judgments(qid) {
			if g == 0 {
				zeros++
			} else {
				rel++
			}
		}
		if zeros != min(20, c.Docs-rel) {
			t.Fatalf("%s: %d judged non-relevant of %d candidates with %d relevant, want 20 (or every non-relevant one)", qid, zeros, c.Docs, rel)
		}
	}
	prev := -1.0
	for s, r := range runs {
		run, err := metrics.ReadRun(strings.NewReader(r), "run")
		if err != nil {
			t.Fatal(err)
		}
		if n := len(run.Ranking("q1")); n != c.Docs {
			t.Fatalf("run %d retrieves %d documents of q1, want all %d", s+1, n, c.Docs)
		}
		res, err := metrics.Eval(metrics.DefaultOptions("map"), qrels, run)
		if err != nil {
			t.Fatal(err)
		}
		if res.Columns[0].Name != "map" {
			t.Fatalf("column %q, want map", res.Columns[0].Name)
		}
		m := res.All[0]
		if m <= prev {
			t.Errorf("skill %g: map %g, not above skill %g's %g", c.Skills[s], m, c.Skills[s-1], prev)
		}
		prev = m
	}
}
