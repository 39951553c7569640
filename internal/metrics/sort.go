package metrics

import "strings"

// cmpResult is form_res_rels.c's comp_sim_docno: score descending, then
// docno descending (byte order).
func cmpResult(a, b *result) int {
	if a.sim > b.sim {
		return -1
	}
	if a.sim < b.sim {
		return 1
	}
	return strings.Compare(b.docno, a.docno)
}

// prefixKey packs the first 8 bytes of s, zero padded, so that comparing
// keys compares prefixes in byte order (docnos hold no NUL byte).
func prefixKey(s string) uint64 {
	var k uint64
	n := min(len(s), 8)
	for i := range n {
		k |= uint64(s[i]) << (56 - 8*i)
	}
	return k
}

// ranker sorts the results of one query into trec_eval's rank order.
type ranker struct {
	sims []float64
	keys []uint64
	tmp  []int32
}

// order sorts idx, indices into ents, into rank order: cmpResult, with the
// docno comparison short-cut by prefix keys.
//
// For scores without NaN the comparison is a total order, so any sort gives
// trec_eval's ranking. A NaN score compares equal to every score, and the
// comparison then falls through to the docno. That is no order at all, and
// the result then depends on the sort algorithm. This one is glibc's qsort
// of msort.c: a top-down merge sort splitting n into n/2 and n-n/2 that
// takes from the left run on ties. NaN rankings thus come out as
// trec_eval's do with glibc's merge sort.
func (r *ranker) order(ents []result, idx []int32) {
	n := len(ents)
	if cap(r.sims) < n {
		r.sims = make([]float64, n)
		r.keys = make([]uint64, n)
		r.tmp = make([]int32, n)
	}
	r.sims, r.keys, r.tmp = r.sims[:n], r.keys[:n], r.tmp[:n]
	for i := range ents {
		r.sims[i] = ents[i].sim
		r.keys[i] = prefixKey(ents[i].docno)
	}
	r.msort(ents, idx)
}

// before reports cmpResult(a, b) <= 0.
func (r *ranker) before(ents []result, a, b int32) bool {
	sa, sb := r.sims[a], r.sims[b]
	if sa > sb {
		return true
	}
	if sa < sb {
		return false
	}
	// Equal scores, or a NaN: the docno decides, as in C.
	ka, kb := r.keys[a], r.keys[b]
	if ka != kb {
		return ka > kb
	}
	return ents[a].docno >= ents[b].docno
}

func (r *ranker) msort(ents []result, idx []int32) {
	n := len(idx)
	if n <= 1 {
		return
	}
	n1 := n / 2
	r.msort(ents, idx[:n1])
	r.msort(ents, idx[n1:])
	b1, b2 := idx[:n1], idx[n1:]
	tmp := r.tmp
	k := 0
	for len(b1) > 0 && len(b2) > 0 {
		if r.before(ents, b1[0], b2[0]) {
			tmp[k] = b1[0]
			b1 = b1[1:]
		} else {
			tmp[k] = b2[0]
			b2 = b2[1:]
		}
		k++
	}
	// Whatever remains of b2 is already in place.
	k += copy(tmp[k:], b1)
	copy(idx, tmp[:k])
}
