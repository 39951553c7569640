package metrics

import (
	"bytes"
	"io"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/testkit/trecgen"
)

// BenchmarkTrec measures what rag-eval trec does (read both files, evaluate
// the measures of scripts/bench_trec.py, print -q output) on generated data:
// 2,000 queries × 100 results, 40 graded judgments each.
func BenchmarkTrec(b *testing.B) {
	benchTrec(b, "num_ret", "num_rel", "num_rel_ret", "map", "recip_rank", "Rprec",
		"P.5,10,20", "recall.5,10,100", "ndcg_cut.5,10,20", "success.1,5,10")
}

// BenchmarkTrecAllTrec is BenchmarkTrec with -m all_trec.
func BenchmarkTrecAllTrec(b *testing.B) { benchTrec(b, "all_trec") }

func benchTrec(b *testing.B, measures ...string) {
	var qrels, run bytes.Buffer
	if err := trecgen.Write(&qrels, &run, trecgen.Config{Seed: 1, Queries: 2000}); err != nil {
		b.Fatal(err)
	}
	opts := DefaultOptions(measures...)
	b.SetBytes(int64(qrels.Len() + run.Len()))
	b.ReportAllocs()
	for b.Loop() {
		q, err := ReadQrels(bytes.NewReader(qrels.Bytes()), "qrels")
		if err != nil {
			b.Fatal(err)
		}
		r, err := ReadRun(bytes.NewReader(run.Bytes()), "run")
		if err != nil {
			b.Fatal(err)
		}
		res, err := Eval(opts, q, r)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteText(io.Discard, res, TextOptions{PerQuery: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPerQuery measures the judge's per-query functions on a 100-document
// ranking with 40 judgments.
func BenchmarkPerQuery(b *testing.B) {
	ranking := make([]string, 100)
	j := Judgments{}
	for i := range ranking {
		ranking[i] = "doc" + string(rune('A'+i%26)) + string(rune('a'+i/26))
		if i%5 == 0 {
			j[ranking[i]] = i % 4
		}
	}
	for i := range 20 {
		j["unretrieved"+string(rune('a'+i))] = 1 + i%3
	}
	b.ReportAllocs()
	for b.Loop() {
		RecipRank(ranking, j, 1)
		PrecisionAt(ranking, j, 1, 10)
		RecallAt(ranking, j, 1, 10)
		NDCGCutAt(ranking, j, 10)
	}
}
