package kb

import (
	"fmt"
	"math"
	"slices"
)

// Fusion names how hybrid search fuses its dense and BM25 lists. Every
// backend fuses in Go with Fuse, so given the same two lists the embedded
// index and Milvus rank identically.
type Fusion string

// Fusions.
const (
	// FusionRRF is reciprocal rank fusion: a chunk scores
	// 1/(k + dense rank) + 1/(k + BM25 rank), a term for each list it is in.
	FusionRRF Fusion = "rrf"
	// FusionAnchored is RRF anchored on the dense list, for a neural
	// embedder whose dense list is the better one:
	//   - a BM25 rank counts only for a chunk among the dense top
	//     AnchorWindow, 10. A chunk that only shares words with the query
	//     scores 0, behind every chunk the dense list found. So it is cut
	//     whenever the dense list fills the K places, instead of pushing a
	//     cross-lingual or paraphrased answer out of the top K. BM25 cannot
	//     see such answers.
	//   - the dense top 1 ranks at worst AnchorPin-th, 3rd. BM25 may reorder
	//     the head but not bury the embedding's best match.
	// Inside the window it is plain RRF, so where both lists agree the
	// ranking is RRF's.
	FusionAnchored Fusion = "anchored"
)

// Parameters of FusionAnchored.
const (
	AnchorWindow = 10
	AnchorPin    = 3
)

// Fusions lists the valid fusions, for flags and messages.
var Fusions = []Fusion{FusionRRF, FusionAnchored}

// Valid reports why f is not a fusion, or nil. The empty fusion is RRF.
func (f Fusion) Valid() error {
	if f == "" || slices.Contains(Fusions, f) {
		return nil
	}
	return fmt.Errorf("unknown fusion %q (want %q or %q)", string(f), FusionRRF, FusionAnchored)
}

// Fuse fuses a dense list and a BM25 list into a score per id of their
// union, higher better. Each list is best first and holds an id at most
// once. f is the fusion, "" for RRF. rrfK is the RRF constant, 0 for
// DefaultRRFK. The caller sorts by score with its own deterministic
// tie-break and cuts to K. A chunk only BM25 found that the anchored fusion
// does not count scores 0, after every chunk that counts.
func Fuse(f Fusion, rrfK int, dense, sparse []int) map[int]float64 {
	if rrfK <= 0 {
		rrfK = DefaultRRFK
	}
	rr := func(i int) float64 { return 1 / float64(rrfK+i+1) }
	score := make(map[int]float64, len(dense)+len(sparse))
	for i, id := range dense {
		score[id] += rr(i)
	}
	anchored := f == FusionAnchored
	window := dense[:min(AnchorWindow, len(dense))]
	for i, id := range sparse {
		if anchored && !slices.Contains(window, id) {
			if _, ok := score[id]; !ok {
				score[id] = 0 // a candidate still, behind the counted ones
			}
			continue
		}
		score[id] += rr(i)
	}
	if !anchored || len(dense) == 0 {
		return score
	}
	// Lift the dense top 1 just above the AnchorPin-th best other score,
	// when it is not above it already.
	top := dense[0]
	others := make([]float64, 0, len(score)-1)
	for id, s := range score {
		if id != top {
			others = append(others, s)
		}
	}
	if len(others) < AnchorPin {
		return score
	}
	slices.Sort(others)
	if t := others[len(others)-AnchorPin]; score[top] <= t {
		score[top] = math.Nextafter(t, math.Inf(1))
	}
	return score
}
