package main

import (
	"context"
	"io"
	"strings"
	"testing"

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
	if o.Dir != cmdutil.DefaultEvalDir || o.Cases != "" || o.Fixtures != "" || o.SearchMode != "hybrid" || o.Fusion != "anchored" ||
		o.Pipeline != pipelineBuiltin || o.pipelineSet || o.Concurrency != snapshot.DefaultConcurrency || o.Retries != snapshot.DefaultRetries ||
		o.TopK != 0 || o.SkipEval || o.Partial || o.Config.Store != "embedded" {
		t.Errorf("defaults %+v", o)
	}
	o, err = parse(t, newCmdSnapshot, strings.Fields("--dir d --cases c --fixtures f --kb-scope k --search-mode dense --fusion rrf --lookup-url http://x --sidecar-url http://y --sidecar-fixtures s --skip-eval --partial --concurrency 3 --retries 0 --top-k 7 --store server --embedder local")...)
	if err != nil {
		t.Fatal(err)
	}
	if o.Dir != "d" || o.Cases != "c" || o.Fixtures != "f" || o.KBScope != "k" || o.SearchMode != "dense" || o.Fusion != "rrf" ||
		o.LookupURL != "http://x" || o.Pipeline != pipelineBuiltin || o.pipelineSet || o.SidecarURL != "http://y" || o.SidecarFixtures != "s" ||
		!o.SkipEval || !o.Partial || o.Concurrency != 3 || o.Retries != 0 || o.TopK != 7 || o.Config.Store != "server" || o.Config.Embedder != "local" {
		t.Errorf("options %+v", o)
	}
	if o, _ := parse(t, newCmdSnapshot, "--pipeline", "http"); o.Pipeline != pipelineHTTP || !o.pipelineSet {
		t.Errorf("--pipeline http: %q, set %v", o.Pipeline, o.pipelineSet)
	}
	// What an http pipeline declares of itself; "none" and "" declare no
	// capability, which is not the same as not declaring (nil).
	if o.PipelineCaps.caps != nil || o.PipelineSearchMode != "" {
		t.Errorf("declared by default: %+v %q", o.PipelineCaps, o.PipelineSearchMode)
	}
	for arg, want := range map[string]string{"rerank, trace": "trace,rerank", "none": "none", "": "none"} {
		o, err := parse(t, newCmdSnapshot, "--pipeline-search-mode", "bm25", "--pipeline-capabilities", arg)
		if err != nil || o.PipelineSearchMode != "bm25" || o.PipelineCaps.caps == nil || o.PipelineCaps.String() != want {
			t.Errorf("--pipeline-capabilities %q: %v, %q", arg, err, o.PipelineCaps.String())
		}
	}
	// --pipeline-config alone means --pipeline mapped.
	if o, _ := parse(t, newCmdSnapshot, "--pipeline-config", "p.yaml"); o.PipelineConfig != "p.yaml" || o.defaults() != nil || o.Pipeline != pipelineMapped {
		t.Errorf("--pipeline-config: %+v", o)
	}
	// An empty --fusion is RRF, as before the flag was checked at parse time.
	if o, err := parse(t, newCmdSnapshot, "--fusion="); err != nil || o.Fusion != "" {
		t.Errorf("--fusion=: %v, %+v", err, o)
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
	if o.Addr != "127.0.0.1:8080" || o.KBScope != "rag-eval" || o.MaxBodyBytes != lookuphttp.DefaultMaxBodyBytes || o.Fusion != "anchored" {
		t.Errorf("defaults %+v", o)
	}
	o, err = parse(t, newCmdServe, strings.Fields("--addr :0 --kb-scope k --max-body-bytes 9 --fusion rrf --timeout 2s")...)
	if err != nil {
		t.Fatal(err)
	}
	if o.Addr != ":0" || o.KBScope != "k" || o.MaxBodyBytes != 9 || o.Fusion != "rrf" || o.Config.Timeout.Seconds() != 2 {
		t.Errorf("options %+v", o)
	}
}

// Enum flags are refused as they are parsed, before anything runs, with
// the messages they had when the run checked them.
func TestParseErrors(t *testing.T) {
	snap := func(a string) (*snapshotOptions, error) { return parse(t, newCmdSnapshot, strings.Fields(a)...) }
	serve := func(a string) (*serveOptions, error) { return parse(t, newCmdServe, strings.Fields(a)...) }
	check := func(ran bool, err error, want string) {
		t.Helper()
		if ran || err == nil || err.Error() != want || tool.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("ran %v, error %v (exit %d), want %q (exit 2)", ran, err, tool.ExitCode(err), want)
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
		if code != 0 || stdout.String() != want {
			t.Errorf("%s: exit %d, %q, want %q", args, code, stdout.String(), want)
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
	if len(o.LookupHeaders) != 2 || o.LookupHeaders[1] != "Accept-Language: de, en;q=0.5" || len(o.SidecarHeaders) != 1 {
		t.Fatalf("headers %q %q", o.LookupHeaders, o.SidecarHeaders)
	}
	o.lookupEnv = func(k string) (string, bool) { return "t0ken-1234", k == "T" }
	if err := o.defaults(); err != nil {
		t.Fatal(err)
	}
	if o.Pipeline != pipelineHTTP || o.lookupHeader.Get("Authorization") != "Bearer t0ken-1234" ||
		o.lookupHeader.Get("Accept-Language") != "de, en;q=0.5" || o.sidecarHeader.Get("X-Key") != "literal" {
		t.Errorf("expanded %v, sidecar %v", o.lookupHeader, o.sidecarHeader)
	}
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
		if err == nil || err.Error() != tc.want || tool.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%q: %v (exit %d), want %q (exit 2)", tc.args, err, tool.ExitCode(err), tc.want)
		}
	}
}
