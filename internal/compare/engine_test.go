package compare

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// The comparison as it was computed before it had more than two sides, kept
// verbatim as the reference: one math/rand/v2 source for the whole
// comparison, metric after metric, every index drawn one after the other,
// the 97.5% bound by Quantile.
func refPaired(d []float64, rng *rand.Rand) Paired {
	return Paired{Delta: mean(d), CI95: refBootstrap(d, Resamples, rng), P: refSignFlip(d, Permutations, rng)}
}

func refBootstrap(d []float64, b int, rng *rand.Rand) [2]float64 {
	n := len(d)
	means := make([]float64, b)
	for i := range means {
		var s float64
		for range n {
			s += d[refIntN(rng, uint64(n))]
		}
		means[i] = s / float64(n)
	}
	slices.Sort(means)
	return [2]float64{quantile(means, 0.025), quantile(means, 0.975)}
}

func refIntN(rng *rand.Rand, n uint64) uint64 {
	hi, lo := bits.Mul64(rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(rng.Uint64(), n)
		}
	}
	return hi
}

func refSignFlip(d []float64, perms int, rng *rand.Rand) float64 {
	var obs, abs float64
	for _, v := range d {
		obs += v
		abs += math.Abs(v)
	}
	limit := math.Abs(obs) - 1e-12*(1+abs)
	hits := 0
	for range perms {
		var s float64
		var bits uint64
		for i, v := range d {
			if i%64 == 0 {
				bits = rng.Uint64()
			}
			if bits&1 == 1 {
				s -= v
			} else {
				s += v
			}
			bits >>= 1
		}
		if math.Abs(s) >= limit {
			hits++
		}
	}
	return float64(hits+1) / float64(perms+1)
}

func TestPCGIsMathRandPCG(t *testing.T) {
	for _, seed := range [][2]uint64{{1, 2}, {0, 0}, {math.MaxUint64, 12345}} {
		ours, theirs := NewPCG(seed[0], seed[1]), rand.NewPCG(seed[0], seed[1])
		for i := range 100_000 {
			if a, b := ours.Uint64(), theirs.Uint64(); a != b {
				t.Fatalf("seed %v draw %d: %x, math/rand/v2 %x", seed, i, a, b)
			}
		}
	}
	for _, k := range []uint64{0, 1, 2, 3, 63, 64, 1000, 12_345} {
		jumped, walked := NewSource(), NewSource()
		jumped.Advance(k)
		for range k {
			walked.Uint64()
		}
		if *jumped != *walked {
			t.Fatalf("Advance(%d) = %v, %d draws = %v", k, *jumped, k, *walked)
		}
	}
}

// TestKernelsAreTheSequentialProcedure: Bootstrap and SignFlip, the
// documented procedure on type PCG, give the two-side code's results on
// math/rand/v2 bit for bit (the 97.5% bound to within rounding: it is
// interpolated from the other end), and leave the source where its draws
// would.
func TestKernelsAreTheSequentialProcedure(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{1, 2, 3, 5, 63, 64, 65, 100, 129, 1000} {
		for _, b := range []int{1, 3, 4, 7, 1000} {
			d := make([]float64, n)
			for i := range d {
				d[i] = math.Round(r.NormFloat64()*8) / 8
				if i%3 == 0 {
					d[i] = r.Float64() - 0.4
				}
			}
			ours, ref := NewSource(), rand.New(rand.NewPCG(Seed1, Seed2))
			got, want := Bootstrap(d, b, ours), refBootstrap(d, b, ref)
			if got[0] != want[0] || math.Abs(got[1]-want[1]) > 1e-12 {
				t.Fatalf("n %d b %d: bootstrap %v, sequential %v", n, b, got, want)
			}
			if gp, wp := SignFlip(d, b, ours), refSignFlip(d, b, ref); gp != wp {
				t.Fatalf("n %d perms %d: p %v, sequential %v", n, b, gp, wp)
			}
			if a, c := ours.Uint64(), ref.Uint64(); a != c {
				t.Fatalf("n %d b %d: the source is not where the sequential draws leave it", n, b)
			}
		}
	}
}

// TestIntervalIsMirrorSymmetric: swapping the sides negates the bootstrap
// means exactly, and the interval is then exactly the mirrored one.
func TestIntervalIsMirrorSymmetric(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := 1 + r.IntN(300)
		xs, neg := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i] = math.Round(r.NormFloat64()*16) / 48
		}
		slices.Sort(xs)
		for i := range xs {
			neg[n-1-i] = -xs[i]
		}
		a, b := Interval(xs), Interval(neg)
		if a[0] != -b[1] || a[1] != -b[0] {
			t.Fatalf("interval %v, of the negation %v", a, b)
		}
		if q := quantile(xs, 0.975); math.Abs(q-a[1]) > 1e-12 || quantile(xs, 0.025) != a[0] {
			t.Fatalf("interval %v, type-7 quantiles %v %v", a, quantile(xs, 0.025), q)
		}
	}
}

