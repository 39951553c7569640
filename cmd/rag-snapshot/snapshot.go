package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/mapped"
	"github.com/ragbaseline/ragbaseline/internal/report"
	"github.com/ragbaseline/ragbaseline/internal/secret"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// The pipelines of --pipeline.
const (
	pipelineBuiltin = "builtin"
	pipelineHTTP    = "http"
	pipelineMapped  = "mapped"
)

// The values of --pipeline and --search-mode.
var (
	pipelines   = []string{pipelineBuiltin, pipelineHTTP, pipelineMapped}
	searchModes = []string{string(kb.Hybrid), string(kb.Dense)}
)

// maxListedFailures is how many failed cases are listed one per line.
const maxListedFailures = 20

type snapshotOptions struct {
	IO *cmdutil.Streams
	cmdutil.EvalSet
	Fixtures        string
	KBScope         string
	SearchMode      string
	Fusion          string
	Pipeline        string
	LookupURL       string
	PipelineConfig  string
	SidecarURL      string
	SidecarFixtures string
	SkipEval        bool
	Partial         bool
	Concurrency     int
	Retries         int
	TopK            int
	Config          config.Config
	// PipelineSearchMode and PipelineCaps are what an http pipeline
	// declares of itself: --pipeline-search-mode and
	// --pipeline-capabilities.
	PipelineSearchMode string
	PipelineCaps       capabilitiesValue
	// LookupHeaders and SidecarHeaders are --lookup-header and
	// --sidecar-header as given: "Name: value", with ${ENV} not yet
	// expanded. defaults parses them into lookupHeader and sidecarHeader,
	// and the values read from the environment into secrets.
	LookupHeaders  []string
	SidecarHeaders []string

	pipelineSet   bool                        // --pipeline given
	lookupEnv     func(string) (string, bool) // os.LookupEnv, or the tests' environment
	lookupHeader  http.Header                 // --lookup-header, expanded
	sidecarHeader http.Header                 // --sidecar-header, expanded
	secrets       secret.Set                  // the values the headers read
}

// capabilitiesValue is --pipeline-capabilities: a comma-separated list of
// contract.Capabilities, checked as it is parsed. caps is nil when the
// flag is not given. Then the server's declaration holds, else every
// capability.
type capabilitiesValue struct{ caps []string }

func (v *capabilitiesValue) String() string {
	if v.caps == nil {
		return ""
	}
	if len(v.caps) == 0 {
		return "none"
	}
	return strings.Join(v.caps, ",")
}

func (v *capabilitiesValue) Set(s string) error {
	caps, err := contract.ParseCapabilities(s)
	if err != nil {
		return err
	}
	v.caps = caps
	return nil
}

func (v *capabilitiesValue) Type() string { return "list" }

