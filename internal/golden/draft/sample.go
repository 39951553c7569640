package draft

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
)

// DefaultSeed is the seed of the sample unless Options.Seed says otherwise.
const DefaultSeed = 1

// Stratum is one class of queries the sample represents: frequent or rare,
// in one script class.
type Stratum struct {
	Frequent bool
	Script   string
	// Size is the number of queries in it, Picked the number sampled.
	Size, Picked int
}

// Name is "frequent cjk", "rare latin", ….
func (s Stratum) Name() string {
	if s.Frequent {
		return "frequent " + s.Script
	}
	return "rare " + s.Script
}

// FrequentThreshold is the count from which a query is frequent: the
// count of the query at rank ⌈n/5⌉ of the n queries by count, most
// frequent first, and at least 2. So the frequent queries are those seen
// more than once and among the most frequent fifth, ties included. With
// every count 1 there is none.
func FrequentThreshold(qs []Query) int {
	if len(qs) == 0 {
		return 2
	}
	counts := make([]int, len(qs))
	for i, q := range qs {
		counts[i] = q.Count
	}
	slices.Sort(counts)
	slices.Reverse(counts)
	return max(2, counts[(len(qs)+4)/5-1])
}

// sample picks n of qs, deterministically for a seed, so that every
// stratum is represented (Sample documents the rule). It returns the picks
// in the order of qs and every non-empty stratum, in the order frequent
// then rare, each in the order of Scripts. With n ≤ 0 or n ≥ len(qs) it
// picks every query.
func sample(qs []Query, n int, seed uint64) ([]Query, []Stratum) {
	threshold := FrequentThreshold(qs)
	var strata []Stratum
	members := map[int][]int{} // stratum index → query indexes
	index := map[Stratum]int{}
	for _, frequent := range []bool{true, false} {
		for _, script := range Scripts {
			index[Stratum{Frequent: frequent, Script: script}] = len(index)
		}
	}
	for i, q := range qs {
		s := index[Stratum{Frequent: q.Count >= threshold, Script: q.Script}]
		members[s] = append(members[s], i)
	}
	all := n <= 0 || n >= len(qs)
	picked := make([]bool, len(qs))
	for _, frequent := range []bool{true, false} {
		for _, script := range Scripts {
			st := Stratum{Frequent: frequent, Script: script}
			if m := members[index[st]]; len(m) > 0 {
				st.Size = len(m)
				strata = append(strata, st)
			}
		}
	}
	quota := allocate(strata, n)
	for si := range strata {
		st := &strata[si]
		m := members[index[Stratum{Frequent: st.Frequent, Script: st.Script}]]
		if all {
			st.Picked = len(m)
			for _, i := range m {
				picked[i] = true
			}
			continue
		}
		order := slices.Clone(m)
		ranks := make(map[int]uint64, len(m))
		for _, i := range m {
			ranks[i] = seededRank(seed, qs[i].Key)
		}
		slices.SortFunc(order, func(a, b int) int {
			if st.Frequent && qs[a].Count != qs[b].Count {
				return qs[b].Count - qs[a].Count
			}
			if ra, rb := ranks[a], ranks[b]; ra != rb {
				if ra < rb {
					return -1
				}
				return 1
			}
			return strings.Compare(qs[a].Key, qs[b].Key)
		})
		st.Picked = quota[si]
		for _, i := range order[:quota[si]] {
			picked[i] = true
		}
	}
	if all {
		return qs, strata
	}
	out := make([]Query, 0, n)
	for i, q := range qs {
		if picked[i] {
			out = append(out, q)
		}
	}
	return out, strata
}

// allocate shares n picks among strata of the given sizes: one each, and
// the rest in proportion to the size beyond that one, by largest
// remainder (ties to the earlier stratum). With fewer picks than strata,
// the largest strata get one each (ties to the earlier). Every quota is at
// most its stratum's size. With n ≤ 0 or n at least the total, every
// stratum is taken whole.
func allocate(strata []Stratum, n int) []int {
	quota := make([]int, len(strata))
	total := 0
	for _, s := range strata {
		total += s.Size
	}
	if n <= 0 || n >= total {
		for i, s := range strata {
			quota[i] = s.Size
		}
		return quota
	}
	if n < len(strata) {
		order := make([]int, len(strata))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return strata[b].Size - strata[a].Size })
		for _, i := range order[:n] {
			quota[i] = 1
		}
		return quota
	}
	rest, spare := n-len(strata), total-len(strata)
	type rem struct{ i, r int }
	var rems []rem
	given := 0
	for i, s := range strata {
		share := rest * (s.Size - 1)
		quota[i] = 1 + share/spare
		given += share / spare
		rems = append(rems, rem{i, share % spare})
	}
	slices.SortStableFunc(rems, func(a, b rem) int { return b.r - a.r })
	for _, r := range rems[:rest-given] {
		quota[r.i]++
	}
	return quota
}

// seededRank is a query's place in the seeded order: the first 8 bytes of
// the SHA-256 of the seed in decimal, a NUL byte and the query's key.
func seededRank(seed uint64, key string) uint64 {
	h := sha256.New()
	h.Write([]byte(strconv.FormatUint(seed, 10)))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return binary.BigEndian.Uint64(h.Sum(nil))
}
