// Package embed holds what every embedder and embedding cache shares. That
// is the cache key, vector normalisation and validation, the little-endian
// vector encoding the caches store and batching. It also holds the Cached
// wrapper, which puts a kb.EmbedCache in front of any kb.Embedder.
//
// The embedders themselves live in subpackages, one per backend.
// embed/usem3 is use-multilingual-v3, the neural embedder of the embedded
// default, run in process. embed/local is the deterministic lexical
// local-hash-v1, which needs no model. embed/openai talks to any
// OpenAI-compatible /v1/embeddings server. The caches live in
// embed/cache/sqlitecache and embed/cache/rediscache.
// kbtest.RunEmbedCacheTests is the one contract suite both run.
//
// Every vector an embedder returns is unit-normalised by Normalize and has
// exactly Dim entries, as Check checks. A vector of another dimension is a
// *DimensionError naming the model and the expected and actual dimensions.
// It is never silently accepted.
package embed

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"iter"
	"math"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// CacheKey returns the cache key of the embedding of text, as kind, by
// model at dimension dim. It is the lowercase hex SHA-256 of the
// length-prefixed encoding
//
//	uint64be(len(model)) ‖ model ‖ uint64be(dim) ‖ uint64be(len(kind)) ‖ kind ‖ uint64be(len(text)) ‖ text
//
// with lengths in bytes. The length prefixes make the encoding injective,
// so no two different (model, dim, kind, text) tuples share an input to the
// hash. The key is the same on every machine. The kind is part of the key
// because a query and a passage of the same text embed differently with
// models such as e5. Changing this encoding invalidates every cache.
// TestCacheKeyGolden pins it.
func CacheKey(model string, dim int, kind kb.InputType, text string) string {
	var stack [1024]byte
	b := stack[:0]
	b = binary.BigEndian.AppendUint64(b, uint64(len(model)))
	b = append(b, model...)
	b = binary.BigEndian.AppendUint64(b, uint64(dim))
	b = binary.BigEndian.AppendUint64(b, uint64(len(kind)))
	b = append(b, kind...)
	b = binary.BigEndian.AppendUint64(b, uint64(len(text)))
	b = append(b, text...)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Normalize scales v in place to unit L2 norm. A zero vector stays zero,
// because it has no direction and its cosine with anything is 0. The norm
// is accumulated in float64 in index order with every product explicitly
// rounded, so no multiply-add is fused. So the result is bit for bit the
// same on every platform.
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		f := float64(x)
		s += float64(f * f)
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

// DimensionError reports an embedding vector whose length is not the
// embedder's dimension.
type DimensionError struct {
	Model string // the embedder's Name
	Want  int    // the configured dimension
	Got   int    // the length of the vector received
	Index int    // position of the offending vector in its batch
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("embedding model %s returned a vector of dimension %d (text %d), expected %d; set the embedding dimension (RAG_EMBED_DIM) to what the model produces, then rerun rag-seed with --recreate",
		e.Model, e.Got, e.Index, e.Want)
}

// Check verifies what an embedder returned for n texts: exactly n vectors,
// each with dim finite entries. model names the embedder in the error.
func Check(model string, dim, n int, vecs [][]float32) error {
	if len(vecs) != n {
		return fmt.Errorf("embedding model %s returned %d vectors for %d texts", model, len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) != dim {
			return &DimensionError{Model: model, Want: dim, Got: len(v), Index: i}
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("embedding model %s returned a non-finite value %v at position %d of vector %d", model, x, j, i)
			}
		}
	}
	return nil
}

// EncodeVector returns v as little-endian IEEE-754 float32 bytes, the form
// every cache stores. Decoding gives back the same bits.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector is the inverse of EncodeVector. A length that is not a
// multiple of 4 is an error.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding vector blob of %d bytes is not a whole number of float32 values", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Batches yields the [start, end) bounds of consecutive batches of at most
// size items covering n items: ceil(n/size) batches, none empty. A size
// below 1 means one batch of everything.
func Batches(n, size int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		if size < 1 {
			size = n
		}
		for start := 0; start < n; start += size {
			if !yield(start, min(start+size, n)) {
				return
			}
		}
	}
}

// BatchSizer is implemented by an embedder that embeds fastest given a
// certain number of texts per Embed call: enough to keep every core (or
// every request in flight) busy. A caller that can group its texts freely,
// such as a seed, sends that many at a time.
type BatchSizer interface {
	// BatchSize is the number of texts per Embed call; 0 means no
	// preference.
	BatchSize() int
}

// Static interface checks.
var (
	_ kb.Embedder = (*CachedEmbedder)(nil)
	_ kb.Embedder = (*batched)(nil)
)
