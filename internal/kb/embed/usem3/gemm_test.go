package usem3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randMatrix(r *rand.Rand, n int) []float32 {
	m := make([]float32, n)
	for i := range m {
		m[i] = float32(r.NormFloat64())
	}
	return m
}

// withKernel runs f with k as the active kernel.
func withKernel(k kernel, f func()) {
	saved := activeKernel
	activeKernel = k
	defer func() { activeKernel = saved }()
	f()
}

// TestGemm checks every kernel this machine has against a float64
// reference, and that the fused kernels agree bit for bit.
func TestGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, shape := range []struct{ m, k, n, lda, ldc int }{
		{12, 1, 32, 1, 32},
		{12, 7, 64, 9, 70},
		{24, 300, 96, 300, 96},
		{36, 513, 256, 520, 260},
	} {
		a := randMatrix(r, shape.m*shape.lda)
		w := randMatrix(r, shape.k*shape.n)
		b, err := packB(w, shape.k, shape.n)
		if err != nil {
			t.Fatal(err)
		}
		results := map[string][]float32{}
		for _, kern := range kernels() {
			c := make([]float32, shape.m*shape.ldc)
			withKernel(kern, func() { gemm(shape.m, a, shape.lda, b, c, shape.ldc) })
			results[kern.name] = c
			for i := range shape.m {
				for j := range shape.n {
					var want, mag float64
					for kk := range shape.k {
						p := float64(a[i*shape.lda+kk]) * float64(w[kk*shape.n+j])
						want += p
						mag += math.Abs(p)
					}
					got := float64(c[i*shape.ldc+j])
					if math.Abs(got-want) > 1e-5*mag+1e-6 {
						t.Fatalf("%s %v: c[%d][%d] = %v, want %v", kern.name, shape, i, j, got, want)
					}
				}
			}
		}
		if x, y := results["avx512"], results["avx2"]; x != nil && y != nil {
			for i := range x {
				if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
					t.Fatalf("%v: avx512 and avx2 kernels differ at %d: %v vs %v", shape, i, x[i], y[i])
				}
			}
		}
	}
}

func BenchmarkGemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, kern := range kernels() {
		for _, s := range []struct{ m, k, n int }{{384, 512, 768}, {384, 1280, 256}, {384, 512, 256}} {
			a := randMatrix(r, s.m*s.k)
			pb, _ := packB(randMatrix(r, s.k*s.n), s.k, s.n)
			c := make([]float32, s.m*s.n)
			b.Run(fmt.Sprintf("%s/%dx%dx%d", kern.name, s.m, s.k, s.n), func(b *testing.B) {
				withKernel(kern, func() {
					for b.Loop() {
						gemm(s.m, a, s.k, pb, c, s.n)
					}
				})
				b.ReportMetric(float64(2*s.m*s.k*s.n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
