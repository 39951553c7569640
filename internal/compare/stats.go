package compare

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// The statistics are fixed so that a comparison report is reproducible byte
// for byte (docs/reports.md).
const (
	// Resamples is the number of bootstrap resamples of the paired differences.
	Resamples = 10_000
	// Permutations is the number of sign-flip permutations of the randomization test.
	Permutations = 10_000
	// Seed1 and Seed2 seed the one PCG source a comparison draws from.
	Seed1, Seed2 = 1, 2
)

// NewSource returns the random source of one comparison: PCG seeded
// (Seed1, Seed2). Every metric draws from it in the order of Metrics,
// bootstrap first, then the randomization test.
func NewSource() *rand.Rand { return rand.New(rand.NewPCG(Seed1, Seed2)) }

// Paired is the outcome of the paired statistics over one metric's
// differences d_i = left_i − right_i.
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
func PairedStats(d []float64, rng *rand.Rand) Paired {
	return Paired{Delta: mean(d), CI95: Bootstrap(d, Resamples, rng), P: SignFlip(d, Permutations, rng)}
}

// Bootstrap returns the percentile interval [2.5%, 97.5%] of the mean of d
// over b resamples drawn with replacement: each resample draws len(d)
// indices with intN. Percentiles interpolate linearly between order
// statistics (Hyndman–Fan type 7, numpy's and R's default).
func Bootstrap(d []float64, b int, rng *rand.Rand) [2]float64 {
	n := len(d)
	means := make([]float64, b)
	for i := range means {
		var s float64
		for range n {
			s += d[intN(rng, uint64(n))]
		}
		means[i] = s / float64(n)
	}
	slices.Sort(means)
	return [2]float64{Quantile(means, 0.025), Quantile(means, 0.975)}
}

// intN draws uniformly from [0, n) by Lemire's method on rng.Uint64: the
// high word of Uint64()·n, drawn again while the low word is below
// 2^64 mod n. It is math/rand/v2's IntN on 64-bit platforms for every n
// that is not a power of two, and the same on every platform (IntN
// switches to 32-bit draws on 32-bit ones).
func intN(rng *rand.Rand, n uint64) uint64 {
	hi, lo := bits.Mul64(rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(rng.Uint64(), n)
		}
	}
	return hi
}

// Quantile is the type-7 quantile p of sorted xs.
func Quantile(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// SignFlip is the two-sided paired randomization test of "the mean
// difference is 0": each of perms permutations flips the sign of every d_i
// with probability ½, and
//
//	p = (#{|permuted mean| ≥ |observed mean|} + 1) / (perms + 1).
//
// The signs of a permutation are the bits of successive rng.Uint64 words,
// lowest bit first, a fresh word for every 64 differences. The comparison
// allows a relative rounding slack of 1e-12 so that a permutation whose
// mean equals the observed one mathematically counts as reaching it.
func SignFlip(d []float64, perms int, rng *rand.Rand) float64 {
	var obs, abs float64
	for _, v := range d {
		obs += v
		abs += math.Abs(v)
	}
	// Sums instead of means: the same n divides both sides.
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

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
