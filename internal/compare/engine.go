package compare

import (
	"fmt"
	"math"
	"runtime"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// Table is what the statistics engine compares: a value per side, metric
// and item. An item is a golden case or a TREC query. Values[s][m][i] is
// side s's value of metric m on item i, NaN when the side has no value
// there. Values[s] is nil when side s is unavailable. Every available side
// has the same items in the same order.
type Table struct {
	Sides   []string
	Metrics []string
	Values  [][][]float64
}

// AllPairs returns every pair of n sides, (i, j) with i < j, in the order
// (0, 1), (0, 2), …, (0, n−1), (1, 2), …: Δ is side i − side j.
func AllPairs(n int) [][2]int {
	var out [][2]int
	for i := range n {
		for j := i + 1; j < n; j++ {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// BaselinePairs returns every side against side base, (i, base) for each
// i ≠ base in side order: Δ is side i − the baseline.
func BaselinePairs(n, base int) [][2]int {
	var out [][2]int
	for i := range n {
		if i != base {
			out = append(out, [2]int{i, base})
		}
	}
	return out
}

// Comparison is the statistics part of a report, common to rag-eval
// compare and rag-eval trec-compare. Field order is the JSON key order.
type Comparison struct {
	// Baseline is the side every other side was compared with (--baseline),
	// null when every pair of sides was compared.
	Baseline *string `json:"baseline"`
	// Metrics is the summary table: per metric, each side's mean and the
	// sides it is significantly better than.
	Metrics []MetricSummary `json:"metrics"`
	// Pairs are the compared pairs, in AllPairs or BaselinePairs order.
	Pairs []Pair `json:"pairs"`
}

// MetricSummary is one metric across the sides. Means[s] is side s's mean
// over the items where it has a value. It is null when the side is
// unavailable or has none. BetterThan[s] names, in side order, the sides
// that side s beats significantly. Side s beats a side when the two are a
// compared pair whose pAdjusted is below Significance and whose Δ favours
// s.
type MetricSummary struct {
	Name       string             `json:"name"`
	Means      []*contract.Float6 `json:"means"`
	BetterThan [][]string         `json:"betterThan"`
}

// Pair is the comparison of side A with side B, metric by metric.
type Pair struct {
	A       string   `json:"a"`
	B       string   `json:"b"`
	Metrics []Metric `json:"metrics"`
}

// Metric is one metric's paired comparison of a pair's sides. A and B are
// the means over the pairs of items. When the other side is unavailable, a
// side's mean is over its own valued items. Delta is the mean of a − b over
// the pairs. Every value is null when it has nothing to be computed from.
type Metric struct {
	Name  string              `json:"name"`
	A     *contract.Float6    `json:"a"`
	B     *contract.Float6    `json:"b"`
	Delta *contract.Float6    `json:"delta"`
	CI95  *[2]contract.Float6 `json:"ci95"`
	// PValue is the randomization test's p-value. PAdjusted is its Holm
	// adjustment over every p-value of the report. That family is every
	// pair × metric that has one.
	PValue    *contract.Float6 `json:"pValue"`
	PAdjusted *contract.Float6 `json:"pAdjusted"`
	Pairs     int              `json:"pairs"`
	// NonZero counts the pairs whose difference is not 0: only they can
	// move the randomization test, whose p-value cannot go below
	// 2/2^NonZero (nor 1/10,001).
	NonZero int `json:"nonZero"`
	// Wins, Ties and Losses count the pairs where a − b is above, at and
	// below 0 (Wins + Losses = NonZero).
	Wins   int `json:"wins"`
	Ties   int `json:"ties"`
	Losses int `json:"losses"`
	// TTestP is the paired t-test's two-sided p-value (TTest), a secondary
	// reference: significance is the randomization test's. Null with fewer
	// than 2 pairs.
	TTestP *contract.Float6 `json:"tTestP"`

	p, pAdj float64 // unrounded, for Holm and Significant
}

// Significance is the adjusted p-value below which a difference is
// significant (Δ in bold in the Markdown, starred in the text, a letter in
// the summary table).
const Significance = 0.05

// Significant reports whether the metric's difference has an adjusted
// p-value below Significance.
func (m *Metric) Significant() bool { return m.PAdjusted != nil && m.pAdj < Significance }

// Analyze compares the sides of t pair by pair, and adjusts every p-value
// of the result together (Holm). pairs come from AllPairs or
// BaselinePairs. baseline is the baseline side's index, −1 for none.
//
// Each pair draws from its own source, NewSource(), metric by metric in
// the order of t.Metrics, bootstrap first, then the randomization test. A
// comparison of those two sides alone would draw the same. So a pair's
// numbers, but the adjusted p-values, do not depend on the other sides, on
// their order, or on how many pairs are computed at once. Pairs are
// computed on up to workers goroutines, one per CPU for 0. The result is
// the same bytes for any number.
func Analyze(t *Table, pairs [][2]int, baseline, workers int) Comparison {
	var c Comparison
	if baseline >= 0 {
		c.Baseline = &t.Sides[baseline]
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	c.Pairs = make([]Pair, len(pairs))
	diffs := make([][][]float64, len(pairs))
	groups := map[string][]int{}
	var order []string
	for k, p := range pairs {
		c.Pairs[k], diffs[k] = preparePair(t, p[0], p[1])
		sig := fmt.Sprint(lens(diffs[k]))
		if _, ok := groups[sig]; !ok {
			order = append(order, sig)
		}
		groups[sig] = append(groups[sig], k)
	}
	// Pairs with the same numbers of pairs per metric draw the same numbers
	// from their sources: one source per group serves them all.
	for _, sig := range order {
		members := groups[sig]
		rng := NewSource()
		for m := range t.Metrics {
			if len(diffs[members[0]][m]) == 0 {
				continue
			}
			ds := make([][]float64, len(members))
			for i, k := range members {
				ds[i] = diffs[k][m]
			}
			for i, st := range groupStats(ds, rng, workers) {
				mt := &c.Pairs[members[i]].Metrics[m]
				mt.p = st.P
				mt.Delta, mt.PValue = fl(st.Delta), fl(st.P)
				mt.CI95 = &[2]contract.Float6{contract.Float6(zero(st.CI95[0])), contract.Float6(zero(st.CI95[1]))}
			}
		}
	}

	// Holm over the family: every metric of every pair with a p-value.
	var ps []float64
	var refs []*Metric
	for k := range c.Pairs {
		for m := range c.Pairs[k].Metrics {
			if mt := &c.Pairs[k].Metrics[m]; mt.PValue != nil {
				ps, refs = append(ps, mt.p), append(refs, mt)
			}
		}
	}
	for i, adj := range Holm(ps) {
		refs[i].pAdj = adj
		refs[i].PAdjusted = fl(adj)
	}

	for m, name := range t.Metrics {
		ms := MetricSummary{Name: name, Means: make([]*contract.Float6, len(t.Sides)), BetterThan: make([][]string, len(t.Sides))}
		better := make([][]bool, len(t.Sides))
		for s := range t.Sides {
			better[s] = make([]bool, len(t.Sides))
			ms.BetterThan[s] = []string{}
			if t.Values[s] != nil {
				ms.Means[s] = ownMean(t.Values[s][m])
			}
		}
		for k, p := range pairs {
			mt := &c.Pairs[k].Metrics[m]
			if !mt.Significant() {
				continue
			}
			if float64(*mt.Delta) > 0 {
				better[p[0]][p[1]] = true
			} else if float64(*mt.Delta) < 0 {
				better[p[1]][p[0]] = true
			}
		}
		for s := range t.Sides {
			for o := range t.Sides {
				if better[s][o] {
					ms.BetterThan[s] = append(ms.BetterThan[s], t.Sides[o])
				}
			}
		}
		c.Metrics = append(c.Metrics, ms)
	}
	return c
}

// preparePair pairs the values of sides a and b metric by metric: it
// returns the pair with everything but the statistics of the differences,
// and the differences a − b of each metric (nil where there is nothing to
// test).
func preparePair(t *Table, a, b int) (Pair, [][]float64) {
	p := Pair{A: t.Sides[a], B: t.Sides[b]}
	ds := make([][]float64, len(t.Metrics))
	for m, name := range t.Metrics {
		var av, bv []float64
		if t.Values[a] != nil {
			av = t.Values[a][m]
		}
		if t.Values[b] != nil {
			bv = t.Values[b][m]
		}
		var mt Metric
		mt, ds[m] = pairMetric(name, av, bv)
		p.Metrics = append(p.Metrics, mt)
	}
	return p, ds
}

func lens(ds [][]float64) []int {
	out := make([]int, len(ds))
	for i, d := range ds {
		out[i] = len(d)
	}
	return out
}

// pairMetric pairs the values of both sides (nil: unavailable) and returns
// the metric without its statistics, and the differences to test. With one
// side unavailable only the other side's mean is reported.
func pairMetric(name string, a, b []float64) (Metric, []float64) {
	m := Metric{Name: name}
	switch {
	case a == nil && b == nil:
		return m, nil
	case a == nil:
		m.B = ownMean(b)
		return m, nil
	case b == nil:
		m.A = ownMean(a)
		return m, nil
	}
	var as, bs, d []float64
	for i := range a {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			as, bs, d = append(as, a[i]), append(bs, b[i]), append(d, a[i]-b[i])
		}
	}
	m.Pairs = len(d)
	if len(d) == 0 {
		return m, nil
	}
	m.Wins, m.Ties, m.Losses = WinTieLoss(d)
	m.NonZero = m.Wins + m.Losses
	m.A, m.B = fl(mean(as)), fl(mean(bs))
	if tp, ok := TTest(d); ok {
		m.TTestP = fl(tp)
	}
	return m, d
}

// ownMean is the mean of the values that are not NaN, nil when there is none.
func ownMean(xs []float64) *contract.Float6 {
	var s float64
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += x
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return fl(s / float64(n))
}

func fl(v float64) *contract.Float6 {
	f := contract.Float6(zero(v))
	return &f
}

// zero turns −0 into 0, so that a report never prints "-0".
func zero(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}
