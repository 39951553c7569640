package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

func TestCacheKeyGolden(t *testing.T) {
	// sha256 of u64be(5) "local" u64be(512) u64be(7) "passage" u64be(5)
	// "hello", computed independently: python3 -c "import hashlib,struct;
	// print(hashlib.sha256(struct.pack('>Q',5)+b'local'+struct.pack('>Q',512)+
	// struct.pack('>Q',7)+b'passage'+struct.pack('>Q',5)+b'hello').hexdigest())"
	const want = "ec5cea08e35a2a4abf0ffb9fea191fce80874c40a9cbc163972a36d222af07fc"
	got := CacheKey("local", 512, kb.Passage, "hello")
	if len(got) != 64 || strings.ToLower(got) != got {
		t.Fatalf("CacheKey = %q, want 64 lowercase hex digits", got)
	}
	if got != want {
		t.Errorf("CacheKey(local, 512, passage, hello) = %s, want %s; changing the key encoding invalidates every cache", got, want)
	}
}

func TestCacheKeyInjective(t *testing.T) {
	type in struct {
		model string
		dim   int
		kind  kb.InputType
		text  string
	}
	ins := []in{
		{"ab", 1, "", "c"}, {"a", 1, "", "bc"}, {"abc", 1, "", ""}, {"", 1, "", "abc"},
		{"a", 1, "", "b"}, {"a", 2, "", "b"}, {"a", 256, "", "b"}, {"a", 1 << 16, "", "b"},
		{"a\x00", 1, "", "b"}, {"a", 1, "", "\x00b"}, {"local-hash-v1", 512, "", "连接池"}, {"local-hash-v1", 512, "", "连接池 "},
		{"a", 1, kb.Query, "b"}, {"a", 1, kb.Passage, "b"}, {"a", 1, "q", "uery"}, {"a", 1, "query", ""},
	}
	seen := map[string]in{}
	for _, x := range ins {
		k := CacheKey(x.model, x.dim, x.kind, x.text)
		if prev, ok := seen[k]; ok {
			t.Errorf("CacheKey%v == CacheKey%v", x, prev)
		}
		seen[k] = x
	}
}

func TestNormalize(t *testing.T) {
	check := func(in, want []float32) {
		t.Helper()
		v := append([]float32(nil), in...)
		Normalize(v)
		for i := range want {
			if math.Abs(float64(v[i]-want[i])) > 1e-7 {
				t.Errorf("Normalize(%v) = %v, want %v", in, v, want)
				return
			}
		}
	}
	check([]float32{3, 4}, []float32{0.6, 0.8})
	check([]float32{0, 0, 0}, []float32{0, 0, 0})
	check([]float32{-2}, []float32{-1})
	check([]float32{1e-30, 1e-30}, []float32{float32(1 / math.Sqrt2), float32(1 / math.Sqrt2)})
	check([]float32{3e37, 3e38}, []float32{float32(3e37 / math.Sqrt(9e74+9e76)), float32(3e38 / math.Sqrt(9e74+9e76))}) // no float32 overflow
	check(nil, nil)
	v := []float32{1, 2, 3, 4, 5}
	Normalize(v)
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if math.Abs(s-1) > 1e-6 {
		t.Errorf("norm² after Normalize = %v", s)
	}
}

func TestCheck(t *testing.T) {
	if err := Check("m", 2, 2, [][]float32{{1, 0}, {0, 1}}); err != nil {
		t.Errorf("valid vectors: %v", err)
	}
	err := Check("openai:x", 3, 2, [][]float32{{1, 0, 0}, {1, 0}})
	var de *DimensionError
	if !errors.As(err, &de) || de.Model != "openai:x" || de.Want != 3 || de.Got != 2 || de.Index != 1 {
		t.Fatalf("Check with a short vector = %v, want *DimensionError{openai:x 3 2 1}", err)
	}
	for _, want := range []string{"openai:x", "dimension 2", "expected 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %q", err, want)
		}
	}
	if err := Check("m", 1, 2, [][]float32{{1}}); err == nil || !strings.Contains(err.Error(), "1 vectors for 2 texts") {
		t.Errorf("wrong count: %v", err)
	}
	if err := Check("m", 1, 1, [][]float32{{float32(math.NaN())}}); err == nil || !strings.Contains(err.Error(), "non-finite") {
		t.Errorf("NaN: %v", err)
	}
}

