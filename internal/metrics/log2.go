package metrics

import (
	"math"
	"sync"
)

// log2Rank returns log2(i+2), the discount in m_ndcg_cut.c of the document
// at 0-based position i, rank i+1.
//
// trec_eval calls the C library's log2. Go's math.Log2 is off by one unit
// in the last place for 1.8% of integers (log2(3) among them), which would
// move ndcg values by ~1e-16 and could, on a tie, change a printed digit.
// So the discounts are computed in double-double arithmetic and rounded to
// nearest. That is what glibc returns for every integer up to 100001 but
// seven, which glibcLog2Misrounded lists.
func log2Rank(i int) float64 {
	t := log2Table()
	if i < len(t) {
		return t[i]
	}
	return log2Int(i + 2)
}

var log2Table = sync.OnceValue(func() []float64 {
	t := make([]float64, 4096)
	for i := range t {
		t[i] = log2Int(i + 2)
	}
	return t
})

// glibcLog2Misrounded lists the integers up to 100001 whose log2 glibc
// 2.28 and later on x86-64 rounds to the neighbour above the nearest
// double. trec_eval's discounts are glibc's, so these are too.
var glibcLog2Misrounded = map[int]bool{1621: true, 3242: true, 6484: true, 12968: true, 25936: true, 51872: true, 57803: true}

// log2Int returns log2(n) for n >= 1, correctly rounded (up to the rare
// cases where double-double precision cannot decide), then adjusted to
// glibc's value where glibc is known to differ.
func log2Int(n int) float64 {
	m, e := math.Frexp(float64(n)) // n = m·2^e, m in [0.5, 1)
	m, e = 2*m, e-1
	if m == 1 {
		return float64(e)
	}
	// ln m = 2 atanh(s) with s = (m-1)/(m+1) <= 1/3, so the series gains
	// more than three bits a term.
	s := ddDiv(dd{m - 1, 0}, dd{m + 1, 0})
	s2 := ddMul(s, s)
	term, sum := s, s
	for k := 3.0; ; k += 2 {
		term = ddMul(term, s2)
		t := ddDiv(term, dd{k, 0})
		sum = ddAdd(sum, t)
		if math.Abs(t.hi) < 1e-36 {
			break
		}
	}
	l := ddAdd(ddDiv(ddAdd(sum, sum), ln2dd), dd{float64(e), 0})
	if glibcLog2Misrounded[n] {
		return math.Nextafter(l.hi, math.Inf(1))
	}
	return l.hi
}

// dd is a double-double: hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

var ln2dd = dd{0.6931471805599453, 2.3190468138462996e-17}

func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func quickTwoSum(a, b float64) (float64, float64) {
	s := a + b
	return s, b - (s - a)
}

func ddAdd(x, y dd) dd {
	s, e := twoSum(x.hi, y.hi)
	e += x.lo + y.lo
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func ddMul(x, y dd) dd {
	p := x.hi * y.hi
	e := math.FMA(x.hi, y.hi, -p)
	e += x.hi*y.lo + x.lo*y.hi
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func ddDiv(x, y dd) dd {
	q1 := x.hi / y.hi
	r := ddAdd(x, ddMul(y, dd{-q1, 0}))
	q2 := r.hi / y.hi
	r = ddAdd(r, ddMul(y, dd{-q2, 0}))
	q3 := r.hi / y.hi
	a, b := quickTwoSum(q1, q2)
	return ddAdd(dd{a, b}, dd{q3, 0})
}
