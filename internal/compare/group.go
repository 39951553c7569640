package compare

import (
	"math"
	"math/bits"
	"slices"
	"sync"
)

// Pairs of sides whose metrics have the same numbers of pairs draw the same
// random numbers. Each pair's source starts at (Seed1, Seed2), and every
// metric consumes Resamples·n index draws and Permutations·⌈n/64⌉ words.
// groupStats computes such pairs together. Each batch of draws is made
// once, on every worker by jump-ahead, then summed for every pair, with the
// pairs split among the workers. The numbers are those of PairedStats on
// each pair, bit for bit.

// batchWords bounds the index draws of one bootstrap batch, to a 512 KiB
// buffer.
const batchWords = 1 << 17

// groupStats returns PairedStats(ds[k], rng') for every k, where each rng'
// is a copy of rng, and leaves rng where each copy would be. Every ds[k]
// has the same length n ≥ 1 (below 2^32).
func groupStats(ds [][]float64, rng *PCG, workers int) []Paired {
	n := len(ds[0])
	out := make([]Paired, len(ds))
	for k, d := range ds {
		out[k].Delta = mean(d)
	}

	// Bootstrap: batches of whole resamples.
	per := max(1, batchWords/n)
	idx := make([]uint32, per*n)
	means := make([][]float64, len(ds))
	for k := range means {
		means[k] = make([]float64, Resamples)
	}
	cs := chunks(len(ds))
	packed := make([][]float64, len(cs))
	for c, ch := range cs {
		if ch.hi-ch.lo > 1 {
			packed[c] = pack(ds[ch.lo:ch.hi], n, func(v float64) float64 { return v })
		}
	}
	for r0 := 0; r0 < Resamples; r0 += per {
		r1 := min(r0+per, Resamples)
		buf := idx[:(r1-r0)*n]
		drawIndices(rng, uint64(n), buf, workers)
		parallel(seq(len(cs)), workers, func(c int) {
			ch := cs[c]
			if packed[c] != nil {
				sumResamples8(packed[c], buf, n, means[ch.lo:ch.hi], r0)
			} else {
				sumResamples(ds[ch.lo:ch.hi], buf, n, means[ch.lo:ch.hi], r0)
			}
		})
	}
	for k := range ds {
		slices.Sort(means[k])
		out[k].CI95 = Interval(means[k])
	}

	// Randomization test: batches of whole permutations.
	w := (n + 63) / 64
	perB := max(1, batchWords/w)
	words := make([]uint64, perB*w)
	limits := make([]float64, len(ds))
	vbs := make([][]uint64, len(ds))
	for k, d := range ds {
		var obs, abs float64
		vbs[k] = make([]uint64, n)
		for i, v := range d {
			obs += v
			abs += math.Abs(v)
			vbs[k][i] = math.Float64bits(v)
		}
		limits[k] = math.Abs(obs) - 1e-12*(1+abs)
	}
	hits := make([]int, len(ds))
	vpacked := make([][]uint64, len(cs))
	for c, ch := range cs {
		if ch.hi-ch.lo > 1 {
			f := pack(ds[ch.lo:ch.hi], n, func(v float64) float64 { return v })
			vpacked[c] = make([]uint64, len(f))
			for i, v := range f {
				vpacked[c][i] = math.Float64bits(v)
			}
		}
	}
	for p0 := 0; p0 < Permutations; p0 += perB {
		p1 := min(p0+perB, Permutations)
		buf := words[:(p1-p0)*w]
		for i := range buf {
			buf[i] = rng.Uint64()
		}
		parallel(seq(len(cs)), workers, func(c int) {
			ch := cs[c]
			if vpacked[c] != nil {
				flipSums8(vpacked[c], buf, w, n, limits[ch.lo:ch.hi], hits[ch.lo:ch.hi])
			} else {
				flipSums(vbs[ch.lo:ch.hi], buf, w, limits[ch.lo:ch.hi], hits[ch.lo:ch.hi])
			}
		})
	}
	for k := range ds {
		out[k].P = float64(hits[k]+1) / float64(Permutations+1)
	}
	return out
}

// chunk is a range of pairs one worker sums together: up to wide pairs
// side by side, or a single pair on its own.
type chunk struct{ lo, hi int }

// wide is how many pairs a chunk sums side by side: their values are
// interleaved, so one cache line holds the value of every pair at an index,
// and eight sums in flight keep both floating-point adders busy.
const wide = 8

