//go:build amd64 && !purego

package usem3

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Implemented in gemm_amd64.s.

// tile12x32AVX512 is the whole rowBlock×panelWidth tile in 24 zmm
// accumulators.
//
//go:noescape
func tile12x32AVX512(k int, a unsafe.Pointer, lda int, b unsafe.Pointer, c unsafe.Pointer, ldc int, acc int)

// tile6x16AVX2 is a 6×16 quarter of a tile in 12 ymm accumulators. bstride
// is the distance in bytes between two rows of b.
//
//go:noescape
func tile6x16AVX2(k int, a unsafe.Pointer, lda int, b unsafe.Pointer, bstride int, c unsafe.Pointer, ldc int, acc int)

type x86Features struct{ avx2FMA, avx512 bool }

// cpuFeatures are the kernels this CPU and its OS can run (x/sys/cpu checks
// that the OS saves the ymm and zmm state, not only the CPU's bits).
var cpuFeatures = x86Features{
	avx2FMA: cpu.X86.HasAVX2 && cpu.X86.HasFMA,
	avx512:  cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX512F,
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func avx512Tile(k int, a []float32, lda int, b []float32, c []float32, ldc int, acc bool) {
	// gemm has checked that a, b and c hold the whole tile.
	_ = b[k*panelWidth-1]
	_ = c[(rowBlock-1)*ldc+panelWidth-1]
	_ = a[(rowBlock-1)*lda+k-1]
	tile12x32AVX512(k, unsafe.Pointer(&a[0]), lda*4, unsafe.Pointer(&b[0]), unsafe.Pointer(&c[0]), ldc*4, b2i(acc))
}

func avx2Tile(k int, a []float32, lda int, b []float32, c []float32, ldc int, acc bool) {
	_ = b[k*panelWidth-1]
	_ = c[(rowBlock-1)*ldc+panelWidth-1]
	_ = a[(rowBlock-1)*lda+k-1]
	f := b2i(acc)
	for r := 0; r < rowBlock; r += 6 {
		ar := unsafe.Pointer(&a[r*lda])
		cr := c[r*ldc:]
		tile6x16AVX2(k, ar, lda*4, unsafe.Pointer(&b[0]), panelWidth*4, unsafe.Pointer(&cr[0]), ldc*4, f)
		tile6x16AVX2(k, ar, lda*4, unsafe.Pointer(&b[16]), panelWidth*4, unsafe.Pointer(&cr[16]), ldc*4, f)
	}
}

var (
	avx512Kernel = kernel{name: "avx512", tile: avx512Tile}
	avx2Kernel   = kernel{name: "avx2", tile: avx2Tile}
)

// kernels lists every kernel this build can run on this machine, fastest
// first.
func kernels() []kernel {
	var ks []kernel
	if cpuFeatures.avx512 {
		ks = append(ks, avx512Kernel)
	}
	if cpuFeatures.avx2FMA {
		ks = append(ks, avx2Kernel)
	}
	return append(ks, genericKernel)
}

var activeKernel = kernels()[0]
