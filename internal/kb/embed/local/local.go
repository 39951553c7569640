// Package local is the deterministic lexical embedder "local-hash-v1",
// chosen by --embedder local. It was the embedded default until
// use-multilingual-v3. It hashes word and character n-gram features, signs
// them into a fixed number of dimensions and L2-normalises the result. It
// needs no model file, no network and no GPU. The same text gives the same
// bytes on every machine, so fixtures frozen on one machine are
// reproducible on any other.
//
// # Features
//
// A text is tokenised with textnorm.Tokens, which first normalises it by
// NFKC, full case folding and trimming. Those are the tokens BM25 indexes,
// so "matches" means the same thing in dense and BM25 search. The tokens
// yield two groups of features:
//
//   - Word features, one per token. Each maximal run of letters, digits and
//     '_' outside CJK scripts is one token. Each run of CJK characters gives
//     its characters as unigrams and its adjacent pairs as bigrams.
//     "连接池满了 too many" gives 连 接 池 满 了 连接 接池 池满 满了 too many.
//     A token weighs WordWeight, with two exceptions. A CJK unigram weighs
//     CJKUnigramWeight, because a single Han character carries little
//     meaning on its own. A stopword weighs StopWeight and gives no
//     3-grams, because without corpus statistics such as IDF stopwords would
//     make any two texts look alike. Stopwords are English function words
//     and Chinese function characters such as 的 了 是.
//   - Character 3-gram features over the normalised text, of weight
//     GramWeight. Each word run gives the 3-grams of the run padded with one
//     space each side, so that "connection" and "connections" share most
//     features: " pool " gives " po", "poo", "ool" and "ol ". Each CJK run
//     of three or more characters gives its 3-grams: "连接池满" gives 连接池
//     and 接池满. A 3-gram never crosses a separator or the boundary between
//     a CJK run and a word run. The runs are read off the token stream, so
//     the text is normalised and scanned once. A word token is a word run,
//     and a CJK run's unigrams come before its bigrams.
//     TestFeaturesMatchReference and FuzzFeatures check this against a
//     direct scan of the normalised text.
//
// Feature weights were chosen on the example excerpts and golden queries of
// eval/rag-retrieval. There a true match scores 0.25–0.6 and unrelated text
// below 0.15, as TestSimilarity checks.
//
// # Hashing
//
// A feature is hashed with 64-bit FNV-1a over one tag byte followed by the
// feature's UTF-8 bytes. The tag is 'w' for a word feature and 'c' for a
// 3-gram. FNV-1a has the offset basis 14695981039346656037 and the prime
// 1099511628211. The result is mixed with the MurmurHash3 64-bit finaliser,
// of constants 0xff51afd7ed558ccd and 0xc4ceb9fe1a85ec53, so that every bit
// depends on every input byte. The high 32 bits pick the dimension, ⌊hi·dim
// / 2³²⌋. The lowest bit picks the sign, 1 for negative. This is signed
// feature hashing: colliding features cancel out on average instead of
// adding up.
//
// # Weighting and normalisation
//
// A feature occurring tf times in the text contributes group weight × (1 +
// ln tf), a sublinear term frequency. The table of 1 + ln tf is pinned as
// float32 constants in tfWeight. The vector is then scaled to unit L2 norm.
// A text with no features, empty or only punctuation, gives the zero
// vector, whose cosine with anything is 0.
//
// # Determinism
//
// Features are collected as hashes, sorted, and counted run by run. So
// accumulation happens in the order of the sorted hashes, never in map
// iteration order. Sums are float64 with each product explicitly rounded,
// so no architecture fuses a multiply-add. There is no transcendental
// function at run time, and the result is rounded once to float32.
// TestGoldenVectors pins the bytes.
//
// # Why the scores are lower than a neural embedder's
//
// A lexical embedder scores only shared surface features. A query of a
// dozen words shares a handful of tokens and 3-grams with an 800-character
// chunk. The chunk has hundreds of features the query does not. So the
// cosine of a true match is typically 0.2–0.6. A neural embedder maps
// paraphrases and translations to nearby points and concentrates similar
// texts in a narrow cone, and gives 0.5–0.9. Unrelated texts score near 0
// plus whatever common words they share. Hash collisions move that 0 by
// about ± 1/√dim, ±0.05 at 512 dimensions. So the quality thresholds of the
// lookup pipeline are set per embedder and calibrated on this one, not
// copied from the 0.5 used with a neural model. Those are lowQuality and
// the relevance levels of docs/pipeline.md. Paraphrases without shared
// words are not similar to it at all, such as "pool exhausted" and "连接池满了".
// The BM25 side of hybrid search and the L0 hints cannot fix that either.
// The OpenAI-compatible embedder is for such cases.
package local

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// Name is the model name of this embedder. It changes (v2, …) whenever a
// change to the features, hashing or weights changes any vector, so cached
// vectors and fixtures of the old version are never mixed with new ones.
const Name = "local-hash-v1"

