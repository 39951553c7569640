package usem3

import (
	"cmp"
	"fmt"
	"slices"
)

// Special token ids of the model's vocabulary.
const (
	unkID = 0 // <unk>
	bosID = 1 // <s>, put before every text
	eosID = 2 // </s>, put after every text
)

// Tokenizer is the model's sentencepiece unigram tokenizer: the nmt_nfkc
// normaliser, then the Viterbi segmentation of the normalised text into
// vocabulary pieces, wrapped in BOS and EOS. It is immutable and safe for
// concurrent use.
type Tokenizer struct {
	norm     *normalizer
	scores   []float32
	unkScore float64

	// The vocabulary as a trie over code points, children stored
	// contiguously per node and sorted by code point. Node v's children are
	// edgeRune/edgeNode[first[v]:first[v+1]]. pieceOf[v] is the piece id +
	// 1 spelled by the path to v, 0 when the path is only a prefix.
	first    []int32
	edgeRune []rune
	edgeNode []int32
	pieceOf  []int32
}

// newTokenizer builds the tokenizer of a parsed model.
func newTokenizer(m *spModel) (*Tokenizer, error) {
	norm, err := newNormalizer(m)
	if err != nil {
		return nil, err
	}
	if len(m.pieces) <= eosID {
		return nil, fmt.Errorf("vocabulary of %d pieces lacks <unk>, <s> and </s>", len(m.pieces))
	}
	t := &Tokenizer{norm: norm, scores: make([]float32, len(m.pieces))}
	minScore := m.pieces[0].score
	for i, p := range m.pieces {
		t.scores[i] = p.score
		minScore = min(minScore, p.score)
	}
	// As sentencepiece: an unknown character costs 10 more than the
	// rarest piece.
	t.unkScore = float64(minScore) - 10

	// Build the trie from (parent, rune) → child edges. Every piece is
	// inserted, special pieces included, and a later duplicate wins, as in
	// the reference.
	type edge struct {
		parent int32
		r      rune
	}
	children := map[edge]int32{}
	pieceOf := []int32{0}
	for id, p := range m.pieces {
		node := int32(0)
		for _, r := range p.piece {
			c, ok := children[edge{node, r}]
			if !ok {
				c = int32(len(pieceOf))
				pieceOf = append(pieceOf, 0)
				children[edge{node, r}] = c
			}
			node = c
		}
		if node != 0 {
			pieceOf[node] = int32(id + 1)
		}
	}
	edges := make([]edge, 0, len(children))
	for e := range children {
		edges = append(edges, e)
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := cmp.Compare(a.parent, b.parent); c != 0 {
			return c
		}
		return cmp.Compare(a.r, b.r)
	})
	t.pieceOf = pieceOf
	t.first = make([]int32, len(pieceOf)+1)
	t.edgeRune = make([]rune, len(edges))
	t.edgeNode = make([]int32, len(edges))
	for i, e := range edges {
		t.first[e.parent+1]++
		t.edgeRune[i] = e.r
		t.edgeNode[i] = children[e]
	}
	for v := range pieceOf {
		t.first[v+1] += t.first[v]
	}
	return t, nil
}

// child returns the child of node v along r, or -1.
func (t *Tokenizer) child(v int32, r rune) int32 {
	lo, hi := int(t.first[v]), int(t.first[v+1])
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.edgeRune[m] < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < int(t.first[v+1]) && t.edgeRune[lo] == r {
		return t.edgeNode[lo]
	}
	return -1
}

// VocabSize is the number of pieces of the vocabulary.
func (t *Tokenizer) VocabSize() int { return len(t.scores) }

// Normalize returns the text as the tokenizer segments it (see normalizer).
func (t *Tokenizer) Normalize(text string) string { return t.norm.normalize(text) }

// Encode returns the token ids of text: BOS, the pieces of the normalised
// text (a lone <unk> when it normalises to nothing), EOS.
func (t *Tokenizer) Encode(text string) []int32 {
	return t.encodeNormalized(t.norm.normalize(text))
}

func (t *Tokenizer) encodeNormalized(s string) []int32 {
	if s == "" {
		return []int32{bosID, unkID, eosID}
	}
	runes := []rune(s)
	ids := t.viterbi(runes)
	out := make([]int32, 0, len(ids)+2)
	out = append(out, bosID)
	out = append(out, ids...)
	return append(out, eosID)
}

// viterbi is sentencepiece's unigram lattice search: the segmentation of
// s into pieces with the highest total score, an unmatched character
// becoming <unk> at unkScore. As in the reference, all nodes starting at
// position i share the best path ending at i (ties keep the earlier
// start: the comparison is strict), scores are summed in float64, and
// positions and lengths are in code points.
func (t *Tokenizer) viterbi(s []rune) []int32 {
	n := len(s)
	best := make([]float64, n+1)
	for i := 1; i <= n; i++ {
		best[i] = -1e38
	}
	startOf := make([]int32, n+1)
	pieceAt := make([]int32, n+1)
	for i := range n {
		base := best[i]
		single := false
		v := int32(0)
		for j := i + 1; j <= n; j++ {
			v = t.child(v, s[j-1])
			if v < 0 {
				break
			}
			if id := t.pieceOf[v]; id != 0 {
				if score := base + float64(t.scores[id-1]); score > best[j] {
					best[j] = score
					startOf[j] = int32(i)
					pieceAt[j] = id - 1
				}
				if j == i+1 {
					single = true
				}
			}
		}
		if !single {
			if score := base + t.unkScore; score > best[i+1] {
				best[i+1] = score
				startOf[i+1] = int32(i)
				pieceAt[i+1] = unkID
			}
		}
	}
	var ids []int32
	for p := n; p > 0; p = int(startOf[p]) {
		ids = append(ids, pieceAt[p])
	}
	slices.Reverse(ids)
	return ids
}