func TestEncodeDecode(t *testing.T) {
	v := []float32{1, -0.5, float32(math.Inf(1)), math.Float32frombits(0x7fc00001), math.SmallestNonzeroFloat32}
	b := EncodeVector(v)
	if len(b) != 20 || string(b[:4]) != "\x00\x00\x80\x3f" {
		t.Errorf("EncodeVector = % x, want little-endian float32", b)
	}
	got, err := DecodeVector(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if math.Float32bits(got[i]) != math.Float32bits(v[i]) {
			t.Errorf("round trip %d: %v != %v", i, got[i], v[i])
		}
	}
	if _, err := DecodeVector([]byte{1, 2, 3}); err == nil {
		t.Error("DecodeVector of 3 bytes succeeded")
	}
	if v, err := DecodeVector(nil); err != nil || len(v) != 0 {
		t.Errorf("DecodeVector(nil) = %v, %v", v, err)
	}
}

func TestBatches(t *testing.T) {
	collect := func(n, size int) [][2]int {
		var out [][2]int
		for s, e := range Batches(n, size) {
			out = append(out, [2]int{s, e})
		}
		return out
	}
	for _, tc := range []struct {
		n, size int
		want    [][2]int
	}{
		{0, 3, nil},
		{5, 2, [][2]int{{0, 2}, {2, 4}, {4, 5}}},
		{4, 2, [][2]int{{0, 2}, {2, 4}}},
		{3, 10, [][2]int{{0, 3}}},
		{3, 0, [][2]int{{0, 3}}},
	} {
		if got := collect(tc.n, tc.size); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Batches(%d, %d) = %v, want %v", tc.n, tc.size, got, tc.want)
		}
	}
	for range Batches(10, 1) {
		break // stopping early must not panic
	}
}

// fakeEmbedder gives each text a deterministic 3-vector and counts calls.
type fakeEmbedder struct {
	mu    sync.Mutex
	calls [][]string
	dim   int
	err   error
}

func (f *fakeEmbedder) Name() string { return "fake" }
func (f *fakeEmbedder) Dim() int {
	if f.dim == 0 {
		return 3
	}
	return f.dim
}
func (f *fakeEmbedder) Embed(_ context.Context, _ kb.InputType, texts []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls = append(f.calls, append([]string(nil), texts...))
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := []float32{float32(len(t)), 1, float32(strings.Count(t, "a"))}
		Normalize(v)
		out[i] = v
	}
	return out, nil
}

func vecOf(t string) []float32 {
	v := []float32{float32(len(t)), 1, float32(strings.Count(t, "a"))}
	Normalize(v)
	return v
}

// mapCache is an in-memory kb.EmbedCache with switchable failures.
type mapCache struct {
	mu             sync.Mutex
	m              map[string][]float32
	gets, puts     int
	getErr, putErr error
}

func newMapCache() *mapCache { return &mapCache{m: map[string][]float32{}} }

func (c *mapCache) Get(_ context.Context, keys []string) (map[string][]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	if c.getErr != nil {
		return nil, c.getErr
	}
	out := map[string][]float32{}
	for _, k := range keys {
		if v, ok := c.m[k]; ok {
			out[k] = append([]float32(nil), v...)
		}
	}
	return out, nil
}

func (c *mapCache) Put(_ context.Context, entries map[string][]float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	if c.putErr != nil {
		return c.putErr
	}
	for k, v := range entries {
		c.m[k] = append([]float32(nil), v...)
	}
	return nil
}

func (c *mapCache) Close() error { return nil }

