package usem3

import (
	"math"
	"math/rand/v2"
	"testing"
)

// vecSpecials are values the element-wise loops must treat exactly like
// the Go definitions: signed zeros, extremes, subnormals.
var vecSpecials = []float32{0, float32(math.Copysign(0, -1)), 1, -1, math.MaxFloat32, -math.MaxFloat32,
	math.SmallestNonzeroFloat32, 1e-40, -1e-40, 3.4e38, 1e-30, 65504}

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		switch r.IntN(8) {
		case 0:
			v[i] = vecSpecials[r.IntN(len(vecSpecials))]
		default:
			v[i] = float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3)))
		}
	}
	return v
}

func bitsEqual(a, b []float32) bool { return sameBits(a, b) }

// TestVecGoEquivalence checks that the element-wise loops in use on this
// machine give the same bits as their Go definitions.
func TestVecGoEquivalence(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		n16 := lanes * r.IntN(90)
		n := r.IntN(1400)
		x := randVec(r, max(n, n16))
		g, b, skip := randVec(r, len(x)), randVec(r, len(x)), randVec(r, len(x))
		mean := randVec(r, 1)[0]
		inv := randVec(r, 1)[0]

		if got, want := vecSumLanes(x[:n16]), sumLanesGo(x[:n16]); got != want {
			t.Fatalf("sumLanes(%d): %v, want %v", n16, got, want)
		}
		x1, x2 := append([]float32{}, x[:n16]...), append([]float32{}, x[:n16]...)
		if got, want := vecCenterLanes(x1, mean), centerLanesGo(x2, mean); got != want || !bitsEqual(x1, x2) {
			t.Fatalf("centerLanes(%d): %v, want %v", n16, got, want)
		}
		x1, x2 = append([]float32{}, x[:n]...), append([]float32{}, x[:n]...)
		vecScaleShift(x1, inv, g, b)
		scaleShiftGo(x2, inv, g, b)
		if !bitsEqual(x1, x2) {
			t.Fatalf("scaleShift(%d) differs", n)
		}
		x1, x2 = append([]float32{}, x[:n]...), append([]float32{}, x[:n]...)
		vecResidual(x1, b, skip)
		residualGo(x2, b, skip)
		if !bitsEqual(x1, x2) {
			t.Fatalf("residual(%d) differs", n)
		}
		x1, x2 = append([]float32{}, x[:n]...), append([]float32{}, x[:n]...)
		vecAddTo(x1, b)
		addToGo(x2, b)
		if !bitsEqual(x1, x2) {
			t.Fatalf("addTo(%d) differs", n)
		}
		q := make([]uint8, n)
		for i := range q {
			q[i] = uint8(r.IntN(64))
		}
		x1, x2 = make([]float32, n), make([]float32, n)
		vecDequant(x1, q, inv, mean)
		dequantGo(x2, q, inv, mean)
		if !bitsEqual(x1, x2) {
			t.Fatalf("dequant(%d) differs", n)
		}
	}
}

func TestReluNaN(t *testing.T) {
	x := []float32{float32(math.NaN()), -1, 2, float32(math.Copysign(0, -1)), 0, 0, 0, 0, 5}
	b := make([]float32, len(x))
	skip := make([]float32, len(x))
	vecResidual(x, b, skip)
	want := []float32{0, 0, 2, 0, 0, 0, 0, 0, 5}
	if !bitsEqual(x, want) {
		t.Errorf("residual = %v, want %v (NaN and -0 to +0)", x, want)
	}
}

func TestLayerNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randVec(r, featDim)
	for i := range x {
		x[i] = float32(r.NormFloat64()*3 + 1)
	}
	g := make([]float32, featDim)
	b := make([]float32, featDim)
	for i := range g {
		g[i], b[i] = 2, 0.5
	}
	orig := append([]float32{}, x...)
	layerNorm(x, g, b, 1e-12)
	var mean, sq float64
	for _, v := range orig {
		mean += float64(v)
	}
	mean /= featDim
	for _, v := range orig {
		sq += (float64(v) - mean) * (float64(v) - mean)
	}
	sd := math.Sqrt(sq / featDim)
	for i, v := range orig {
		want := (float64(v)-mean)/sd*2 + 0.5
		if math.Abs(float64(x[i])-want) > 1e-5 {
			t.Fatalf("x[%d] = %v, want %v", i, x[i], want)
		}
	}
}
