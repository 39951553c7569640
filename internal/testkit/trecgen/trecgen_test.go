package trecgen_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/metrics"
	"github.com/ragbaseline/ragbaseline/internal/testkit/trecgen"
)

func TestWriteDeterministic(t *testing.T) {
	gen := func(seed uint64) (q, r []byte) {
		var qb, rb bytes.Buffer
		if err := trecgen.Write(&qb, &rb, trecgen.Config{Seed: seed, Queries: 300, Docs: 50, Judged: 20}); err != nil {
			t.Fatal(err)
		}
		return qb.Bytes(), rb.Bytes()
	}
	q1, r1 := gen(7)
	q2, r2 := gen(7)
	if !bytes.Equal(q1, q2) {
		t.Fatal("same seed, different qrels")
	}
	if !bytes.Equal(r1, r2) {
		t.Fatal("same seed, different runs")
	}
	q3, r3 := gen(8)
	if bytes.Equal(q1, q3) {
		t.Fatal("different seeds, same qrels")
	}
	if bytes.Equal(r1, r3) {
		t.Fatal("different seeds, same runs")
	}

	// The files are valid, have the promised shape and evaluate.
	qrels, err := metrics.ReadQrels(bytes.NewReader(q1), "qrels")
	if err != nil {
		t.Fatal(err)
	}
	run, err := metrics.ReadRun(bytes.NewReader(r1), "run")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(run.QueryIDs()); n != 300 {
		t.Errorf("%d run queries, want 300", n)
	}
	if n := len(run.Ranking("q1")); n != 50 {
		t.Errorf("%d results for q1, want 50", n)
	}
	res, err := metrics.Eval(metrics.DefaultOptions("num_q", "map"), qrels, run)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Queries); n >= 300 || n < 280 {
		t.Errorf("%d evaluated queries, want a few less than 300", n)
	}
	if len(qrels.QueryIDs()) <= len(res.Queries) {
		t.Error("no judged query without results")
	}
}

func TestWriteRejectsNegativeSizes(t *testing.T) {
	for _, c := range []trecgen.Config{{Queries: -1}, {Docs: -1}, {Judged: -1}} {
		if err := trecgen.Write(io.Discard, io.Discard, c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
