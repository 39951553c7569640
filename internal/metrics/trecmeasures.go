package metrics

import (
	"math"
	"slices"
)

// This file holds trec_eval's measures beyond the judge's of rank.go, each
// written from its definition in trec_eval 9.0.8's m_*.c. Every sum is
// accumulated in trec_eval's order and every product is rounded on its own.
// Explicit float64 conversions keep the compiler from fusing a
// multiply-add. Values are thus trec_eval's bit for bit wherever the C
// library's log2, log and exp agree with Go's (log2.go).

// minGeoMean is trec_eval's MIN_GEO_MEAN: gm_map and gm_bpref take the log
// of max(value, minGeoMean), so a query scoring 0 counts as 0.00001.
const minGeoMean = 0.00001

// infAPEpsilon is trec_eval's INFAP_EPSILON.
const infAPEpsilon = 0.00001

// finish fills the counts the measures share. grades holds the judged
// grades >= 0 of the query, in any order, and is sorted here.
func (q *query) finish(grades []int, cum []int32) {
	q.grades, q.levelsReady = grades, false
	q.relRet, q.nonpool, q.unjudged = 0, 0, 0
	n := len(q.rels)
	if cap(cum) < n+1 {
		cum = make([]int32, n+1)
	}
	cum = cum[:n+1]
	cum[0] = 0
	for i, r := range q.rels {
		switch {
		case r == relNonpool:
			q.nonpool++
		case r == relUnjudged:
			q.unjudged++
		case r >= q.level:
			q.relRet++
		}
		c := cum[i]
		if r >= q.level {
			c++
		}
		cum[i+1] = c
	}
	q.cum = cum
}

// lvls returns the judged grades >= 0 with their counts, ascending
// (computed on first use: only bpref and the gain measures need them).
func (q *query) lvls() []levelCount {
	if q.levelsReady {
		return q.levels
	}
	slices.Sort(q.grades)
	q.levels = q.levels[:0]
	for i, g := range q.grades {
		if i > 0 && g == q.grades[i-1] {
			q.levels[len(q.levels)-1].n++
			continue
		}
		q.levels = append(q.levels, levelCount{grade: g, n: 1})
	}
	q.levelsReady = true
	return q.levels
}

// relIn is the number of documents with isRel among the first min(k, n).
func (q *query) relIn(k int64) int {
	n := int64(len(q.rels))
	if k > n {
		k = n
	}
	if k <= 0 {
		return 0
	}
	return int(q.cum[k])
}

// levelN returns the number of judgments with grade g.
func (q *query) levelN(g int) int {
	lv := q.lvls()
	i, ok := slices.BinarySearchFunc(lv, g, func(l levelCount, g int) int { return l.grade - g })
	if !ok {
		return 0
	}
	return lv[i].n
}

// gmLog is the per-query value of gm_map and gm_bpref: the log of the
// value, floored at minGeoMean.
func gmLog(v float64) float64 {
	if !(v > minGeoMean) {
		v = minGeoMean
	}
	return math.Log(v)
}

// gmMap is m_gm_map.c's per-query value.
func (q *query) gmMap() float64 { return gmLog(q.avgPrec()) }

// bpref is m_bpref.c. Only judged documents count: unjudged and unpooled
// ones are skipped. Each relevant retrieved document scores
// 1 - min(n, R)/min(N, R), with n the judged non-relevant documents above
// it and N all judged non-relevant documents of the query. The sum is
// divided by R. The min(·, R) caps are the trap: past R judged non-relevant
// documents, a relevant document scores 0 however far down it is.
func (q *query) bpref() float64 {
	numNonrel := 0
	for _, l := range q.lvls() {
		if l.grade < q.level {
			numNonrel += l.n
		}
	}
	nonrel := 0
	sum := 0.0
	for _, r := range q.rels {
		if r == relNonpool || r == relUnjudged {
			continue
		}
		if r >= 0 && r < q.level {
			nonrel++
			continue
		}
		if nonrel > 0 {
			sum += 1.0 - float64(min(nonrel, q.numRel))/float64(min(numNonrel, q.numRel))
		} else {
			sum += 1.0
		}
	}
	if q.numRel != 0 {
		sum /= float64(q.numRel)
	}
	return sum
}

