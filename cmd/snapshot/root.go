package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/lookup"
	"github.com/ragbaseline/ragbaseline/internal/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/progress"
	"github.com/ragbaseline/ragbaseline/internal/report"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// defaultEvalDir is the eval set of SPEC §3, as in rag-eval.
const defaultEvalDir = "eval/rag-retrieval"

// Pipelines (--pipeline).
const (
	pipelineBuiltin = "builtin"
	pipelineHTTP    = "http"
)

// maxListedFailures is how many failed cases are listed one per line.
const maxListedFailures = 20

type snapshotOptions struct {
	Dir             string
	Cases           string
	Fixtures        string
	KBScope         string
	SearchMode      string
	Fusion          string
	Pipeline        string
	LookupURL       string
	SidecarURL      string
	SidecarFixtures string
	SkipEval        bool
	Partial         bool
	Concurrency     int
	Retries         int
	TopK            int
	Config          config.Config

	pipelineSet bool // --pipeline given
	Stdout      io.Writer
	Stderr      io.Writer
}

func newRootCmd(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	o := &snapshotOptions{Config: config.Defaults(), Stdout: stdout, Stderr: stderr}
	cmd := &cobra.Command{
		Use:   "rag-snapshot",
		Short: "Freeze the lookup pipeline's results for the golden cases as fixtures",
		Long: `rag-snapshot runs every golden case's query through the lookup pipeline and
writes one fixture per case, <fixtures>/<caseId>.json, and a manifest,
<fixtures>/_snapshot.json. Then it judges the fixtures offline and prints the
summary rag-eval prints (no report is written; --skip-eval skips it).

All or nothing: when a case fails (after retrying transient errors) the
fixture directory is left untouched and the failures are listed; --partial
moves the successes in. A fixture whose result did not change (apart from
retrievedAt and latencyMs) keeps its old file, and when nothing changed the
manifest is kept too: a rerun without retrieval changes leaves no git diff.
Fixtures of cases no longer in the golden file are removed.

With --sidecar-url the same cases also go to a second pipeline over HTTP,
into --sidecar-fixtures; when it is unreachable that directory only gets a
manifest with "status": "unavailable" and the reason.

Exit status: 0 written, 1 a case failed (nothing moved in unless --partial)
or the pipeline or store failed, 2 usage or input error. The judge's verdict
does not change it; rag-eval is the gate.`,
		Example: `  # after rag-seed: hybrid fixtures into eval/rag-retrieval/fixtures, then the judge
  rag-snapshot

  # the dense baseline, into eval/rag-retrieval/fixtures-dense
  rag-snapshot --search-mode dense

  # an external pipeline speaking POST /v1/lookup
  rag-snapshot --pipeline http --lookup-url http://127.0.0.1:9000 --fixtures /tmp/ext

  # current vs sidecar, then compare them offline
  rag-snapshot --sidecar-url http://127.0.0.1:8081
  rag-eval compare --left eval/rag-retrieval/fixtures --right eval/rag-retrieval/fixtures-sidecar

  # serve the builtin pipeline
  rag-snapshot serve --addr 127.0.0.1:8080`,
		Version:       version,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.pipelineSet = cmd.Flags().Changed("pipeline")
			return snapshotRun(ctx, o)
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.Usage(err) })
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", defaultEvalDir, "eval set directory; the default of every other path is inside it")
	f.StringVar(&o.Cases, "cases", "", "golden cases file (default <dir>/cases/golden-cases.json)")
	f.StringVar(&o.Fixtures, "fixtures", "", "fixture directory (default <dir>/fixtures, or <dir>/fixtures-dense with --search-mode dense)")
	f.StringVar(&o.KBScope, "kb-scope", "", "kbScope of every lookup (default: the golden file's kbScope, else rag-eval)")
	f.StringVar(&o.SearchMode, "search-mode", string(kb.Hybrid), "hybrid (dense + BM25, fused as --fusion says) or dense")
	f.StringVar(&o.Fusion, "fusion", string(kb.FusionAnchored), fusionUsage)
	f.StringVar(&o.Pipeline, "pipeline", pipelineBuiltin, "builtin (the store of --store) or http (--lookup-url)")
	f.StringVar(&o.LookupURL, "lookup-url", "", "base URL of a pipeline serving POST /v1/lookup, for --pipeline http")
	f.StringVar(&o.SidecarURL, "sidecar-url", "", "base URL of a sidecar pipeline that also runs every case")
	f.StringVar(&o.SidecarFixtures, "sidecar-fixtures", "", "sidecar fixture directory (default <dir>/fixtures-sidecar, or fixtures-sidecar-dense)")
	f.BoolVar(&o.SkipEval, "skip-eval", false, "do not judge the fixtures after the snapshot")
	f.BoolVar(&o.Partial, "partial", false, "move the successful cases in even when some failed")
	f.IntVar(&o.Concurrency, "concurrency", snapshot.DefaultConcurrency, "lookups in flight at once (per pipeline)")
	f.IntVar(&o.Retries, "retries", snapshot.DefaultRetries, "retries of a lookup that failed with a transient error (timeout, network, HTTP 502/503/504/429, gRPC Unavailable)")
	f.IntVar(&o.TopK, "top-k", 0, "evidence blocks per lookup (default: the pipeline's, 5)")
	o.Config.BindFlags(f)
	f.Lookup("timeout").Usage = "timeout of each lookup attempt, and of each call to a service"
	cmd.AddCommand(newServeCmd(ctx, stdout, stderr))
	return cmd
}

