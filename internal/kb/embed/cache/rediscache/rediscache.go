// Package rediscache is the embedding cache of the server stack, in Redis,
// through github.com/redis/go-redis/v9.
//
// An entry is one Redis string. Its key is "ragbaseline:emb:" +
// embed.CacheKey(…). Its value is the vector as little-endian IEEE-754
// float32 bytes, as embed.EncodeVector writes them. Get is one round trip
// of MGETs of at most 500 keys each. Put is pipelined SETs, with an
// optional TTL. Errors name the server address, never a password.
package rediscache

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

// DefaultPrefix is put before every cache key.
const DefaultPrefix = "ragbaseline:emb:"

// MaxKeysPerCommand bounds one MGET and one pipelined batch of SETs.
const MaxKeysPerCommand = 500

// DefaultTimeout bounds connecting and each read and write.
const DefaultTimeout = 5 * time.Second

// Cache is a kb.EmbedCache in Redis. It is safe for concurrent use.
type Cache struct {
	rdb    *redis.Client
	addr   string // host:port, for messages
	prefix string
	ttl    time.Duration
}

var _ kb.EmbedCache = (*Cache)(nil)

type config struct {
	username, password string
	db                 int
	ttl                time.Duration
	prefix             string
	timeout            time.Duration
}

// Option configures Open.
type Option func(*config)

// WithPassword authenticates with password (AUTH). It overrides a password
// in a redis:// address.
func WithPassword(password string) Option { return func(c *config) { c.password = password } }

// WithUsername authenticates as an ACL user (Redis 6+).
func WithUsername(username string) Option { return func(c *config) { c.username = username } }

// WithDB selects database n.
func WithDB(n int) Option { return func(c *config) { c.db = n } }

// WithTTL makes entries expire after d. 0, the default, keeps them until
// Redis evicts them.
func WithTTL(d time.Duration) Option { return func(c *config) { c.ttl = d } }

// WithPrefix replaces DefaultPrefix (tests use a unique prefix each).
func WithPrefix(prefix string) Option { return func(c *config) { c.prefix = prefix } }

// WithTimeout bounds connecting and each read and write (default
// DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Open connects to the Redis server at addr and checks that it answers.
// addr is host:port, or a redis:// or rediss:// URL (which may carry a
// user, password and database number).
func Open(addr string, opts ...Option) (*Cache, error) {
	cfg := config{prefix: DefaultPrefix, timeout: DefaultTimeout}
	var ro *redis.Options
	if strings.HasPrefix(addr, "redis://") || strings.HasPrefix(addr, "rediss://") || strings.HasPrefix(addr, "unix://") {
		var err error
		ro, err = redis.ParseURL(addr)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) { // its text repeats the URL, password included
				err = ue.Err
			}
			return nil, fmt.Errorf("redis embedding cache: invalid address URL %s: %v", redactURL(addr), err)
		}
		cfg.username, cfg.password, cfg.db = ro.Username, ro.Password, ro.DB
	} else {
		if addr == "" {
			return nil, errors.New("redis embedding cache: empty address (set RAG_REDIS_ADDR)")
		}
		ro = &redis.Options{Addr: addr}
	}
	for _, o := range opts {
		o(&cfg)
	}
	ro.Username, ro.Password, ro.DB = cfg.username, cfg.password, cfg.db
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout = cfg.timeout, cfg.timeout, cfg.timeout
	ro.ContextTimeoutEnabled = true
	// Caching is not worth long stalls: a down server fails fast.
	ro.MaxRetries = 1

	c := &Cache{rdb: redis.NewClient(ro), addr: ro.Addr, prefix: cfg.prefix, ttl: cfg.ttl}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	if err := c.rdb.Ping(ctx).Err(); err != nil {
		c.rdb.Close()
		return nil, c.wrap("connect", err)
	}
	return c, nil
}

// Addr returns the server address (host:port).
func (c *Cache) Addr() string { return c.addr }

// wrap names the address and the operation. go-redis never puts the
// password in an error. The text is still scrubbed of it in case a server
// echoes it.
func (c *Cache) wrap(op string, err error) error {
	msg := err.Error()
	if pw := c.rdb.Options().Password; pw != "" && strings.Contains(msg, pw) {
		return fmt.Errorf("redis embedding cache at %s: %s: %s", c.addr, op, strings.ReplaceAll(msg, pw, "[redacted]"))
	}
	return fmt.Errorf("redis embedding cache at %s: %s: %w", c.addr, op, err)
}

// Get returns the cached vectors of the keys it has, in one round trip.
// An entry whose value is not a whole number of float32 values is treated
// as missing (the next Put overwrites it).
func (c *Cache) Get(ctx context.Context, keys []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, c.wrap("get", err)
	}
	pipe := c.rdb.Pipeline()
	type batch struct {
		keys []string
		cmd  *redis.SliceCmd
	}
	var batches []batch
	for start, end := range embed.Batches(len(keys), MaxKeysPerCommand) {
		rk := make([]string, end-start)
		for i, k := range keys[start:end] {
			rk[i] = c.prefix + k
		}
		batches = append(batches, batch{keys[start:end], pipe.MGet(ctx, rk...)})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, c.wrap("get", err)
	}
	for _, b := range batches {
		vals := b.cmd.Val()
		if len(vals) != len(b.keys) {
			return nil, c.wrap("get", fmt.Errorf("MGET of %d keys returned %d values", len(b.keys), len(vals)))
		}
		for i, val := range vals {
			s, ok := val.(string)
			if !ok {
				continue // nil: missing
			}
			v, err := embed.DecodeVector([]byte(s))
			if err != nil || len(v) == 0 {
				continue
			}
			out[b.keys[i]] = v
		}
	}
	return out, nil
}

// Put stores vectors with pipelined SETs (with the TTL, if set). Storing a
// key again replaces its value. A zero-length vector is an error and
// nothing is stored.
func (c *Cache) Put(ctx context.Context, entries map[string][]float32) error {
	if len(entries) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return c.wrap("put", err)
	}
	keys := make([]string, 0, len(entries))
	for k, v := range entries {
		if len(v) == 0 {
			return c.wrap("put", fmt.Errorf("key %s: empty vector", k))
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for start, end := range embed.Batches(len(keys), MaxKeysPerCommand) {
		pipe := c.rdb.Pipeline()
		for _, k := range keys[start:end] {
			pipe.Set(ctx, c.prefix+k, embed.EncodeVector(entries[k]), c.ttl)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return c.wrap("put", err)
		}
	}
	return nil
}

// Len counts the entries under the cache's prefix with SCAN. It is for
// tests and statistics, not for hot paths.
func (c *Cache) Len(ctx context.Context) (int, error) {
	n := 0
	iter := c.rdb.Scan(ctx, 0, escapeGlob(c.prefix)+"*", 1000).Iterator()
	for iter.Next(ctx) {
		n++
	}
	if err := iter.Err(); err != nil {
		return 0, c.wrap("count", err)
	}
	return n, nil
}

// Close closes the connections.
func (c *Cache) Close() error {
	if err := c.rdb.Close(); err != nil {
		return c.wrap("close", err)
	}
	return nil
}

// escapeGlob escapes the characters special in a SCAN MATCH pattern.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\^`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// redactURL returns addr with any password replaced, for messages. An
// address that does not parse is not shown at all.
func redactURL(addr string) string {
	u, err := url.Parse(addr)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}
