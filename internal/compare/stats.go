package compare

import (
	"math"
	"math/bits"
	"slices"
)

// The statistics are fixed so that a comparison report is reproducible byte
// for byte (docs/reports.md).
const (
	// Resamples is the number of bootstrap resamples of the paired differences.
	Resamples = 10_000
	// Permutations is the number of sign-flip permutations of the
	// randomization test.
	Permutations = 10_000
	// Seed1 and Seed2 seed the PCG source of each pair of sides.
	Seed1, Seed2 = 1, 2
)

// Paired is the outcome of the paired statistics over one metric's
// differences d_i = a_i − b_i.
type Paired struct {
	// Delta is the mean paired difference.
	Delta float64
	// CI95 is the 95% percentile bootstrap interval of the mean difference.
	CI95 [2]float64
	// P is the two-sided sign-flip randomization p-value.
	P float64
}

// PairedStats computes the mean difference, its bootstrap interval and its
// randomization p-value. d must not be empty. It draws Resamples·len(d)
// indices, then Permutations·⌈len(d)/64⌉ words of random bits from rng.
// It runs the comparison's own kernels on one pair and one core. The
// numbers are those of Bootstrap and SignFlip, which state the procedure
// one draw after the other, and a test checks it.
func PairedStats(d []float64, rng *PCG) Paired {
	return groupStats([][]float64{d}, rng, 1)[0]
}

// lanes is how many stretches of the stream the kernels draw at once: the
// PCG's 128-bit multiply and the sums are dependency chains, and four
// independent ones keep a core busy. The stretches are where a sequential
// loop would have drawn them, so the result is the sequential result.
const lanes = 4

// Bootstrap returns the 95% percentile interval (Interval) of the mean of d
// over b resamples drawn with replacement. Resample r draws len(d) indices
// with intN, in order, and sums d at them from the first to the last.
// Resample r's draws follow resample r−1's in the stream. It is the
// documented procedure, one draw after the other. The comparison computes
// the same numbers with batched kernels.
func Bootstrap(d []float64, b int, rng *PCG) [2]float64 {
	means := make([]float64, b)
	for r := range means {
		means[r] = resample(d, rng)
	}
	slices.Sort(means)
	return Interval(means)
}

// resample draws one bootstrap resample of d sequentially and returns its
// mean.
func resample(d []float64, rng *PCG) float64 {
	n := uint64(len(d))
	var s float64
	for range n {
		s += d[intN(rng, n)]
	}
	return s / float64(n)
}

// intN draws uniformly from [0, n) by Lemire's method on rng.Uint64: the
// high word of Uint64()·n, drawn again while the low word is below
// 2^64 mod n. It is math/rand/v2's IntN on 64-bit platforms for every n
// that is not a power of two, and the same on every platform (IntN
// switches to 32-bit draws on 32-bit ones).
func intN(rng *PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(rng.Uint64(), n)
		}
	}
	return hi
}

// Interval returns the 2.5% and 97.5% type-7 quantiles of sorted. Type 7 of
// Hyndman–Fan, numpy's and R's default, interpolates linearly between order
// statistics. With h = (len−1)·0.025, i = ⌊h⌋ and f = h − i,
//
//	lo = s[i] + f·(s[i+1] − s[i])
//	hi = s[len−1−i] + f·(s[len−2−i] − s[len−1−i])
//
// hi is the type-7 97.5% quantile counted from the top, so that the
// interval of −d is exactly the interval of d negated and mirrored.
// Swapping the two sides of a comparison swaps the bounds bit for bit.
func Interval(sorted []float64) [2]float64 {
	n := len(sorted)
	h := float64(n-1) * 0.025
	i := int(math.Floor(h))
	f := h - float64(i)
	lo, j := sorted[i], n-1-i
	hi := sorted[j]
	if i+1 < n {
		lo += f * (sorted[i+1] - sorted[i])
		hi += f * (sorted[j-1] - sorted[j])
	}
	return [2]float64{lo, hi}
}

// SignFlip is the two-sided paired randomization test of "the mean
// difference is 0": each of perms permutations flips the sign of every d_i
// with probability ½, and
//
//	p = (#{|permuted mean| ≥ |observed mean|} + 1) / (perms + 1).
//
// The signs of a permutation are the bits of successive rng.Uint64 words,
// lowest bit first, a fresh word for every 64 differences. Permutation r
// uses words r·⌈len(d)/64⌉ to (r+1)·⌈len(d)/64⌉ − 1 of the stream. A
// permuted sum adds ±d_i for i = 0, 1, … in order. A permutation counts
// when |Σ ±d_i| ≥ |Σ d_i| − 10⁻¹²·(1 + Σ |d_i|), with the sums in that
// order. The slack makes a permutation whose mean equals the observed one
// in exact arithmetic count as reaching it, whatever the rounding. On
// values on a grid, P_10 say, that changes p. It is the documented
// procedure, one permutation after the other. The comparison computes the
// same numbers with batched kernels.
func SignFlip(d []float64, perms int, rng *PCG) float64 {
	var obs, abs float64
	for _, v := range d {
		obs += v
		abs += math.Abs(v)
	}
	// Sums instead of means: the same n divides both sides.
	limit := math.Abs(obs) - 1e-12*(1+abs)
	vb := make([]uint64, len(d))
	for i, v := range d {
		vb[i] = math.Float64bits(v)
	}
	hits := 0
	for range perms {
		var s float64
		var w uint64
		for i, v := range vb {
			if i%64 == 0 {
				w = rng.Uint64()
			}
			// Flipping the sign bit is exact: s + (−v) is s − v.
			s += math.Float64frombits(v ^ w<<63)
			w >>= 1
		}
		if math.Abs(s) >= limit {
			hits++
		}
	}
	return float64(hits+1) / float64(perms+1)
}

// WinTieLoss counts the differences above, at and below 0.
func WinTieLoss(d []float64) (wins, ties, losses int) {
	for _, v := range d {
		switch {
		case v > 0:
			wins++
		case v < 0:
			losses++
		default:
			ties++
		}
	}
	return wins, ties, losses
}

// Holm returns the Holm–Bonferroni adjusted p-values of ps, in the order
// of ps: with the m p-values sorted ascending, p_(1) ≤ … ≤ p_(m),
//
//	adjusted p_(j) = min(1, max over i ≤ j of (m − i + 1)·p_(i)).
//
// Tied p-values get the same adjusted value, so the order among them does
// not matter. Rejecting where the adjusted p is below α controls the
// family-wise error rate at α under any dependence between the tests.
func Holm(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ps[a] < ps[b]:
			return -1
		case ps[a] > ps[b]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	run := 0.0
	for rank, k := range order {
		v := min(1, float64(m-rank)*ps[k])
		run = max(run, v)
		adj[k] = run
	}
	return adj
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
