package metrics

import (
	"cmp"
	"slices"
)

// Judgments maps docno → relevance grade for the judged documents of one
// query. A document absent from the map is unjudged. A negative grade
// marks a document that was pooled but not judged, trec_eval's -1
// convention.
type Judgments map[string]int

// Relevance values of a ranked document that is not a plain judged grade,
// as trec_eval's form_res_rels.c assigns them.
const (
	relNonpool  = -1 // docno absent from the qrels of the query
	relUnjudged = -2 // docno in the qrels with a negative grade
)

// DefaultRelLevel is trec_eval's default -l: a document is relevant when its
// grade is at least 1.
const DefaultRelLevel = 1

// query is one query ready for the measures: the relevance value of each
// retrieved document in rank order, and the judged grades.
type query struct {
	rels   []int // per rank: grade >= 0, relNonpool or relUnjudged
	numRel int   // judged documents with grade >= 0 and grade >= level
	ideal  []int // grades >= 1 of all judged documents, descending
	level  int

	// Filled by finish, for the measures beyond the judge's.
	levels      []levelCount // judged grades >= 0, ascending, with their counts (lvls)
	levelsReady bool
	grades      []int   // judged grades >= 0, in no order until lvls sorts them
	relRet      int     // retrieved documents with grade >= 0 and >= level
	nonpool     int     // retrieved documents without a judgment
	unjudged    int     // retrieved documents judged with a negative grade
	cum         []int32 // cum[i]: documents among the first i with isRel
}

// levelCount is one judged grade and its number of judgments.
type levelCount struct {
	grade int
	n     int
}

// isRel reports whether a ranked document counts as relevant for the
// ranked measures (map, P, recall, Rprec, recip_rank, success). Like
// trec_eval it compares the raw relevance value, so with a level below 0 the
// unjudged markers count too.
func (q *query) isRel(i int) bool { return q.rels[i] >= q.level }

func (q *query) avgPrec() float64 {
	relSoFar := 0
	sum := 0.0
	for i := range q.rels {
		if q.isRel(i) {
			relSoFar++
			sum += float64(relSoFar) / float64(i+1)
		}
	}
	if relSoFar == 0 {
		return 0
	}
	return sum / float64(q.numRel) // +Inf when numRel is 0 (only with -l < 0)
}

func (q *query) rPrec() float64 {
	n := min(len(q.rels), q.numRel)
	if n == 0 {
		return 0
	}
	return float64(q.relIn(int64(n))) / float64(q.numRel)
}

func (q *query) recipRank() float64 {
	for i := range q.rels {
		if q.isRel(i) {
			return 1.0 / float64(i+1)
		}
	}
	return 0
}

func (q *query) precision(k int64) float64 {
	return float64(q.relIn(k)) / float64(k)
}

func (q *query) recall(k int64) float64 {
	if q.numRel == 0 {
		return 0
	}
	return float64(q.relIn(k)) / float64(q.numRel)
}

func (q *query) success(k int64) float64 {
	if q.relIn(k) > 0 {
		return 1
	}
	return 0
}

// dcg sums grade/log2(rank+1) over the first min(k, len) positive values of
// rels, in rank order, as m_ndcg_cut.c does.
func dcg(rels []int, k int64) float64 {
	sum := 0.0
	for i, g := range rels {
		if int64(i) >= k {
			break
		}
		if g > 0 {
			sum += float64(g) / log2Rank(i)
		}
	}
	return sum
}

// ndcgCut is m_ndcg_cut.c: the raw grade is the gain (the level is
// ignored), the ideal ranking holds every judged document with grade >= 1.
func (q *query) ndcgCut(k int64) float64 {
	d := dcg(q.rels, k)
	ideal := dcg(q.ideal, k)
	if ideal > 0 {
		return d / ideal
	}
	return d
}

// newQuery builds the measures' view of an ordered ranking judged by j.
func newQuery(ranking []string, j Judgments, relLevel int) *query {
	q := &query{rels: make([]int, len(ranking)), level: relLevel}
	for i, d := range ranking {
		g, ok := j[d]
		switch {
		case !ok:
			q.rels[i] = relNonpool
		case g < 0:
			q.rels[i] = relUnjudged
		default:
			q.rels[i] = g
		}
	}
	var grades []int
	for _, g := range j {
		if g >= 0 && g >= relLevel {
			q.numRel++
		}
		if g > 0 {
			q.ideal = append(q.ideal, g)
		}
		if g >= 0 {
			grades = append(grades, g)
		}
	}
	sortDesc(q.ideal)
	q.finish(grades, nil)
	return q
}

// sortDesc sorts grades in descending order.
func sortDesc(a []int) {
	slices.SortFunc(a, func(x, y int) int { return cmp.Compare(y, x) })
}

// RecipRank is trec_eval's recip_rank for one query: 1/rank of the first
// document whose grade is >= relLevel, 0 when there is none. There is no
// cutoff: truncate ranking to get one, as trec_eval -M does.
//
// ranking lists docnos in rank order without duplicates. Duplicates are
// not checked, and each occurrence counts. Documents absent from j are
// non-relevant.
func RecipRank(ranking []string, j Judgments, relLevel int) float64 {
	return newQuery(ranking, j, relLevel).recipRank()
}

// PrecisionAt is trec_eval's P.k for one query: the number of documents with
// grade >= relLevel among the first k, divided by k (always k, even when
// fewer than k documents were retrieved). k < 1 scores 0.
func PrecisionAt(ranking []string, j Judgments, relLevel, k int) float64 {
	if k < 1 {
		return 0
	}
	return newQuery(ranking, j, relLevel).precision(int64(k))
}

// RecallAt is trec_eval's recall.k for one query: the number of documents
// with grade >= relLevel among the first k, divided by the number of judged
// documents with grade >= relLevel (retrieved or not). A query without
// relevant documents, or k < 1, scores 0.
func RecallAt(ranking []string, j Judgments, relLevel, k int) float64 {
	if k < 1 {
		return 0
	}
	return newQuery(ranking, j, relLevel).recall(int64(k))
}

// NDCGCutAt is trec_eval's ndcg_cut.k for one query: DCG of the first k
// documents, gain = grade (grades <= 0 and unjudged documents gain nothing),
// discount log2(rank+1), divided by the DCG of the ideal ranking of all
// judged documents with grade >= 1. There is no relevance level: every
// positive grade is a gain. A query without positive grades, or k < 1,
// scores 0.
func NDCGCutAt(ranking []string, j Judgments, k int) float64 {
	if k < 1 {
		return 0
	}
	return newQuery(ranking, j, DefaultRelLevel).ndcgCut(int64(k))
}
