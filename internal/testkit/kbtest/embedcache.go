package kbtest

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Lener is implemented by embedding caches that can count their entries.
// When the cache under test has it, RunEmbedCacheTests also checks entry
// counts (an overwrite keeps one entry).
type Lener interface {
	Len(ctx context.Context) (int, error)
}

// RunEmbedCacheTests runs the kb.EmbedCache contract. The SQLite cache of
// the embedded default and the Redis cache of the server stack both run it,
// so they cannot drift apart. open must return a new, empty cache each time
// it is called. The suite closes what open returns.
func RunEmbedCacheTests(t *testing.T, open func(t *testing.T) kb.EmbedCache) {
	t.Helper()
	ctx := context.Background()

	newCache := func(t *testing.T) kb.EmbedCache {
		t.Helper()
		c := open(t)
		t.Cleanup(func() {
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return c
	}
	get := func(t *testing.T, c kb.EmbedCache, keys ...string) map[string][]float32 {
		t.Helper()
		m, err := c.Get(ctx, keys)
		if err != nil {
			t.Fatalf("Get(%d keys): %v", len(keys), err)
		}
		return m
	}
	put := func(t *testing.T, c kb.EmbedCache, entries map[string][]float32) {
		t.Helper()
		if err := c.Put(ctx, entries); err != nil {
			t.Fatalf("Put(%d entries): %v", len(entries), err)
		}
	}
	checkLen := func(t *testing.T, c kb.EmbedCache, want int) {
		t.Helper()
		l, ok := c.(Lener)
		if !ok {
			return
		}
		n, err := l.Len(ctx)
		if err != nil {
			t.Fatalf("Len: %v", err)
		}
		if n != want {
			t.Errorf("Len = %d, want %d", n, want)
		}
	}

	t.Run("GetMisses", func(t *testing.T) {
		c := newCache(t)
		m := get(t, c, "missing-a", "missing-b")
		if len(m) != 0 {
			t.Errorf("Get on an empty cache returned %d entries: %v", len(m), m)
		}
		put(t, c, map[string][]float32{"present": {1, 2}})
		m = get(t, c, "missing-a", "present", "missing-b")
		if len(m) != 1 || !bitsEqual(m["present"], []float32{1, 2}) {
			t.Errorf("Get(missing, present, missing) = %v, want only present", m)
		}
	})

	t.Run("RoundTripBitExact", func(t *testing.T) {
		c := newCache(t)
		want := map[string][]float32{
			"unit":     {0.6, -0.8},
			"specials": specials(),
			"long":     ramp(3072),
			"one":      {float32(math.Pi)},
		}
		put(t, c, want)
		got := get(t, c, "unit", "specials", "long", "one")
		if len(got) != len(want) {
			t.Fatalf("Get returned %d entries, want %d", len(got), len(want))
		}
		for k, w := range want {
			if !bitsEqual(got[k], w) {
				t.Errorf("key %s: got %v, want %v (bit for bit)", k, got[k], w)
			}
		}
		checkLen(t, c, len(want))
	})

	t.Run("ReturnedVectorsAreCopies", func(t *testing.T) {
		c := newCache(t)
		v := []float32{1, 2, 3}
		put(t, c, map[string][]float32{"k": v})
		v[0] = 99 // the cache must not keep the caller's slice
		a := get(t, c, "k")["k"]
		if !bitsEqual(a, []float32{1, 2, 3}) {
			t.Fatalf("after modifying the stored slice, Get = %v, want [1 2 3]", a)
		}
		a[1] = 42
		if b := get(t, c, "k")["k"]; !bitsEqual(b, []float32{1, 2, 3}) {
			t.Errorf("after modifying a returned slice, Get = %v, want [1 2 3]", b)
		}
	})

	t.Run("OverwriteKeepsOneEntry", func(t *testing.T) {
		c := newCache(t)
		put(t, c, map[string][]float32{"k": {1, 2, 3}})
		put(t, c, map[string][]float32{"k": {4, 5}})
		got := get(t, c, "k")
		if !bitsEqual(got["k"], []float32{4, 5}) {
			t.Errorf("after overwrite Get = %v, want [4 5]", got["k"])
		}
		checkLen(t, c, 1)
	})

	t.Run("EmptyInputs", func(t *testing.T) {
		c := newCache(t)
		for _, keys := range [][]string{nil, {}} {
			m, err := c.Get(ctx, keys)
			if err != nil {
				t.Errorf("Get(%#v): %v", keys, err)
			}
			if len(m) != 0 {
				t.Errorf("Get(%#v) = %v, want empty", keys, m)
			}
		}
		for _, e := range []map[string][]float32{nil, {}} {
			if err := c.Put(ctx, e); err != nil {
				t.Errorf("Put(%#v): %v", e, err)
			}
		}
		checkLen(t, c, 0)
		m := get(t, c, "")
		if len(m) != 0 {
			t.Errorf("Get(\"\") on an empty cache = %v", m)
		}
	})

	t.Run("EmptyVectorRejected", func(t *testing.T) {
		c := newCache(t)
		if err := c.Put(ctx, map[string][]float32{"k": {}}); err == nil {
			t.Error("Put of a zero-length vector succeeded, want an error")
		}
		if m := get(t, c, "k"); len(m) != 0 {
			t.Errorf("after a rejected Put, Get = %v", m)
		}
	})

	t.Run("DuplicateKeysInGet", func(t *testing.T) {
		c := newCache(t)
		put(t, c, map[string][]float32{"k": {7}})
		m := get(t, c, "k", "k", "x", "k")
		if len(m) != 1 || !bitsEqual(m["k"], []float32{7}) {
			t.Errorf("Get(k, k, x, k) = %v", m)
		}
	})

	t.Run("ManyKeys", func(t *testing.T) {
		c := newCache(t)
		const n = 1234 // more than one batch of 500
		entries := make(map[string][]float32, n)
		keys := make([]string, 0, 2*n)
		for i := range n {
			k := fmt.Sprintf("key-%05d", i)
			entries[k] = []float32{float32(i), -float32(i) / 3, 0.5}
			keys = append(keys, k, fmt.Sprintf("absent-%05d", i))
		}
		put(t, c, entries)
		got := get(t, c, keys...)
		if len(got) != n {
			t.Fatalf("Get(%d keys, %d present) returned %d entries", len(keys), n, len(got))
		}
		for k, w := range entries {
			if !bitsEqual(got[k], w) {
				t.Fatalf("key %s: got %v, want %v", k, got[k], w)
			}
		}
		checkLen(t, c, n)
	})

	t.Run("Concurrent", func(t *testing.T) {
		c := newCache(t)
		const workers, per = 4, 50
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Go(func() {
				for i := range per {
					k := fmt.Sprintf("w%d-%d", w, i)
					if err := c.Put(ctx, map[string][]float32{k: {float32(w), float32(i)}, "shared": {1}}); err != nil {
						errs <- err
						return
					}
					m, err := c.Get(ctx, []string{k, "shared"})
					if err != nil {
						errs <- err
						return
					}
					if !bitsEqual(m[k], []float32{float32(w), float32(i)}) {
						errs <- fmt.Errorf("key %s: got %v", k, m[k])
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		checkLen(t, c, workers*per+1)
	})

	t.Run("CanceledContext", func(t *testing.T) {
		c := newCache(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := c.Get(cctx, []string{"k"}); err == nil {
			t.Error("Get with a canceled context succeeded")
		}
		if err := c.Put(cctx, map[string][]float32{"k": {1}}); err == nil {
			t.Error("Put with a canceled context succeeded")
		}
	})
}

// bitsEqual reports whether a and b hold the same float32 bit patterns
// (so NaN payloads and -0 count).
func bitsEqual(a, b []float32) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func specials() []float32 {
	return []float32{
		0, float32(math.Copysign(0, -1)),
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), // a quiet NaN with a payload
		1.0 / 3, -2.5e-38,
	}
}

func ramp(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.Sin(float64(i)))
	}
	return v
}