// chunks splits n pairs into runs of up to wide. A single pair is a chunk
// of one.
func chunks(n int) []chunk {
	var out []chunk
	for k := 0; k < n; k += wide {
		out = append(out, chunk{k, min(k+wide, n)})
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// pack interleaves up to wide vectors of length n: out[i·wide+k] = ds[k][i],
// 0 for the lanes beyond len(ds).
func pack(ds [][]float64, n int, f func(float64) float64) []float64 {
	out := make([]float64, n*wide)
	for k, d := range ds {
		for i, v := range d {
			out[i*wide+k] = f(v)
		}
	}
	return out
}

// sumResamples8 is sumResamples for up to wide pairs packed by pack. Each
// pair's sum still adds its terms in draw order.
func sumResamples8(packed []float64, idx []uint32, n int, means [][]float64, r0 int) {
	nf := float64(n)
	for r := range len(idx) / n {
		var s0, s1, s2, s3, s4, s5, s6, s7 float64
		for _, i := range idx[r*n : (r+1)*n] {
			b := int(i) * wide
			x := packed[b : b+wide : b+wide]
			s0 += x[0]
			s1 += x[1]
			s2 += x[2]
			s3 += x[3]
			s4 += x[4]
			s5 += x[5]
			s6 += x[6]
			s7 += x[7]
		}
		for k, s := range [wide]float64{s0, s1, s2, s3, s4, s5, s6, s7} {
			if k < len(means) {
				means[k][r0+r] = s / nf
			}
		}
	}
}

// flipSums8 is flipSums for up to wide pairs, their sign bits packed by
// pack so that they share each word. Each pair's sum still adds its terms
// in order.
func flipSums8(packed []uint64, words []uint64, w, n int, limits []float64, hits []int) {
	for p := range len(words) / w {
		var s0, s1, s2, s3, s4, s5, s6, s7 float64
		for b, x := range words[p*w : (p+1)*w] {
			for i := b * 64; i < min(b*64+64, n); i++ {
				v := packed[i*wide : i*wide+wide : i*wide+wide]
				sg := x << 63
				s0 += math.Float64frombits(v[0] ^ sg)
				s1 += math.Float64frombits(v[1] ^ sg)
				s2 += math.Float64frombits(v[2] ^ sg)
				s3 += math.Float64frombits(v[3] ^ sg)
				s4 += math.Float64frombits(v[4] ^ sg)
				s5 += math.Float64frombits(v[5] ^ sg)
				s6 += math.Float64frombits(v[6] ^ sg)
				s7 += math.Float64frombits(v[7] ^ sg)
				x >>= 1
			}
		}
		for k, s := range [wide]float64{s0, s1, s2, s3, s4, s5, s6, s7} {
			if k < len(limits) && math.Abs(s) >= limits[k] {
				hits[k]++
			}
		}
	}
}

// parallel calls f on every item on up to workers goroutines.
func parallel[T any](items []T, workers int, f func(T)) {
	if workers <= 1 || len(items) == 1 {
		for _, it := range items {
			f(it)
		}
		return
	}
	next := make(chan T)
	var wg sync.WaitGroup
	for range min(workers, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				f(it)
			}
		}()
	}
	for _, it := range items {
		next <- it
	}
	close(next)
	wg.Wait()
}

// drawIndices fills idx with successive intN(rng, n) draws and leaves rng
// after them. The workers draw contiguous pieces from generators advanced
// to each piece's first word, which assumes one word per draw. If a draw
// needs a second word, with a probability below n/2^64 each, the batch is
// drawn again one index after the other.
func drawIndices(rng *PCG, n uint64, idx []uint32, workers int) {
	start := *rng
	type piece struct{ lo, hi int }
	var pieces []piece
	size := (len(idx) + workers - 1) / max(workers, 1)
	for lo := 0; lo < len(idx); lo += size {
		pieces = append(pieces, piece{lo, min(lo+size, len(idx))})
	}
	var mu sync.Mutex
	ok := true
	parallel(pieces, workers, func(p piece) {
		g := start
		g.Advance(uint64(p.lo))
		if !drawPiece(&g, n, idx[p.lo:p.hi]) {
			mu.Lock()
			ok = false
			mu.Unlock()
		}
	})
	if ok {
		*rng = start
		rng.Advance(uint64(len(idx)))
		return
	}
	*rng = start
	for i := range idx {
		idx[i] = uint32(intN(rng, n))
	}
}

// drawPiece is drawLanes. Tests replace it to take the sequential path.
var drawPiece = drawLanes