// defaults resolves the paths and checks the flags.
func (o *snapshotOptions) defaults() error {
	mode := kb.SearchMode(o.SearchMode)
	if mode != kb.Hybrid && mode != kb.Dense {
		return usagef("--search-mode must be %s or %s, got %q", kb.Hybrid, kb.Dense, o.SearchMode)
	}
	if err := kb.Fusion(o.Fusion).Valid(); err != nil {
		return usagef("--fusion: %w", err)
	}
	suffix := ""
	if mode == kb.Dense {
		suffix = "-dense"
	}
	def := func(p *string, rel string) {
		if *p == "" {
			*p = filepath.Join(o.Dir, rel)
		}
	}
	def(&o.Cases, "cases/golden-cases.json")
	def(&o.Fixtures, "fixtures"+suffix)
	switch {
	case o.LookupURL != "" && !o.pipelineSet:
		o.Pipeline = pipelineHTTP
	case o.Pipeline == pipelineHTTP && o.LookupURL == "":
		return usagef("--pipeline http needs --lookup-url")
	case o.Pipeline == pipelineBuiltin && o.LookupURL != "":
		return usagef("--lookup-url is for --pipeline http")
	case o.Pipeline != pipelineBuiltin && o.Pipeline != pipelineHTTP:
		return usagef("--pipeline must be %s or %s, got %q", pipelineBuiltin, pipelineHTTP, o.Pipeline)
	}
	if o.SidecarFixtures != "" && o.SidecarURL == "" {
		return usagef("--sidecar-fixtures needs --sidecar-url")
	}
	if o.SidecarURL != "" {
		def(&o.SidecarFixtures, "fixtures-sidecar"+suffix)
	}
	switch {
	case o.Concurrency < 1:
		return usagef("--concurrency must be at least 1, got %d", o.Concurrency)
	case o.Retries < 0:
		return usagef("--retries must not be negative, got %d", o.Retries)
	case o.TopK < 0 || o.TopK > lookup.MaxTopK:
		return usagef("--top-k must be between 1 and %d, got %d", lookup.MaxTopK, o.TopK)
	case o.Config.Timeout <= 0:
		return usagef("--timeout must be positive")
	}
	if o.KBScope != "" {
		if err := config.ValidKBScope(o.KBScope); err != nil {
			return cmdutil.Usage(err)
		}
	}
	for _, u := range []struct{ flag, url string }{{"--lookup-url", o.LookupURL}, {"--sidecar-url", o.SidecarURL}} {
		if u.url == "" {
			continue
		}
		if err := (&lookuphttp.Client{BaseURL: u.url}).Validate(); err != nil {
			return usagef("%s: %w", u.flag, err)
		}
	}
	return nil
}

func snapshotRun(ctx context.Context, o *snapshotOptions) error {
	if err := o.defaults(); err != nil {
		return err
	}
	casesData, err := os.ReadFile(o.Cases)
	if err != nil {
		return usagef("load golden cases: %w", err)
	}
	g, err := contract.ParseGolden(o.Cases, casesData)
	if err != nil {
		return usagef("load golden cases:\n%w", err)
	}
	kbScope := o.KBScope
	if kbScope == "" {
		kbScope = g.KBScope
	}
	if kbScope == "" {
		kbScope = "rag-eval"
	}

	var sidecar *lookuphttp.Client
	if o.SidecarURL != "" {
		sidecar = &lookuphttp.Client{BaseURL: o.SidecarURL, Timeout: o.Config.Timeout}
	}
	var l lookup.Lookuper
	switch o.Pipeline {
	case pipelineHTTP:
		l = &lookuphttp.Client{BaseURL: o.LookupURL, Timeout: o.Config.Timeout}
	case pipelineBuiltin:
		p, stack, err := openBuiltin(ctx, o.Config, kbScope, kb.Fusion(o.Fusion), o.Stderr)
		if err != nil {
			return err
		}
		defer stack.Close()
		l = p
	}

	bar := progress.New(o.Stderr, "snapshot")
	opts := snapshot.Options{
		Cases: g, CasesPath: o.Cases, FixturesDir: o.Fixtures, KBScope: kbScope,
		SearchMode: kb.SearchMode(o.SearchMode), TopK: o.TopK, Lookuper: l,
		Concurrency: o.Concurrency, Retries: o.Retries, Timeout: o.Config.Timeout, Partial: o.Partial,
		Progress: bar.Set,
	}
	if o.Retries == 0 {
		opts.Retries = -1 // snapshot: 0 means the default
	}
	if sidecar != nil {
		opts.Sidecar, opts.SidecarDir = sidecar, o.SidecarFixtures
	}
	start := time.Now()
	sum, err := snapshot.Run(ctx, opts)
	bar.Done()
	if sum != nil {
		for _, w := range sum.Warnings {
			fmt.Fprintf(o.Stderr, "rag-snapshot: warning: %v\n", w)
		}
	}
	var fe *snapshot.FailedError
	if errors.As(err, &fe) {
		listFailures(o.Stderr, fe.Failures)
	}
	if sum != nil {
		printSummary(o.Stdout, sum, time.Since(start))
	}
	if err != nil {
		return err
	}
	if o.SkipEval {
		return nil
	}
	if err := evaluate(o, g, casesData, o.Fixtures, ""); err != nil {
		return err
	}
	if sum.Sidecar != nil && sum.Sidecar.Status == contract.StatusAvailable {
		return evaluate(o, g, casesData, o.SidecarFixtures, "sidecar ")
	}
	return nil
}

