//go:build amd64 && !purego

#include "textflag.h"

// AVX2 versions of the element-wise loops of vec.go, computing the same
// values bit for bit: the same IEEE operations on each element, in the
// same order (no fused multiply-add where a product is rounded in Go).

// func sumLanesAVX2(x *float32, n int, out *[16]float64)
// n is a multiple of 16; out[j] = Σ_i float64(x[16i+j]).
TEXT ·sumLanesAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ out+16(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JZ   sumdone

sumloop:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ  sumloop

sumdone:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET

// func centerLanesAVX2(x *float32, n int, mean float32, out *[16]float64)
// n is a multiple of 16; x[i] -= mean; out[j] = Σ_i float64(x[16i+j])².
TEXT ·centerLanesAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSS mean+16(FP), Y8
	MOVQ out+24(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JZ   centerdone

centerloop:
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VSUBPS Y8, Y4, Y4
	VSUBPS Y8, Y5, Y5
	VMOVUPS Y4, (SI)
	VMOVUPS Y5, 32(SI)
	VCVTPS2PD X4, Y6
	VEXTRACTF128 $1, Y4, X7
	VCVTPS2PD X7, Y7
	VMULPD Y6, Y6, Y6
	VMULPD Y7, Y7, Y7
	VADDPD Y6, Y0, Y0
	VADDPD Y7, Y1, Y1
	VCVTPS2PD X5, Y6
	VEXTRACTF128 $1, Y5, X7
	VCVTPS2PD X7, Y7
	VMULPD Y6, Y6, Y6
	VMULPD Y7, Y7, Y7
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ  centerloop

centerdone:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET

// func scaleShiftAVX2(x *float32, n int, inv float32, gain *float32, bias *float32)
// n is a multiple of 8; x[i] = round(round(x[i]·inv)·gain[i]) + bias[i].
TEXT ·scaleShiftAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSS inv+16(FP), Y8
	MOVQ gain+24(FP), DX
	MOVQ bias+32(FP), BX
	TESTQ CX, CX
	JZ   scaledone

scaleloop:
	VMULPS (SI), Y8, Y0
	VMULPS (DX), Y0, Y0
	VADDPS (BX), Y0, Y0
	VMOVUPS Y0, (SI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, BX
	SUBQ $8, CX
	JNZ  scaleloop

scaledone:
	VZEROUPPER
	RET

// func residualAVX2(x *float32, bias *float32, skip *float32, n int)
// n is a multiple of 8; x[i] = relu(x[i] + bias[i]) + skip[i], where
// relu(v) = v > 0 ? v : 0 (MAXPS with 0 as its second operand).
TEXT ·residualAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ bias+8(FP), DX
	MOVQ skip+16(FP), BX
	MOVQ n+24(FP), CX
	VXORPS Y9, Y9, Y9
	TESTQ CX, CX
	JZ   residualdone

residualloop:
	VMOVUPS (SI), Y0
	VADDPS (DX), Y0, Y0
	VMAXPS Y9, Y0, Y0
	VADDPS (BX), Y0, Y0
	VMOVUPS Y0, (SI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, BX
	SUBQ $8, CX
	JNZ  residualloop

residualdone:
	VZEROUPPER
	RET

// func addToAVX2(dst *float32, src *float32, n int)
// n is a multiple of 8; dst[i] += src[i].
TEXT ·addToAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	TESTQ CX, CX
	JZ   adddone

addloop:
	VMOVUPS (DI), Y0
	VADDPS (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ  addloop

adddone:
	VZEROUPPER
	RET

// func dequantAVX2(dst *float32, q *uint8, n int, scale float32, lo float32)
// n is a multiple of 8; dst[i] = round(float32(q[i])·scale) + lo.
TEXT ·dequantAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS scale+24(FP), Y8
	VBROADCASTSS lo+28(FP), Y9
	TESTQ CX, CX
	JZ   dequantdone

dequantloop:
	VPMOVZXBD (SI), Y0
	VCVTDQ2PS Y0, Y0
	VMULPS Y8, Y0, Y0
	VADDPS Y9, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $8, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  dequantloop

dequantdone:
	VZEROUPPER
	RET