func TestCached(t *testing.T) {
	ctx := context.Background()
	inner := &fakeEmbedder{}
	cache := newMapCache()
	ce := Cached(inner, cache)
	if ce.Name() != "fake" || ce.Dim() != 3 {
		t.Errorf("Name/Dim = %s/%d, want the wrapped embedder's", ce.Name(), ce.Dim())
	}

	in := []string{"a", "bb", "a", "ccc", "bb"}
	got, err := ce.Embed(ctx, kb.Passage, in)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range in {
		if !reflect.DeepEqual(got[i], vecOf(s)) {
			t.Errorf("vector %d = %v, want %v", i, got[i], vecOf(s))
		}
	}
	if !reflect.DeepEqual(inner.calls, [][]string{{"a", "bb", "ccc"}}) {
		t.Errorf("inner calls %q, want one call with the distinct texts in first-seen order", inner.calls)
	}
	if len(cache.m) != 3 {
		t.Errorf("cache holds %d entries, want 3", len(cache.m))
	}
	if _, ok := cache.m[CacheKey("fake", 3, kb.Passage, "bb")]; !ok {
		t.Error("entries are not stored under CacheKey(name, dim, kind, text)")
	}
	// Equal texts get distinct slices.
	got[0][0] = 42
	if got[2][0] == 42 {
		t.Error("vectors of equal texts share memory")
	}

	// Second call: all hits, one new text.
	got, err = ce.Embed(ctx, kb.Passage, []string{"ccc", "a", "dddd"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(inner.calls[1:], [][]string{{"dddd"}}) {
		t.Errorf("second call sent %q to the embedder, want only dddd", inner.calls[1:])
	}
	for i, text := range map[int]string{1: "a", 2: "dddd"} {
		if !reflect.DeepEqual(got[i], vecOf(text)) {
			t.Errorf("second call: vector %d = %v, want %v, the vector of %s", i, got[i], vecOf(text), text)
		}
	}
	if s := ce.Stats(); s != (CacheStats{Texts: 8, Hits: 2, Embedded: 4}) {
		t.Errorf("stats %+v, want 8 texts, 2 hits, 4 embedded", s)
	}

	// All hits: the embedder is not called.
	n := len(inner.calls)
	if _, err := ce.Embed(ctx, kb.Passage, []string{"a", "a", "bb"}); err != nil {
		t.Errorf("all-hit call: %v", err)
	}
	if len(inner.calls) != n {
		t.Errorf("all-hit call: %d embedder calls, want 0", len(inner.calls)-n)
	}
	if out, err := ce.Embed(ctx, kb.Passage, nil); err != nil || len(out) != 0 {
		t.Errorf("Embed(nil) = %v, %v", out, err)
	}
}

func TestCachedWrongLengthIsMiss(t *testing.T) {
	inner := &fakeEmbedder{}
	cache := newMapCache()
	cache.m[CacheKey("fake", 3, kb.Passage, "a")] = []float32{1, 0} // damaged
	got, err := Cached(inner, cache).Embed(context.Background(), kb.Passage, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	// A damaged entry is re-embedded and overwritten.
	if !reflect.DeepEqual(got[0], vecOf("a")) {
		t.Errorf("vector %v, want %v, the embedder's", got[0], vecOf("a"))
	}
	if len(inner.calls) != 1 {
		t.Errorf("%d embedder calls, want 1", len(inner.calls))
	}
	if v := cache.m[CacheKey("fake", 3, kb.Passage, "a")]; len(v) != 3 {
		t.Errorf("cache entry %v, want it overwritten with 3 values", v)
	}
}

func TestCachedChecksInner(t *testing.T) {
	inner := &fakeEmbedder{dim: 4} // says 4, returns 3
	_, err := Cached(inner, newMapCache()).Embed(context.Background(), kb.Passage, []string{"a"})
	var de *DimensionError
	if !errors.As(err, &de) || de.Want != 4 || de.Got != 3 || de.Model != "fake" {
		t.Errorf("error %v, want a DimensionError", err)
	}
	inner = &fakeEmbedder{err: errors.New("server down")}
	if _, err := Cached(inner, newMapCache()).Embed(context.Background(), kb.Passage, []string{"a"}); err == nil || !strings.Contains(err.Error(), "server down") {
		t.Errorf("inner error lost: %v", err)
	}
}

func TestCachedCacheErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name           string
		getErr, putErr error
	}{
		{"get", errors.New("redis down"), nil},
		{"put", nil, errors.New("redis down")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := newMapCache()
			cache.getErr, cache.putErr = tc.getErr, tc.putErr
			_, err := Cached(&fakeEmbedder{}, cache).Embed(ctx, kb.Passage, []string{"a"})
			if err == nil || !strings.Contains(err.Error(), "redis down") || !strings.Contains(err.Error(), "embedding cache") {
				t.Errorf("strict: error %v, want the cache error", err)
			}
			var reported []error
			ce := Cached(&fakeEmbedder{}, cache, TolerateCacheErrors(func(err error) { reported = append(reported, err) }))
			got, err := ce.Embed(ctx, kb.Passage, []string{"a", "b"})
			if err != nil {
				t.Fatalf("tolerant: %v", err)
			}
			if !reflect.DeepEqual(got, [][]float32{vecOf("a"), vecOf("b")}) {
				t.Errorf("tolerant: vectors %v", got)
			}
			if len(reported) != 1 || ce.Stats().Errors != 1 {
				t.Errorf("reported %v, stats %+v; want one report", reported, ce.Stats())
			}
		})
	}
}

