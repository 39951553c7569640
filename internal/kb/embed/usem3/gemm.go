package usem3

import "fmt"

// The matrix products of the forward pass are all C = A·B or C += A·B. A is
// an activation matrix, row-major with leading dimension lda, whose rows
// are tokens or texts. B is a weight matrix prepacked once at load time. C
// is row-major. Every element of C is accumulated over k = 0, 1, …, K-1 in
// that order, one product at a time, starting from zero. Nothing else in
// the computation of C[i][j] depends on the other rows of A, on how the
// rows are split into tiles or on which goroutine runs them. So a text's
// vector is the same bits whatever else is in its batch.

const (
	// panelWidth is the number of columns of a packed B panel: the N of
	// every weight matrix of the model (256, 320, 512, 768) is a multiple
	// of it.
	panelWidth = 32
	// rowBlock is the number of rows of A (and C) one kernel call covers.
	// Activation buffers are allocated with their row count rounded up to
	// a multiple of it, so no kernel ever sees a partial tile.
	rowBlock = 12
	// kBlock is the depth of one pass over the panels: a rowBlock×kBlock
	// sliver of A stays in L1 and a kBlock×N block of B in L2 while it is
	// reused. Blocking K does not change the order of the additions: the
	// kernel resumes from the partial sums it stored.
	kBlock = 256
)

// packedB is a K×N weight matrix stored as N/panelWidth column panels. Each
// panel is K rows of panelWidth contiguous floats. Element (k, j) is at
// data[(j/panelWidth)*K*panelWidth + k*panelWidth + j%panelWidth].
type packedB struct {
	k, n int
	data []float32
}

// packB packs the row-major k×n matrix w.
func packB(w []float32, k, n int) (*packedB, error) {
	if n%panelWidth != 0 || k <= 0 || len(w) != k*n {
		return nil, fmt.Errorf("cannot pack a %d×%d matrix of %d values (columns must be a multiple of %d)", k, n, len(w), panelWidth)
	}
	p := &packedB{k: k, n: n, data: make([]float32, k*n)}
	for j0 := 0; j0 < n; j0 += panelWidth {
		dst := p.data[j0*k:]
		for kk := range k {
			copy(dst[kk*panelWidth:(kk+1)*panelWidth], w[kk*n+j0:kk*n+j0+panelWidth])
		}
	}
	return p, nil
}

// panel returns the packed rows k0… of column panel p.
func (b *packedB) panel(p, k0 int) []float32 {
	return b.data[p*b.k*panelWidth+k0*panelWidth : (p+1)*b.k*panelWidth]
}

// gemm sets C = A·B for the first m rows, m a multiple of rowBlock. A is
// m×b.k with leading dimension lda, C is m×b.n with leading dimension ldc.
func gemm(m int, a []float32, lda int, b *packedB, c []float32, ldc int) {
	if m == 0 {
		return
	}
	if m%rowBlock != 0 || lda < b.k || ldc < b.n ||
		len(a) < (m-1)*lda+b.k || len(c) < (m-1)*ldc+b.n {
		panic(fmt.Sprintf("usem3: gemm shape mismatch: m=%d lda=%d len(a)=%d k=%d n=%d ldc=%d len(c)=%d",
			m, lda, len(a), b.k, b.n, ldc, len(c)))
	}
	kern := activeKernel
	panels := b.n / panelWidth
	for k0 := 0; k0 < b.k; k0 += kBlock {
		kc := min(kBlock, b.k-k0)
		for i := 0; i < m; i += rowBlock {
			ai := a[i*lda+k0:]
			ci := c[i*ldc:]
			for p := range panels {
				kern.tile(kc, ai, lda, b.panel(p, k0), ci[p*panelWidth:], ldc, k0 > 0)
			}
		}
	}
}

// kernel computes one rowBlock×panelWidth tile of C: for each row r and
// column j, c[r*ldc+j] = (acc ? c[r*ldc+j] : 0) + Σ_k a[r*lda+k]·b[k*panelWidth+j],
// summed in increasing k.
type kernel struct {
	name string
	tile func(k int, a []float32, lda int, b []float32, c []float32, ldc int, acc bool)
}

// genericTile is the portable kernel. Each product is rounded to float32
// before it is added, because the explicit conversion forbids the compiler
// to fuse the multiply and the add. So it gives the same bits on every
// architecture. It differs in the last bits from the fused multiply-add
// kernels of gemm_amd64.s.
func genericTile(k int, a []float32, lda int, b []float32, c []float32, ldc int, acc bool) {
	var t [rowBlock][panelWidth]float32
	if acc {
		for r := range rowBlock {
			copy(t[r][:], c[r*ldc:r*ldc+panelWidth])
		}
	}
	b = b[:k*panelWidth]
	for r := range rowBlock {
		row := a[r*lda : r*lda+k]
		tr := &t[r]
		for kk, x := range row {
			bk := (*[panelWidth]float32)(b[kk*panelWidth : (kk+1)*panelWidth])
			for j := range panelWidth {
				tr[j] += float32(x * bk[j])
			}
		}
	}
	for r := range rowBlock {
		copy(c[r*ldc:r*ldc+panelWidth], t[r][:])
	}
}

var genericKernel = kernel{name: "generic", tile: genericTile}
