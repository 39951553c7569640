package config

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// OpenBuiltin answers lookups on a seeded store. What the user must
// change, the configuration or the embedder, is a usage error, exit 2.
// What rag-seed repairs is not.
func TestOpenBuiltin(t *testing.T) {
	ctx := context.Background()
	tool := cmdutil.Tool{Unmarked: cmdutil.ExitFail}
	c := seeded(t)

	b, err := OpenBuiltin(ctx, c, "rag-eval", kb.FusionRRF)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Pipeline.Lookup(ctx, pipeline.Request{Query: "max_connections", KBScope: "rag-eval"})
	if err != nil {
		t.Errorf("lookup: %v", err)
	} else if len(res.EvidenceBlocks) == 0 || res.EvidenceBlocks[0].Source != "pool" {
		t.Errorf("lookup: blocks %+v, want pool first", res.EvidenceBlocks)
	}
	d := b.Pipeline.Describe()
	if d.Version != BuiltinVersion {
		t.Errorf("pipeline version %q, want %q", d.Version, BuiltinVersion)
	}
	if d.Store != StoreEmbedded {
		t.Errorf("pipeline store %q, want %q", d.Store, StoreEmbedded)
	}
	if len(b.Warnings) != 0 {
		t.Errorf("warnings for a calibrated embedder: %v", b.Warnings)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name    string
		edit    func(*Config)
		kbScope string
		code    cmdutil.ExitCode
		msg     string
	}{
		{"invalid", func(c *Config) { c.Store = "nosql" }, "rag-eval", cmdutil.ExitUsage, `--store must be embedded or server, got "nosql"`},
		{"another dimension", func(c *Config) { c.EmbedDim = 64 }, "rag-eval", cmdutil.ExitUsage, "seeded with embedder local-hash-v1 (dimension 512) but this run uses local-hash-v1 (dimension 64)"},
		{"another kbScope", func(*Config) {}, "other", cmdutil.ExitFail, "no chunks; run rag-seed first"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := c
			tt.edit(&c)
			_, err := OpenBuiltin(ctx, c, tt.kbScope, kb.FusionAnchored)
			if err == nil || tool.ExitCode(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v (exit %d), want exit %d and %q", err, tool.ExitCode(err), tt.code, tt.msg)
			}
		})
	}
}

// --store and --embedder take only their values, checked as they are
// parsed with the message Validate gives a value from the environment.
func TestEnumFlags(t *testing.T) {
	for _, tt := range []struct{ args, msg string }{
		{"--store nosql", `--store must be embedded or server, got "nosql"`},
		{"--embedder bert", `--embedder must be use, local or openai, got "bert"`},
	} {
		c := Defaults()
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		c.BindFlags(fs)
		err := fs.Parse(strings.Fields(tt.args))
		var ee *cmdutil.EnumError
		if !errors.As(err, &ee) || ee.Error() != tt.msg {
			t.Errorf("%s: %v, want %q", tt.args, err, tt.msg)
		}
		flag, value, _ := strings.Cut(strings.TrimPrefix(tt.args, "--"), " ")
		env := Config{Store: StoreEmbedded, Embedder: EmbedderLocal, MilvusCollection: "rag_eval", Timeout: 1}
		if flag == "store" {
			env.Store = value
		} else {
			env.Embedder = value
		}
		if err := env.Validate(); err == nil || err.Error() != tt.msg {
			t.Errorf("Validate: %v, want %q", err, tt.msg)
		}
	}
}