// modelCache records PutModel calls.
type modelCache struct {
	*mapCache
	models []string
}

func (c *modelCache) PutModel(ctx context.Context, model string, entries map[string][]float32) error {
	c.models = append(c.models, model)
	return c.Put(ctx, entries)
}

func TestCachedUsesPutModel(t *testing.T) {
	c := &modelCache{mapCache: newMapCache()}
	if _, err := Cached(&fakeEmbedder{}, c).Embed(context.Background(), kb.Passage, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.models, []string{"fake"}) {
		t.Errorf("PutModel calls %v, want [fake]", c.models)
	}
}

func TestBatched(t *testing.T) {
	inner := &fakeEmbedder{}
	b := Batched(inner, 2)
	in := []string{"a", "b", "c", "d", "e"}
	got, err := b.Embed(context.Background(), kb.Passage, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d vectors, want 5: %v", len(got), got)
	}
	if !reflect.DeepEqual(got[4], vecOf("e")) {
		t.Errorf("vector 4 = %v, want %v, the vector of e", got[4], vecOf("e"))
	}
	if !reflect.DeepEqual(inner.calls, [][]string{{"a", "b"}, {"c", "d"}, {"e"}}) {
		t.Errorf("calls %q", inner.calls)
	}
	if b.Name() != "fake" {
		t.Errorf("Batched: Name() = %q, want fake, the inner embedder's", b.Name())
	}
	if b.Dim() != 3 {
		t.Errorf("Batched: Dim() = %d, want 3, the inner embedder's", b.Dim())
	}
	if _, err := Batched(&fakeEmbedder{dim: 2}, 2).Embed(context.Background(), kb.Passage, in); err == nil {
		t.Error("Batched accepted vectors of the wrong dimension")
	}
}

func BenchmarkCacheKey(b *testing.B) {
	text := strings.Repeat("连接池 max_connections ", 40) // ~800 characters
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		CacheKey("local-hash-v1", 512, kb.Passage, text)
	}
}

// BenchmarkCachedHit measures the hit path of Cached: keys, one cache
// lookup and assembly. The embedder is never called.
func BenchmarkCachedHit(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			inner := &fakeEmbedder{dim: 512}
			cache := newMapCache()
			texts := make([]string, n)
			for i := range texts {
				texts[i] = fmt.Sprintf("%d %s", i, strings.Repeat("连接池 max_connections ", 40))
				v := make([]float32, 512)
				v[i%512] = 1
				cache.m[CacheKey("fake", 512, kb.Passage, texts[i])] = v
			}
			ce := Cached(inner, cache)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ce.Embed(ctx, kb.Passage, texts); err != nil {
					b.Fatal(err)
				}
			}
			if len(inner.calls) != 0 {
				b.Fatal("the embedder was called on the hit path")
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}

// kindEmbedder embeds a text as a different vector per input type, as e5
// does, and records the kinds it was asked for.
type kindEmbedder struct{ kinds []kb.InputType }

func (*kindEmbedder) Name() string { return "kinds" }
func (*kindEmbedder) Dim() int     { return 2 }
func (e *kindEmbedder) Embed(_ context.Context, kind kb.InputType, texts []string) ([][]float32, error) {
	e.kinds = append(e.kinds, kind)
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = []float32{1, 0}
		if kind == kb.Query {
			out[i] = []float32{0, 1}
		}
	}
	return out, nil
}