// drawLanes fills dst with successive Lemire draws of [0, n) from g, four
// contiguous quarters at once, and reports false if one needed rejection.
func drawLanes(g *PCG, n uint64, dst []uint32) bool {
	thresh := -n % n
	q := len(dst) / lanes
	var st [lanes]PCG
	st[0] = *g
	step := jumpOf(uint64(q))
	for k := 1; k < lanes; k++ {
		st[k] = st[k-1]
		st[k].apply(step)
	}
	a0, b0, a1, b1, a2, b2, a3, b3 := st[0].hi, st[0].lo, st[1].hi, st[1].lo, st[2].hi, st[2].lo, st[3].hi, st[3].lo
	d0, d1, d2, d3 := dst[:q], dst[q:2*q], dst[2*q:3*q], dst[3*q:4*q]
	var x0, x1, x2, x3 uint64
	for i := range d0 {
		a0, b0, x0 = pcgStep(a0, b0)
		a1, b1, x1 = pcgStep(a1, b1)
		a2, b2, x2 = pcgStep(a2, b2)
		a3, b3, x3 = pcgStep(a3, b3)
		h0, l0 := bits.Mul64(x0, n)
		h1, l1 := bits.Mul64(x1, n)
		h2, l2 := bits.Mul64(x2, n)
		h3, l3 := bits.Mul64(x3, n)
		if l0 < thresh || l1 < thresh || l2 < thresh || l3 < thresh {
			return false
		}
		d0[i], d1[i], d2[i], d3[i] = uint32(h0), uint32(h1), uint32(h2), uint32(h3)
	}
	*g = PCG{a3, b3}
	for i := 4 * q; i < len(dst); i++ {
		hi, lo := bits.Mul64(g.Uint64(), n)
		if lo < thresh {
			return false
		}
		dst[i] = uint32(hi)
	}
	return true
}

// sumResamples adds up the resamples of idx (n indices each) for each d of
// ds into means[k][r0+r], each sum from the first index to the last, four
// resamples at a time.
func sumResamples(ds [][]float64, idx []uint32, n int, means [][]float64, r0 int) {
	nf := float64(n)
	rs := len(idx) / n
	for k, d := range ds {
		r := 0
		for ; r+lanes <= rs; r += lanes {
			i0, i1, i2, i3 := idx[r*n:(r+1)*n], idx[(r+1)*n:(r+2)*n], idx[(r+2)*n:(r+3)*n], idx[(r+3)*n:(r+4)*n]
			var s0, s1, s2, s3 float64
			for j := range i0 {
				s0 += d[i0[j]]
				s1 += d[i1[j]]
				s2 += d[i2[j]]
				s3 += d[i3[j]]
			}
			means[k][r0+r], means[k][r0+r+1], means[k][r0+r+2], means[k][r0+r+3] = s0/nf, s1/nf, s2/nf, s3/nf
		}
		for ; r < rs; r++ {
			var s float64
			for _, i := range idx[r*n : (r+1)*n] {
				s += d[i]
			}
			means[k][r0+r] = s / nf
		}
	}
}

// flipSums counts, for each sign-bit vector vb of vbs, the permutations of
// words (w words each) whose |sum| reaches limits[k], four permutations at
// a time.
func flipSums(vbs [][]uint64, words []uint64, w int, limits []float64, hits []int) {
	perms := len(words) / w
	for k, vb := range vbs {
		n := len(vb)
		p := 0
		for ; p+lanes <= perms; p += lanes {
			var s0, s1, s2, s3 float64
			for b := range w {
				x0, x1, x2, x3 := words[p*w+b], words[(p+1)*w+b], words[(p+2)*w+b], words[(p+3)*w+b]
				for _, v := range vb[b*64 : min(b*64+64, n)] {
					s0 += math.Float64frombits(v ^ x0<<63)
					s1 += math.Float64frombits(v ^ x1<<63)
					s2 += math.Float64frombits(v ^ x2<<63)
					s3 += math.Float64frombits(v ^ x3<<63)
					x0, x1, x2, x3 = x0>>1, x1>>1, x2>>1, x3>>1
				}
			}
			for _, s := range [lanes]float64{s0, s1, s2, s3} {
				if math.Abs(s) >= limits[k] {
					hits[k]++
				}
			}
		}
		for ; p < perms; p++ {
			var s float64
			for b, x := range words[p*w : (p+1)*w] {
				for _, v := range vb[b*64 : min(b*64+64, n)] {
					s += math.Float64frombits(v ^ x<<63)
					x >>= 1
				}
			}
			if math.Abs(s) >= limits[k] {
				hits[k]++
			}
		}
	}
}
