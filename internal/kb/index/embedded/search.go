package embedded

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// BM25 parameters (the usual defaults, also those of Milvus).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// parallelMin is the number of slots from which the dense scan is split
// across CPUs.
const parallelMin = 8192

// cand is a candidate of a retriever.
type cand struct {
	slot  int32
	score float64
}

// before reports whether candidate a ranks before b: higher score, then
// kb.CompareTies.
func (s *store) before(a, b cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return s.tieBefore(a.slot, b.slot)
}

func (s *store) tieBefore(a, b int32) bool {
	return kb.CompareTies(&s.meta[a], &s.meta[b]) < 0
}

func (s *store) sortCands(cs []cand) {
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case s.before(a, b):
			return -1
		case s.before(b, a):
			return 1
		}
		return 0
	})
}

// topK keeps the k best candidates in a min-heap (the worst at the root).
type topK struct {
	s *store
	k int
	h []cand
}

func (t *topK) push(c cand) {
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		t.up(len(t.h) - 1)
		return
	}
	if !t.s.before(c, t.h[0]) {
		return
	}
	t.h[0] = c
	t.down(0)
}

// worse reports whether h[i] ranks after h[j].
func (t *topK) worse(i, j int) bool { return t.s.before(t.h[j], t.h[i]) }

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.worse(i, p) {
			return
		}
		t.h[i], t.h[p] = t.h[p], t.h[i]
		i = p
	}
}

func (t *topK) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(t.h) {
			return
		}
		w := l
		if r := l + 1; r < len(t.h) && t.worse(r, l) {
			w = r
		}
		if !t.worse(w, i) {
			return
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

// dense returns the k chunks passing f with the highest cosine to q, best
// first, each with its cosine computed in float64. The scan computes
// float32 dot products over the slab, split across CPUs for large stores.
func (s *store) dense(q []float32, f *filter, k int) []cand {
	n := len(s.scope)
	workers := 1
	if n >= parallelMin {
		workers = min(runtime.GOMAXPROCS(0), n/(parallelMin/2))
	}
	parts := make([][]cand, workers)
	scan := func(w, lo, hi int) {
		t := topK{s: s, k: k, h: make([]cand, 0, k)}
		dim := s.dim
		for slot := lo; slot < hi; slot++ {
			sc := s.scope[slot]
			if sc < 0 || (f.scope >= 0 && sc != f.scope) || (f.cats != nil && !f.cats[s.cat[slot]]) {
				continue
			}
			v := s.slab[slot*dim : slot*dim+dim]
			score := float64(dot(q, v) * s.invNorm[slot])
			if len(t.h) == t.k && score < t.h[0].score {
				continue // fast reject, ties go through before()
			}
			t.push(cand{int32(slot), score})
		}
		parts[w] = t.h
	}
	if workers == 1 {
		scan(0, 0, n)
	} else {
		var wg sync.WaitGroup
		step := (n + workers - 1) / workers
		for w := range workers {
			wg.Go(func() { scan(w, w*step, min(n, (w+1)*step)) })
		}
		wg.Wait()
	}
	var all []cand
	for _, p := range parts {
		all = append(all, p...)
	}
	// Exact cosines for the survivors, then the final order.
	qn := norm64(q)
	for i := range all {
		all[i].score = s.cosine(q, qn, all[i].slot)
	}
	s.sortCands(all)
	if len(all) > k {
		all = all[:k]
	}
	return all
}

// cosine computes the cosine of q (of norm qn) and the vector in slot in
// float64, 0 when either is zero, clamped to [-1, 1].
func (s *store) cosine(q []float32, qn float64, slot int32) float64 {
	v := s.vector(slot)
	var d, vn float64
	for i, x := range q {
		y := float64(v[i])
		d += float64(x) * y
		vn += y * y
	}
	if qn == 0 || vn == 0 {
		return 0
	}
	return max(-1, min(1, d/(qn*math.Sqrt(vn))))
}

func norm64(v []float32) float64 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	return math.Sqrt(n)
}