func listFailures(w io.Writer, failures []contract.CaseError) {
	for i, f := range failures {
		if i == maxListedFailures {
			fmt.Fprintf(w, "rag-snapshot: … and %d more failed cases\n", len(failures)-i)
			break
		}
		fmt.Fprintf(w, "rag-snapshot: failed: %s: %s\n", f.CaseID, f.Error)
	}
}

func printSummary(w io.Writer, sum *snapshot.Summary, elapsed time.Duration) {
	fmt.Fprintf(w, "rag-snapshot: %d written (%d changed, %d unchanged), %d failed, %d removed in %.2fs\n",
		sum.Written, sum.Changed, sum.Unchanged, sum.Failed, sum.Removed, elapsed.Seconds())
	if s := sum.Sidecar; s != nil {
		if s.Status == contract.StatusUnavailable {
			fmt.Fprintf(w, "rag-snapshot: sidecar unavailable (%s): %s\n", s.Dir, s.Reason)
		} else {
			fmt.Fprintf(w, "rag-snapshot: sidecar: %d written (%d changed, %d unchanged), %d failed, %d removed\n",
				s.Written, s.Changed, s.Unchanged, s.Failed, s.Removed)
		}
	}
}

// evaluate judges dir and prints rag-eval's text summary; it writes no
// report.
func evaluate(o *snapshotOptions, g *contract.GoldenFile, casesData []byte, dir, label string) error {
	res, err := judge.Run(g, dir, judge.Options{})
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(o.Stderr, "rag-snapshot: warning: %v\n", w)
	}
	sum := sha256.Sum256(casesData)
	rep := report.Build(res, o.Cases, hex.EncodeToString(sum[:]))
	fmt.Fprintf(o.Stdout, "%sjudge of %s:\n", label, dir)
	return rep.WriteText(o.Stdout, colour(o.Stdout))
}

// colour reports whether w is a terminal and NO_COLOR is unset.
func colour(w io.Writer) bool {
	return os.Getenv("NO_COLOR") == "" && progress.IsTerminal(w)
}

// fusionUsage documents --fusion.
const fusionUsage = "how hybrid search fuses the dense and BM25 lists: anchored (RRF, but BM25 counts only inside the dense top 10 and the dense top 1 stays in the top 3) or rrf (plain reciprocal rank fusion, k = 60)"

// builtinVersion is the version written into the fixtures' pipeline.version
// for the builtin pipeline. It is not the binary's version, which changes
// with every commit and would rewrite every fixture; it names the pipeline's
// behaviour.
const builtinVersion = "1"

// openBuiltin opens the stack of cfg for reading and the builtin pipeline
// over it. Nothing is created: a store that cannot answer lookups of
// kbScope with cfg's embedder (not seeded, a seed that did not finish, an
// index that disagrees with the catalog) is an error naming rag-seed
// (config.OpenForLookup). Hybrid search fuses as fusion says. The caller
// closes the stack.
func openBuiltin(ctx context.Context, cfg config.Config, kbScope string, fusion kb.Fusion, stderr io.Writer) (*lookup.Pipeline, *config.Stack, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, cmdutil.Usage(err)
	}
	stack, err := config.OpenForLookup(ctx, cfg, kbScope)
	var mismatch *config.EmbedderMismatchError
	switch {
	case errors.As(err, &mismatch):
		return nil, nil, cmdutil.Usage(err)
	case err != nil:
		return nil, nil, err
	}
	if t, ok := lookup.ThresholdsFor(stack.Embedder.Name()); !ok {
		fmt.Fprintf(stderr, "rag-snapshot: warning: embedder %s is not calibrated: using lowQuality %g, minQuality %g, levels high %g / medium %g; run rag-eval calibrate on your fixtures to see where its scores fall\n",
			stack.Embedder.Name(), t.LowQuality, t.MinQuality, t.Levels.High, t.Levels.Medium)
	}
	lc := lookup.DefaultConfig(stack.Embedder.Name())
	lc.Fusion = fusion
	p := lookup.New(stack.Catalog, stack.Index, stack.Embedder, lc,
		contract.Pipeline{Version: builtinVersion, Store: cfg.Store})
	return p, stack, nil
}
