package kb_test

import (
	"math"
	"slices"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

func rrf(ranks ...int) float64 {
	s := 0.0
	for _, r := range ranks {
		s += 1 / float64(60+r)
	}
	return s
}

// order sorts the ids of a fusion best first, ties by id.
func order(score map[int]float64) []int {
	ids := make([]int, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b int) int {
		if score[a] != score[b] {
			if score[a] > score[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	return ids
}

func TestFuseRRF(t *testing.T) {
	dense := []int{1, 2, 3}
	sparse := []int{3, 4}
	for _, f := range []kb.Fusion{"", kb.FusionRRF} {
		got := kb.Fuse(f, 0, dense, sparse)
		want := map[int]float64{1: rrf(1), 2: rrf(2), 3: rrf(3, 1), 4: rrf(2)}
		if len(got) != len(want) {
			t.Fatalf("%q: %v, want %v", f, got, want)
		}
		for id, w := range want {
			if math.Abs(got[id]-w) > 1e-15 {
				t.Errorf("%q: id %d scores %v, want %v", f, id, got[id], w)
			}
		}
	}
	if got := kb.Fuse(kb.FusionRRF, 10, []int{7}, nil); got[7] != 1.0/11 {
		t.Errorf("k=10: %v, want 1/11", got[7])
	}
}

func TestFuseAnchoredWindow(t *testing.T) {
	// Dense 0..11. BM25 finds 11, at dense rank 12 outside the window, 100,
	// not in the dense list, and 5, inside.
	dense := make([]int, 12)
	for i := range dense {
		dense[i] = i
	}
	sparse := []int{11, 100, 5}
	got := kb.Fuse(kb.FusionAnchored, 60, dense, sparse)
	if got[11] != rrf(12) {
		t.Errorf("dense rank 12: %v, want only its dense term %v", got[11], rrf(12))
	}
	if s, ok := got[100]; !ok || s != 0 {
		t.Errorf("BM25 only: %v %v, want a candidate scored 0", s, ok)
	}
	if got[5] != rrf(6, 3) {
		t.Errorf("inside the window: %v, want %v", got[5], rrf(6, 3))
	}
	if o := order(got); o[len(o)-1] != 100 {
		t.Errorf("order %v, want 100 last", o)
	}
	// Plain RRF counts both.
	rr := kb.Fuse(kb.FusionRRF, 60, dense, sparse)
	if want := rrf(12, 1); rr[11] != want {
		t.Errorf("rrf of 11 = %v, want %v", rr[11], want)
	}
	if want := rrf(2); rr[100] != want {
		t.Errorf("rrf of 100 = %v, want %v", rr[100], want)
	}
}

func TestFuseAnchoredPin(t *testing.T) {
	// BM25 agrees with dense ranks 2..5, so RRF puts the dense top 1 fifth.
	dense := []int{1, 2, 3, 4, 5, 6}
	sparse := []int{2, 3, 4, 5}
	if o := order(kb.Fuse(kb.FusionRRF, 60, dense, sparse)); o[4] != 1 {
		t.Fatalf("rrf order %v, want 1 fifth", o)
	}
	got := kb.Fuse(kb.FusionAnchored, 60, dense, sparse)
	if o := order(got); !slices.Equal(o, []int{2, 3, 1, 4, 5, 6}) {
		t.Errorf("anchored order %v, want [2 3 1 4 5 6]", o)
	}
	// Lifted just above the third: the smallest float above it.
	if want := math.Nextafter(got[4], math.Inf(1)); got[1] != want {
		t.Errorf("lifted score %v, want %v", got[1], want)
	}
	// Already in the top 3: untouched.
	got = kb.Fuse(kb.FusionAnchored, 60, dense, []int{2})
	if got[1] != rrf(1) {
		t.Errorf("dense top 1 second: %v, want its RRF %v", got[1], rrf(1))
	}
	// Fewer than three others: nothing to lift above.
	got = kb.Fuse(kb.FusionAnchored, 60, []int{1, 2}, []int{2})
	if got[1] != rrf(1) {
		t.Errorf("two candidates: %v, want %v", got[1], rrf(1))
	}
	if len(kb.Fuse(kb.FusionAnchored, 60, nil, []int{9})) != 1 {
		t.Error("no dense list: BM25's candidates are lost")
	}
}

func TestFusionValid(t *testing.T) {
	for _, f := range []kb.Fusion{"", kb.FusionRRF, kb.FusionAnchored} {
		if err := f.Valid(); err != nil {
			t.Errorf("%q: %v", f, err)
		}
	}
	if err := kb.Fusion("RRF").Valid(); err == nil {
		t.Error(`"RRF": valid`)
	}
}
