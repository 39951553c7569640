package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/golden/draft"
	"github.com/ragbaseline/ragbaseline/internal/golden/querylog"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

type draftOptions struct {
	IO       *cmdutil.Streams
	Log      string
	Format   string
	Scenario string
	Sample   int
	Seed     uint64
	Out      string
	Merge    string
	KBScope  string
	Fixtures string
	Quiet    bool
}

// newCmdDraft builds rag-eval draft: it parses the flags into draftOptions
// and calls runF, or draftRun when runF is nil.
func newCmdDraft(f *cmdutil.Streams, runF func(*draftOptions) error) *cobra.Command {
	o := &draftOptions{IO: f}
	cmd := &cobra.Command{
		Use:   "draft --log FILE (--out FILE | --merge FILE)",
		Short: "Draft golden cases from a query log: real queries, de-duplicated, sampled",
		Long: `draft reads a query log and writes its queries as draft golden cases
("draft": true, no expectation yet), to --out, a new golden file, or into
--merge, an existing one. rag-snapshot runs drafts like any case, and rag-eval
reports them as drafts, in no rate and no gate, until they are assessed
(docs/golden-sets.md).

The log is plain text (one query per line), JSONL ({"query", "count", "tags",
"scenario"} per line), CSV with a query column, or an OTLP JSON trace export of
OpenInference retriever spans (the query from input.value); --format auto tells
them apart. Queries are normalised (NFKC, case, white space), and exact and
near duplicates (punctuation, the spaces of CJK text) are merged with their
counts summed, keeping the form asked most often. Each draft's caseId is q-
and 10 hex digits of the SHA-256 of the query's normalised key: the same in
every run. --sample N keeps N queries, stratified so that frequent and rare
queries and every script (CJK, Latin, mixed) are represented, the same for
the same --seed on every machine.

--merge never adds a query the file has (by normalised key), keeps the file's
bytes and appends the drafts after its last case. --fixtures DIR writes, from
an OTLP export, what each span retrieved as fixtures of a side named
production, to judge and compare like any other.

Every problem of the log or the flags is listed, FILE:LINE for the log, and
nothing is written (exit 2). The output is written atomically, and the same
inputs give the same bytes.`,
		Example: `  rag-eval draft --log queries.txt --out eval/support/cases/golden-cases.json --kb-scope support
  rag-eval draft --log search.jsonl --sample 100 --seed 7 --merge eval/support/cases/golden-cases.json
  rag-eval draft --log traces.json --merge cases.json --fixtures eval/support/fixtures-production`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(o)
			}
			return draftRun(o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Log, "log", "", "query log to draft from (required)")
	cmdutil.StringEnumVar(fs, &o.Format, "format", querylog.Auto, querylog.Formats, nil, "format of the log: auto, text, jsonl, csv or otlp")
	fs.StringVar(&o.Scenario, "scenario", draft.DefaultScenario, "scenario of the drafts whose log record gives none")
	fs.IntVar(&o.Sample, "sample", 0, "draft N queries, stratified by frequency and script (default: every query)")
	fs.Uint64Var(&o.Seed, "seed", draft.DefaultSeed, "seed of the sample")
	fs.StringVar(&o.Out, "out", "", "write a new golden file of the drafts here (refused when it exists)")
	fs.StringVar(&o.Merge, "merge", "", "add the drafts to this golden file, after its last case")
	fs.StringVar(&o.KBScope, "kb-scope", "", "kbScope of the new golden file (with --out)")
	fs.StringVar(&o.Fixtures, "fixtures", "", "write what the log's retriever spans retrieved as fixtures of the production side to this directory (otlp logs)")
	fs.BoolVarP(&o.Quiet, "quiet", "q", false, "do not print the summary")
	cmd.MarkFlagRequired("log")
	return cmd
}

