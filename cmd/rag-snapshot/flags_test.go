package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/testkit/eq"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// parse builds a command with newCmd and a runF that keeps the options,
// executes it with args, and returns the options runF got (nil when it
// was not called) and the error: flag parsing apart from behaviour.
func parse[O any](t *testing.T, newCmd func(*cmdutil.Streams, func(context.Context, *O) error) *cobra.Command, args ...string) (*O, error) {
	t.Helper()
	var got *O
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	cmd := newCmd(f, func(_ context.Context, o *O) error { got = o; return nil })
	cmdutil.Setup(cmd, f)
	cmd.SetArgs(args)
	return got, cmd.Execute()
}

func TestNewCmdSnapshot(t *testing.T) {
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
	o, err := parse(t, newCmdSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	const defaults = "no flags"
	eq.Field(t, defaults, "Dir", o.Dir, cmdutil.DefaultEvalDir)
	eq.Field(t, defaults, "Cases", o.Cases, "")
	eq.Field(t, defaults, "Fixtures", o.Fixtures, "")
	eq.Field(t, defaults, "SearchMode", o.SearchMode, "hybrid")
	eq.Field(t, defaults, "Fusion", o.Fusion, "anchored")
	eq.Field(t, defaults, "Pipeline", o.Pipeline, pipelineBuiltin)
	eq.Field(t, defaults, "pipelineSet", o.pipelineSet, false)
	eq.Field(t, defaults, "Concurrency", o.Concurrency, snapshot.DefaultConcurrency)
	eq.Field(t, defaults, "Retries", o.Retries, snapshot.DefaultRetries)
	eq.Field(t, defaults, "TopK", o.TopK, 0)
	eq.Field(t, defaults, "SkipEval", o.SkipEval, false)
	eq.Field(t, defaults, "Partial", o.Partial, false)
	eq.Field(t, defaults, "Config.Store", o.Config.Store, "embedded")
	o, err = parse(t, newCmdSnapshot, strings.Fields("--dir d --cases c --fixtures f --kb-scope k --search-mode dense --fusion rrf --lookup-url http://x --sidecar-url http://y --sidecar-fixtures s --skip-eval --partial --concurrency 3 --retries 0 --top-k 7 --store server --embedder local")...)
	if err != nil {
		t.Fatal(err)
	}
	const given = "every flag"
	eq.Field(t, given, "Dir", o.Dir, "d")
	eq.Field(t, given, "Cases", o.Cases, "c")
	eq.Field(t, given, "Fixtures", o.Fixtures, "f")
	eq.Field(t, given, "KBScope", o.KBScope, "k")
	eq.Field(t, given, "SearchMode", o.SearchMode, "dense")
	eq.Field(t, given, "Fusion", o.Fusion, "rrf")
	eq.Field(t, given, "LookupURL", o.LookupURL, "http://x")
	eq.Field(t, given, "Pipeline", o.Pipeline, pipelineBuiltin)
	eq.Field(t, given, "pipelineSet", o.pipelineSet, false)
	eq.Field(t, given, "SidecarURL", o.SidecarURL, "http://y")
	eq.Field(t, given, "SidecarFixtures", o.SidecarFixtures, "s")
	eq.Field(t, given, "SkipEval", o.SkipEval, true)
	eq.Field(t, given, "Partial", o.Partial, true)
	eq.Field(t, given, "Concurrency", o.Concurrency, 3)
	eq.Field(t, given, "Retries", o.Retries, 0)
	eq.Field(t, given, "TopK", o.TopK, 7)
	eq.Field(t, given, "Config.Store", o.Config.Store, "server")
	eq.Field(t, given, "Config.Embedder", o.Config.Embedder, "local")
	if o, err := parse(t, newCmdSnapshot, "--pipeline", "http"); err != nil {
		t.Errorf("--pipeline http: %v", err)
	} else {
		eq.Field(t, "--pipeline http", "Pipeline", o.Pipeline, pipelineHTTP)
		eq.Field(t, "--pipeline http", "pipelineSet", o.pipelineSet, true)
	}
	// What an http pipeline declares of itself. "none" and "" declare no
	// capability, which is not the same as not declaring (nil).
	if o.PipelineCaps.caps != nil {
		t.Errorf("capabilities declared by default: %q", o.PipelineCaps.caps)
	}
	eq.Field(t, "no --pipeline-search-mode", "PipelineSearchMode", o.PipelineSearchMode, "")
	for arg, want := range map[string]string{"rerank, trace": "trace,rerank", "none": "none", "": "none"} {
		what := "--pipeline-capabilities " + arg
		o, err := parse(t, newCmdSnapshot, "--pipeline-search-mode", "bm25", "--pipeline-capabilities", arg)
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		eq.Field(t, what, "PipelineSearchMode", o.PipelineSearchMode, "bm25")
		if o.PipelineCaps.caps == nil {
			t.Errorf("%s: no capabilities declared", what)
		}
		eq.Field(t, what, "PipelineCaps", o.PipelineCaps.String(), want)
	}
	// --pipeline-config alone means --pipeline mapped.
	if o, err := parse(t, newCmdSnapshot, "--pipeline-config", "p.yaml"); err != nil {
		t.Errorf("--pipeline-config: %v", err)
	} else {
		eq.Field(t, "--pipeline-config", "PipelineConfig", o.PipelineConfig, "p.yaml")
		if err := o.defaults(); err != nil {
			t.Errorf("--pipeline-config: %v", err)
		}
		eq.Field(t, "--pipeline-config", "Pipeline", o.Pipeline, pipelineMapped)
	}
	// An empty --fusion is RRF, as before the flag was checked at parse time.
	if o, err := parse(t, newCmdSnapshot, "--fusion="); err != nil {
		t.Errorf("--fusion=: %v", err)
	} else {
		eq.Field(t, "--fusion=", "Fusion", o.Fusion, "")
	}
}

func TestNewCmdServe(t *testing.T) {
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
	o, err := parse(t, newCmdServe)
	if err != nil {
		t.Fatal(err)
	}
	const defaults = "no flags"
	eq.Field(t, defaults, "Addr", o.Addr, "127.0.0.1:8080")
	eq.Field(t, defaults, "KBScope", o.KBScope, "rag-eval")
	eq.Field(t, defaults, "MaxBodyBytes", o.MaxBodyBytes, lookuphttp.DefaultMaxBodyBytes)
	eq.Field(t, defaults, "Fusion", o.Fusion, "anchored")
	o, err = parse(t, newCmdServe, strings.Fields("--addr :0 --kb-scope k --max-body-bytes 9 --fusion rrf --timeout 2s")...)
	if err != nil {
		t.Fatal(err)
	}
	const given = "every flag"
	eq.Field(t, given, "Addr", o.Addr, ":0")
	eq.Field(t, given, "KBScope", o.KBScope, "k")
	eq.Field(t, given, "MaxBodyBytes", o.MaxBodyBytes, 9)
	eq.Field(t, given, "Fusion", o.Fusion, "rrf")
	eq.Field(t, given, "Config.Timeout", o.Config.Timeout, 2*time.Second)
}

// Enum flags are refused as they are parsed, before anything runs, with
// the messages they had when the run checked them.
func TestParseErrors(t *testing.T) {
	snap := func(a string) (*snapshotOptions, error) { return parse(t, newCmdSnapshot, strings.Fields(a)...) }
	serve := func(a string) (*serveOptions, error) { return parse(t, newCmdServe, strings.Fields(a)...) }
	check := func(ran bool, err error, want string) {
		t.Helper()
		if ran {
			t.Errorf("%s: ran", want)
		}
		if err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
		if code := tool.ExitCode(err); code != cmdutil.ExitUsage {
			t.Errorf("%s: exit %d, want %d", want, code, cmdutil.ExitUsage)
		}
	}
	o, err := snap("--search-mode sparse")
	check(o != nil, err, `--search-mode must be hybrid or dense, got "sparse"`)
	o, err = snap("--pipeline grpc")
	check(o != nil, err, `--pipeline must be builtin, http or mapped, got "grpc"`)
	o, err = snap("--fusion max")
	check(o != nil, err, `--fusion: unknown fusion "max" (want "rrf" or "anchored")`)
	o, err = snap("--store nosql")
	check(o != nil, err, `--store must be embedded or server, got "nosql"`)
	o, err = snap("--pipeline-search-mode vector")
	check(o != nil, err, `--pipeline-search-mode must be hybrid, dense, bm25 or other, got "vector"`)
	o, err = snap("--pipeline-capabilities trace,reranking")
	check(o != nil, err, `invalid argument "trace,reranking" for "--pipeline-capabilities" flag: unknown capability "reranking" (known: evidenceStatus, qualityScore, breadcrumb, contextPack, trace, fallback, rerank, or none)`)
	s, err := serve("--fusion max")
	check(s != nil, err, `--fusion: unknown fusion "max" (want "rrf" or "anchored")`)
	s, err = serve("--embedder bert")
	check(s != nil, err, `--embedder must be use, local or openai, got "bert"`)
}

// The shell completes the values of the enum flags.
func TestCompletion(t *testing.T) {
	for args, want := range map[string]string{
		"__complete --search-mode ":    "hybrid\ndense\n:4\n",
		"__complete --pipeline ":       "builtin\nhttp\nmapped\n:4\n",
		"__complete --fusion ":         "rrf\nanchored\n:4\n",
		"__complete --store ":          "embedded\nserver\n:4\n",
		"__complete --embedder ":       "use\nlocal\nopenai\n:4\n",
		"__complete serve --fusion ":   "rrf\nanchored\n:4\n",
		"__complete serve --embedder ": "use\nlocal\nopenai\n:4\n",
	} {
		var stdout strings.Builder
		code := run(context.Background(), append(strings.Fields(args), ""), &stdout, io.Discard)
		if code != cmdutil.ExitOK {
			t.Errorf("%s: exit %d, want 0", args, code)
		}
		if stdout.String() != want {
			t.Errorf("%s: stdout %q, want %q", args, stdout.String(), want)
		}
	}
}

// --lookup-header and --sidecar-header repeat, keep commas, and are
// expanded by defaults from the environment, each value read kept secret.
func TestHeaderFlags(t *testing.T) {
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
	o, err := parse(t, newCmdSnapshot, "--lookup-url", "http://x", "--lookup-header", "Authorization: Bearer ${T}",
		"--lookup-header", "Accept-Language: de, en;q=0.5", "--sidecar-url", "http://y", "--sidecar-header", "X-Key: ${K:-literal}")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Authorization: Bearer ${T}", "Accept-Language: de, en;q=0.5"}; !slices.Equal(o.LookupHeaders, want) {
		t.Fatalf("LookupHeaders %q, want %q", o.LookupHeaders, want)
	}
	if want := []string{"X-Key: ${K:-literal}"}; !slices.Equal(o.SidecarHeaders, want) {
		t.Fatalf("SidecarHeaders %q, want %q", o.SidecarHeaders, want)
	}
	o.lookupEnv = func(k string) (string, bool) { return "t0ken-1234", k == "T" }
	if err := o.defaults(); err != nil {
		t.Fatal(err)
	}
	eq.Field(t, "--lookup-url", "Pipeline", o.Pipeline, pipelineHTTP)
	eq.Field(t, "--lookup-header", "Authorization", o.lookupHeader.Get("Authorization"), "Bearer t0ken-1234")
	eq.Field(t, "--lookup-header", "Accept-Language", o.lookupHeader.Get("Accept-Language"), "de, en;q=0.5")
	eq.Field(t, "--sidecar-header", "X-Key", o.sidecarHeader.Get("X-Key"), "literal")
	if got := o.secrets.Scrub("echo Bearer t0ken-1234"); got != "echo Bearer ${T}" {
		t.Errorf("secrets: %s", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--lookup-header", "A: 1"}, "--lookup-header needs --lookup-url (--pipeline http; a mapped pipeline's headers are in its config)"},
		{[]string{"--pipeline-config", "p.yaml", "--lookup-header", "A: 1"}, "--lookup-header needs --lookup-url (--pipeline http; a mapped pipeline's headers are in its config)"},
		{[]string{"--sidecar-header", "A: 1"}, "--sidecar-header needs --sidecar-url"},
		{[]string{"--lookup-url", "http://x", "--lookup-header", "A: ${NOPE}"}, "--lookup-header: A: environment variable NOPE is not set"},
		{[]string{"--sidecar-url", "http://x", "--sidecar-header", "A"}, `--sidecar-header: want "Name: value", got an entry without a colon`},
	} {
		o, err := parse(t, newCmdSnapshot, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		o.lookupEnv = func(string) (string, bool) { return "", false }
		err = o.defaults()
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
		if code := tool.ExitCode(err); code != cmdutil.ExitUsage {
			t.Errorf("%q: exit %d, want %d", tc.args, code, cmdutil.ExitUsage)
		}
	}
}
