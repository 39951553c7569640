package compare

import "math/bits"

// PCG is math/rand/v2's PCG generator, bit for bit, and a test checks it
// against rand.NewPCG. It is a 128-bit LCG state advanced by
//
//	state = state·mul + inc (mod 2^128)
//	mul = 2549297995355413924·2^64 + 4865540595714422341
//	inc = 6364136223846793005·2^64 + 1442695040888963407
//
// with the DXSM output of the new state. It is a concrete type so that the
// statistics' inner loops inline it. It can jump ahead: Advance(k) puts it
// where k calls of Uint64 would, in O(log k), by Brown's LCG jump-ahead.
// That lets the statistics draw several independent stretches of one
// stream at once and still consume it in its documented order.
type PCG struct{ hi, lo uint64 }

const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

// NewPCG returns the generator rand.NewPCG(seed1, seed2) is.
func NewPCG(seed1, seed2 uint64) *PCG { return &PCG{seed1, seed2} }

// NewSource returns the random source of one pair of sides: PCG seeded
// (Seed1, Seed2). Its metrics draw from it in report order, bootstrap
// first, then the randomization test.
func NewSource() *PCG { return NewPCG(Seed1, Seed2) }

// Uint64 advances the state and returns its DXSM output, as
// (*rand.PCG).Uint64 does.
func (p *PCG) Uint64() uint64 {
	var x uint64
	p.hi, p.lo, x = pcgStep(p.hi, p.lo)
	return x
}

// pcgStep advances the state (hi, lo) one step and returns the new state
// and its output.
func pcgStep(shi, slo uint64) (hi, lo, out uint64) {
	hi, lo = bits.Mul64(slo, pcgMulLo)
	hi += shi*pcgMulLo + slo*pcgMulHi
	lo, c := bits.Add64(lo, pcgIncLo, 0)
	hi, _ = bits.Add64(hi, pcgIncHi, c)
	const cheapMul = 0xda942042e4dd58b5
	out = hi ^ hi>>32
	out *= cheapMul
	out ^= out >> 48
	out *= lo | 1
	return hi, lo, out
}

// u128 is an unsigned 128-bit integer, arithmetic mod 2^128.
type u128 struct{ hi, lo uint64 }

func (a u128) mul(b u128) u128 {
	hi, lo := bits.Mul64(a.lo, b.lo)
	return u128{hi + a.hi*b.lo + a.lo*b.hi, lo}
}

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

// jump is the affine map state → state·mul + add of k LCG steps.
type jump struct{ mul, add u128 }

// jumpOf returns the map of k steps of the generator's LCG.
func jumpOf(k uint64) jump {
	j := jump{mul: u128{0, 1}}
	cm, ca := u128{pcgMulHi, pcgMulLo}, u128{pcgIncHi, pcgIncLo}
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			j.mul = j.mul.mul(cm)
			j.add = j.add.mul(cm).add(ca)
		}
		ca = cm.add(u128{0, 1}).mul(ca)
		cm = cm.mul(cm)
	}
	return j
}

func (p *PCG) apply(j jump) {
	s := u128{p.hi, p.lo}.mul(j.mul).add(j.add)
	p.hi, p.lo = s.hi, s.lo
}

// Advance moves the generator k draws ahead, as k calls of Uint64 would.
func (p *PCG) Advance(k uint64) { p.apply(jumpOf(k)) }
