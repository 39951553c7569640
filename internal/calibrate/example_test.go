package calibrate_test

import (
	"fmt"

	"github.com/ragbaseline/ragbaseline/internal/calibrate"
)

// The worked example of the package documentation.
func ExampleBestThreshold() {
	var s []calibrate.Sample
	for _, q := range []float64{0.6, 0.7, 0.8} {
		s = append(s, calibrate.Sample{Score: q, Relevant: true})
	}
	for _, q := range []float64{0.1, 0.2, 0.3, 0.65} {
		s = append(s, calibrate.Sample{Score: q})
	}
	best, _ := calibrate.BestThreshold(s)
	fmt.Printf("t = %.2f, TPR %.2f, FPR %.2f, J %.2f, precision %.2f\n", best.Threshold, *best.TPR, *best.FPR, *best.J, *best.Precision)
	// Output: t = 0.45, TPR 1.00, FPR 0.25, J 0.75, precision 0.75
}
