package usem3

import "fmt"

// The element-wise loops of the forward pass. Each has a portable Go
// definition here, which fixes the result bit for bit. vec_amd64.s has AVX2
// versions, selected at start-up, that compute exactly the same values with
// the same operations, rounding and order. Products that are followed by an
// addition are rounded explicitly, so the Go compiler cannot fuse them into
// multiply-adds on any architecture.

// lanes is the number of float64 partial sums of sumLanes and
// centerLanes: element i goes to partial sum i%lanes.
const lanes = 16

var (
	vecSumLanes    = sumLanesGo
	vecCenterLanes = centerLanesGo
	vecScaleShift  = scaleShiftGo
	vecResidual    = residualGo
	vecAddTo       = addToGo
	vecDequant     = dequantGo
)

func checkLanes(n int) {
	if n%lanes != 0 {
		panic(fmt.Sprintf("usem3: vector of %d values is not a multiple of %d", n, lanes))
	}
}

// sumLanesGo returns the partial sums s[j] = Σ_i float64(x[i·lanes+j]).
func sumLanesGo(x []float32) (s [lanes]float64) {
	checkLanes(len(x))
	for i := 0; i < len(x); i += lanes {
		c := (*[lanes]float32)(x[i : i+lanes])
		for j := range lanes {
			s[j] += float64(c[j])
		}
	}
	return s
}

// centerLanesGo subtracts mean from x in place and returns the partial sums
// of the squares of the results, s[j] = Σ_i d²[i·lanes+j]. The sums are
// float64, in which the squares of float32 values are exact.
func centerLanesGo(x []float32, mean float32) (s [lanes]float64) {
	checkLanes(len(x))
	for i := 0; i < len(x); i += lanes {
		c := (*[lanes]float32)(x[i : i+lanes])
		for j := range lanes {
			d := c[j] - mean
			c[j] = d
			s[j] += float64(d) * float64(d)
		}
	}
	return s
}

// scaleShiftGo sets x[i] = x[i]·inv·g[i] + b[i], rounding after each
// operation.
func scaleShiftGo(x []float32, inv float32, g, b []float32) {
	g = g[:len(x)]
	b = b[:len(x)]
	for i, v := range x {
		x[i] = float32(float32(v*inv)*g[i]) + b[i]
	}
}

// relu is max(v, 0), with NaN mapped to 0, which is what x86's MAXPS gives.
func relu(v float32) float32 {
	if v > 0 {
		return v
	}
	return 0
}

// residualGo sets x[i] = relu(x[i] + b[i]) + skip[i].
func residualGo(x, b, skip []float32) {
	b = b[:len(x)]
	skip = skip[:len(x)]
	for i, v := range x {
		x[i] = relu(v+b[i]) + skip[i]
	}
}

// addToGo adds src to dst.
func addToGo(dst, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] += src[i]
	}
}

// dequantGo sets dst[i] = q[i]·scale + lo, the product rounded.
func dequantGo(dst []float32, q []uint8, scale, lo float32) {
	q = q[:len(dst)]
	for i := range dst {
		dst[i] = float32(float32(q[i])*scale) + lo
	}
}

// sumOf adds up partial sums in index order.
func sumOf(s *[lanes]float64) float64 {
	t := 0.0
	for _, v := range s {
		t += v
	}
	return t
}
