package calibrate

import (
	"math"
	"strconv"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

func samples(rel, non []float64) []Sample {
	var s []Sample
	for _, v := range rel {
		s = append(s, Sample{Score: v, Relevant: true})
	}
	for _, v := range non {
		s = append(s, Sample{Score: v})
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestBestThreshold(t *testing.T) {
	check := func(t *testing.T, got *float64, want float64, what string) {
		t.Helper()
		if got == nil {
			t.Fatalf("%s = nil, want %v", what, want)
		}
		if !near(*got, want) {
			t.Errorf("%s = %v, want %v", what, *got, want)
		}
	}
	tests := []struct {
		name                 string
		rel, non             []float64
		t, tpr, fpr, j, prec float64
		tp, fp, fn, tn       int
	}{
		{"worked example", []float64{0.6, 0.7, 0.8}, []float64{0.1, 0.2, 0.3, 0.65},
			0.45, 1, 0.25, 0.75, 0.75, 3, 1, 0, 3},
		{"separable: midpoint of max negative and min positive", []float64{0.5, 0.9, 0.7}, []float64{0.2, 0.1, 0.3},
			0.4, 1, 0, 1, 1, 3, 0, 0, 3},
		{"tie goes to the lowest threshold", []float64{0.4, 0.8}, []float64{0.2, 0.6},
			// Candidates: 0.3 → TPR 1, FPR 1/2, J 1/2. 0.5 → TPR 1/2, FPR 1/2,
			// J 0. 0.7 → TPR 1/2, FPR 0, J 1/2. The lowest wins.
			0.3, 1, 0.5, 0.5, 2.0 / 3, 2, 1, 0, 1},
		{"no separation: keep everything", []float64{0.1, 0.2}, []float64{0.3, 0.4},
			0, 1, 1, 0, 0.5, 2, 2, 0, 0},
		{"equal scores in both classes", []float64{0.5, 0.5, 0.9}, []float64{0.5, 0.1},
			// 0.3 → TPR 1, FPR 1/2, J 1/2. 0.7 → TPR 1/3, FPR 0, J 1/3.
			0.3, 1, 0.5, 0.5, 0.75, 3, 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := BestThreshold(samples(tt.rel, tt.non))
			if !ok {
				t.Fatal("ok = false")
			}
			if !near(r.Threshold, tt.t) {
				t.Errorf("threshold = %v, want %v", r.Threshold, tt.t)
			}
			check(t, r.TPR, tt.tpr, "TPR")
			check(t, r.FPR, tt.fpr, "FPR")
			check(t, r.J, tt.j, "J")
			check(t, r.Precision, tt.prec, "precision")
			if r.TP != tt.tp || r.FP != tt.fp || r.FN != tt.fn || r.TN != tt.tn {
				t.Errorf("TP FP FN TN = %d %d %d %d, want %d %d %d %d", r.TP, r.FP, r.FN, r.TN, tt.tp, tt.fp, tt.fn, tt.tn)
			}
			// The best threshold's rates are those RatesAt computes.
			at := RatesAt(samples(tt.rel, tt.non), r.Threshold)
			if at.TP != r.TP || at.FP != r.FP || at.FN != r.FN || at.TN != r.TN {
				t.Errorf("RatesAt(%v): TP FP FN TN = %d %d %d %d, BestThreshold says %d %d %d %d", r.Threshold, at.TP, at.FP, at.FN, at.TN, r.TP, r.FP, r.FN, r.TN)
			}
		})
	}
}

func TestBestThresholdNeedsBothClasses(t *testing.T) {
	for name, s := range map[string][]Sample{
		"empty":            nil,
		"only relevant":    samples([]float64{0.3, 0.4}, nil),
		"only nonrelevant": samples(nil, []float64{0.3}),
	} {
		if r, ok := BestThreshold(s); ok {
			t.Errorf("%s: ok with %+v", name, r)
		}
	}
}

// TestBestThresholdWrittenReproducesRates pins that the threshold as the
// reports write it (rounded to 6 decimals) keeps exactly the samples the
// reported rates count, even when adjacent scores are 0.000001 apart and
// their midpoint would round onto the lower score.
func TestBestThresholdWrittenReproducesRates(t *testing.T) {
	tests := []struct {
		name     string
		rel, non []float64
		written  string
	}{
		// The midpoint 0.1234565 is written as 0.123456: the published
		// threshold would keep the non-relevant 0.123456 too.
		{"midpoint rounds onto the lower score", []float64{0.123457}, []float64{0.123456}, "0.123457"},
		{"midpoint rounds onto the upper score", []float64{0.000002}, []float64{0.000001}, "0.000002"},
		{"several pairs", []float64{0.300001, 0.5, 0.123457}, []float64{0.1, 0.123456, 0.3}, "0.123457"},
		{"ordinary midpoint unchanged", []float64{0.5}, []float64{0.3}, "0.4"},
		{"more than 6 decimals", []float64{0.1234571}, []float64{0.1234561}, "0.123457"},
		// Keep everything: min(0, lowest score) would be written as 0.
		{"negative lowest score with 7 decimals", []float64{-0.0000004}, []float64{0.2}, "-0.000001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := samples(tt.rel, tt.non)
			r, ok := BestThreshold(s)
			if !ok {
				t.Fatal("ok = false")
			}
			if got := string(contract.AppendFloat6(nil, r.Threshold)); got != tt.written {
				t.Errorf("threshold %v written as %s, want %s", r.Threshold, got, tt.written)
			}
			w := RatesAt(s, contract.Round6(r.Threshold))
			if w.TP != r.TP || w.FP != r.FP || w.FN != r.FN || w.TN != r.TN {
				t.Errorf("at written threshold %v: TP FP FN TN = %d %d %d %d, BestThreshold reports %d %d %d %d",
					contract.Round6(r.Threshold), w.TP, w.FP, w.FN, w.TN, r.TP, r.FP, r.FN, r.TN)
			}
		})
	}
}

func TestBetween(t *testing.T) {
	for _, tt := range []struct{ lo, hi, want float64 }{
		{0.3, 0.5, 0.4},
		{0.123456, 0.123457, 0.123457},
		{0.1234561, 0.1234571, 0.1234566},  // the midpoint is written as 0.123457, in (lo, hi]
		{0.1234561, 0.1234564, 0.12345625}, // no 6-decimal value in (lo, hi]: the midpoint
	} {
		got := between(tt.lo, tt.hi)
		if !near(got, tt.want) {
			t.Errorf("between(%v, %v) = %v, want %v", tt.lo, tt.hi, got, tt.want)
		}
		if got <= tt.lo || got > tt.hi {
			t.Errorf("between(%v, %v) = %v, not in (lo, hi]", tt.lo, tt.hi, got)
		}
	}
}

func TestRatesAtUndefined(t *testing.T) {
	// rate reports a rate that is not want, nil for an undefined one.
	rate := func(what, name string, got *float64, want any) {
		t.Helper()
		switch {
		case got == nil && want != nil:
			t.Errorf("%s: %s undefined, want %v", what, name, want)
		case got != nil && want == nil:
			t.Errorf("%s: %s = %v, want undefined", what, name, *got)
		case got != nil && *got != want.(float64):
			t.Errorf("%s: %s = %v, want %v", what, name, *got, want)
		}
	}
	r := RatesAt(nil, 0.5)
	rate("empty", "TPR", r.TPR, nil)
	rate("empty", "FPR", r.FPR, nil)
	rate("empty", "precision", r.Precision, nil)
	rate("empty", "J", r.J, nil)
	r = RatesAt(samples([]float64{0.2, 0.6}, nil), 0.5)
	rate("only relevant", "TPR", r.TPR, 0.5)
	rate("only relevant", "FPR", r.FPR, nil)
	rate("only relevant", "J", r.J, nil)
	rate("only relevant", "precision", r.Precision, 1.0)
	r = RatesAt(samples([]float64{0.2}, []float64{0.1}), 0.9)
	rate("nothing kept", "precision", r.Precision, nil)
	rate("nothing kept", "TPR", r.TPR, 0.0)
	rate("nothing kept", "J", r.J, 0.0)
	// The threshold is inclusive.
	if r := RatesAt(samples([]float64{0.15}, nil), 0.15); r.TP != 1 {
		t.Errorf("score 0.15 at threshold 0.15: TP %d, want 1: the score kept", r.TP)
	}
}

func TestSummarize(t *testing.T) {
	// stat reports a statistic that is not want, or not within 1e-12 of
	// it when approx is set.
	stat := func(what, name string, got *float64, want float64, approx bool) {
		t.Helper()
		switch {
		case got == nil:
			t.Errorf("%s: %s nil, want %v", what, name, want)
		case approx && !near(*got, want), !approx && *got != want:
			t.Errorf("%s: %s = %v, want %v", what, name, *got, want)
		}
	}
	s := Summarize(nil)
	if s.Count != 0 {
		t.Errorf("empty: count %d, want 0", s.Count)
	}
	for name, v := range map[string]*float64{"min": s.Min, "median": s.Median, "mean": s.Mean, "max": s.Max} {
		if v != nil {
			t.Errorf("empty: %s = %v, want nil", name, *v)
		}
	}
	s = Summarize([]float64{0.4, 0.1, 0.3, 0.2})
	if s.Count != 4 {
		t.Errorf("even: count %d, want 4", s.Count)
	}
	stat("even", "min", s.Min, 0.1, false)
	stat("even", "max", s.Max, 0.4, false)
	stat("even", "median", s.Median, 0.25, true)
	stat("even", "mean", s.Mean, 0.25, true)
	s = Summarize([]float64{0.9, 0.1, 0.2})
	stat("odd", "median", s.Median, 0.2, false)
	stat("odd", "mean", s.Mean, 0.4, true)
}

func TestHistogramEdges(t *testing.T) {
	// Every edge written with two decimals, as fixtures write them, falls
	// in the bin it opens. The value just below it falls in the bin before.
	for i := 0; i < Bins; i++ {
		edge, _ := strconv.ParseFloat(strconv.FormatFloat(float64(i)*0.05, 'f', 2, 64), 64)
		if got := BinOf(edge); got != i {
			t.Errorf("BinOf(%v) = %d, want %d", edge, got, i)
		}
		if i > 0 {
			if got := BinOf(math.Nextafter(edge, 0)); got != i-1 {
				t.Errorf("BinOf(just below %v) = %d, want %d", edge, got, i-1)
			}
		}
	}
	for _, tt := range []struct {
		score float64
		bin   int
	}{{0, 0}, {0.05, 1}, {0.049999, 0}, {0.15, 3}, {0.3, 6}, {0.999999, 19}, {1, 19}, {-0.1, 0}, {1.5, 19}} {
		if got := BinOf(tt.score); got != tt.bin {
			t.Errorf("BinOf(%v) = %d, want %d", tt.score, got, tt.bin)
		}
	}
	h := Histogram(samples([]float64{1, 0.15, 0.15}, []float64{0.05, 0}))
	if len(h) != Bins {
		t.Fatalf("%d bins, want %d", len(h), Bins)
	}
	for _, c := range []struct {
		name      string
		got, want int
	}{{"bin 19 relevant", h[19].Relevant, 1}, {"bin 3 relevant", h[3].Relevant, 2}, {"bin 1 non-relevant", h[1].NonRelevant, 1}, {"bin 0 non-relevant", h[0].NonRelevant, 1}} {
		if c.got != c.want {
			t.Errorf("histogram: %s %d, want %d", c.name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"bin 1 lo", h[1].Lo, 0.05}, {"bin 1 hi", h[1].Hi, 0.1}, {"bin 19 hi", h[19].Hi, 1}, {"bin 0 lo", h[0].Lo, 0}} {
		if c.got != c.want {
			t.Errorf("edges: %s %v, want %v", c.name, c.got, c.want)
		}
	}
	if empty := Histogram(nil); len(empty) != Bins {
		t.Errorf("empty histogram has %d bins", len(empty))
	}
}

func TestROC(t *testing.T) {
	// Scores 0.9 (rel), 0.7 (rel, non), 0.4 (non), 0.2 (rel).
	got := ROC(samples([]float64{0.9, 0.7, 0.2}, []float64{0.7, 0.4}))
	want := []ROCPoint{
		{math.Inf(1), 0, 0}, {0.9, 0, 1.0 / 3}, {0.7, 0.5, 2.0 / 3}, {0.4, 1, 2.0 / 3}, {0.2, 1, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("ROC = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Threshold != want[i].Threshold || !near(got[i].FPR, want[i].FPR) || !near(got[i].TPR, want[i].TPR) {
			t.Errorf("point %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Each point is RatesAt its threshold.
	s := samples([]float64{0.9, 0.7, 0.2}, []float64{0.7, 0.4})
	for _, p := range got[1:] {
		r := RatesAt(s, p.Threshold)
		if !near(*r.TPR, p.TPR) || !near(*r.FPR, p.FPR) {
			t.Errorf("at %v: ROC (%v, %v), RatesAt (%v, %v)", p.Threshold, p.FPR, p.TPR, *r.FPR, *r.TPR)
		}
	}
	if c := ROC(samples([]float64{0.5}, nil)); c != nil {
		t.Errorf("a ROC curve without non-relevant scores: %v, want none", c)
	}
	if c := ROC(samples(nil, []float64{0.5})); c != nil {
		t.Errorf("a ROC curve without relevant scores: %v, want none", c)
	}
}

// Rejected samples, cases that retrieved nothing, count in their class at
// every threshold and are never kept. They move no threshold: the best one
// is the same with and without them, but its rates count them. They are in
// no score summary or histogram, and without a scored member in both
// classes there is no best threshold or ROC.
func TestRejectedSamples(t *testing.T) {
	scored := samples([]float64{0.6, 0.7, 0.8}, []float64{0.1, 0.2, 0.3, 0.65})
	with := append(append([]Sample{}, scored...), Sample{Relevant: true, Rejected: true}, Sample{Rejected: true}, Sample{Rejected: true})

	r := RatesAt(with, 0)
	if r.TP != 3 || r.FN != 1 || r.FP != 4 || r.TN != 2 {
		t.Errorf("at 0: TP %d FN %d FP %d TN %d, want 3 1 4 2", r.TP, r.FN, r.FP, r.TN)
	}
	b0, _ := BestThreshold(scored)
	b, ok := BestThreshold(with)
	if !ok {
		t.Fatal("best: ok = false")
	}
	if b.Threshold != b0.Threshold {
		t.Errorf("best threshold %v with rejected samples, %v without", b.Threshold, b0.Threshold)
	}
	if b.TP != 3 || b.FN != 1 || b.FP != 1 || b.TN != 5 || !near(*b.TPR, 0.75) || !near(*b.FPR, 1.0/6) {
		t.Errorf("best: TP %d FN %d FP %d TN %d, TPR %v FPR %v; want 3 1 1 5, 0.75 1/6", b.TP, b.FN, b.FP, b.TN, *b.TPR, *b.FPR)
	}
	roc := ROC(with)
	if last := roc[len(roc)-1]; !near(last.TPR, 0.75) || !near(last.FPR, 4.0/6) {
		t.Errorf("ROC ends at (FPR %v, TPR %v), want (4/6, 0.75)", last.FPR, last.TPR)
	}
	if s := Summarize(Scores(with, false)); s.Count != 4 || *s.Min != 0.1 {
		t.Errorf("non-relevant scores: count %d, min %v; want 4, 0.1", s.Count, *s.Min)
	}
	n := 0
	for _, bin := range Histogram(with) {
		n += bin.Relevant + bin.NonRelevant
	}
	if n != 7 {
		t.Errorf("histogram counts %d samples, want the 7 scored", n)
	}

	onlyRejected := append(samples([]float64{0.6}, nil), Sample{Rejected: true})
	if _, ok := BestThreshold(onlyRejected); ok {
		t.Error("no scored non-relevant sample: a best threshold, want none")
	}
	if ROC(onlyRejected) != nil {
		t.Error("no scored non-relevant sample: a ROC curve, want none")
	}
	if r := RatesAt(onlyRejected, 0.5); r.FPR == nil || *r.FPR != 0 {
		t.Errorf("rejected non-relevant sample: FPR %v, want 0", r.FPR)
	}
}