// TestTwoSidesAreTodaysComparison: on the shipped eval set, the two-side
// reports of make eval give exactly the numbers of the comparison as it was
// computed with two sides only (refPaired, one source for the whole
// comparison).
func TestTwoSidesAreTodaysComparison(t *testing.T) {
	const set = "../../eval/rag-retrieval"
	g, _, err := cmdutil.LoadCases(set + "/cases/golden-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, dirs := range [][2]string{{"fixtures", "fixtures-dense"}, {"fixtures", "fixtures-local"}} {
		var sides []Side
		for _, d := range dirs {
			s, err := LoadSide(d, set+"/"+d, g, judge.Options{})
			if err != nil || s.Result == nil {
				t.Fatalf("%s: %v %s", d, err, s.Reason)
			}
			sides = append(sides, s)
		}
		r := Build(in, sides, -1, 0)
		rng := rand.New(rand.NewPCG(Seed1, Seed2))
		for m, name := range Metrics {
			var d []float64
			for i := range sides[0].Result.Cases {
				a, aok := Value(name, &sides[0].Result.Cases[i])
				b, bok := Value(name, &sides[1].Result.Cases[i])
				if aok && bok {
					d = append(d, a-b)
				}
			}
			want := refPaired(d, rng)
			got := r.Pairs[0].Metrics[m]
			// The reports print 6 decimals: those are the numbers.
			r6 := func(f contract.Float6) float64 { return contract.Round6(float64(f)) }
			if r6(*got.Delta) != contract.Round6(want.Delta) || r6(*got.PValue) != contract.Round6(want.P) ||
				r6(got.CI95[0]) != contract.Round6(want.CI95[0]) || r6(got.CI95[1]) != contract.Round6(want.CI95[1]) || got.Pairs != len(d) {
				t.Errorf("%v %s: delta %v ci %v p %v; two-side reference %v", dirs, name, *got.Delta, *got.CI95, *got.PValue, want)
			}
		}
	}
}

// table builds a random Table: sides with values on a grid (ties happen),
// some values missing, side unavailable[s] nil.
func table(r *rand.Rand, sides, metrics, items int, unavailable map[int]bool) *Table {
	t := &Table{}
	for m := range metrics {
		t.Metrics = append(t.Metrics, fmt.Sprintf("m%d", m))
	}
	for s := range sides {
		t.Sides = append(t.Sides, fmt.Sprintf("side%d", s))
		if unavailable[s] {
			t.Values = append(t.Values, nil)
			continue
		}
		vals := make([][]float64, metrics)
		skill := r.Float64() * 0.3
		for m := range vals {
			vals[m] = make([]float64, items)
			for i := range vals[m] {
				v := math.Round((skill+r.Float64())*10) / 10
				if r.IntN(20) == 0 {
					v = math.NaN()
				}
				vals[m][i] = v
			}
		}
		t.Values = append(t.Values, vals)
	}
	return t
}

func findPair(c Comparison, a, b string) (Pair, bool) {
	for _, p := range c.Pairs {
		if p.A == a && p.B == b {
			return p, true
		}
	}
	return Pair{}, false
}

