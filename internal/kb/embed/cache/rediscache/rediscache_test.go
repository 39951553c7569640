package rediscache

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// redisAddr returns RAG_REDIS_ADDR, skipping the test when it is unset,
// unless RAG_REQUIRE_SERVICES=1 (CI), where a missing server is a failure.
func redisAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("RAG_REDIS_ADDR")
	if addr != "" {
		return addr
	}
	const how = "RAG_REDIS_ADDR is not set; start the local services with `make services` and load them with `. .ragbaseline/services.env`"
	if os.Getenv("RAG_REQUIRE_SERVICES") == "1" {
		t.Fatal(how + " (RAG_REQUIRE_SERVICES=1: integration tests must not be skipped)")
	}
	t.Skip(how)
	return ""
}

// testPrefix returns a key prefix unique to this test run and deletes
// every key under it when the test ends.
func testPrefix(t *testing.T, addr string) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	prefix := "ragbaseline:test:" + strings.ReplaceAll(t.Name(), "/", ".") + ":" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		defer rdb.Close()
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, escapeGlob(prefix)+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("cleanup scan: %v", err)
		}
		for start, end := range embed.Batches(len(keys), 500) {
			if err := rdb.Del(ctx, keys[start:end]...).Err(); err != nil {
				t.Errorf("cleanup del: %v", err)
			}
		}
	})
	return prefix
}