// infAP is m_infap.c, Yilmaz and Aslam's inferred AP: judgments are a
// sample of the pool. Documents outside the pool count as non-relevant.
// Pooled but unjudged ones, with a negative grade in the qrels, are assumed
// relevant in the proportion of the judged ones above them.
func (q *query) infAP() float64 {
	nonrel, rel, unjudged := 0, 0, 0
	sum := 0.0
	for j, r := range q.rels {
		switch {
		case r == relNonpool:
			continue
		case r == relUnjudged:
			unjudged++
			continue
		case r >= 0 && r < q.level:
			nonrel++
			continue
		}
		rel++
		if j == 0 {
			sum += 1.0
			continue
		}
		fj := float64(j)
		a := 1.0 / (fj + 1.0)
		b := fj / (fj + 1.0)
		c := float64(rel-1+nonrel+unjudged) / fj
		d := (float64(rel-1) + infAPEpsilon) / (float64(rel-1+nonrel) + 2*infAPEpsilon)
		sum += a + float64(float64(b*c)*d)
	}
	if q.numRel != 0 {
		sum /= float64(q.numRel)
	}
	return sum
}

// recallCounts turns recall fractions into numbers of relevant documents
// as m_iprec_at_recall.c and m_11pt_avg.c do.
func recallCounts(fracs []float64, numRel int, out []int64) []int64 {
	out = out[:0]
	for _, f := range fracs {
		out = append(out, recallCount(f, numRel))
	}
	return out
}

// recallCount is trec_eval 9.0.8's (long)(f*R + 0.9): a fraction of the
// relevant documents rounded up unless just above an integer. 0.1 of 31
// relevant documents is 4, and 0.1 of 38 is 4. Later trec_eval versions
// round to nearest instead, but 9.0.8 is the reference here.
func recallCount(f float64, numRel int) int64 {
	return int64(float64(f*float64(numRel)) + 0.9)
}

// interpolated walks the ranking from the bottom keeping the best precision
// seen so far. That is the interpolated precision, the maximum precision at
// any rank at or below. It calls emit(i, p) for each cut i, a number of
// relevant documents, with the interpolated precision at the rank where
// that many relevant documents are retrieved. cuts are visited from the
// last one down, as in trec_eval. Cuts above the relevant documents
// retrieved get no call and score 0.
func (q *query) interpolated(cuts []int64, emit func(i int, p float64)) {
	cur := len(cuts) - 1
	for cur >= 0 && cuts[cur] > int64(q.relRet) {
		cur--
	}
	n := len(q.rels)
	best := float64(q.relRet) / float64(n)
	relSoFar := q.relRet
	for i := n; i > 0 && relSoFar > 0; i-- {
		if p := float64(relSoFar) / float64(i); best < p {
			best = p
		}
		if q.isRel(i - 1) {
			for cur >= 0 && int64(relSoFar) == cuts[cur] {
				emit(cur, best)
				cur--
			}
			relSoFar--
		}
	}
	for ; cur >= 0; cur-- {
		emit(cur, best)
	}
}

// rprecMult is m_Rprec_mult.c for one multiple x: precision at
// (long)(x*R + 0.9) documents. A cutoff beyond the ranking counts the
// missing documents as non-relevant. A cutoff of 0 scores 0.
func (q *query) rprecMult(x float64) float64 {
	c := int64(float64(x*float64(q.numRel)) + 0.9)
	if c > int64(len(q.rels)) {
		return float64(q.relRet) / float64(c)
	}
	if c <= 0 {
		return 0
	}
	return float64(q.relIn(c)) / float64(c)
}

// utility is m_utility.c: p[0]·relret + p[1]·nonrelret + p[2]·relnotret +
// p[3]·(numDocs − the rest).
func (q *query) utility(p []float64, numDocs int64) float64 {
	n, rr, R := int64(len(q.rels)), int64(q.relRet), int64(q.numRel)
	v := float64(p[0] * float64(rr))
	v += float64(p[1] * float64(n-rr))
	v += float64(p[2] * float64(R-rr))
	v += float64(p[3] * float64(numDocs+rr-n-R))
	return v
}

// binG is m_binG.c: each relevant retrieved document gains
// 1/log2(2 + non-relevant documents above it). The sum is divided by R.
func (q *query) binG() float64 {
	rel := 0
	sum := 0.0
	for i := range q.rels {
		if q.isRel(i) {
			rel++
			sum += 1.0 / log2Rank(i+1-rel)
		}
	}
	if rel == 0 {
		return 0
	}
	return sum / float64(q.numRel)
}