// newCmdSnapshot builds rag-snapshot's snapshot: it parses the flags into
// snapshotOptions and calls runF, or snapshotRun when runF is nil.
func newCmdSnapshot(f *cmdutil.Streams, runF func(context.Context, *snapshotOptions) error) *cobra.Command {
	o := &snapshotOptions{IO: f, Config: config.Defaults()}
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

--pipeline mapped --pipeline-config FILE runs the lookups through any HTTP
retrieval API (Weaviate, OpenSearch, Chroma, your own service) that the
config file describes: URL, method, headers with ${ENV} references (for
tokens; their values are never written to fixtures, the manifest or
messages), a jq program building the request body (with the query
embedding from --embedder when the config says embedQuery), a jq program
mapping the response to evidence blocks, and how scores become
qualityScore. No adapter service is needed. deploy/mapped has configs for
Weaviate, OpenSearch and Chroma; docs/mapped-pipeline.md explains every
field.

With --sidecar-url the same cases also go to a second pipeline over HTTP,
into --sidecar-fixtures; when it is unreachable that directory only gets a
manifest with "status": "unavailable" and the reason.

--lookup-header 'Name: value' (for --lookup-url) and --sidecar-header (for
--sidecar-url), repeatable, send a header on every request to that service,
/healthz included. ${NAME} and ${NAME:-default} in a value are read from the
environment at start (single-quote the flag, so the shell leaves them to
rag-snapshot); an unset variable is a usage error. The values read are sent
and written nowhere: fixtures and the manifest record the URL without
credentials, and messages have each value replaced by ${NAME}, even when
the service echoes it back.

Exit status: 0 written, 1 a case failed (nothing moved in unless --partial)
or the pipeline or store failed, 2 usage or input error. The judge's verdict
does not change it; rag-eval is the gate.`,
		Example: `  # after rag-seed: hybrid fixtures into eval/rag-retrieval/fixtures, then the judge
  rag-snapshot

  # the dense baseline, into eval/rag-retrieval/fixtures-dense
  rag-snapshot --search-mode dense

  # an external pipeline speaking POST /v1/lookup
  rag-snapshot --pipeline http --lookup-url http://127.0.0.1:9000 --fixtures /tmp/ext

  # the same behind a token: rag-snapshot, not the shell, reads SVC_TOKEN
  rag-snapshot --lookup-url https://search.example --lookup-header 'Authorization: Bearer ${SVC_TOKEN}' --fixtures /tmp/ext

  # Chroma through its own API (CHROMA_URL=http://127.0.0.1:8000), no adapter
  rag-snapshot --pipeline mapped --pipeline-config deploy/mapped/chroma.yaml --fixtures /tmp/chroma

  # current vs sidecar, then compare them offline
  rag-snapshot --sidecar-url http://127.0.0.1:8081
  rag-eval compare --left eval/rag-retrieval/fixtures --right eval/rag-retrieval/fixtures-sidecar

  # serve the builtin pipeline
  rag-snapshot serve --addr 127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.pipelineSet = cmd.Flags().Changed("pipeline")
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return snapshotRun(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	o.AddFlags(fs, "")
	fs.StringVar(&o.Fixtures, "fixtures", "", "fixture directory (default <dir>/fixtures, or <dir>/fixtures-dense with --search-mode dense)")
	fs.StringVar(&o.KBScope, "kb-scope", "", "kbScope of every lookup (default: the golden file's kbScope, else rag-eval)")
	cmdutil.StringEnumVar(fs, &o.SearchMode, "search-mode", string(kb.Hybrid), searchModes, nil, "hybrid (dense + BM25, fused as --fusion says) or dense")
	fusionVar(fs, &o.Fusion)
	cmdutil.StringEnumVar(fs, &o.Pipeline, "pipeline", pipelineBuiltin, pipelines, nil, "builtin (the store of --store), http (--lookup-url) or mapped (any HTTP retrieval API, --pipeline-config)")
	fs.StringVar(&o.LookupURL, "lookup-url", "", "base URL of a pipeline serving POST /v1/lookup, for --pipeline http")
	fs.StringVar(&o.PipelineConfig, "pipeline-config", "", "config file (YAML or JSON) describing an HTTP retrieval API, for --pipeline mapped (docs/mapped-pipeline.md; deploy/mapped has Weaviate, OpenSearch and Chroma)")
	cmdutil.StringEnumVar(fs, &o.PipelineSearchMode, "pipeline-search-mode", "", contract.PipelineSearchModes, nil,
		"the search the http pipeline runs, as you declare it: hybrid, dense, bm25 or other (default: what its /healthz says; reports show it)")
	fs.Var(&o.PipelineCaps, "pipeline-capabilities",
		"the parts of a lookup result the http pipeline produces, comma-separated: "+strings.Join(contract.Capabilities, ", ")+
			", or none (default: what its /healthz says, else all); checks that need a part it lacks are skipped")
	fs.StringArrayVar(&o.LookupHeaders, "lookup-header", nil, "HTTP `header` \"Name: value\" sent on every request to --lookup-url (repeatable); ${NAME} and ${NAME:-default} in it are read from the environment at start and never written out: single-quote the flag")
	fs.StringVar(&o.SidecarURL, "sidecar-url", "", "base URL of a sidecar pipeline that also runs every case")
	fs.StringArrayVar(&o.SidecarHeaders, "sidecar-header", nil, "HTTP `header` \"Name: value\" sent on every request to --sidecar-url (repeatable), expanded as --lookup-header's")
	fs.StringVar(&o.SidecarFixtures, "sidecar-fixtures", "", "sidecar fixture directory (default <dir>/fixtures-sidecar, or fixtures-sidecar-dense)")
	fs.BoolVar(&o.SkipEval, "skip-eval", false, "do not judge the fixtures after the snapshot")
	fs.BoolVar(&o.Partial, "partial", false, "move the successful cases in even when some failed")
	fs.IntVar(&o.Concurrency, "concurrency", snapshot.DefaultConcurrency, "lookups in flight at once (per pipeline)")
	fs.IntVar(&o.Retries, "retries", snapshot.DefaultRetries, "retries of a lookup that failed with a transient error (timeout, network, HTTP 502/503/504/429, gRPC Unavailable)")
	fs.IntVar(&o.TopK, "top-k", 0, "evidence blocks per lookup (default: the pipeline's, 5)")
	o.Config.BindFlags(fs)
	fs.Lookup("timeout").Usage = "timeout of each lookup attempt, and of each call to a service"
	return cmd
}

// defaults resolves the paths and checks the flags.
func (o *snapshotOptions) defaults() error {
	suffix := ""
	if kb.SearchMode(o.SearchMode) == kb.Dense {
		suffix = "-dense"
	}
	o.Default(&o.Cases, cmdutil.CasesFile)
	o.Default(&o.Fixtures, "fixtures"+suffix)
	switch {
	case o.LookupURL != "" && o.PipelineConfig != "":
		return cmdutil.Usagef("--lookup-url (--pipeline http) and --pipeline-config (--pipeline mapped) exclude each other")
	case o.LookupURL != "" && !o.pipelineSet:
		o.Pipeline = pipelineHTTP
	case o.PipelineConfig != "" && !o.pipelineSet:
		o.Pipeline = pipelineMapped
	case o.Pipeline == pipelineHTTP && o.LookupURL == "":
		return cmdutil.Usagef("--pipeline http needs --lookup-url")
	case o.Pipeline == pipelineMapped && o.PipelineConfig == "":
		return cmdutil.Usagef("--pipeline mapped needs --pipeline-config FILE (docs/mapped-pipeline.md; deploy/mapped has ready configs)")
	case o.Pipeline != pipelineHTTP && o.LookupURL != "":
		return cmdutil.Usagef("--lookup-url is for --pipeline http")
	case o.Pipeline != pipelineMapped && o.PipelineConfig != "":
		return cmdutil.Usagef("--pipeline-config is for --pipeline mapped")
	}
	if o.Pipeline == pipelineMapped {
		switch {
		case o.PipelineSearchMode != "":
			return cmdutil.Usagef("--pipeline-search-mode is for --pipeline http (a mapped pipeline declares searchMode in its config)")
		case o.PipelineCaps.caps != nil:
			return cmdutil.Usagef("--pipeline-capabilities is for --pipeline http (a mapped pipeline declares capabilities in its config)")
		}
	}
	if o.Pipeline != pipelineHTTP {
		switch {
		case o.PipelineSearchMode != "":
			return cmdutil.Usagef("--pipeline-search-mode is for --pipeline http (the builtin pipeline's search mode is --search-mode)")
		case o.PipelineCaps.caps != nil:
			return cmdutil.Usagef("--pipeline-capabilities is for --pipeline http (the builtin pipeline produces every part)")
		}
	}
	if o.SidecarFixtures != "" && o.SidecarURL == "" {
		return cmdutil.Usagef("--sidecar-fixtures needs --sidecar-url")
	}
	if err := o.parseHeaders(); err != nil {
		return err
	}
	if o.SidecarURL != "" {
		o.Default(&o.SidecarFixtures, "fixtures-sidecar"+suffix)
	}
	switch {
	case o.Concurrency < 1:
		return cmdutil.Usagef("--concurrency must be at least 1, got %d", o.Concurrency)
	case o.Retries < 0:
		return cmdutil.Usagef("--retries must not be negative, got %d", o.Retries)
	case o.TopK < 0 || o.TopK > builtin.MaxTopK:
		return cmdutil.Usagef("--top-k must be between 1 and %d, got %d", builtin.MaxTopK, o.TopK)
	case o.Config.Timeout <= 0:
		return cmdutil.Usagef("--timeout must be positive")
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
			return cmdutil.Usagef("%s: %w", u.flag, err)
		}
	}
	return nil
}