func TestContract(t *testing.T) {
	addr := redisAddr(t)
	kbtest.RunEmbedCacheTests(t, func(t *testing.T) kb.EmbedCache {
		c, err := Open(addr, WithPrefix(testPrefix(t, addr)))
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

func TestKeyLayoutAndTTL(t *testing.T) {
	addr := redisAddr(t)
	ctx := context.Background()
	prefix := testPrefix(t, addr)
	c, err := Open(addr, WithPrefix(prefix), WithTTL(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := embed.CacheKey("openai:text-embedding-3-small", 2, kb.Passage, "hello")
	if err := c.Put(ctx, map[string][]float32{key: {1, -2}}); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	val, err := rdb.Get(ctx, prefix+key).Bytes()
	if err != nil {
		t.Fatalf("raw GET %s: %v", prefix+key, err)
	}
	if want := "\x00\x00\x80\x3f\x00\x00\x00\xc0"; string(val) != want {
		t.Errorf("stored value % x, want % x (little-endian float32)", val, want)
	}
	ttl, err := rdb.PTTL(ctx, prefix+key).Result()
	if err != nil || ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("PTTL = %v, %v; want about 1h", ttl, err)
	}
	if !strings.HasPrefix(DefaultPrefix+key, "ragbaseline:emb:") {
		t.Error("DefaultPrefix changed")
	}

	// A damaged value is a miss, not an error.
	if err := rdb.Set(ctx, prefix+"bad", "abc", 0).Err(); err != nil {
		t.Fatal(err)
	}
	m, err := c.Get(ctx, []string{"bad", key})
	if err != nil || len(m) != 1 {
		t.Errorf("Get(damaged, good) = %v, %v; want only the good entry", m, err)
	}
}

func TestErrorsNameAddressNotPassword(t *testing.T) {
	addr := redisAddr(t)
	ctx := context.Background()
	// A temporary ACL user with a password, so a wrong password is refused
	// (the default user of the test server takes any password).
	var b [6]byte
	rand.Read(b[:])
	user := "ragbaseline-test-" + hex.EncodeToString(b[:])
	const good = "g00d-Pa55-" + "x"
	const secret = "s3cret-Pa55-do-not-print"
	admin := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() {
		if err := admin.Do(context.Background(), "ACL", "DELUSER", user).Err(); err != nil {
			t.Errorf("cleanup: ACL DELUSER %s: %v", user, err)
		}
		admin.Close()
	})
	if err := admin.Do(ctx, "ACL", "SETUSER", user, "on", ">"+good, "~ragbaseline:test:*", "+@all").Err(); err != nil {
		t.Fatalf("ACL SETUSER: %v", err)
	}

	c, err := Open(addr, WithUsername(user), WithPassword(good), WithPrefix(testPrefix(t, addr)))
	if err != nil {
		t.Fatalf("Open with the right password: %v", err)
	}
	if err := c.Put(ctx, map[string][]float32{"k": {1}}); err != nil {
		t.Errorf("Put as %s: %v", user, err)
	}
	c.Close()

	for _, tc := range []struct {
		name     string
		addr     string
		opts     []Option
		wantAddr bool
	}{
		{"option password", addr, []Option{WithUsername(user), WithPassword(secret)}, true},
		{"url password", "redis://" + user + ":" + secret + "@" + addr + "/0", nil, true},
		{"option overrides url", "redis://" + user + ":" + good + "@" + addr, []Option{WithPassword(secret)}, true},
		{"bad url escape", "redis://user:" + secret + "%zz@" + addr, nil, false},
		{"bad db", "redis://:" + secret + "@" + addr + "/notanumber", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Open(tc.addr, append(tc.opts, WithTimeout(2*time.Second))...)
			if err == nil {
				c.Close()
				t.Fatal("Open with a wrong password succeeded")
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error shows the password: %v", err)
			}
			if tc.wantAddr && !strings.Contains(err.Error(), addr) {
				t.Errorf("error does not name the address %s: %v", addr, err)
			}
			t.Log(err)
		})
	}
}

func TestServerDown(t *testing.T) {
	// A port nobody listens on: the error is immediate and names it.
	start := time.Now()
	_, err := Open("127.0.0.1:1", WithTimeout(2*time.Second))
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("error does not name the address: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to fail", d)
	}
	if _, err := Open(""); err == nil || !strings.Contains(err.Error(), "RAG_REDIS_ADDR") {
		t.Errorf("Open(\"\") = %v, want an error naming RAG_REDIS_ADDR", err)
	}
}

func TestCachedOverRedis(t *testing.T) {
	addr := redisAddr(t)
	ctx := context.Background()
	c, err := Open(addr, WithPrefix(testPrefix(t, addr)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	inner := &countingEmbedder{}
	ce := embed.Cached(inner, c)
	texts := []string{"连接池", "pool", "连接池"}
	first, err := ce.Embed(ctx, kb.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	second, err := ce.Embed(ctx, kb.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	if inner.texts != 2 {
		t.Errorf("inner embedder saw %d texts, want 2 (second call served by Redis)", inner.texts)
	}
	for i := range texts {
		if len(first[i]) != 2 || first[i][0] != second[i][0] || first[i][1] != second[i][1] {
			t.Errorf("text %d: %v then %v", i, first[i], second[i])
		}
	}
	if s := ce.Stats(); s.Hits != 3 || s.Embedded != 2 || s.Texts != 6 {
		t.Errorf("stats = %+v, want 3 hits, 2 embedded, 6 texts", s)
	}
}

type countingEmbedder struct{ texts int }

func (e *countingEmbedder) Name() string { return "counting" }
func (e *countingEmbedder) Dim() int     { return 2 }
func (e *countingEmbedder) Embed(_ context.Context, _ kb.InputType, texts []string) ([][]float32, error) {
	e.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
		embed.Normalize(out[i])
	}
	return out, nil
}

// BenchmarkCachedHit measures embed.Cached over Redis when every text is
// cached: 64 texts of 800 characters, 512-dimensional vectors (one MGET
// round trip per call).
func BenchmarkCachedHit(b *testing.B) {
	addr := os.Getenv("RAG_REDIS_ADDR")
	if addr == "" {
		b.Skip("RAG_REDIS_ADDR is not set; run `make services` and `. .ragbaseline/services.env`")
	}
	var rb [6]byte
	rand.Read(rb[:])
	prefix := "ragbaseline:bench:" + hex.EncodeToString(rb[:]) + ":"
	c, err := Open(addr, WithPrefix(prefix))
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		ctx := context.Background()
		iter := c.rdb.Scan(ctx, 0, escapeGlob(prefix)+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.rdb.Del(ctx, iter.Val())
		}
		c.Close()
	}()
	ctx := context.Background()
	ce := embed.Cached(&countingEmbedder512{}, c)
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = strings.Repeat("连接池 max_connections ", 40) + strings.Repeat("x", i)
	}
	if _, err := ce.Embed(ctx, kb.Passage, texts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ce.Embed(ctx, kb.Passage, texts); err != nil {
			b.Fatal(err)
		}
	}
	if ce.Stats().Embedded != int64(len(texts)) {
		b.Fatal("the embedder was called on the hit path")
	}
	b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
}

type countingEmbedder512 struct{}

func (countingEmbedder512) Name() string { return "bench" }
func (countingEmbedder512) Dim() int     { return 512 }
func (countingEmbedder512) Embed(_ context.Context, _ kb.InputType, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, 512)
		out[i][i] = 1
	}
	return out, nil
}
