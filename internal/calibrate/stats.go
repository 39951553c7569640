package calibrate

import (
	"math"
	"slices"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// This file is the statistics: pure functions over labelled scores, no
// judge, no file format, no rounding (values are rounded only when
// written), except that BestThreshold picks a threshold whose written,
// rounded value keeps the rates it reports.

// Sample is one labelled observation: a qualityScore (of a block, or the
// best of a case's blocks) and whether it belongs to the relevant class.
// Scores must not be NaN.
//
// A Rejected sample has no score: no threshold keeps it, and Score is not
// read. It is a case that retrieved nothing. It counts in its class, as a
// false negative or a true negative at every threshold, but in no score
// summary or histogram.
type Sample struct {
	Score    float64
	Relevant bool
	Rejected bool
}

// Summary describes the scores of one class. Every field but Count is nil
// when Count is 0.
type Summary struct {
	Count                  int
	Min, Median, Mean, Max *float64
}

// Summarize returns the summary of scores. The median of an even number of
// scores is the mean of the two middle ones.
func Summarize(scores []float64) Summary {
	n := len(scores)
	if n == 0 {
		return Summary{}
	}
	s := slices.Clone(scores)
	slices.Sort(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Summary{Count: n, Min: ptr(s[0]), Median: ptr(med), Mean: ptr(sum / float64(n)), Max: ptr(s[n-1])}
}

// Scores returns the scores of the samples of one class, in input order,
// rejected ones left out.
func Scores(samples []Sample, relevant bool) []float64 {
	out := []float64{}
	for _, s := range samples {
		if s.Relevant == relevant && !s.Rejected {
			out = append(out, s.Score)
		}
	}
	return out
}

// Histogram layout: Bins bins of width BinWidth over [0, 1].
const (
	Bins     = 20
	BinWidth = 1.0 / Bins
)

// Bin is one histogram bin, [Lo, Hi) — the last bin is [Lo, Hi], so a
// score of exactly 1 is counted.
type Bin struct {
	Lo, Hi                float64
	Relevant, NonRelevant int
}

// BinLo returns the lower edge of bin i, i/Bins: computed by division, so
// edge 3 is the float64 nearest 0.15 and a score parsed from "0.15" falls
// in bin 3, not bin 2 as floor(0.15/0.05) would put it.
func BinLo(i int) float64 { return float64(i) / Bins }

// BinOf returns the bin of a score. Scores outside [0, 1] (the pipeline
// clamps qualityScore, so only hand-made inputs have them) are counted in
// the nearest end bin.
func BinOf(score float64) int {
	i := int(math.Floor(score * Bins))
	i = max(0, min(i, Bins-1))
	// Correct the product's rounding against the edges themselves.
	for i > 0 && score < BinLo(i) {
		i--
	}
	for i < Bins-1 && score >= BinLo(i+1) {
		i++
	}
	return i
}

// Histogram counts the scored samples of each class per bin. It always
// returns Bins bins.
func Histogram(samples []Sample) []Bin {
	bins := make([]Bin, Bins)
	for i := range bins {
		bins[i].Lo, bins[i].Hi = BinLo(i), BinLo(i+1)
	}
	for _, s := range samples {
		if s.Rejected {
			continue
		}
		b := &bins[BinOf(s.Score)]
		if s.Relevant {
			b.Relevant++
		} else {
			b.NonRelevant++
		}
	}
	return bins
}

// Rates are the outcome of the rule "predict relevant when score ≥
// Threshold" on a set of samples. A rate with nothing to divide by is nil:
// TPR without relevant samples, FPR without non-relevant ones, Precision
// when nothing is predicted relevant, J unless both TPR and FPR exist.
type Rates struct {
	Threshold      float64
	TP, FP, FN, TN int
	// TPR = TP/(TP+FN), FPR = FP/(FP+TN), Precision = TP/(TP+FP),
	// J = TPR − FPR (Youden's J).
	TPR, FPR, Precision, J *float64
}

// RatesAt applies threshold t to samples. A rejected sample is never
// predicted relevant.
func RatesAt(samples []Sample, t float64) Rates {
	r := Rates{Threshold: t}
	for _, s := range samples {
		switch pred := !s.Rejected && s.Score >= t; {
		case s.Relevant && pred:
			r.TP++
		case s.Relevant:
			r.FN++
		case pred:
			r.FP++
		default:
			r.TN++
		}
	}
	r.fill()
	return r
}

func (r *Rates) fill() {
	r.TPR = ratio(r.TP, r.TP+r.FN)
	r.FPR = ratio(r.FP, r.FP+r.TN)
	r.Precision = ratio(r.TP, r.TP+r.FP)
	if r.TPR != nil && r.FPR != nil {
		r.J = ptr(*r.TPR - *r.FPR)
	}
}

// BestThreshold returns the threshold that best separates the relevant
// samples from the others: the t maximising Youden's J = TPR − FPR for the
// rule score ≥ t. The candidates are, in increasing order:
//
//   - one below every score, where everything is predicted relevant and
//     J = 0. It is min(0, lowest score), lowered to a 6-decimal value when
//     its rounding would rise above the lowest score.
//   - one between each pair of adjacent distinct scores (between)
//   - one above every score, where nothing is predicted relevant and J = 0.
//     It never wins, as ties go to the lowest candidate.
//
// J is compared exactly, in integers, so equal J values tie whatever the
// float rounding.
//
// The threshold is chosen so that contract.Round6(best.Threshold), the
// value the reports write, gives the same TP, FP, FN and TN as
// best.Threshold does. The exception is when no 6-decimal value lies
// between the two adjacent scores it separates. Both then have more than 6
// decimals and lie within the same 0.000001 step.
//
// The threshold is chosen on the scored samples alone, as no threshold
// moves a rejected one. The rates it returns count the rejected samples
// too, as false or true negatives.
//
// ok is false when either class has no scored sample, as there is then
// nothing to place a threshold between.
func BestThreshold(samples []Sample) (best Rates, ok bool) {
	s, all, allNeg := byScore(samples)
	pos, neg := scored(s)
	if pos == 0 || neg == 0 {
		return Rates{}, false
	}
	// Sweep upwards: at each candidate, tp and fp count the samples at or
	// above it. J·pos·neg = tp·neg − fp·pos is compared as an integer.
	tp, fp := pos, neg
	cur := Rates{Threshold: below(s[0].Score), TP: tp, FP: fp}
	bestJ := int64(tp)*int64(neg) - int64(fp)*int64(pos)
	best = cur
	for i := 0; i < len(s); {
		// Step over the group of samples equal to s[i].
		j := i
		for j < len(s) && s[j].Score == s[i].Score {
			if s[j].Relevant {
				tp--
			} else {
				fp--
			}
			j++
		}
		if j == len(s) {
			break // above the maximum: J = 0, never better than below the minimum
		}
		t := between(s[i].Score, s[j].Score)
		if jn := int64(tp)*int64(neg) - int64(fp)*int64(pos); jn > bestJ {
			bestJ = jn
			best = Rates{Threshold: t, TP: tp, FP: fp}
		}
		i = j
	}
	best.FN, best.TN = all-best.TP, allNeg-best.FP
	best.fill()
	return best, true
}

// between returns the threshold BestThreshold places between adjacent
// distinct scores lo < hi. It is a t with lo < t ≤ hi whose 6-decimal
// rounding contract.Round6(t), the value the reports write, also lies in
// (lo, hi]. So "score ≥ t" and "score ≥ the written t" keep the same
// scores. t is the midpoint when the midpoint's rounding lies in (lo, hi].
// Else it is the smallest 6-decimal value above lo, which is hi when lo
// and hi are 6-decimal values 0.000001 apart. When no 6-decimal value lies
// in (lo, hi], it is the midpoint.
func between(lo, hi float64) float64 {
	m := lo + (hi-lo)/2
	if r := contract.Round6(m); r > lo && r <= hi {
		return m
	}
	c := contract.Round6(lo)
	if c <= lo {
		c = contract.Round6(c + 1e-6)
	}
	if c > lo && c <= hi {
		return c
	}
	return m
}

// below returns the "keep everything" threshold for a lowest score lo:
// min(0, lo), or, when that rounds to 6 decimals above lo (a negative lo
// with more than 6 decimals), the largest 6-decimal value at or below lo.
func below(lo float64) float64 {
	t := min(0, lo)
	if contract.Round6(t) <= lo {
		return t
	}
	c := contract.Round6(lo)
	if c > lo {
		c = contract.Round6(c - 1e-6)
	}
	return c
}

func ratio(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	return ptr(float64(num) / float64(den))
}

func ptr(v float64) *float64 { return &v }

// ROCPoint is one point of a ROC curve: the rates of the rule "score ≥
// Threshold".
type ROCPoint struct {
	Threshold, FPR, TPR float64
}

// ROC returns the ROC curve of samples, from (0, 0) to (1, 1): the first
// point keeps nothing (its Threshold is +Inf), then one point per distinct
// score from the highest down, each keeping the samples at or above it.
// Rejected samples are never kept, so with them the curve ends below or
// left of (1, 1). Nil when either class has no scored sample.
func ROC(samples []Sample) []ROCPoint {
	s, pos, neg := byScore(samples)
	if !scoredBoth(s) {
		return nil
	}
	out := []ROCPoint{{Threshold: math.Inf(1)}}
	tp, fp := 0, 0
	// Sweep downwards, a group of equal scores at a time.
	for i := len(s) - 1; i >= 0; {
		j := i
		for j >= 0 && s[j].Score == s[i].Score {
			if s[j].Relevant {
				tp++
			} else {
				fp++
			}
			j--
		}
		out = append(out, ROCPoint{Threshold: s[i].Score, FPR: float64(fp) / float64(neg), TPR: float64(tp) / float64(pos)})
		i = j
	}
	return out
}

// byScore returns a copy of the scored samples sorted by increasing score,
// and how many of all the samples, rejected ones included, are relevant
// (pos) and not (neg).
func byScore(samples []Sample) (s []Sample, pos, neg int) {
	s = make([]Sample, 0, len(samples))
	for _, x := range samples {
		if x.Relevant {
			pos++
		} else {
			neg++
		}
		if !x.Rejected {
			s = append(s, x)
		}
	}
	slices.SortFunc(s, func(a, b Sample) int {
		switch {
		case a.Score < b.Score:
			return -1
		case a.Score > b.Score:
			return 1
		}
		return 0
	})
	return s, pos, neg
}

// scored counts the relevant and the non-relevant samples of s.
func scored(s []Sample) (pos, neg int) {
	for _, x := range s {
		if x.Relevant {
			pos++
		} else {
			neg++
		}
	}
	return pos, neg
}

// scoredBoth reports whether s has a relevant and a non-relevant sample.
func scoredBoth(s []Sample) bool {
	pos, neg := scored(s)
	return pos > 0 && neg > 0
}
