// Package config turns flags and environment variables into concrete
// backends: the embedded store or the server stack. It is the only package
// that knows every backend, and only cmd/rag-seed and cmd/rag-snapshot
// import it.
//
// Every setting has a flag and an environment variable. A flag given on
// the command line wins over the variable, which wins over the default:
//
//	--store              RAG_STORE              embedded | server (default embedded)
//	--data-dir           RAG_DATA_DIR           default .ragbaseline
//	--mysql-dsn          RAG_MYSQL_DSN          server store: MySQL/MariaDB DSN
//	--milvus-addr        RAG_MILVUS_ADDR        server store: host:port
//	--milvus-collection  RAG_MILVUS_COLLECTION  default rag_eval
//	--redis-addr         RAG_REDIS_ADDR         server store: embedding cache (optional)
//	--embedder           RAG_EMBEDDER           use | local | openai (default use)
//	                     RAG_MODEL_DIR          use: where `make models` installed the model
//	--embed-model        RAG_EMBED_MODEL        openai: model name
//	--embed-dim          RAG_EMBED_DIM          vector dimension (use 512; local default 512; openai required)
//	--embed-input-type   RAG_EMBED_INPUT_TYPE   openai: how query/passage is sent (auto|field|prefix|none)
//	--embed-concurrency  RAG_EMBED_CONCURRENCY  openai: requests in flight (default 4; a rag-seed flag)
//	--openai-base-url    OPENAI_BASE_URL        openai: server base URL
//	                     OPENAI_API_KEY         openai: API key (environment only)
//
// The embedded store keeps everything under the data dir:
//
//   - catalog.db, in SQLite: the metadata, the L0 index, the chunk rows and
//     the embedding cache.
//   - index/: the embedded vector and BM25 index.
//   - knowledge/<kbScope>/<source>.md: the copies of the documents.
//
// Secrets are never printed: Describe and every error redact them.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/mysql"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/local"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/openai"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/usem3"
)

// The stores and the embedders.
const (
	StoreEmbedded  = "embedded"
	StoreServer    = "server"
	EmbedderUSE    = "use"
	EmbedderLocal  = "local"
	EmbedderOpenAI = "openai"
)

// Stores and Embedders list the values of --store and --embedder, in the
// order messages name them.
var (
	Stores    = []string{StoreEmbedded, StoreServer}
	Embedders = []string{EmbedderUSE, EmbedderLocal, EmbedderOpenAI}
)

// Config is the resolved configuration.
type Config struct {
	Store            string
	DataDir          string
	MySQLDSN         string
	MilvusAddr       string
	MilvusCollection string
	RedisAddr        string
	Embedder         string
	EmbedModel       string
	EmbedDim         int
	EmbedInputType   string // openai: openai.InputTypeMode
	// EmbedConcurrency is the number of embedding requests the openai
	// embedder keeps in flight; 0 means openai.DefaultConcurrency.
	EmbedConcurrency int
	OpenAIBaseURL    string
	OpenAIKey        string // from OPENAI_API_KEY only
	// Timeout bounds every call to a service.
	Timeout time.Duration

	envErr error // a malformed environment variable, reported by Validate
}