// TestRunOrderDoesNotChangeAPair: permuting the sides changes no pair's
// numbers, nor the side means and the significance letters. A pair read
// the other way round has Δ negated, the interval mirrored, wins and losses
// swapped, and the same p and adjusted p. The number of workers changes
// nothing either.
func TestRunOrderDoesNotChangeAPair(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 6 {
		t0 := table(r, 4, 3, 30+trial*20, map[int]bool{3: trial%3 == 0})
		base := Analyze(t0, AllPairs(4), -1, 1)
		for range 3 {
			perm := r.Perm(4)
			tp := &Table{Metrics: t0.Metrics}
			for _, s := range perm {
				tp.Sides = append(tp.Sides, t0.Sides[s])
				tp.Values = append(tp.Values, t0.Values[s])
			}
			got := Analyze(tp, AllPairs(4), -1, 1+trial%3)
			for _, p := range base.Pairs {
				q, same := findPair(got, p.A, p.B)
				if !same {
					if q, _ = findPair(got, p.B, p.A); q.A == "" {
						t.Fatalf("pair %s, %s missing", p.A, p.B)
					}
				}
				for m := range p.Metrics {
					a, b := p.Metrics[m], q.Metrics[m]
					if !same {
						b.A, b.B, b.Wins, b.Losses = b.B, b.A, b.Losses, b.Wins
						if b.Delta != nil {
							b.Delta = fl(-float64(*b.Delta))
							b.CI95 = &[2]contract.Float6{-b.CI95[1], -b.CI95[0]}
						}
					}
					if fmt.Sprint(a.view()) != fmt.Sprint(b.view()) {
						t.Fatalf("trial %d perm %v pair %s/%s %s: %v, permuted %v", trial, perm, p.A, p.B, a.Name, a.view(), b.view())
					}
				}
			}
			for m := range base.Metrics {
				for s, name := range t0.Sides {
					ps := slices.Index(tp.Sides, name)
					if fmt.Sprint(deref(base.Metrics[m].Means[s])) != fmt.Sprint(deref(got.Metrics[m].Means[ps])) ||
						!slices.Equal(sortedCopy(base.Metrics[m].BetterThan[s]), sortedCopy(got.Metrics[m].BetterThan[ps])) {
						t.Fatalf("metric %d side %s: summary differs after permuting", m, name)
					}
				}
			}
		}
	}
}

func sortedCopy(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

func deref(f *contract.Float6) any {
	if f == nil {
		return nil
	}
	return zero(float64(*f))
}

// view is what a metric reports, dereferenced, for comparisons.
func (m Metric) view() []any {
	var ci any
	if m.CI95 != nil {
		ci = [2]float64{zero(float64(m.CI95[0])), zero(float64(m.CI95[1]))}
	}
	return []any{m.Name, deref(m.A), deref(m.B), deref(m.Delta), ci, deref(m.PValue), deref(m.PAdjusted), m.Pairs, m.NonZero, m.Wins, m.Ties, m.Losses, deref(m.TTestP)}
}

// TestAPairIsItsTwoSideComparison: a pair of an N-way comparison has the
// numbers (all but the adjusted p) of the comparison of its two sides alone.
func TestAPairIsItsTwoSideComparison(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	t3 := table(r, 3, 4, 80, nil)
	all := Analyze(t3, AllPairs(3), -1, 0)
	for _, p := range AllPairs(3) {
		two := &Table{Sides: []string{t3.Sides[p[0]], t3.Sides[p[1]]}, Metrics: t3.Metrics, Values: [][][]float64{t3.Values[p[0]], t3.Values[p[1]]}}
		alone := Analyze(two, AllPairs(2), -1, 0).Pairs[0]
		got, _ := findPair(all, alone.A, alone.B)
		for m := range alone.Metrics {
			a, b := alone.Metrics[m].view(), got.Metrics[m].view()
			a[6], b[6] = nil, nil // the adjusted p depends on the family
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("%s vs %s: alone %v, in the three-way comparison %v", alone.A, alone.B, a, b)
			}
		}
	}
}

func TestSelfComparisonIsAllTies(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	t1 := table(r, 1, 3, 50, nil)
	t2 := &Table{Sides: []string{"x", "y"}, Metrics: t1.Metrics, Values: [][][]float64{t1.Values[0], t1.Values[0]}}
	c := Analyze(t2, AllPairs(2), -1, 0)
	for _, m := range c.Pairs[0].Metrics {
		if *m.Delta != 0 || *m.PValue != 1 || *m.PAdjusted != 1 || m.CI95[0] != 0 || m.CI95[1] != 0 ||
			m.Wins != 0 || m.Losses != 0 || m.Ties != m.Pairs || m.Pairs == 0 || *m.A != *m.B {
			t.Fatalf("self-comparison %v: want Δ 0, p 1, all ties", m.view())
		}
	}
	for _, s := range c.Metrics {
		if len(s.BetterThan[0])+len(s.BetterThan[1]) != 0 {
			t.Fatalf("%s: a side beats itself", s.Name)
		}
	}
}

func TestHolmAgainstHandComputedValues(t *testing.T) {
	for _, c := range []struct{ ps, want []float64 }{
		// Sorted 0.005 0.01 0.03 0.04 → ×4 ×3 ×2 ×1 = 0.02 0.03 0.06 0.04,
		// then running maxima 0.02 0.03 0.06 0.06, back in input order.
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm")
		{[]float64{0.01, 0.02, 0.03, 0.04, 0.05}, []float64{0.05, 0.08, 0.09, 0.09, 0.09}},
		// Ties share their adjusted value, capped at 1.
		{[]float64{0.5, 0.2, 0.5}, []float64{1, 0.6, 1}},
		{[]float64{0.02, 0.02}, []float64{0.04, 0.04}},
		{nil, []float64{}},
	} {
		got := Holm(c.ps)
		if len(got) != len(c.want) {
			t.Fatalf("Holm(%v) = %v", c.ps, got)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-15 {
				t.Fatalf("Holm(%v) = %v, want %v", c.ps, got, c.want)
			}
		}
	}
}

