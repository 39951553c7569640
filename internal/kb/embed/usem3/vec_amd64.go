//go:build amd64 && !purego

package usem3

// Implemented in vec_amd64.s. vec.go says what they compute.

//go:noescape
func sumLanesAVX2(x *float32, n int, out *[lanes]float64)

//go:noescape
func centerLanesAVX2(x *float32, n int, mean float32, out *[lanes]float64)

//go:noescape
func scaleShiftAVX2(x *float32, n int, inv float32, gain *float32, bias *float32)

//go:noescape
func residualAVX2(x *float32, bias *float32, skip *float32, n int)

//go:noescape
func addToAVX2(dst *float32, src *float32, n int)

//go:noescape
func dequantAVX2(dst *float32, q *uint8, n int, scale float32, lo float32)

func sumLanesAVX(x []float32) (s [lanes]float64) {
	checkLanes(len(x))
	if len(x) > 0 {
		sumLanesAVX2(&x[0], len(x), &s)
	}
	return s
}

func centerLanesAVX(x []float32, mean float32) (s [lanes]float64) {
	checkLanes(len(x))
	if len(x) > 0 {
		centerLanesAVX2(&x[0], len(x), mean, &s)
	}
	return s
}

// The others run the bulk, a multiple of 8 values, in assembly and the
// rest in Go.

func scaleShiftAVX(x []float32, inv float32, g, b []float32) {
	g = g[:len(x)]
	b = b[:len(x)]
	n := len(x) &^ 7
	if n > 0 {
		scaleShiftAVX2(&x[0], n, inv, &g[0], &b[0])
	}
	scaleShiftGo(x[n:], inv, g[n:], b[n:])
}

func residualAVX(x, b, skip []float32) {
	b = b[:len(x)]
	skip = skip[:len(x)]
	n := len(x) &^ 7
	if n > 0 {
		residualAVX2(&x[0], &b[0], &skip[0], n)
	}
	residualGo(x[n:], b[n:], skip[n:])
}

func addToAVX(dst, src []float32) {
	src = src[:len(dst)]
	n := len(dst) &^ 7
	if n > 0 {
		addToAVX2(&dst[0], &src[0], n)
	}
	addToGo(dst[n:], src[n:])
}

func dequantAVX(dst []float32, q []uint8, scale, lo float32) {
	q = q[:len(dst)]
	n := len(dst) &^ 7
	if n > 0 {
		dequantAVX2(&dst[0], &q[0], n, scale, lo)
	}
	dequantGo(dst[n:], q[n:], scale, lo)
}

func init() {
	if cpuFeatures.avx2FMA {
		vecSumLanes = sumLanesAVX
		vecCenterLanes = centerLanesAVX
		vecScaleShift = scaleShiftAVX
		vecResidual = residualAVX
		vecAddTo = addToAVX
		vecDequant = dequantAVX
	}
}