// Defaults returns the configuration from the environment, with defaults
// for what it does not set.
func Defaults() Config {
	c := Config{
		Store:            env("RAG_STORE", StoreEmbedded),
		DataDir:          env("RAG_DATA_DIR", ".ragbaseline"),
		MySQLDSN:         os.Getenv("RAG_MYSQL_DSN"),
		MilvusAddr:       os.Getenv("RAG_MILVUS_ADDR"),
		MilvusCollection: env("RAG_MILVUS_COLLECTION", "rag_eval"),
		RedisAddr:        os.Getenv("RAG_REDIS_ADDR"),
		Embedder:         env("RAG_EMBEDDER", EmbedderUSE),
		EmbedModel:       os.Getenv("RAG_EMBED_MODEL"),
		EmbedInputType:   env("RAG_EMBED_INPUT_TYPE", string(openai.InputTypeAuto)),
		EmbedConcurrency: openai.DefaultConcurrency,
		OpenAIBaseURL:    os.Getenv("OPENAI_BASE_URL"),
		OpenAIKey:        os.Getenv("OPENAI_API_KEY"), // trimmed by package openai
		Timeout:          30 * time.Second,
	}
	if v := os.Getenv("RAG_EMBED_DIM"); v != "" {
		d, err := strconv.Atoi(v)
		if err != nil {
			c.envErr = fmt.Errorf("RAG_EMBED_DIM=%q is not an integer", v)
		}
		c.EmbedDim = d
	}
	if v := os.Getenv("RAG_EMBED_CONCURRENCY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			c.envErr = errors.Join(c.envErr, fmt.Errorf("RAG_EMBED_CONCURRENCY=%q is not an integer", v))
		}
		c.EmbedConcurrency = n
	}
	return c
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// BindFlags registers the flags on fs with c's values as defaults. Call it
// on Defaults(). --store and --embedder take only the values of Stores and
// Embedders, checked as they are parsed. Validate checks the values that
// come from the environment.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	cmdutil.StringEnumVar(fs, &c.Store, "store", c.Store, Stores, nil, "backend: embedded (SQLite + in-process index, no services) or server (MySQL + Milvus + Redis) [RAG_STORE]")
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "data directory of the embedded store and the knowledge copies [RAG_DATA_DIR]")
	fs.StringVar(&c.MySQLDSN, "mysql-dsn", c.MySQLDSN, "MySQL/MariaDB DSN for --store server [RAG_MYSQL_DSN]")
	fs.StringVar(&c.MilvusAddr, "milvus-addr", c.MilvusAddr, "Milvus host:port for --store server [RAG_MILVUS_ADDR]")
	fs.StringVar(&c.MilvusCollection, "milvus-collection", c.MilvusCollection, "Milvus collection [RAG_MILVUS_COLLECTION]")
	fs.StringVar(&c.RedisAddr, "redis-addr", c.RedisAddr, "Redis host:port for the embedding cache with --store server [RAG_REDIS_ADDR]")
	cmdutil.StringEnumVar(fs, &c.Embedder, "embedder", c.Embedder, Embedders, nil, "embedder: use (multilingual Universal Sentence Encoder in process; make models installs it), local (lexical hashed n-grams, no model) or openai (any OpenAI-compatible server) [RAG_EMBEDDER]")
	fs.StringVar(&c.EmbedModel, "embed-model", c.EmbedModel, "embedding model for --embedder openai [RAG_EMBED_MODEL]")
	fs.IntVar(&c.EmbedDim, "embed-dim", c.EmbedDim, "embedding dimension (use: 512, fixed; local: default 512; openai: the model's) [RAG_EMBED_DIM]")
	fs.StringVar(&c.EmbedInputType, "embed-input-type", c.EmbedInputType, "openai: how query/passage is sent: auto, field (input_type), prefix (\"query: \"/\"passage: \"), none [RAG_EMBED_INPUT_TYPE]")
	fs.StringVar(&c.OpenAIBaseURL, "openai-base-url", c.OpenAIBaseURL, "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 [OPENAI_BASE_URL]; the key is read from OPENAI_API_KEY")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "timeout of each call to a service")
	// Defaults that come from the environment may carry passwords, so
	// --help shows them redacted.
	if f := fs.Lookup("mysql-dsn"); f != nil && f.DefValue != "" {
		f.DefValue = RedactDSN(f.DefValue)
	}
	if f := fs.Lookup("redis-addr"); f != nil && f.DefValue != "" {
		f.DefValue = RedactURL(f.DefValue)
	}
	if f := fs.Lookup("openai-base-url"); f != nil && f.DefValue != "" {
		f.DefValue = RedactURL(f.DefValue)
	}
}

// BindSeedFlags registers the flags only rag-seed takes, with c's values as
// defaults: --embed-concurrency, which only a seed's many texts can use.
func (c *Config) BindSeedFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.EmbedConcurrency, "embed-concurrency", c.EmbedConcurrency, "openai: embedding requests in flight at once [RAG_EMBED_CONCURRENCY]")
}

var slug = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Validate checks the configuration before anything is opened.
func (c *Config) Validate() error {
	var errs []error
	if c.envErr != nil {
		errs = append(errs, c.envErr)
	}
	switch c.Store {
	case StoreEmbedded:
	case StoreServer:
		if c.MySQLDSN == "" {
			errs = append(errs, errors.New("--store server needs --mysql-dsn or RAG_MYSQL_DSN (make services writes one to .ragbaseline/services.env)"))
		} else if err := mysql.CheckDSN(c.MySQLDSN); err != nil {
			errs = append(errs, fmt.Errorf("--mysql-dsn (RAG_MYSQL_DSN): %w", err))
		}
		if c.MilvusAddr == "" {
			errs = append(errs, errors.New("--store server needs --milvus-addr or RAG_MILVUS_ADDR"))
		}
	default:
		errs = append(errs, &cmdutil.EnumError{Flag: "store", Value: c.Store, Values: Stores})
	}
	errs = append(errs, c.embedderErrors()...)
	if !slug.MatchString(c.MilvusCollection) {
		errs = append(errs, fmt.Errorf("--milvus-collection %q must match %s", c.MilvusCollection, slug))
	}
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout must be positive"))
	}
	return errors.Join(errs...)
}