// TestFamilyAndLetters: with a baseline only the pairs against it are
// tested and adjusted together. A clearly better side gets the letter of
// the sides it beats.
func TestFamilyAndLetters(t *testing.T) {
	const n = 60
	vals := func(f func(i int) float64) [][]float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f(i)
		}
		return [][]float64{v}
	}
	tb := &Table{Sides: []string{"good", "base", "same"}, Metrics: []string{"m"}, Values: [][][]float64{
		vals(func(i int) float64 { return float64(i%2) + 0.5 }),
		vals(func(i int) float64 { return float64(i % 2) }),
		vals(func(i int) float64 { return float64(i % 2) }),
	}}
	c := Analyze(tb, BaselinePairs(3, 1), 1, 0)
	var pairs []string
	for _, p := range c.Pairs {
		pairs = append(pairs, p.A+" vs "+p.B)
	}
	if len(c.Pairs) != 2 || c.Pairs[0].A != "good" || c.Pairs[0].B != "base" || c.Pairs[1].A != "same" {
		t.Fatalf("pairs %q, want good vs base, then same vs …", pairs)
	}
	if c.Baseline == nil {
		t.Fatal("baseline null, want base")
	} else if *c.Baseline != "base" {
		t.Fatalf("baseline %q, want base", *c.Baseline)
	}
	if c.Family() != 2 {
		t.Fatalf("family %d, want 2", c.Family())
	}
	if got, want := c.Metrics[0].BetterThan, [][]string{{"base"}, {}, {}}; !slices.Equal(got[0], want[0]) || len(got[1]) != 0 || len(got[2]) != 0 {
		t.Fatalf("betterThan %q, want %q", got, want)
	}
	m := c.Pairs[0].Metrics[0]
	if m.Wins != n {
		t.Errorf("good vs base: %d wins, want %d", m.Wins, n)
	}
	if want := *fl(1.0 / 10001); m.PValue == nil || *m.PValue != want {
		t.Errorf("good vs base: pValue %v, want %v", deref(m.PValue), want)
	}
	if want := *fl(2.0 / 10001); m.PAdjusted == nil || *m.PAdjusted != want {
		t.Errorf("good vs base: pAdjusted %v, want %v", deref(m.PAdjusted), want)
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestGroupStatsIsPairedStats: pairs computed together by the batched
// kernels, on any number of workers, each get the numbers of the
// sequential procedure, Bootstrap then SignFlip. They leave the source
// where it does. That holds too when the batched draws fall back to drawing
// one index after the other. PairedStats is the kernels on one pair.
func TestGroupStatsIsPairedStats(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	t.Cleanup(func() { drawPiece = drawLanes })
	for _, seq := range []bool{false, true} {
		if seq {
			drawPiece = func(*PCG, uint64, []uint32) bool { return false }
		}
		for _, c := range []struct{ pairs, n int }{{1, 1}, {1, 57}, {3, 65}, {4, 14}, {6, 200}, {9, 13}} {
			ds := make([][]float64, c.pairs)
			for k := range ds {
				ds[k] = make([]float64, c.n)
				for i := range ds[k] {
					ds[k][i] = math.Round(r.NormFloat64()*6) / 12
				}
			}
			for _, workers := range []int{1, 2, 3} {
				g := NewSource()
				got := groupStats(ds, g, workers)
				for k, d := range ds {
					one := NewSource()
					want := Paired{Delta: mean(d), CI95: Bootstrap(d, Resamples, one), P: SignFlip(d, Permutations, one)}
					if got[k] != want {
						t.Fatalf("sequential %v, %d pairs of %d, %d workers: pair %d %+v, sequential procedure %+v", seq, c.pairs, c.n, workers, k, got[k], want)
					}
					if *one != *g {
						t.Fatalf("%d pairs of %d: the source is not where the sequential procedure leaves it", c.pairs, c.n)
					}
					if k == 0 && workers == 1 {
						single := NewSource()
						if p := PairedStats(d, single); p != want || *single != *one {
							t.Fatalf("%d pairs of %d: PairedStats %+v, sequential procedure %+v", c.pairs, c.n, p, want)
						}
					}
				}
			}
		}
	}
}