// DefaultDim is the default vector dimension.
const DefaultDim = 512

// MaxDim bounds the dimension.
const MaxDim = 1 << 16

// Group weights of the features (see the package documentation).
const (
	WordWeight       = 1.0
	CJKUnigramWeight = 0.5
	GramWeight       = 0.5
	StopWeight       = 0.1
)

// stopwords are English function words and Chinese function characters:
// they match between any two texts, so without corpus statistics (IDF) to
// discount them they would make unrelated texts look similar. Their word
// features weigh StopWeight and they give no 3-grams.
var stopwords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does for from had has have
		how i if in into is it its me my no not of on or our should so than that the their them then there these
		they this those to was we were what when where which who why will with would you your
		的 了 是 在 和 也 就 都 而 及 与 或 被 把 这 那 吗 呢 吧 啊 之 其 个 着 么`) {
		m[w] = struct{}{}
	}
	return m
}()

// Hashing constants (see the package documentation).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
	tagWord     = 'w'
	tagGram     = 'c'
)

// Embedder is the local-hash-v1 embedder. It is safe for concurrent use.
type Embedder struct {
	dim                   int
	word, uni, stop, gram float64 // group weights, the constants except in tests
}

var _ kb.Embedder = (*Embedder)(nil)

// New returns the embedder for vectors of dim entries. A dim of 0 means
// DefaultDim.
func New(dim int) (*Embedder, error) {
	if dim == 0 {
		dim = DefaultDim
	}
	if dim < 1 || dim > MaxDim {
		return nil, fmt.Errorf("local embedder: dimension %d out of range 1..%d", dim, MaxDim)
	}
	return &Embedder{dim: dim, word: WordWeight, uni: CJKUnigramWeight, stop: StopWeight, gram: GramWeight}, nil
}

// Name returns "local-hash-v1". The dimension is not part of the name,
// because cache keys and fixtures record it separately.
func (e *Embedder) Name() string { return Name }

// Dim returns the vector dimension.
func (e *Embedder) Dim() int { return e.dim }

// parallelMin is the batch size from which Embed spreads texts over
// GOMAXPROCS goroutines.
const parallelMin = 64

// Embed returns the vector of each text, in order. A lexical embedder
// embeds a query and a passage alike, so kind is ignored. Large batches are
// embedded in parallel, and the result does not depend on it.
func (e *Embedder) Embed(ctx context.Context, _ kb.InputType, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts)/parallelMin)
	if workers <= 1 {
		for i, t := range texts {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			out[i] = e.Vector(t)
		}
		return out, nil
	}
	var g errgroup.Group
	chunk := (len(texts) + workers - 1) / workers
	for start, end := range embed.Batches(len(texts), chunk) {
		g.Go(func() error {
			for i := start; i < end; i++ {
				if (i-start)%256 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				out[i] = e.Vector(texts[i])
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// feature is one distinct feature of a text.
type feature struct {
	hash   uint64
	weight float64 // group weight
	tf     int
}

// scratch holds the buffers of one Vector call.
type scratch struct {
	feats []feature
	slots []int32 // open addressing: index+1 into feats, 0 = empty
	mask  uint64
	acc   []float64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// reset prepares the table for up to n features.
func (sc *scratch) reset(n int) {
	size := 64
	for size < 2*n {
		size <<= 1
	}
	if cap(sc.slots) < size {
		sc.slots = make([]int32, size)
	}
	sc.slots = sc.slots[:size]
	clear(sc.slots)
	sc.mask = uint64(size - 1)
	sc.feats = sc.feats[:0]
}

// count records one occurrence of the feature with hash h. Features are
// kept in order of first occurrence, which depends on the text alone.
func (sc *scratch) count(h uint64, weight float64) {
	for i := h & sc.mask; ; i = (i + 1) & sc.mask {
		s := sc.slots[i]
		if s == 0 {
			sc.feats = append(sc.feats, feature{hash: h, weight: weight, tf: 1})
			sc.slots[i] = int32(len(sc.feats))
			return
		}
		if f := &sc.feats[s-1]; f.hash == h {
			f.tf++
			return
		}
	}
}

// Vector returns the unit-normalised vector of text (the zero vector when
// text has no features).
func (e *Embedder) Vector(text string) []float32 {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)

	toks := textnorm.Tokens(text)
	n := 0
	for _, t := range toks {
		n += 1 + len(t) + 2 // the token, at most one 3-gram per byte (+2 padding)
	}
	sc.reset(n)
	e.features(sc, toks)

	if cap(sc.acc) < e.dim {
		sc.acc = make([]float64, e.dim)
	}
	acc := sc.acc[:e.dim]
	clear(acc)
	dim := uint64(e.dim)
	for _, f := range sc.feats {
		w := float64(f.weight * float64(tfWeight(f.tf)))
		idx := ((f.hash >> 32) * dim) >> 32
		if f.hash&1 != 0 {
			acc[idx] -= w
		} else {
			acc[idx] += w
		}
	}

	var s float64
	for _, x := range acc {
		s += float64(x * x)
	}
	v := make([]float32, e.dim)
	if s == 0 {
		return v
	}
	inv := 1 / math.Sqrt(s) // correctly rounded on every platform (IEEE 754)
	for i, x := range acc {
		v[i] = float32(float64(x * inv))
	}
	return v
}

// features counts the word and 3-gram features of the tokens of one text.
//
// The token stream determines the CJK runs of the text: textnorm.Tokens
// emits a run's k unigrams and then its k-1 bigrams, so in a maximal
// sequence of CJK unigrams followed by j bigrams, the last j+1 unigrams are
// one run and any before them are runs of one character (a longer run would
// have emitted its bigrams before the next run's unigrams).
func (e *Embedder) features(sc *scratch, toks []string) {
	for i := 0; i < len(toks); {
		tok := toks[i]
		r, size := utf8.DecodeRuneInString(tok)
		if size != len(tok) || !isCJK(r) {
			// A word token, which is a word run, or a CJK bigram that was
			// not consumed below. The second cannot happen with textnorm's
			// order.
			if _, ok := stopwords[tok]; ok {
				sc.count(hashString(tagWord, tok), e.stop) // no 3-grams
			} else {
				sc.count(hashString(tagWord, tok), e.word)
				if !isCJKBigram(tok) {
					e.wordGrams(sc, tok)
				}
			}
			i++
			continue
		}
		// A sequence of CJK unigrams toks[i:j], then bigrams toks[j:k].
		j := i
		for j < len(toks) && isCJKUnigram(toks[j]) {
			j++
		}
		k := j
		for k < len(toks) && k-j < j-i-1 && isCJKBigram(toks[k]) {
			k++
		}
		for _, u := range toks[i:j] {
			w := e.uni
			if _, ok := stopwords[u]; ok {
				w = e.stop
			}
			sc.count(hashString(tagWord, u), w)
		}
		for _, b := range toks[j:k] {
			sc.count(hashString(tagWord, b), e.word)
		}
		// The run is the last k-j+1 unigrams. These are its 3-grams.
		run := toks[j-(k-j)-1 : j]
		if k == j {
			run = nil
		}
		for a := 0; a+2 < len(run); a++ {
			sc.count(hashGram(run[a], run[a+1], run[a+2]), e.gram)
		}
		i = k
	}
}

// wordGrams counts the rune 3-grams of " " + word + " " (" pool " gives
// " po", "poo", "ool", "ol ").
func (e *Embedder) wordGrams(sc *scratch, word string) {
	var buf [32]int
	offs := buf[:0] // byte offset of each rune, then len(word)
	for i := range word {
		offs = append(offs, i)
	}
	runes := len(offs)
	offs = append(offs, len(word))
	// Window a of the padded word covers runes a-1 .. a+1, where rune -1
	// and rune `runes` are the padding spaces.
	for a := 0; a < runes; a++ {
		first, last := max(a-1, 0), min(a+1, runes-1)
		h := fnvByte(fnvOffset64, tagGram)
		if a == 0 {
			h = fnvByte(h, ' ')
		}
		h = fnvString(h, word[offs[first]:offs[last+1]])
		if a+1 == runes {
			h = fnvByte(h, ' ')
		}
		sc.count(fmix64(h), e.gram)
	}
}

func isCJKUnigram(tok string) bool {
	r, n := utf8.DecodeRuneInString(tok)
	return n == len(tok) && isCJK(r)
}

func isCJKBigram(tok string) bool {
	r, n := utf8.DecodeRuneInString(tok)
	if n == len(tok) || !isCJK(r) {
		return false
	}
	r2, m := utf8.DecodeRuneInString(tok[n:])
	return n+m == len(tok) && isCJK(r2)
}

// isCJK reports whether r, a character of a token, belongs to a CJK run.
// CJK runs are the Han, Hiragana, Katakana and Hangul scripts and the
// prolonged sound mark, as in rule 2 of textnorm.Tokens. Tokens hold only
// word and CJK characters, so the script decides, as
// TestCJKClassMatchesTokens checks.
func isCJK(r rune) bool {
	if r < utf8.RuneSelf {
		return false
	}
	if 0x4E00 <= r && r <= 0x9FFF || 0xAC00 <= r && r <= 0xD7A3 || r == 0x30FC {
		return true
	}
	return unicode.IsOneOf(cjkTables, r)
}

var cjkTables = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime64 }

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime64
	}
	return h
}

// hashString hashes a word feature: FNV-1a over tag and s, then fmix64.
func hashString(tag byte, s string) uint64 {
	return fmix64(fnvString(fnvByte(fnvOffset64, tag), s))
}

// hashGram hashes the 3-gram a+b+c.
func hashGram(a, b, c string) uint64 {
	return fmix64(fnvString(fnvString(fnvString(fnvByte(fnvOffset64, tagGram), a), b), c))
}

// tfWeights[tf] is float32(1 + ln tf), written out so that no logarithm is
// computed at run time. TestTFWeights checks the table against math.Log.
var tfWeights = [...]float32{
	0, 1, 1.6931472, 2.0986123, 2.3862944, 2.609438, 2.7917595, 2.9459102,
	3.0794415, 3.1972246, 3.3025851, 3.3978953, 3.4849067, 3.5649493, 3.6390574, 3.7080503,
	3.7725887, 3.8332133, 3.8903718, 3.944439, 3.9957323, 4.0445223, 4.0910425, 4.135494,
	4.178054, 4.218876, 4.2580967, 4.295837, 4.3322043, 4.3672957, 4.4011974, 4.433987,
	4.465736,
}

// tfWeight returns 1 + ln tf for tf ≥ 1, saturating at tf = 32: a feature
// repeated more than 32 times in one text counts as 32.
func tfWeight(tf int) float32 {
	return tfWeights[min(tf, len(tfWeights)-1)]
}

// fmix64 is the MurmurHash3 64-bit finaliser.
func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