// relGain is one relevance level with its gain (setup_gains in m_ndcg.c).
type relGain struct {
	level int64
	n     int
	gain  float64
}

// maxDenseLevel bounds the levels listed one by one, from 0 to the highest
// judged grade, as trec_eval lists them. Beyond it only the judged grades
// are listed. That differs from trec_eval only in the order of levels whose
// gains differ by less than 1 (gainTable).
const maxDenseLevel = 1 << 16

// gainTable is the gain of each relevance level: the pairs given with the
// measure ("-m ndcg.1=3,2=9"), then every level from 0 to the highest
// judged grade not among them, with gain = level. It is sorted by gain with
// trec_eval's comparison, which truncates the difference of two gains to
// an integer (so gains less than 1 apart compare equal and keep their
// order), using glibc's merge sort so that the order is trec_eval's.
func (q *query) gainTable(pairs []gainPair, tab []relGain) []relGain {
	tab = tab[:0]
	for _, p := range pairs {
		tab = append(tab, relGain{level: p.level, gain: p.gain})
	}
	add := func(level int64, n int) {
		for j := range tab {
			if tab[j].level == level {
				tab[j].n = n
				return
			}
		}
		tab = append(tab, relGain{level: level, n: n, gain: float64(level)})
	}
	if lv := q.lvls(); len(lv) > 0 {
		top := lv[len(lv)-1].grade
		if top <= maxDenseLevel {
			for g := 0; g <= top; g++ {
				add(int64(g), q.levelN(g))
			}
		} else {
			for _, l := range lv {
				add(int64(l.grade), l.n)
			}
		}
	}
	var tmp [16]relGain
	buf := tmp[:0]
	if len(tab) > len(tmp) {
		buf = make([]relGain, len(tab))
	}
	msortGains(tab, buf[:len(tab)])
	return tab
}

// cmpGain is comp_rel_gain: (int)(a.gain − b.gain).
func cmpGain(a, b *relGain) int {
	d := a.gain - b.gain
	switch {
	case d != d:
		return 0
	case d >= math.MaxInt32:
		return math.MaxInt32
	case d <= math.MinInt32:
		return math.MinInt32
	}
	return int(d)
}

// msortGains is glibc's qsort merge sort (msort.c) over the gain table.
func msortGains(a, tmp []relGain) {
	n := len(a)
	if n <= 1 {
		return
	}
	n1 := n / 2
	msortGains(a[:n1], tmp)
	msortGains(a[n1:], tmp)
	b1, b2 := a[:n1], a[n1:]
	k := 0
	for len(b1) > 0 && len(b2) > 0 {
		if cmpGain(&b1[0], &b2[0]) <= 0 {
			tmp[k] = b1[0]
			b1 = b1[1:]
		} else {
			tmp[k] = b2[0]
			b2 = b2[1:]
		}
		k++
	}
	k += copy(tmp[k:], b1)
	copy(a, tmp[:k])
}

// gainOf is get_gain: the gain of the first level of the table equal to
// rel (rel may be relNonpool or relUnjudged, which a pair can name), 0 if
// none.
func gainOf(tab []relGain, rel int) float64 {
	for i := range tab {
		if tab[i].level == int64(rel) {
			return tab[i].gain
		}
	}
	return 0
}

// gains is the gain view of a query for G, ndcg, ndcg_rel and Rndcg.
type gains struct {
	tab   []relGain
	top   float64   // gain of the highest level, where the ideal ranking starts
	ideal []float64 // positive gains of the ideal ranking, best first
	rg    []float64 // gain of each retrieved document
}

// setGains fills g for the query: the ideal ranking takes the levels from
// the highest gain down, each as many times as it has judgments, and stops
// at the first judged level whose gain is not positive.
func (q *query) setGains(pairs []gainPair, g *gains) {
	g.tab = q.gainTable(pairs, g.tab)
	g.top = 0
	g.ideal = g.ideal[:0]
	if len(g.tab) > 0 {
		g.top = g.tab[len(g.tab)-1].gain
	}
	if g.top > 0 {
		for c := len(g.tab) - 1; c >= 0; c-- {
			if g.tab[c].n == 0 {
				continue
			}
			if !(g.tab[c].gain > 0) {
				break
			}
			for range g.tab[c].n {
				g.ideal = append(g.ideal, g.tab[c].gain)
			}
		}
	}
	g.rg = g.rg[:0]
	for _, r := range q.rels {
		g.rg = append(g.rg, gainOf(g.tab, r))
	}
}

