package embed

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// ModelPutter is implemented by an embedding cache that records which model
// each entry belongs to (the SQLite cache keeps it in a column, so entries
// of a retired model can be found and deleted). Cached calls PutModel
// instead of Put when the cache has it.
type ModelPutter interface {
	PutModel(ctx context.Context, model string, entries map[string][]float32) error
}

// CacheStats counts what a CachedEmbedder did since it was made.
type CacheStats struct {
	Texts    int64 // texts asked for
	Hits     int64 // texts found in the cache
	Embedded int64 // distinct texts sent to the wrapped embedder
	Errors   int64 // cache errors tolerated (only with TolerateCacheErrors)
}

// CachedEmbedder is a kb.Embedder that answers from a kb.EmbedCache and
// embeds only what the cache misses. Make one with Cached. It is safe for
// concurrent use when the wrapped embedder and cache are.
type CachedEmbedder struct {
	e     kb.Embedder
	c     kb.EmbedCache
	onErr func(error)

	texts, hits, embedded, errs atomic.Int64
}

// CacheOption configures Cached.
type CacheOption func(*CachedEmbedder)

// TolerateCacheErrors makes a failing cache Get or Put a reported, not a
// fatal, problem. report is called with the error, and the texts are
// embedded or returned as if the cache were empty. Without it a cache error
// fails the Embed call, so a cache that is down is a clear error, not a
// silent slowdown.
func TolerateCacheErrors(report func(error)) CacheOption {
	return func(c *CachedEmbedder) {
		if report == nil {
			report = func(error) {}
		}
		c.onErr = report
	}
}

// CacheVarier is implemented by an embedder whose vectors depend on a
// setting its Name does not show. CacheVariant names the setting, "" for
// the default, and the cache keys on it too.
type CacheVarier interface{ CacheVariant() string }

// cacheModel is the model part of e's cache keys: its name, and its
// variant when it has one.
func cacheModel(e kb.Embedder) string {
	if v, ok := e.(CacheVarier); ok {
		if s := v.CacheVariant(); s != "" {
			return e.Name() + "\x00" + s
		}
	}
	return e.Name()
}

// Cached wraps e with the cache c. Embed looks up every text under
// CacheKey(e.Name(), e.Dim(), kind, text). When e is a CacheVarier with a
// variant, the name is followed by e's CacheVariant. Embed sends only the
// misses to e, each distinct text once. It checks what e returned with
// Check, stores it, and returns one vector per text in order. A cached
// vector of the wrong length is treated as a miss and overwritten.
//
// Vectors returned for equal texts in one call are distinct slices, so a
// caller may modify one without affecting the other.
func Cached(e kb.Embedder, c kb.EmbedCache, opts ...CacheOption) *CachedEmbedder {
	ce := &CachedEmbedder{e: e, c: c}
	for _, o := range opts {
		o(ce)
	}
	return ce
}

// Name returns the wrapped embedder's name: the cache does not change the
// vectors, so fixtures record the model itself.
func (ce *CachedEmbedder) Name() string { return ce.e.Name() }

// Dim returns the wrapped embedder's dimension.
func (ce *CachedEmbedder) Dim() int { return ce.e.Dim() }

// Stats returns the counters so far.
func (ce *CachedEmbedder) Stats() CacheStats {
	return CacheStats{Texts: ce.texts.Load(), Hits: ce.hits.Load(), Embedded: ce.embedded.Load(), Errors: ce.errs.Load()}
}

// BatchSize is the wrapped embedder's BatchSize when it is a BatchSizer,
// else 0 (no preference).
func (ce *CachedEmbedder) BatchSize() int {
	if b, ok := ce.e.(BatchSizer); ok {
		return b.BatchSize()
	}
	return 0
}

// Embed implements kb.Embedder.
func (ce *CachedEmbedder) Embed(ctx context.Context, kind kb.InputType, texts []string) ([][]float32, error) {
	return ce.EmbedUsing(ctx, kind, texts, func(misses []string) ([][]float32, error) {
		return ce.e.Embed(ctx, kind, misses)
	})
}

// EmbedUsing is Embed with the misses embedded by embedMisses instead of
// the wrapped embedder: the same cache reads and writes, for a caller
// that embedded the texts ahead (a seed embeds its chunks in batches
// across documents, then writes each document as Embed would have).
// embedMisses gets the distinct texts the cache lacks, in first-seen
// order, and must return what the wrapped embedder would for them.
func (ce *CachedEmbedder) EmbedUsing(ctx context.Context, kind kb.InputType, texts []string, embedMisses func([]string) ([][]float32, error)) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	l, err := ce.lookup(ctx, kind, texts)
	if err != nil {
		return nil, err
	}
	if len(l.missKeys) > 0 {
		missTexts := make([]string, len(l.missKeys))
		for j, k := range l.missKeys {
			missTexts[j] = texts[l.first[k]]
		}
		vecs, err := embedMisses(missTexts)
		if err != nil {
			return nil, err
		}
		if err := ce.store(ctx, l.missKeys, vecs); err != nil {
			return nil, err
		}
		for j, k := range l.missKeys {
			l.got[k] = vecs[j]
		}
	}
	out := make([][]float32, len(texts))
	for i, k := range l.keys {
		v := l.got[k]
		if l.first[k] != i {
			v = slices.Clone(v)
		}
		out[i] = v
	}
	ce.hits.Add(int64(l.hits))
	return out, nil
}

