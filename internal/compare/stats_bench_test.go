package compare

import (
	"fmt"
	"math"
	"testing"
)

// BenchmarkPairedStats: one metric's bootstrap and randomization test,
// 10,000 resamples and 10,000 permutations. A comparison runs six.
func BenchmarkPairedStats(b *testing.B) {
	for _, n := range []int{40, 1_000, 10_000} {
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Sin(float64(i))
		}
		b.Run(fmt.Sprintf("pairs=%d", n), func(b *testing.B) {
			for b.Loop() {
				PairedStats(d, NewSource())
			}
		})
	}
}