func draftRun(o *draftOptions) error {
	target, flag := o.Out, "--out"
	switch {
	case o.Out != "" && o.Merge != "":
		return cmdutil.Usagef("--out and --merge exclude each other: write a new golden file or add to one")
	case o.Merge != "":
		target, flag = o.Merge, "--merge"
	case o.Out == "":
		return cmdutil.Usagef("give --out FILE, a new golden file, or --merge FILE, an existing one")
	}
	switch {
	case o.Log == "":
		return cmdutil.Usagef("--log must not be empty")
	case o.Sample < 0:
		return cmdutil.Usagef("--sample must be at least 0, got %d", o.Sample)
	case strings.TrimSpace(o.Scenario) == "":
		return cmdutil.Usagef("--scenario must not be blank")
	case o.KBScope != "" && o.Merge != "":
		return cmdutil.Usagef("--kb-scope sets the kbScope of a new file (--out); the file of --merge keeps its own")
	}
	if o.KBScope != "" {
		if err := kb.ValidKBScope(o.KBScope); err != nil {
			return cmdutil.Usagef("--kb-scope %q %w", o.KBScope, err)
		}
	}
	var outs outputs[[]byte]
	outs.add(flag, target, func(data []byte, w io.Writer) error { _, err := w.Write(data); return err })
	var dirs []string
	if o.Fixtures != "" {
		dirs = append(dirs, o.Fixtures)
	}
	if err := outs.check([]input{{"--log", o.Log}}, dirs, nil); err != nil {
		return cmdutil.Usage(err)
	}
	if o.Out != "" {
		if _, err := os.Lstat(o.Out); err == nil {
			return cmdutil.Usagef("--out %s exists: draft never overwrites a file; add to it with --merge %s", o.Out, o.Out)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}

	// Inputs first: any problem here is exit 2 and nothing is written.
	// A log is a file the user names, so a link is followed. It must be a
	// regular file, as qrels and runs must, and has no cap: a real log is
	// large.
	data, err := contract.ReadFile(o.Log, true, 0, "", nil)
	if err != nil {
		return cmdutil.Usagef("read query log: %w", err)
	}
	log, err := querylog.Read(o.Log, data, o.Format)
	if err != nil {
		return cmdutil.Usagef("read query log:\n%w", err)
	}
	if o.Fixtures != "" && log.Format != querylog.OTLP {
		return cmdutil.Usagef("--fixtures needs a trace export of retriever spans (otlp); %s reads as %s", o.Log, log.Format)
	}
	var existing *contract.GoldenFile
	var golden []byte
	kbScope := o.KBScope
	if o.Merge != "" {
		if golden, err = contract.ReadSetFile(o.Merge); err != nil {
			return cmdutil.Usagef("load golden cases: %w", err)
		}
		if existing, err = contract.ParseGolden(o.Merge, golden); err != nil {
			return cmdutil.Usagef("load golden cases:\n%w", err)
		}
		kbScope = existing.KBScope
	}

	res := draft.Draft(log, draft.Options{Scenario: strings.TrimSpace(o.Scenario), Sample: o.Sample, Seed: o.Seed, Existing: existing})
	var out []byte
	if o.Merge != "" {
		if out, err = draft.Merge(o.Merge, golden, res.Drafts); err != nil {
			return err
		}
	} else {
		out = draft.NewFile(res.Drafts, o.KBScope)
	}
	var prod *draft.Production
	if o.Fixtures != "" {
		if err := draft.CheckProductionDir(o.Fixtures); err != nil {
			return cmdutil.Usagef("--fixtures %w", err)
		}
		cases := len(res.Drafts)
		if existing != nil {
			cases += len(existing.Cases)
		}
		if prod, err = draft.ProductionSide(res, kbScope, cases); err != nil {
			return err
		}
	}
	if len(res.Drafts) > 0 {
		if err := outs.write(out); err != nil {
			return err
		}
	}
	if prod != nil {
		if err := draft.WriteProduction(o.Fixtures, prod); err != nil {
			return fmt.Errorf("write --fixtures %s: %w", o.Fixtures, err)
		}
	}
	if !o.Quiet {
		writeDraftSummary(o.IO.Out, o, target, res, prod)
	}
	return nil
}

// writeDraftSummary says what was read, merged, sampled and written.
func writeDraftSummary(w io.Writer, o *draftOptions, target string, r *draft.Result, prod *draft.Production) {
	st := r.Stats
	fmt.Fprintf(w, "%s (%s): %d %s, %d %s asked, %d distinct, %d after merging near duplicates\n", o.Log, r.Log.Format,
		st.Records, plural(st.Records, "record", "records"), st.Occurrences, plural(st.Occurrences, "query", "queries"), st.Exact, st.Queries)
	if n := len(r.Known); n > 0 {
		fmt.Fprintf(w, "%d already in %s, left out\n", n, target)
	}
	if len(r.Drafts) < len(r.Queries) {
		parts := make([]string, len(r.Strata))
		for i, s := range r.Strata {
			parts[i] = fmt.Sprintf("%s %d of %d", s.Name(), s.Picked, s.Size)
		}
		fmt.Fprintf(w, "sampled %d of %d (seed %d; frequent: seen %d times or more): %s\n", len(r.Drafts), len(r.Queries), o.Seed, r.Threshold, strings.Join(parts, ", "))
	}
	switch {
	case len(r.Drafts) == 0:
		fmt.Fprintf(w, "nothing to add: %s has every query of the log\n", target)
	case o.Merge != "":
		fmt.Fprintf(w, "added %d %s to %s\n", len(r.Drafts), plural(len(r.Drafts), "draft", "drafts"), target)
	default:
		fmt.Fprintf(w, "wrote %d %s to %s\n", len(r.Drafts), plural(len(r.Drafts), "draft", "drafts"), target)
	}
	if prod != nil {
		fmt.Fprintf(w, "wrote %d %s of the production side to %s\n", len(prod.Fixtures), plural(len(prod.Fixtures), "fixture", "fixtures"), o.Fixtures)
	}
}