// Lookup returns the cached vector of each text, in order, and nil for a
// text the cache does not have (or has with the wrong length), without
// embedding or storing anything: a caller that embeds ahead, with
// Uncached, learns which texts it need not embed. Vectors of equal texts
// are distinct slices.
func (ce *CachedEmbedder) Lookup(ctx context.Context, kind kb.InputType, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	l, err := ce.lookup(ctx, kind, texts)
	if err != nil {
		return nil, err
	}
	for i, k := range l.keys {
		if v, ok := l.got[k]; ok && len(v) == ce.e.Dim() {
			if l.first[k] != i {
				v = slices.Clone(v)
			}
			out[i] = v
		}
	}
	ce.hits.Add(int64(l.hits))
	return out, nil
}

// Uncached returns the embedder the cache is in front of.
func (ce *CachedEmbedder) Uncached() kb.Embedder { return ce.e }

// lookup is what Embed and Lookup share: the key of every text, the
// distinct keys, and what the cache has of them. missKeys are the distinct
// keys it lacks (or has with the wrong length), in first-seen order.
type lookup struct {
	keys     []string
	first    map[string]int // key -> index of its first text
	got      map[string][]float32
	missKeys []string
	hits     int // texts found
}

func (ce *CachedEmbedder) lookup(ctx context.Context, kind kb.InputType, texts []string) (*lookup, error) {
	dim, keyModel := ce.e.Dim(), cacheModel(ce.e)
	ce.texts.Add(int64(len(texts)))

	l := &lookup{keys: make([]string, len(texts)), first: make(map[string]int, len(texts))}
	uniq := make([]string, 0, len(texts))
	for i, t := range texts {
		k := CacheKey(keyModel, dim, kind, t)
		l.keys[i] = k
		if _, ok := l.first[k]; !ok {
			l.first[k] = i
			uniq = append(uniq, k)
		}
	}

	got, err := ce.c.Get(ctx, uniq)
	if err != nil {
		if err := ce.cacheErr(fmt.Errorf("embedding cache lookup of %d keys: %w", len(uniq), err)); err != nil {
			return nil, err
		}
		got = nil
	}
	if got == nil {
		got = make(map[string][]float32, len(uniq))
	}
	l.got = got

	missed := make(map[string]bool)
	for _, k := range uniq {
		if v, ok := got[k]; ok && len(v) == dim {
			continue
		}
		l.missKeys = append(l.missKeys, k)
		missed[k] = true
	}
	for _, k := range l.keys {
		if !missed[k] {
			l.hits++
		}
	}
	return l, nil
}

// store checks what the wrapped embedder returned for the distinct keys
// and stores it in one cache write.
func (ce *CachedEmbedder) store(ctx context.Context, keys []string, vecs [][]float32) error {
	name := ce.e.Name()
	if err := Check(name, ce.e.Dim(), len(keys), vecs); err != nil {
		return err
	}
	ce.embedded.Add(int64(len(keys)))
	entries := make(map[string][]float32, len(keys))
	for j, k := range keys {
		entries[k] = vecs[j]
	}
	var err error
	if mp, ok := ce.c.(ModelPutter); ok {
		err = mp.PutModel(ctx, name, entries)
	} else {
		err = ce.c.Put(ctx, entries)
	}
	if err != nil {
		return ce.cacheErr(fmt.Errorf("embedding cache store of %d vectors: %w", len(entries), err))
	}
	return nil
}

// cacheErr returns err, or reports it and returns nil when cache errors are
// tolerated.
func (ce *CachedEmbedder) cacheErr(err error) error {
	if ce.onErr == nil {
		return err
	}
	ce.errs.Add(1)
	ce.onErr(err)
	return nil
}

// Batched returns an embedder that sends e at most size texts per Embed
// call and checks every batch's vectors with Check. Use it to bound the
// memory and request size of one call. A size below 1 means no limit.
func Batched(e kb.Embedder, size int) kb.Embedder { return &batched{e: e, size: size} }

type batched struct {
	e    kb.Embedder
	size int
}

func (b *batched) Name() string { return b.e.Name() }
func (b *batched) Dim() int     { return b.e.Dim() }

func (b *batched) Embed(ctx context.Context, kind kb.InputType, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start, end := range Batches(len(texts), b.size) {
		vecs, err := b.e.Embed(ctx, kind, texts[start:end])
		if err != nil {
			return nil, err
		}
		if err := Check(b.e.Name(), b.e.Dim(), end-start, vecs); err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}