// firstLoop is the number of ranks trec_eval's ndcg-style loops walk while
// the ideal gain is positive: up to one past the ideal ranking.
func (g *gains) firstLoop(n int) int {
	if !(g.top > 0) {
		return 0
	}
	return min(n, len(g.ideal)+1)
}

// idealChanged reports whether the ideal gain at rank index p differs from
// the one before (Rndcg's R levels).
func (g *gains) idealChanged(p int) bool {
	switch {
	case p >= len(g.ideal):
		return true
	case p == 0:
		return g.ideal[0] != g.top
	}
	return g.ideal[p] != g.ideal[p-1]
}

// ndcg is m_ndcg.c: DCG of the ranking with the level gains over DCG of the
// ideal ranking (all of it, not cut at the retrieved documents).
func (q *query) ndcg(g *gains) float64 {
	rd := 0.0
	for i, x := range g.rg {
		if x != 0 {
			rd += x / log2Rank(i)
		}
	}
	id := 0.0
	for p, x := range g.ideal {
		id += x / log2Rank(p)
	}
	if id > 0 {
		return rd / id
	}
	return 0
}

// ndcgRel is m_ndcg_rel.c: nDCG averaged over the relevant documents,
// those of gain > 0. A relevant document not retrieved scores the final
// DCG over the full ideal DCG.
func (q *query) ndcgRel(g *gains) float64 {
	n := len(g.rg)
	l1 := g.firstLoop(n)
	rd, id, sum := 0.0, 0.0, 0.0
	numRel, numRelRet := 0, 0
	for i := range n {
		x := g.rg[i]
		if x != 0 {
			rd += x / log2Rank(i)
		}
		if i < l1 && i < len(g.ideal) {
			numRel++
			id += g.ideal[i] / log2Rank(i)
		}
		if x > 0 {
			sum += rd / id
			numRelRet++
		}
	}
	if g.top > 0 && n <= len(g.ideal) {
		for p := n; p < len(g.ideal); p++ {
			numRel++
			id += g.ideal[p] / log2Rank(p)
		}
	}
	sum += float64(float64(numRel-numRelRet)*rd) / id
	if sum > 0 {
		return sum / float64(numRel)
	}
	return 0
}

// rndcg is m_Rndcg.c: nDCG averaged at the ranks where the ideal gain
// changes (the R levels), plus the end of the ranking when it is longer.
func (q *query) rndcg(g *gains) float64 {
	if q.numRel == 0 {
		return 0
	}
	n := len(g.rg)
	l1 := g.firstLoop(n)
	rd, id, sum := 0.0, 0.0, 0.0
	cnt := 0
	point := func() {
		if id > 0 {
			sum += rd / id
			cnt++
		}
	}
	for i := range l1 {
		if g.idealChanged(i) {
			point()
		}
		if x := g.rg[i]; x != 0 {
			rd += x / log2Rank(i)
		}
		if i < len(g.ideal) {
			id += g.ideal[i] / log2Rank(i)
		}
	}
	if l1 < n {
		for i := l1; i < n; i++ {
			if x := g.rg[i]; x != 0 {
				rd += x / log2Rank(i)
			}
		}
		point()
	}
	if g.top > 0 && n <= len(g.ideal) {
		for p := n; ; p++ {
			if g.idealChanged(p) {
				point()
			}
			if p >= len(g.ideal) {
				break
			}
			id += g.ideal[p] / log2Rank(p)
		}
	}
	return sum / float64(cnt)
}

