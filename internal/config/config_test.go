package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ragbaseline/ragbaseline/internal/kb/embed/openai"
)

func TestPrecedenceFlagEnvDefault(t *testing.T) {
	t.Setenv("RAG_STORE", "server")
	t.Setenv("RAG_MILVUS_COLLECTION", "from_env")
	t.Setenv("RAG_DATA_DIR", "")
	c := Defaults()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	c.BindFlags(fs)
	if err := fs.Parse([]string{"--store", "embedded"}); err != nil {
		t.Fatal(err)
	}
	if c.Store != "embedded" {
		t.Errorf("Store = %q, want embedded", c.Store)
	}
	if c.MilvusCollection != "from_env" {
		t.Errorf("MilvusCollection = %q, want from_env", c.MilvusCollection)
	}
	if c.DataDir != ".ragbaseline" {
		t.Errorf("DataDir = %q, want .ragbaseline", c.DataDir)
	}
}

func TestSecretsNeverShown(t *testing.T) {
	const pw = "s3cr3t-pass"
	t.Setenv("RAG_MYSQL_DSN", "rag:"+pw+"@tcp(127.0.0.1:3306)/db")
	t.Setenv("RAG_REDIS_ADDR", "redis://user:"+pw+"@127.0.0.1:6379")
	t.Setenv("OPENAI_API_KEY", pw)
	t.Setenv("RAG_STORE", "server")
	t.Setenv("RAG_MILVUS_ADDR", "127.0.0.1:19530")
	c := Defaults()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	c.BindFlags(fs)
	if help := fs.FlagUsages(); strings.Contains(help, pw) {
		t.Errorf("--help shows the password:\n%s", help)
	}
	d := c.Describe()
	if strings.Contains(d, pw) {
		t.Errorf("Describe = %q shows the password", d)
	}
	if !strings.Contains(d, "127.0.0.1:3306") {
		t.Errorf("Describe = %q does not name the address 127.0.0.1:3306", d)
	}
	if c.MySQLDSN != "rag:"+pw+"@tcp(127.0.0.1:3306)/db" {
		t.Errorf("the real DSN was changed: %q", c.MySQLDSN)
	}
}

func TestValidate(t *testing.T) {
	t.Setenv("RAG_EMBED_DIM", "abc")
	c := Defaults()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `RAG_EMBED_DIM="abc"`) {
		t.Errorf("bad RAG_EMBED_DIM: %v", err)
	}
	for _, k := range []string{"RAG_EMBED_DIM", "RAG_MYSQL_DSN", "RAG_MILVUS_ADDR", "RAG_STORE", "RAG_EMBEDDER"} {
		t.Setenv(k, "")
	}
	c = Defaults()
	c.Store = "server"
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "needs --mysql-dsn") || !strings.Contains(err.Error(), "needs --milvus-addr") {
		t.Errorf("server without addresses: %v", err)
	}
	c = Defaults()
	c.Embedder = "openai"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--embed-model") {
		t.Errorf("openai without model: %v", err)
	}
	for _, bad := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Embedder = "bogus" }, `--embedder must be use, local or openai, got "bogus"`},
		{func(c *Config) { c.Embedder, c.EmbedDim = EmbedderUSE, 384 }, "--embedder use gives 512 dimensions; --embed-dim 384 is not possible"},
		{func(c *Config) {
			c.Embedder, c.EmbedModel, c.EmbedDim, c.EmbedInputType = EmbedderOpenAI, "m", 4, "sideways"
		}, `--embed-input-type (RAG_EMBED_INPUT_TYPE): input type mode "sideways" is not auto`},
		{func(c *Config) {
			c.Embedder, c.EmbedModel, c.EmbedDim, c.OpenAIBaseURL = EmbedderOpenAI, "m", 4, "ftp://x/v1"
		}, `--openai-base-url (OPENAI_BASE_URL) "ftp://x/v1" is not an http(s) URL`},
	} {
		c = Defaults()
		bad.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Validate = %v, want %q", err, bad.want)
		}
	}
	if err := ValidKBScope("../x"); err == nil {
		t.Error("kb scope ../x accepted")
	}
}

// --embed-concurrency (rag-seed only) and RAG_EMBED_CONCURRENCY set the
// openai embedder's requests in flight, flag over variable over default.
func TestEmbedConcurrency(t *testing.T) {
	t.Setenv("RAG_EMBED_CONCURRENCY", "")
	if c := Defaults(); c.EmbedConcurrency != openai.DefaultConcurrency {
		t.Errorf("default %d, want %d", c.EmbedConcurrency, openai.DefaultConcurrency)
	}
	t.Setenv("RAG_EMBED_CONCURRENCY", "7")
	c := Defaults()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	c.BindFlags(fs)
	if fs.Lookup("embed-concurrency") != nil {
		t.Error("BindFlags registers --embed-concurrency, a rag-seed flag")
	}
	c.BindSeedFlags(fs)
	if c.EmbedConcurrency != 7 {
		t.Errorf("from the environment: %d, want 7", c.EmbedConcurrency)
	}
	if err := fs.Parse([]string{"--embed-concurrency", "3"}); err != nil {
		t.Fatal(err)
	}
	c.Embedder, c.EmbedModel, c.EmbedDim, c.OpenAIBaseURL = EmbedderOpenAI, "m", 8, "http://127.0.0.1:1/v1"
	e, err := OpenEmbedder(c)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.(*openai.Embedder).BatchSize(); n != openai.DefaultBatchSize*3 {
		t.Errorf("BatchSize %d, want %d requests of %d texts", n, 3, openai.DefaultBatchSize)
	}

	c.EmbedConcurrency = -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--embed-concurrency (RAG_EMBED_CONCURRENCY) cannot be negative") {
		t.Errorf("negative: %v", err)
	}
	t.Setenv("RAG_EMBED_CONCURRENCY", "many")
	t.Setenv("RAG_EMBED_DIM", "x")
	c = Defaults()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `RAG_EMBED_CONCURRENCY="many" is not an integer`) || !strings.Contains(err.Error(), `RAG_EMBED_DIM="x"`) {
		t.Errorf("bad variables: %v", err)
	}
}
