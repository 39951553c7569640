package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestRankerMatchesComparison(t *testing.T) {
	// before must be cmpResult(a, b) <= 0, the prefix keys a mere short cut:
	// docnos sharing 8-byte prefixes, prefixes of each other, high bytes,
	// equal and NaN scores.
	rng := rand.New(rand.NewPCG(3, 4))
	docnos := []string{"", "a", "ab", "abcdefgh", "abcdefghi", "abcdefghj", "abcdefgh\xff", "\xff", "\x01", "zz", "abcdefg"}
	sims := []float64{0, 1, -1, 0.5, math.NaN(), math.Inf(1), math.Copysign(0, -1)}
	var ents []result
	for range 400 {
		ents = append(ents, result{docno: docnos[rng.IntN(len(docnos))], sim: sims[rng.IntN(len(sims))]})
	}
	var r ranker
	r.order(ents, make([]int32, len(ents)))
	for a := range ents {
		for b := range ents {
			want := cmpResult(&ents[a], &ents[b]) <= 0
			if got := r.before(ents, int32(a), int32(b)); got != want {
				t.Fatalf("before(%+v, %+v) = %v, want %v", ents[a], ents[b], got, want)
			}
		}
	}

	// Without NaN the order is the unique sorted order.
	ents = ents[:0]
	for range 1000 {
		ents = append(ents, result{docno: docnos[rng.IntN(len(docnos))] + string(rune('a'+rng.IntN(3))), sim: float64(rng.IntN(5))})
	}
	idx := make([]int32, len(ents))
	for i := range idx {
		idx[i] = int32(i)
	}
	r.order(ents, idx)
	if !slices.IsSortedFunc(idx, func(a, b int32) int { return cmpResult(&ents[a], &ents[b]) }) {
		t.Fatal("ranking is not sorted")
	}
}