// gMeasure is m_G.c: each document gains gain/log2(2 + cost − gained),
// where gained is the gain retrieved so far and cost the ideal gain so
// far, each rank costing at least 1. The sum is divided by the total ideal
// gain.
func (q *query) gMeasure(g *gains) float64 {
	n := len(g.rg)
	l1 := g.firstLoop(n)
	resG, sumRes, sumIdeal, sumCost := 0.0, 0.0, 0.0, 0.0
	for i := range n {
		x := g.rg[i]
		sumRes += x
		if i < l1 {
			ig := 0.0
			if i < len(g.ideal) {
				ig = g.ideal[i]
			}
			if ig > 0 {
				sumIdeal += ig
			}
			if ig >= 1 {
				sumCost += ig
			} else {
				sumCost += 1
			}
		} else {
			sumCost += 1
		}
		if x != 0 {
			resG += x / log2Real((2+sumCost)-sumRes)
		}
	}
	if g.top > 0 && n <= len(g.ideal) {
		for p := n; p < len(g.ideal); p++ {
			sumIdeal += g.ideal[p]
		}
	}
	if sumIdeal > 0 {
		return resG / sumIdeal
	}
	return 0
}

// log2Real is log2 of any double: glibc's value for integers (log2Int),
// Go's math.Log2 otherwise (they may differ in the last bit).
func log2Real(x float64) float64 {
	if x >= 1 && x <= 1<<40 && x == math.Trunc(x) {
		if x-2 < float64(len(log2Table())) {
			return log2Rank(int(x) - 2)
		}
		return log2Int(int(x))
	}
	return math.Log2(x)
}

// mapCut fills out[i] with m_map_cut.c's value at cutoffs[i]: the precision
// at each relevant document within the first cutoff, summed and divided by
// R.
func (q *query) mapCut(cutoffs []int64, out []float64) {
	if q.numRel == 0 {
		return
	}
	R := float64(q.numRel)
	ci := 0
	rel := 0
	sum := 0.0
	for i := range q.rels {
		if int64(i) == cutoffs[ci] {
			out[ci] = sum / R
			if ci++; ci == len(cutoffs) {
				return
			}
		}
		if q.isRel(i) {
			rel++
			sum += float64(rel) / float64(i+1)
		}
	}
	for ; ci < len(cutoffs); ci++ {
		out[ci] = sum / R
	}
}

// relativeP is m_rel_P.c: relevant documents among the first k over
// min(k, R).
func (q *query) relativeP(k int64) float64 {
	if q.numRel == 0 {
		return 0
	}
	return float64(q.relIn(k)) / float64(min(k, int64(q.numRel)))
}

func (q *query) setP() float64 {
	if len(q.rels) == 0 {
		return 0
	}
	return float64(q.relRet) / float64(len(q.rels))
}

func (q *query) setRelativeP() float64 {
	if len(q.rels) == 0 || q.numRel == 0 {
		return 0
	}
	return float64(q.relRet) / float64(min(len(q.rels), q.numRel))
}

func (q *query) setRecall() float64 {
	if q.numRel == 0 {
		return 0
	}
	return float64(q.relRet) / float64(q.numRel)
}

func (q *query) setMap() float64 {
	if len(q.rels) == 0 || q.numRel == 0 {
		return 0
	}
	rr := float64(q.relRet)
	return float64(rr*rr) / float64(float64(len(q.rels))*float64(q.numRel))
}

// setF is m_set_F.c: (x+1)·P·R / (x·P + R) on the retrieved set, 0 when
// no relevant document is retrieved.
func (q *query) setF(x float64) float64 {
	if q.relRet == 0 {
		return 0
	}
	p := float64(q.relRet) / float64(len(q.rels))
	r := float64(q.relRet) / float64(q.numRel)
	return float64(float64((x+1.0)*p)*r) / (float64(x*p) + r)
}

// numNonrelJudgedRet counts retrieved documents judged with a grade below
// the level.
func (q *query) numNonrelJudgedRet() int {
	return len(q.rels) - q.nonpool - q.unjudged - q.relRet
}

// relstring is m_relstring.c: one character per document of the first
// min(width, retrieved): the grade 0-9, '>' above 9, '-' not in the pool,
// '.' pooled but unjudged.
func (q *query) relstring(width float64) string {
	n := int64(len(q.rels))
	w := int64(0)
	if !math.IsNaN(width) {
		w = int64(max(min(width, 1<<62), -1))
	}
	w = max(min(w, n), 0)
	b := make([]byte, w)
	for i := range b {
		r := q.rels[i]
		switch {
		case r > 9:
			b[i] = '>'
		case r >= 0:
			b[i] = byte('0' + r)
		case r == relNonpool:
			b[i] = '-'
		case r == relUnjudged:
			b[i] = '.'
		default:
			b[i] = '<'
		}
	}
	return string(b)
}
