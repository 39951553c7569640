package rungen

import (
	"bytes"
	"io"
	"strings"
	"testing"
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
	if q1 != q2 || r1[0] != r2[0] || r1[1] != r2[1] {
		t.Fatal("two writes of the same config differ")
	}
	if n := strings.Count(r1[0], "\n"); n != 200 {
		t.Fatalf("run has %d lines, want 20 queries × 10 documents", n)
	}
	if !strings.HasSuffix(strings.SplitN(r1[0], "\n", 2)[0], " bm25") || !strings.HasSuffix(strings.SplitN(r1[1], "\n", 2)[0], " run2") {
		t.Fatalf("tags: %q, %q", strings.SplitN(r1[0], "\n", 2)[0], strings.SplitN(r1[1], "\n", 2)[0])
	}
	if q3, _ := write(t, Config{Seed: 5, Queries: 20, Docs: 10, Skills: []float64{1}}); q3 == q1 {
		t.Fatal("another seed gives the same qrels")
	}
	if err := Write(io.Discard, nil, Config{Skills: []float64{1}}); err == nil {
		t.Fatal("no error for a missing run writer")
	}
}