// embedderErrors checks the embedder settings: --embedder, --embed-* and
// --openai-base-url.
func (c *Config) embedderErrors() []error {
	var errs []error
	switch c.Embedder {
	case EmbedderUSE:
		if c.EmbedDim != 0 && c.EmbedDim != usem3.Dim {
			errs = append(errs, fmt.Errorf("--embedder use gives %d dimensions; --embed-dim %d is not possible", usem3.Dim, c.EmbedDim))
		}
	case EmbedderLocal:
	case EmbedderOpenAI:
		if c.EmbedModel == "" {
			errs = append(errs, errors.New("--embedder openai needs --embed-model or RAG_EMBED_MODEL"))
		}
		if c.EmbedDim <= 0 {
			errs = append(errs, errors.New("--embedder openai needs --embed-dim or RAG_EMBED_DIM (the collection is created for it)"))
		}
		if m := openai.InputTypeMode(c.EmbedInputType); m != "" {
			if err := m.Valid(); err != nil {
				errs = append(errs, fmt.Errorf("--embed-input-type (RAG_EMBED_INPUT_TYPE): %w", err))
			}
		}
		if c.EmbedConcurrency < 0 {
			errs = append(errs, fmt.Errorf("--embed-concurrency (RAG_EMBED_CONCURRENCY) cannot be negative, got %d", c.EmbedConcurrency))
		}
		if c.OpenAIBaseURL != "" {
			if u, err := url.Parse(c.OpenAIBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				errs = append(errs, fmt.Errorf("--openai-base-url (OPENAI_BASE_URL) %q is not an http(s) URL", RedactURL(c.OpenAIBaseURL)))
			}
		}
	default:
		errs = append(errs, &cmdutil.EnumError{Flag: "embedder", Value: c.Embedder, Values: Embedders})
	}
	if c.EmbedDim < 0 {
		errs = append(errs, fmt.Errorf("--embed-dim must be positive, got %d", c.EmbedDim))
	}
	return errs
}

// ValidateEmbedder checks only what opening the embedder needs: the
// embedder settings, a malformed environment variable and the timeout. A
// pipeline that needs no store, such as the mapped pipeline, validates
// with it, so store settings it does not use cannot fail it.
func (c *Config) ValidateEmbedder() error {
	var errs []error
	if c.envErr != nil {
		errs = append(errs, c.envErr)
	}
	errs = append(errs, c.embedderErrors()...)
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout must be positive"))
	}
	return errors.Join(errs...)
}

// ValidKBScope reports whether s is a usable kbScope. It names a directory
// under the data dir, so it must be a plain slug.
func ValidKBScope(s string) error {
	if err := kb.ValidKBScope(s); err != nil {
		return fmt.Errorf("--kb-scope %q %w", s, err)
	}
	return nil
}

// Describe is a one-line, secret-free description of the stack.
func (c *Config) Describe() string {
	emb := c.EmbedderName()
	if c.Store == StoreEmbedded {
		return fmt.Sprintf("embedded store in %s, embedder %s", c.DataDir, emb)
	}
	return fmt.Sprintf("server store: mysql %s, milvus %s/%s, redis %s, embedder %s",
		RedactDSN(c.MySQLDSN), RedactURL(c.MilvusAddr), c.MilvusCollection, orNone(RedactURL(c.RedisAddr)), emb)
}

// EmbedderName is the name the configured embedder records in fixtures,
// its kb.Embedder.Name, known before it is loaded.
func (c *Config) EmbedderName() string {
	switch c.Embedder {
	case EmbedderUSE:
		return usem3.Name
	case EmbedderOpenAI:
		return openai.NameOf(c.EmbedModel)
	}
	return local.Name
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// RedactDSN hides the password of a MySQL DSN, user:pass@tcp(host)/db.
func RedactDSN(dsn string) string { return mysql.RedactDSN(dsn) }

// RedactURL hides user info in a URL.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = url.User("xxxxx")
	return u.String()
}

// Stack is an opened set of backends.
type Stack struct {
	Catalog  kb.Catalog
	Index    kb.Index
	Embedder kb.Embedder // cached
	// Record is what rag-seed recorded for the kbScope Verify checked: the
	// embedder, the chunking and the corpus fingerprint. It is the record
	// the check passed, so a manifest built from it says what was checked.
	Record   kb.IndexInfo
	closers  []func() error
	describe string // Config.Describe(), for messages
}

// Close closes every backend, in reverse order of opening.
func (s *Stack) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	return errors.Join(errs...)
}

// dataPath returns a path under the data dir.
func (c *Config) dataPath(parts ...string) string {
	return filepath.Join(append([]string{c.DataDir}, parts...)...)
}

// KnowledgeDir is where seeded documents are copied.
func (c *Config) KnowledgeDir() string { return c.dataPath("knowledge") }
