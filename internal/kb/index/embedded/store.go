package embedded

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// store is the in-memory index: chunks in slots, their vectors in one
// contiguous slab, and a BM25 inverted index. Slots of deleted chunks are
// reused. A store is not safe for concurrent use. Index guards it.
type store struct {
	dim int

	// Per slot. A free slot has scope -1.
	meta    []kb.Chunk // Vector nil
	scope   []int32    // interned kbScope, -1 when free
	cat     []int32    // interned category
	invNorm []float32  // 1/|v|, 0 for a zero vector
	slab    []float32  // vectors, slot s at [s*dim, (s+1)*dim)
	docLen  []int32    // number of tokens
	terms   [][]int32  // distinct term ids, to remove the postings
	free    []int32

	byKey map[chunkRef]int32
	byDoc map[chunkRef][]int32 // (kbScope, docID) -> slots

	scopeIDs map[string]int32
	catIDs   map[string]int32

	termIDs  map[string]int32
	postings [][]posting // by term id, sorted by slot

	live     int
	totalLen int64
}

// chunkRef names a chunk by kbScope and evidenceKey, or a document by
// kbScope and docID.
type chunkRef struct{ scope, key string }

type posting struct {
	slot int32
	tf   int32
}

func newStore(dim int) *store {
	return &store{
		dim:      dim,
		byKey:    map[chunkRef]int32{},
		byDoc:    map[chunkRef][]int32{},
		scopeIDs: map[string]int32{},
		catIDs:   map[string]int32{},
		termIDs:  map[string]int32{},
	}
}

// prepared is a chunk with its text tokenised, ready to be added under the
// write lock.
type prepared struct {
	chunk  kb.Chunk
	terms  []string // distinct tokens, in order of first appearance
	tfs    []int32
	docLen int32
}

// prepare tokenises the text of each chunk, in parallel when there are
// many.
func prepare(chunks []kb.Chunk) []prepared {
	out := make([]prepared, len(chunks))
	one := func(i int) {
		toks := textnorm.Tokens(chunks[i].Text)
		p := prepared{chunk: chunks[i], docLen: int32(len(toks)),
			terms: make([]string, 0, len(toks)/2+1), tfs: make([]int32, 0, len(toks)/2+1)}
		pos := make(map[string]int, len(toks))
		for _, t := range toks {
			if j, ok := pos[t]; ok {
				p.tfs[j]++
				continue
			}
			pos[t] = len(p.terms)
			p.terms = append(p.terms, t)
			p.tfs = append(p.tfs, 1)
		}
		out[i] = p
	}
	workers := min(runtime.GOMAXPROCS(0), len(chunks)/64)
	if workers <= 1 {
		for i := range chunks {
			one(i)
		}
		return out
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(chunks); i += workers {
				one(i)
			}
		})
	}
	wg.Wait()
	return out
}

// reserve makes room for n more chunks without reallocating the slab
// chunk by chunk (append grows a large slice by only 1.25×, copying the
// whole slab each time). Every per-slot array is given the same capacity:
// grown apart, by slices.Grow, their capacities drifted, and the smallest
// one running out doubled the slab while it still had room (at 100,000
// chunks of 512 dimensions the slab reached 400 MiB, twice what it held).
func (s *store) reserve(n int) {
	need := len(s.meta) + n - len(s.free)
	if need <= s.slots() {
		return
	}
	c := max(need, 2*len(s.meta), 64)
	s.meta = growTo(s.meta, c)
	s.scope = growTo(s.scope, c)
	s.cat = growTo(s.cat, c)
	s.invNorm = growTo(s.invNorm, c)
	s.docLen = growTo(s.docLen, c)
	s.terms = growTo(s.terms, c)
	s.slab = growTo(s.slab, c*s.dim)
}

// slots is how many slots the per-slot arrays have room for.
func (s *store) slots() int {
	return min(cap(s.meta), cap(s.scope), cap(s.cat), cap(s.invNorm), cap(s.docLen), cap(s.terms), cap(s.slab)/s.dim)
}

// growTo returns x with a capacity of exactly c when it has less.
func growTo[T any](x []T, c int) []T {
	if cap(x) >= c {
		return x
	}
	y := make([]T, len(x), c)
	copy(y, x)
	return y
}

// upsertAll adds the prepared chunks in order.
func (s *store) upsertAll(ps []prepared) {
	s.reserve(len(ps))
	for _, p := range ps {
		s.upsert(p)
	}
}

