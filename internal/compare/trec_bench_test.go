package compare

import (
	"bytes"
	"io"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/metrics"
	"github.com/ragbaseline/ragbaseline/internal/testkit/rungen"
)

// BenchmarkTrecCompare: rag-eval trec-compare's work after reading the
// files, for 10 runs × 10,000 queries × 4 measures, so 45 pairs and 180
// tests. It is metrics.Eval of each run, then BuildTrec on every CPU. The
// README's figure comes from
//
//	go test -run '^$' -bench TrecCompare -benchtime 1x ./internal/compare
func BenchmarkTrecCompare(b *testing.B) {
	skills := []float64{0.5, 0.52, 0.54, 0.56, 0.58, 0.6, 0.62, 0.64, 0.66, 0.68}
	var qb bytes.Buffer
	rb := make([]bytes.Buffer, len(skills))
	ws := make([]io.Writer, len(skills))
	for i := range rb {
		ws[i] = &rb[i]
	}
	if err := rungen.Write(&qb, ws, rungen.Config{Seed: 1, Queries: 10_000, Skills: skills}); err != nil {
		b.Fatal(err)
	}
	q, err := metrics.ReadQrels(&qb, "qrels")
	if err != nil {
		b.Fatal(err)
	}
	var runs []*metrics.Run
	for i := range rb {
		r, err := metrics.ReadRun(&rb[i], "run")
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, r)
	}
	opts := metrics.DefaultOptions("map", "P.10", "ndcg_cut.10", "recip_rank")
	for b.Loop() {
		var trs []TrecRun
		for i, r := range runs {
			res, err := metrics.Eval(opts, q, r)
			if err != nil {
				b.Fatal(err)
			}
			trs = append(trs, TrecRun{Name: string(rune('a' + i)), Result: res})
		}
		if _, err := BuildTrec(TrecInputs{}, q, trs, -1, 0); err != nil {
			b.Fatal(err)
		}
	}
}
