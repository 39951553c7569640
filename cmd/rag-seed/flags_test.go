package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/testkit/eq"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
)

// parse executes rag-seed's command with args and a runF that keeps the
// options: flag parsing apart from seeding.
func parse(t *testing.T, args ...string) (*seedOptions, error) {
	t.Helper()
	var got *seedOptions
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	cmd := newCmdSeed(f, func(_ context.Context, o *seedOptions) error { got = o; return nil })
	cmdutil.Setup(cmd, f)
	cmd.SetArgs(args)
	return got, cmd.Execute()
}

func TestNewCmdSeed(t *testing.T) {
	for _, k := range []string{"RAG_STORE", "RAG_EMBEDDER", "RAG_DATA_DIR"} {
		t.Setenv(k, "")
	}
	o, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	// No eval set in this directory: the documents of the default one,
	// the default kb scope.
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	const defaults = "no flags"
	eq.Field(t, defaults, "Dir", o.Dir, "eval/rag-retrieval")
	eq.Field(t, defaults, "Cases", o.Cases, "eval/rag-retrieval/cases/golden-cases.json")
	eq.Field(t, defaults, "Docs", o.Docs, "eval/rag-retrieval/seed-docs")
	eq.Field(t, defaults, "KBScope", o.KBScope, "rag-eval")
	eq.Field(t, defaults, "Recreate", o.Recreate, false)
	eq.Field(t, defaults, "Prune", o.Prune, false)
	eq.Field(t, defaults, "DryRun", o.DryRun, false)
	eq.Field(t, defaults, "Chunk", o.Chunk, corpus.ChunkOptions{MaxChars: corpus.DefaultMaxChars, Overlap: corpus.DefaultOverlap})
	eq.Field(t, defaults, "LockWait", o.LockWait, 10*time.Minute)
	eq.Field(t, defaults, "Config.Store", o.Config.Store, config.StoreEmbedded)
	eq.Field(t, defaults, "Config.Embedder", o.Config.Embedder, config.EmbedderUSE)
	eq.Field(t, defaults, "Config.DataDir", o.Config.DataDir, ".ragbaseline")

	o, err = parse(t, strings.Fields("--dir nowhere --docs d --kb-scope s --recreate --prune --dry-run --chunk-size 100 --chunk-overlap 10 --lock-wait 1s --store server --embedder local --data-dir x")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.resolve(); err != nil { // --kb-scope: no golden file is read
		t.Fatal(err)
	}
	const given = "every flag"
	eq.Field(t, given, "Docs", o.Docs, "d")
	eq.Field(t, given, "KBScope", o.KBScope, "s")
	eq.Field(t, given, "scopeFrom", o.scopeFrom, "--kb-scope")
	eq.Field(t, given, "Recreate", o.Recreate, true)
	eq.Field(t, given, "Prune", o.Prune, true)
	eq.Field(t, given, "DryRun", o.DryRun, true)
	eq.Field(t, given, "Chunk", o.Chunk, corpus.ChunkOptions{MaxChars: 100, Overlap: 10})
	eq.Field(t, given, "LockWait", o.LockWait, time.Second)
	eq.Field(t, given, "Config.Store", o.Config.Store, config.StoreServer)
	eq.Field(t, given, "Config.Embedder", o.Config.Embedder, config.EmbedderLocal)
	eq.Field(t, given, "Config.DataDir", o.Config.DataDir, "x")

	// The environment gives the defaults, and a flag wins.
	t.Setenv("RAG_STORE", "server")
	if o, _ := parse(t); o.Config.Store != config.StoreServer {
		t.Errorf("RAG_STORE=server: store %q", o.Config.Store)
	}
	if o, _ := parse(t, "--store", "embedded"); o.Config.Store != config.StoreEmbedded {
		t.Errorf("--store embedded over RAG_STORE: store %q", o.Config.Store)
	}
}

// Enum flags are refused as they are parsed, before anything runs.
func TestParseErrors(t *testing.T) {
	for args, want := range map[string]string{
		"--store nowhere":           `--store must be embedded or server, got "nowhere"`,
		"--embedder bert":           `--embedder must be use, local or openai, got "bert"`,
		"extra":                     `unknown command "extra" for "rag-seed"`,
		"--chunk-size big":          `invalid argument "big" for "--chunk-size" flag: strconv.ParseInt: parsing "big": invalid syntax`,
		"--lock-wait 1 --store bad": `invalid argument "1" for "--lock-wait" flag: time: missing unit in duration "1"`,
	} {
		o, err := parse(t, strings.Fields(args)...)
		if o != nil {
			t.Errorf("%s: ran", args)
		}
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", args, err, want)
		}
	}
}

// TestResolveFromEvalSet: --dir gives --docs and, through its golden file,
// --kb-scope. A golden file the flags name must exist.
func TestResolveFromEvalSet(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cases"), 0o755); err != nil {
		t.Fatal(err)
	}
	golden := `{"version": 1, "kbScope": "team-a", "cases": [{"caseId": "a", "query": "q", "scenario": "chat", "expectedSources": ["a"]}]}`
	if err := os.WriteFile(filepath.Join(dir, "cases", "golden-cases.json"), []byte(golden), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parse(t, "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.resolve(); err != nil {
		t.Fatal(err)
	}
	cases := filepath.Join(dir, "cases", "golden-cases.json")
	eq.Field(t, "--dir", "Docs", o.Docs, filepath.Join(dir, "seed-docs"))
	eq.Field(t, "--dir", "KBScope", o.KBScope, "team-a")
	eq.Field(t, "--dir", "scopeFrom", o.scopeFrom, "the kbScope of "+cases)
	for _, args := range [][]string{{"--dir", t.TempDir()}, {"--cases", filepath.Join(dir, "none.json")}} {
		o, err := parse(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		err = o.resolve()
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%q: %v, want an error about a missing file", args, err)
		}
		if code := tool.ExitCode(err); code != cmdutil.ExitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, cmdutil.ExitUsage)
		}
	}
}
