package metrics

import (
	"math"
	"testing"
)

// near reports whether got is want up to rounding (the hand computations
// below use a different summation order than trec_eval).
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-12 }

func TestPerQueryFunctions(t *testing.T) {
	// Graded judgments with a grade-0 document (b), a pooled-but-unjudged
	// one (u, grade -1) and an unretrieved relevant one (d).
	j := Judgments{"a": 2, "b": 0, "c": 1, "d": 3, "u": -1}
	ranking := []string{"b", "e", "a", "c", "u"} // e is not judged
	log2 := math.Log2
	ideal := 3 + 2/log2(3) + 1/log2(4) // grades 3, 2, 1

	check := func(name string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s = %.17g, want %.17g", name, got, want)
		}
	}
	check("RecipRank", RecipRank(ranking, j, 1), 1.0/3)
	check("RecipRank l=2", RecipRank(ranking, j, 2), 1.0/3)
	check("RecipRank l=3", RecipRank(ranking, j, 3), 0) // d is not retrieved
	check("RecipRank l=0", RecipRank(ranking, j, 0), 1) // grade 0 counts
	check("RecipRank l=-1", RecipRank(ranking, j, -1), 1)

	check("P@1", PrecisionAt(ranking, j, 1, 1), 0)
	check("P@3", PrecisionAt(ranking, j, 1, 3), 1.0/3)
	check("P@5", PrecisionAt(ranking, j, 1, 5), 2.0/5)
	check("P@10 divides by 10", PrecisionAt(ranking, j, 1, 10), 2.0/10)
	check("P@5 l=2", PrecisionAt(ranking, j, 2, 5), 1.0/5)
	check("P@0", PrecisionAt(ranking, j, 1, 0), 0)

	// R = 3 (a, c, d) at level 1, 2 (a, d) at level 2.
	check("recall@3", RecallAt(ranking, j, 1, 3), 1.0/3)
	check("recall@10", RecallAt(ranking, j, 1, 10), 2.0/3)
	check("recall@10 l=2", RecallAt(ranking, j, 2, 10), 1.0/2)
	check("recall@10 l=4", RecallAt(ranking, j, 4, 10), 0) // R = 0

	// Gains are grades (a=2 at rank 3, c=1 at rank 4), whatever the level.
	check("ndcg@1", NDCGCutAt(ranking, j, 1), 0)
	check("ndcg@3", NDCGCutAt(ranking, j, 3), (2/log2(4))/ideal)
	check("ndcg@4", NDCGCutAt(ranking, j, 4), (2/log2(4)+1/log2(5))/ideal)
	check("ndcg@2 ideal cut too", NDCGCutAt([]string{"d", "a"}, j, 2), 1)
	check("ndcg no positive grade", NDCGCutAt(ranking, Judgments{"b": 0}, 5), 0)
	check("ndcg empty ranking", NDCGCutAt(nil, j, 5), 0)

	// A query with no relevant document scores 0 everywhere.
	none := Judgments{"a": 0, "b": 0}
	check("none RR", RecipRank(ranking, none, 1), 0)
	check("none P", PrecisionAt(ranking, none, 1, 5), 0)
	check("none recall", RecallAt(ranking, none, 1, 5), 0)
	check("none ndcg", NDCGCutAt(ranking, none, 5), 0)
}

func TestQueryMeasures(t *testing.T) {
	// Same query as above, through the internal measures Eval uses.
	j := Judgments{"a": 2, "b": 0, "c": 1, "d": 3}
	q := newQuery([]string{"b", "e", "a", "c"}, j, 1)
	tests := []struct {
		name      string
		got, want float64
	}{
		{"num_rel", float64(q.numRel), 3},
		{"num_rel_ret", float64(q.relRet), 2},
		{"map", q.avgPrec(), (1.0/3 + 2.0/4) / 3},
		{"Rprec", q.rPrec(), 1.0 / 3},
		{"success@2", q.success(2), 0},
		{"success@3", q.success(3), 1},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	// Rprec when fewer documents are retrieved than R: divide by R.
	q = newQuery([]string{"a"}, j, 1)
	if got := q.rPrec(); !near(got, 1.0/3) {
		t.Errorf("Rprec short ranking = %v, want 1/3", got)
	}
	// map with level -1: an unjudged document counts as relevant for the
	// ranked measures but not for R (trec_eval compares raw values).
	q = newQuery([]string{"e"}, Judgments{"a": 0}, -1)
	if q.numRel != 1 || q.recipRank() != 1 || q.relRet != 0 {
		t.Errorf("level -1: numRel %d recipRank %v numRelRet %d, want 1 1 0", q.numRel, q.recipRank(), q.relRet)
	}
}

func TestLog2MatchesGlibc(t *testing.T) {
	// Bits of glibc's log2 (x86-64, glibc 2.28+), which trec_eval uses.
	tests := []struct {
		n    int
		bits uint64
	}{
		{2, 0x3ff0000000000000},
		{3, 0x3ff95c01a39fbd68}, // Go's math.Log2(3) is one ulp above
		{5, 0x4002934f0979a371},
		{1621, 0x4025534944f1e1f1}, // glibc rounds up, the nearest is ...f0
		{4097, 0x4028002e291d8543},
	}
	for _, tt := range tests {
		if got := math.Float64bits(log2Int(tt.n)); got != tt.bits {
			t.Errorf("log2(%d) = %#x, want %#x", tt.n, got, tt.bits)
		}
	}
	for _, i := range []int{1, 5000} {
		if got, want := log2Rank(i), log2Int(i+2); got != want {
			t.Errorf("log2Rank(%d) = %v, want log2(%d) = %v", i, got, i+2, want)
		}
	}
}