// parseHeaders checks that each header flag goes with its URL and expands
// the headers. A malformed one or an unset variable is a usage error that
// names the flag and never quotes a value.
func (o *snapshotOptions) parseHeaders() error {
	switch {
	case len(o.LookupHeaders) > 0 && o.Pipeline != pipelineHTTP:
		return cmdutil.Usagef("--lookup-header needs --lookup-url (--pipeline http; a mapped pipeline's headers are in its config)")
	case len(o.SidecarHeaders) > 0 && o.SidecarURL == "":
		return cmdutil.Usagef("--sidecar-header needs --sidecar-url")
	}
	getenv := o.lookupEnv
	if getenv == nil {
		getenv = os.LookupEnv
	}
	var err error
	if o.lookupHeader, err = lookuphttp.ParseHeaders(o.LookupHeaders, getenv, &o.secrets); err != nil {
		return cmdutil.Usagef("--lookup-header: %w", err)
	}
	if o.sidecarHeader, err = lookuphttp.ParseHeaders(o.SidecarHeaders, getenv, &o.secrets); err != nil {
		return cmdutil.Usagef("--sidecar-header: %w", err)
	}
	return nil
}

func snapshotRun(ctx context.Context, o *snapshotOptions) error {
	if err := o.defaults(); err != nil {
		return err
	}
	g, casesSHA256, err := cmdutil.LoadCases(o.Cases)
	if err != nil {
		return err
	}
	kbScope, scopeFrom := scopeOf(o, g)

	var sidecar *lookuphttp.Client
	if o.SidecarURL != "" {
		sidecar = &lookuphttp.Client{BaseURL: o.SidecarURL, Timeout: o.Config.Timeout,
			Header: o.sidecarHeader, Secrets: &o.secrets}
	}
	var l pipeline.Lookuper
	var seed *contract.SeedRecord
	switch o.Pipeline {
	case pipelineHTTP:
		l = &lookuphttp.Client{BaseURL: o.LookupURL, Timeout: o.Config.Timeout,
			SearchMode: o.PipelineSearchMode, Capabilities: o.PipelineCaps.caps,
			Header: o.lookupHeader, Secrets: &o.secrets}
	case pipelineMapped:
		m, err := openMapped(o)
		if err != nil {
			return err
		}
		l = m
	case pipelineBuiltin:
		b, err := openBuiltin(ctx, o.Config, kbScope, kb.Fusion(o.Fusion), o.IO.ErrOut)
		var nr *config.NotReadyError
		if errors.As(err, &nr) && nr.NoChunks {
			return fmt.Errorf("the store (%s) holds no chunks of kbScope %s, %s: seed it (rag-seed --kb-scope %s), or snapshot the kbScope the store was seeded with (--kb-scope)",
				nr.Store, kbScope, scopeFrom, kbScope)
		}
		if err != nil {
			return err
		}
		defer b.Close()
		l, seed = b.Pipeline, seedRecord(b)
	}

	bar := o.IO.Progress("snapshot")
	opts := snapshot.Options{
		Cases: g, CasesPath: o.Cases, FixturesDir: o.Fixtures, KBScope: kbScope,
		SearchMode: kb.SearchMode(o.SearchMode), TopK: o.TopK, Lookuper: l,
		Concurrency: o.Concurrency, Retries: o.Retries, Timeout: o.Config.Timeout, Partial: o.Partial,
		Progress: bar.Set, Seed: seed,
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
	if errors.Is(err, snapshot.ErrUsage) {
		err = cmdutil.Usage(err)
	}
	if sum != nil {
		for _, w := range sum.Warnings {
			fmt.Fprintf(o.IO.ErrOut, "rag-snapshot: warning: %v\n", w)
		}
	}
	var fe *snapshot.FailedError
	if errors.As(err, &fe) {
		listFailures(o.IO.ErrOut, fe.Failures)
	}
	if sum != nil && sum.Written > 1 && sum.Empty == sum.Written {
		// One line for what would otherwise be one failed case each in the
		// judge: a pipeline that does not hold the kbScope answers every
		// lookup with nothing.
		fmt.Fprintf(o.IO.ErrOut, "rag-snapshot: warning: all %d lookups of kbScope %s returned no evidence: does the pipeline hold that kbScope? It is %s.\n",
			sum.Written, kbScope, scopeFrom)
	}
	if sum != nil {
		printSummary(o.IO.Out, sum, time.Since(start))
	}
	if err != nil {
		return err
	}
	if timestampOnly(ctx, o.Fixtures) {
		fmt.Fprintf(o.IO.ErrOut, "rag-snapshot: %s differs from its committed version only in retrievedAt, latencyMs and the manifest's run times and counts: the results are the committed ones; git checkout -- %s restores the files\n",
			o.Fixtures, o.Fixtures)
	}
	if o.SkipEval {
		return nil
	}
	if err := evaluate(o, g, casesSHA256, o.Fixtures, ""); err != nil {
		return err
	}
	if sum.Sidecar != nil && sum.Sidecar.Status == contract.StatusAvailable {
		return evaluate(o, g, casesSHA256, o.SidecarFixtures, "sidecar ")
	}
	return nil
}

// scopeOf returns the kbScope of every lookup and, for messages, where it
// comes from: --kb-scope, the golden file's kbScope, or the default.
func scopeOf(o *snapshotOptions, g *contract.GoldenFile) (scope, from string) {
	switch {
	case o.KBScope != "" && g.KBScope != "" && g.KBScope != o.KBScope:
		return o.KBScope, fmt.Sprintf("given by --kb-scope (the golden file %s has kbScope %s)", o.Cases, g.KBScope)
	case o.KBScope != "":
		return o.KBScope, "given by --kb-scope"
	case g.KBScope != "":
		return g.KBScope, fmt.Sprintf("the kbScope of the golden file %s (--kb-scope overrides it)", o.Cases)
	}
	return "rag-eval", fmt.Sprintf("the default (neither --kb-scope nor the golden file %s sets one)", o.Cases)
}

// seedRecord is what rag-seed recorded about the kbScope's chunking and
// corpus, as the store check read it, for the manifest. It is nil when the
// record does not say, as after a seed of an older build.
func seedRecord(b *config.Builtin) *contract.SeedRecord {
	info := b.Stack.Record
	if info.ChunkSize <= 0 || info.CorpusSHA256 == "" {
		return nil
	}
	return &contract.SeedRecord{ChunkSize: info.ChunkSize, ChunkOverlap: info.ChunkOverlap,
		Documents: info.Documents, CorpusSHA256: info.CorpusSHA256}
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

// evaluate judges dir and prints rag-eval's text summary. It writes no
// report.
func evaluate(o *snapshotOptions, g *contract.GoldenFile, casesSHA256, dir, label string) error {
	res, err := judge.Run(g, dir, judge.Options{})
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "rag-snapshot: warning: %v\n", w)
	}
	rep := report.Build(res, o.Cases, casesSHA256)
	fmt.Fprintf(o.IO.Out, "%sjudge of %s:\n", label, dir)
	return rep.WriteText(o.IO.Out, o.IO.ColourOut())
}

// openMapped loads --pipeline-config and builds the mapped pipeline. It
// opens the embedder of --embedder and the RAG_EMBED* settings only when
// the config embeds the query. A bad config or an unset variable it needs
// is a usage error naming the file, line and field.
func openMapped(o *snapshotOptions) (*mapped.Pipeline, error) {
	cfg, err := mapped.Load(o.PipelineConfig)
	if err != nil {
		return nil, cmdutil.Usage(err)
	}
	opt := mapped.Options{Timeout: o.Config.Timeout, LookupEnv: o.lookupEnv}
	if cfg.EmbedQuery {
		if opt.Embedder, err = config.OpenEmbedder(o.Config); err != nil {
			return nil, err
		}
	}
	m, err := mapped.New(cfg, opt)
	if err != nil {
		return nil, cmdutil.Usage(err)
	}
	for _, w := range m.Warnings() {
		fmt.Fprintf(o.IO.ErrOut, "rag-snapshot: warning: %v\n", w)
	}
	return m, nil
}