// The cache passes the input type through and keeps a query and a passage
// of the same text apart.
func TestCachedKeepsInputTypesApart(t *testing.T) {
	inner := &kindEmbedder{}
	ce := Cached(inner, newMapCache())
	ctx := context.Background()
	q, err := ce.Embed(ctx, kb.Query, []string{"same text"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ce.Embed(ctx, kb.Passage, []string{"same text"})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(q, p) {
		t.Errorf("the passage got the query's cached vector: %v", p)
	}
	q2, _ := ce.Embed(ctx, kb.Query, []string{"same text"})
	if !reflect.DeepEqual(q, q2) || !reflect.DeepEqual(inner.kinds, []kb.InputType{kb.Query, kb.Passage}) {
		t.Errorf("calls %v, second query %v; want one call per kind and a cache hit", inner.kinds, q2)
	}
}

// variantEmbedder is fakeEmbedder with a CacheVariant.
type variantEmbedder struct {
	fakeEmbedder
	variant string
}

func (v *variantEmbedder) CacheVariant() string { return v.variant }

// TestCachedVariant: the same model under two variants never shares cache
// entries. The variants are the openai embedder's input type field and
// none. No variant keys as before.
func TestCachedVariant(t *testing.T) {
	ctx := context.Background()
	cache := newMapCache()
	plain := &variantEmbedder{}
	field := &variantEmbedder{variant: "input-type=field"}
	for _, e := range []*variantEmbedder{plain, field} {
		if _, err := Cached(e, cache).Embed(ctx, kb.Query, []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if len(e.calls) != 1 {
			t.Errorf("variant %q: %d calls to the embedder, want 1 (no entry of the other variant reused)", e.variant, len(e.calls))
		}
	}
	if _, ok := cache.m[CacheKey("fake", 3, kb.Query, "a")]; !ok || len(cache.m) != 2 {
		t.Errorf("cache keys %d, want 2 with the plain one under CacheKey(name, dim, kind, text)", len(cache.m))
	}
}

// Lookup answers from the cache only; EmbedUsing is Embed with the misses
// embedded by the caller's function.
func TestCachedLookupEmbedUsing(t *testing.T) {
	ctx := context.Background()
	inner := &fakeEmbedder{}
	c := &modelCache{mapCache: newMapCache()}
	ce := Cached(inner, c)
	if ce.Uncached() != inner {
		t.Fatal("Uncached is not the wrapped embedder")
	}
	if _, err := ce.Embed(ctx, kb.Passage, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	c.m[CacheKey("fake", 3, kb.Passage, "d")] = []float32{1} // damaged: a miss

	got, err := ce.Lookup(ctx, kb.Passage, []string{"a", "b", "a", "d"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, [][]float32{vecOf("a"), nil, vecOf("a"), nil}) {
		t.Errorf("Lookup = %v, want a's vector twice and two misses", got)
	}
	got[0][0] = 42
	if got[2][0] == 42 {
		t.Error("Lookup's vectors of equal texts share memory")
	}
	if got, err := ce.Lookup(ctx, kb.Query, []string{"a"}); err != nil || got[0] != nil {
		t.Errorf("Lookup as a query = %v, %v; the passage's vector is not the query's", got, err)
	}
	if len(inner.calls) != 1 {
		t.Errorf("Lookup called the embedder: %q", inner.calls)
	}

	var asked [][]string
	ahead := func(misses []string) ([][]float32, error) {
		asked = append(asked, misses)
		out := make([][]float32, len(misses))
		for i, m := range misses {
			out[i] = vecOf(m)
		}
		return out, nil
	}
	got, err = ce.EmbedUsing(ctx, kb.Passage, []string{"b", "a", "b", "d"}, ahead)
	if err != nil || !reflect.DeepEqual(got, [][]float32{vecOf("b"), vecOf("a"), vecOf("b"), vecOf("d")}) {
		t.Fatalf("EmbedUsing = %v, %v", got, err)
	}
	if !reflect.DeepEqual(asked, [][]string{{"b", "d"}}) || len(inner.calls) != 1 {
		t.Errorf("misses asked %q, wrapped embedder called %d times: want b and d from the function only", asked, len(inner.calls))
	}
	if !reflect.DeepEqual(c.models, []string{"fake", "fake"}) || len(c.m) != 3 {
		t.Errorf("PutModel calls %v, %d entries: want one write per call", c.models, len(c.m))
	}
	wrong := func(misses []string) ([][]float32, error) { return [][]float32{{1, 0}}, nil }
	if _, err := ce.EmbedUsing(ctx, kb.Passage, []string{"e"}, wrong); err == nil {
		t.Error("EmbedUsing stored a vector of the wrong dimension")
	}
	if s := ce.Stats(); s != (CacheStats{Texts: 11, Hits: 3, Embedded: 3}) {
		t.Errorf("stats %+v, want 11 texts, 3 hits, 3 embedded", s)
	}
}

// sizedEmbedder is a fakeEmbedder with a preferred batch size.
type sizedEmbedder struct{ fakeEmbedder }

func (*sizedEmbedder) BatchSize() int { return 7 }

func TestCachedBatchSize(t *testing.T) {
	if n := Cached(&sizedEmbedder{}, newMapCache()).BatchSize(); n != 7 {
		t.Errorf("BatchSize = %d, want the wrapped embedder's 7", n)
	}
	if n := Cached(&fakeEmbedder{}, newMapCache()).BatchSize(); n != 0 {
		t.Errorf("BatchSize = %d, want 0 for an embedder without one", n)
	}
}
