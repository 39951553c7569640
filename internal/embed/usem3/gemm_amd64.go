//go:build amd64 && !purego

package usem3

import "unsafe"

// Implemented in gemm_amd64.s.

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax, edx uint32)

// tile12x32AVX512 is the whole rowBlock×panelWidth tile in 24 zmm
// accumulators.
//
//go:noescape
func tile12x32AVX512(k int, a unsafe.Pointer, lda int, b unsafe.Pointer, c unsafe.Pointer, ldc int, acc int)

// tile6x16AVX2 is a 6×16 quarter of a tile in 12 ymm accumulators; bstride
// is the distance in bytes between two rows of b.
//
//go:noescape
func tile6x16AVX2(k int, a unsafe.Pointer, lda int, b unsafe.Pointer, bstride int, c unsafe.Pointer, ldc int, acc int)

type x86Features struct{ avx2FMA, avx512 bool }

func detectX86() x86Features {
	var f x86Features
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return f
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const (
		fmaBit     = 1 << 12
		osxsaveBit = 1 << 27
		avxBit     = 1 << 28
	)
	if ecx1&(fmaBit|osxsaveBit|avxBit) != fmaBit|osxsaveBit|avxBit {
		return f
	}
	xcr0, _ := xgetbv()
	_, ebx7, _, _ := cpuid(7, 0)
	const (
		avx2Bit    = 1 << 5
		avx512FBit = 1 << 16
	)
	// XCR0: SSE and AVX state (bits 1, 2) for ymm; opmask, ZMM_Hi256 and
	// Hi16_ZMM (bits 5, 6, 7) as well for zmm.
	if xcr0&0x6 == 0x6 && ebx7&avx2Bit != 0 {
		f.avx2FMA = true
		if xcr0&0xe6 == 0xe6 && ebx7&avx512FBit != 0 {
			f.avx512 = true
		}
	}
	return f
}

var cpuFeatures = detectX86()

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