// upsert adds p, replacing the chunk with the same key in the same scope.
func (s *store) upsert(p prepared) {
	c := p.chunk
	ref := chunkRef{c.KBScope, c.EvidenceKey}
	if old, ok := s.byKey[ref]; ok {
		s.remove(old)
	}
	var slot int32
	if n := len(s.free); n > 0 {
		slot = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		slot = int32(len(s.meta))
		s.meta = append(s.meta, kb.Chunk{})
		s.scope = append(s.scope, -1)
		s.cat = append(s.cat, 0)
		s.invNorm = append(s.invNorm, 0)
		s.slab = append(s.slab, make([]float32, s.dim)...)
		s.docLen = append(s.docLen, 0)
		s.terms = append(s.terms, nil)
	}
	vec := c.Vector
	c.Vector = nil
	s.meta[slot] = c
	s.scope[slot] = intern(s.scopeIDs, c.KBScope)
	s.cat[slot] = intern(s.catIDs, c.Category)
	copy(s.slab[int(slot)*s.dim:], vec)
	var n float64
	for _, x := range vec {
		n += float64(x) * float64(x)
	}
	s.invNorm[slot] = 0
	if n > 0 {
		s.invNorm[slot] = float32(1 / math.Sqrt(n))
	}
	s.docLen[slot] = p.docLen
	ids := make([]int32, len(p.terms))
	for i, t := range p.terms {
		id, ok := s.termIDs[t]
		if !ok {
			id = int32(len(s.postings))
			s.termIDs[strings.Clone(t)] = id
			s.postings = append(s.postings, nil)
		}
		ids[i] = id
		pl := s.postings[id]
		if n := len(pl); n == 0 || pl[n-1].slot < slot {
			s.postings[id] = append(pl, posting{slot, p.tfs[i]}) // the usual case: a new slot
		} else {
			j, _ := slices.BinarySearchFunc(pl, slot, cmpSlot)
			s.postings[id] = slices.Insert(pl, j, posting{slot, p.tfs[i]})
		}
	}
	s.terms[slot] = ids
	s.byKey[ref] = slot
	doc := chunkRef{c.KBScope, c.DocID}
	s.byDoc[doc] = append(s.byDoc[doc], slot)
	s.live++
	s.totalLen += int64(p.docLen)
}

func cmpSlot(p posting, slot int32) int {
	switch {
	case p.slot < slot:
		return -1
	case p.slot > slot:
		return 1
	}
	return 0
}

// deleteDocument removes the chunks of a document and reports how many.
func (s *store) deleteDocument(kbScope, docID string) int {
	slots := slices.Clone(s.byDoc[chunkRef{kbScope, docID}])
	for _, slot := range slots {
		s.remove(slot)
	}
	return len(slots)
}

// remove frees a slot.
func (s *store) remove(slot int32) {
	c := s.meta[slot]
	for _, id := range s.terms[slot] {
		pl := s.postings[id]
		if j, ok := slices.BinarySearchFunc(pl, slot, cmpSlot); ok {
			s.postings[id] = slices.Delete(pl, j, j+1)
		}
	}
	delete(s.byKey, chunkRef{c.KBScope, c.EvidenceKey})
	doc := chunkRef{c.KBScope, c.DocID}
	if rest := slices.DeleteFunc(s.byDoc[doc], func(x int32) bool { return x == slot }); len(rest) > 0 {
		s.byDoc[doc] = rest
	} else {
		delete(s.byDoc, doc)
	}
	s.live--
	s.totalLen -= int64(s.docLen[slot])
	s.meta[slot] = kb.Chunk{}
	s.scope[slot] = -1
	s.terms[slot] = nil
	s.docLen[slot] = 0
	clear(s.vector(slot))
	s.free = append(s.free, slot)
}

func (s *store) vector(slot int32) []float32 {
	return s.slab[int(slot)*s.dim : int(slot+1)*s.dim]
}

func intern(m map[string]int32, v string) int32 {
	id, ok := m[v]
	if !ok {
		id = int32(len(m))
		m[strings.Clone(v)] = id
	}
	return id
}

// filter is a kb.Filter resolved against the interned values.
type filter struct {
	none  bool   // matches nothing (a scope or every category unknown)
	scope int32  // -1: any scope
	cats  []bool // by category id, nil for any category
}

func (s *store) compile(f kb.Filter) filter {
	out := filter{scope: -1}
	if f.KBScope != "" {
		id, ok := s.scopeIDs[f.KBScope]
		if !ok {
			return filter{none: true}
		}
		out.scope = id
	}
	if len(f.Categories) > 0 {
		out.cats = make([]bool, len(s.catIDs))
		found := false
		for _, c := range f.Categories {
			if id, ok := s.catIDs[c]; ok {
				out.cats[id] = true
				found = true
			}
		}
		if !found {
			return filter{none: true}
		}
	}
	return out
}

// match reports whether the chunk in slot is live and passes f.
func (s *store) match(f *filter, slot int32) bool {
	sc := s.scope[slot]
	if sc < 0 || (f.scope >= 0 && sc != f.scope) {
		return false
	}
	return f.cats == nil || f.cats[s.cat[slot]]
}

func (s *store) count(f kb.Filter) int {
	cf := s.compile(f)
	if cf.none {
		return 0
	}
	if cf.scope < 0 && cf.cats == nil {
		return s.live
	}
	n := 0
	for slot := range int32(len(s.scope)) {
		if s.match(&cf, slot) {
			n++
		}
	}
	return n
}

// each calls fn for every live chunk, in slot order, with its vector.
func (s *store) each(fn func(c kb.Chunk, vec []float32) error) error {
	for slot := range int32(len(s.meta)) {
		if s.scope[slot] < 0 {
			continue
		}
		if err := fn(s.meta[slot], s.vector(slot)); err != nil {
			return err
		}
	}
	return nil
}
