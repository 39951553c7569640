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

// rankOrder sorts idx, indices into ents, into trec_eval's rank order,
// using tmp (len(tmp) >= len(idx)) as scratch space.
//
// For scores without NaN the comparison is a total order, so any sort gives
// trec_eval's ranking. A NaN score compares equal to every score (the
// comparison then falls through to the docno), which is no order at all; the
// result then depends on the sort algorithm. This is glibc's qsort
// (msort.c): a top-down merge sort splitting n into n/2 and n-n/2 that
// takes from the left run on ties, so NaN rankings come out as trec_eval's
// do with glibc's merge sort.
func rankOrder(ents []result, idx, tmp []int32) {
	n := len(idx)
	if n <= 1 {
		return
	}
	n1 := n / 2
	rankOrder(ents, idx[:n1], tmp)
	rankOrder(ents, idx[n1:], tmp)
	b1, b2 := idx[:n1], idx[n1:]
	k := 0
	for len(b1) > 0 && len(b2) > 0 {
		if cmpResult(&ents[b1[0]], &ents[b2[0]]) <= 0 {
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
