package compare

import (
	"math"
	"testing"
)

// TestTTestIsScipys: p-values of scipy 1.17.1's ttest_1samp(d, 0), the
// paired t-test of the differences, for d_i = round(sin(0.7·i)·scale +
// shift, 6), i = 0 … n−1.
func TestTTestIsScipys(t *testing.T) {
	for _, c := range []struct {
		n            int
		shift, scale float64
		want         float64
	}{
		{2, 0.1, 1, 0.41496720836659035},
		{3, 0.5, 1, 0.06887236496687717},
		{5, 0.3, 0.2, 0.00032531596997072495},
		{20, 0.1, 1, 0.4037340326179022},
		{57, 0.05, 0.3, 0.04055527872781984},
		{500, 0.02, 0.3, 0.02486437474121026},
		{10000, 0.003, 0.3, 0.15760225021067806},
		{30, 1, 0.001, 5.351669689674111e-93},
	} {
		d := make([]float64, c.n)
		for i := range d {
			d[i] = math.Round((math.Sin(0.7*float64(i))*c.scale+c.shift)*1e6) / 1e6
		}
		p, ok := TTest(d)
		if !ok || math.Abs(p-c.want) > 1e-9*c.want {
			t.Errorf("n %d: p = %.17g, scipy %.17g", c.n, p, c.want)
		}
	}
	if p, ok := TTest([]float64{0, 0, 0}); !ok || p != 1 {
		t.Errorf("all zero: p %v, %v; want 1, true", p, ok)
	}
	if p, ok := TTest([]float64{0.5, 0.5}); !ok || p != 0 {
		t.Errorf("constant non-zero: p %v, %v; want 0, true", p, ok)
	}
	if _, ok := TTest([]float64{1}); ok {
		t.Error("a t-test of one difference")
	}
}