// dot is the float32 dot product of a and b, with len(b) >= len(a). It uses
// four accumulators so the loop is not one long dependency chain.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i]*b[i] + a[i+4]*b[i+4]
		s1 += a[i+1]*b[i+1] + a[i+5]*b[i+5]
		s2 += a[i+2]*b[i+2] + a[i+6]*b[i+6]
		s3 += a[i+3]*b[i+3] + a[i+7]*b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// bm25Scratch accumulates BM25 scores by slot. touched lists the slots with
// a score, so only those are reset.
type bm25Scratch struct {
	score   []float64
	touched []int32
}

var scratchPool = sync.Pool{New: func() any { return new(bm25Scratch) }}

// bm25 returns the k chunks passing f with the highest BM25 score for the
// tokens of text, best first. It uses k1 = 1.2, b = 0.75 and idf = ln(1 +
// (N − df + 0.5)/(df + 0.5)). Only chunks sharing at least one token with
// the query are candidates. N, df and the average length are
// collection-wide, as in Milvus. A query token counts once however often it
// occurs.
func (s *store) bm25(text string, f *filter, k int) []cand {
	if s.live == 0 {
		return nil
	}
	toks := textnorm.Tokens(strings.ToValidUTF8(text, " "))
	seen := make(map[string]bool, len(toks))
	n := float64(s.live)
	avgdl := float64(s.totalLen) / n
	if avgdl == 0 {
		return nil
	}
	sc := scratchPool.Get().(*bm25Scratch)
	defer scratchPool.Put(sc)
	if len(sc.score) < len(s.scope) {
		sc.score = make([]float64, len(s.scope))
	}
	for _, t := range toks {
		if seen[t] {
			continue
		}
		seen[t] = true
		id, ok := s.termIDs[t]
		if !ok {
			continue
		}
		pl := s.postings[id]
		if len(pl) == 0 {
			continue
		}
		df := float64(len(pl))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range pl {
			if !s.match(f, p.slot) {
				continue
			}
			tf := float64(p.tf)
			dl := float64(s.docLen[p.slot])
			if sc.score[p.slot] == 0 {
				sc.touched = append(sc.touched, p.slot)
			}
			sc.score[p.slot] += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/avgdl))
		}
	}
	t := topK{s: s, k: k, h: make([]cand, 0, k)}
	for _, slot := range sc.touched {
		t.push(cand{slot, sc.score[slot]})
		sc.score[slot] = 0
	}
	sc.touched = sc.touched[:0]
	out := t.h
	s.sortCands(out)
	return out
}

// search runs req against the store. The request is valid.
func (s *store) search(req kb.SearchRequest) []kb.Hit {
	f := s.compile(req.Filter)
	if f.none {
		return nil
	}
	qn := norm64(req.Vector)
	dense := s.dense(req.Vector, &f, req.K)
	if req.Mode == kb.Dense {
		hits := make([]kb.Hit, len(dense))
		for i, c := range dense {
			hits[i] = s.hit(c.slot, c.score, c.score)
		}
		return hits
	}
	sparse := s.bm25(req.Text, &f, req.K)
	ids := func(cs []cand) []int {
		out := make([]int, len(cs))
		for i, c := range cs {
			out[i] = int(c.slot)
		}
		return out
	}
	fused := kb.Fuse(req.Fusion, req.RRFK, ids(dense), ids(sparse))
	all := make([]cand, 0, len(fused))
	for slot, score := range fused {
		all = append(all, cand{int32(slot), score})
	}
	s.sortCands(all)
	if len(all) > req.K {
		all = all[:req.K]
	}
	hits := make([]kb.Hit, len(all))
	for i, c := range all {
		hits[i] = s.hit(c.slot, s.cosine(req.Vector, qn, c.slot), c.score)
	}
	return hits
}

func (s *store) hit(slot int32, cos, score float64) kb.Hit {
	return kb.Hit{Chunk: s.meta[slot], DenseDistance: math.Sqrt(max(0, 2-2*cos)), Score: score}
}
