package compare

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/metrics"
	"github.com/ragbaseline/ragbaseline/internal/testkit/rungen"
)

// trecFixture generates qrels and three runs over 60 queries. The second
// run lacks every query whose id ends in 7.
func trecFixture(t *testing.T) (*metrics.Qrels, []*metrics.Run) {
	t.Helper()
	var qb bytes.Buffer
	rb := make([]bytes.Buffer, 3)
	if err := rungen.Write(&qb, []io.Writer{&rb[0], &rb[1], &rb[2]}, rungen.Config{Seed: 3, Queries: 60, Docs: 30, Skills: []float64{0.5, 0.6, 1}}); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(rb[1].String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasSuffix(f[0], "7") {
			kept = append(kept, l)
		}
	}
	rb[1] = *bytes.NewBufferString(strings.Join(kept, ""))
	q, err := metrics.ReadQrels(&qb, "qrels")
	if err != nil {
		t.Fatal(err)
	}
	var runs []*metrics.Run
	for i := range rb {
		r, err := metrics.ReadRun(&rb[i], "run")
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return q, runs
}

// TestTrecMeansAreTrecAllValues: each run's mean of a measure is the "all"
// value rag-eval trec computes, with -c (missing queries count 0) and
// without (they are dropped from the pairs of the run that lacks them).
func TestTrecMeansAreTrecAllValues(t *testing.T) {
	q, runs := trecFixture(t)
	for _, complete := range []bool{false, true} {
		opts := metrics.DefaultOptions("map", "P.5,10", "ndcg_cut.10", "recip_rank", "num_ret", "gm_map", "relstring", "runid")
		opts.Complete = complete
		var trs []TrecRun
		for i, r := range runs {
			res, err := metrics.Eval(opts, q, r)
			if err != nil {
				t.Fatal(err)
			}
			trs = append(trs, TrecRun{Name: string(rune('a' + i)), Path: "r", Result: res})
		}
		rep, err := BuildTrec(TrecInputs{Complete: complete}, q, trs, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		cols := TrecMeasures(trs[0].Result)
		if len(cols) != len(rep.Metrics) || len(rep.Metrics) != 5 {
			t.Fatalf("compared %d measures, want 5 (num_* are counts, gm_map and runid have no per-query value, relstring is text)", len(rep.Metrics))
		}
		for m, c := range cols {
			for s := range trs {
				if got, want := float64(*rep.Metrics[m].Means[s]), trs[s].Result.All[c]; got != want {
					t.Errorf("complete %v: %s mean of %s = %v, trec's all = %v", complete, rep.Metrics[m].Name, trs[s].Name, got, want)
				}
			}
		}
		// a vs b: 6 of the 60 queries are missing from b.
		wantPairs, wantMissing := 54, "dropped"
		if complete {
			wantPairs, wantMissing = 60, "zero"
		}
		if p := rep.Pairs[0].Metrics[0].Pairs; p != wantPairs || rep.Inputs.Missing != wantMissing || rep.Pairs[1].Metrics[0].Pairs != 60 {
			t.Errorf("complete %v: a vs b over %d queries (missing %q), want %d (%q)", complete, p, rep.Inputs.Missing, wantPairs, wantMissing)
		}
		if rep.Sides[1].Missing != 6 {
			t.Errorf("side b: %d missing, want 6", rep.Sides[1].Missing)
		}
		if rep.Sides[1].Queries != 54 {
			t.Errorf("side b: %d queries, want 54", rep.Sides[1].Queries)
		}
		if rep.Method.Family != 15 {
			t.Errorf("family %d, want 3 pairs × 5 measures", rep.Method.Family)
		}
		// c is much better than a: significant on map after adjustment.
		if bt := rep.Metrics[0].BetterThan[2]; len(bt) == 0 || bt[0] != "a" {
			t.Errorf("complete %v: c beats %v on %s, want a among them", complete, bt, rep.Metrics[0].Name)
		}
		var js, md, txt bytes.Buffer
		if err := rep.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		rep.WriteMarkdown(&md)
		rep.WriteText(&txt)
		if want := `"missing": "` + wantMissing + `"`; !bytes.Contains(js.Bytes(), []byte(want)) {
			t.Errorf("JSON lacks %s:\n%s", want, js.String())
		}
		if want := "## a vs b\n"; !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
		if want := "b: 54 queries evaluated, 6 judged queries without results"; !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
}

func TestTrecCountsAloneAreRefused(t *testing.T) {
	q, runs := trecFixture(t)
	res, err := metrics.Eval(metrics.DefaultOptions("num_ret", "num_rel_ret"), q, runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BuildTrec(TrecInputs{}, q, []TrecRun{{Name: "a", Result: res}, {Name: "b", Result: res}}, -1, 0); err == nil || !strings.Contains(err.Error(), "no measure to compare") {
		t.Fatalf("err %v", err)
	}
}
