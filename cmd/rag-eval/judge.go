package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report"
	"github.com/ragbaseline/ragbaseline/internal/report/htmlreport"
)

type judgeOptions struct {
	IO *cmdutil.Streams
	evalFlags
	reportFlags
	Fixtures     string
	JUnit        string
	Summary      string
	CompareTo    string
	DiffJSON     string
	DiffMarkdown string
}

// newCmdJudge builds rag-eval itself, the judge: it parses the flags into
// judgeOptions and calls runF, or judgeRun when runF is nil.
func newCmdJudge(f *cmdutil.Streams, runF func(*judgeOptions) error) *cobra.Command {
	o := &judgeOptions{IO: f}
	cmd := &cobra.Command{
		Use:   "rag-eval",
		Short: "Judge frozen retrieval fixtures against golden cases, offline",
		Long: `rag-eval judges the fixtures written by rag-snapshot against the golden cases,
without any service: it reads files and writes reports.

Exit status: 0 every case passed or was skipped, drafts aside (and no regression), 1 some
case failed, was not run or errored, or every case was skipped, 2 usage or input error (no report is written), 3 regression
against the --compare-to baseline. When several apply: 2, then 3, then 1.`,
		Example: `  # judge the shipped eval set, write eval/rag-retrieval/reports/baseline.json|md
  rag-eval

  # judge in CI against the accepted baseline; exit 3 on regression
  rag-eval --compare-to eval/rag-retrieval/reports/baseline.json --junit junit.xml --summary-markdown summary.md

  # hybrid (fixtures/) vs dense (fixtures-dense/), with significance tests
  rag-eval compare

  # how well qualityScore separates relevant from irrelevant blocks, per mode
  rag-eval calibrate

  # reproduce the rank metrics with trec_eval
  rag-eval export-trec --qrels q.txt --run r.txt && rag-eval trec -c -q -m recip_rank q.txt r.txt`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(o)
			}
			return judgeRun(o)
		},
	}
	fs := cmd.Flags()
	o.evalFlags.add(fs, "", kUsage)
	fs.StringVar(&o.Fixtures, "fixtures", "", "fixture directory (default <dir>/fixtures)")
	o.reportFlags.add(fs, "<dir>/reports/baseline.json, or current.json with --compare-to", "<dir>/reports/baseline.md, or current.md with --compare-to")
	fs.Lookup("html-report").Usage = "also write a self-contained HTML report to this path (with --compare-to, the diff first)"
	fs.StringVar(&o.JUnit, "junit", "", "also write a JUnit XML report to this path (regressed cases fail, with --compare-to)")
	fs.StringVar(&o.Summary, "summary-markdown", "", "also write a PR-comment-sized Markdown summary to this path (verdict, regressions, failed checks; under 60,000 bytes)")
	fs.StringVar(&o.CompareTo, "compare-to", "", "baseline JSON report to diff against; a regression exits 3")
	fs.StringVar(&o.DiffJSON, "diff-json-report", "", "diff JSON path (default <dir>/reports/baseline-diff.json)")
	fs.StringVar(&o.DiffMarkdown, "diff-markdown-report", "", "diff Markdown path (default <dir>/reports/baseline-diff.md)")
	return cmd
}

// defaults sets every path not given to its place in the eval set.
func (o *judgeOptions) defaults() {
	o.Default(&o.Cases, cmdutil.CasesFile)
	o.Default(&o.Fixtures, "fixtures")
	report := "baseline"
	if o.CompareTo != "" {
		report = "current"
		o.Default(&o.DiffJSON, "reports/baseline-diff.json")
		o.Default(&o.DiffMarkdown, "reports/baseline-diff.md")
	}
	o.Default(&o.JSONReport, "reports/"+report+".json")
	o.Default(&o.MarkdownReport, "reports/"+report+".md")
}

// judged is what the judge writes its outputs from: the report, and its
// diff against the baseline (nil without --compare-to).
type judged struct {
	rep  *report.Report
	diff *report.Diff
}

func judgeRun(o *judgeOptions) error {
	o.defaults()
	if err := o.checkK(); err != nil {
		return err
	}
	// The Markdown reports the summary points to for the whole story.
	full := []string{o.MarkdownReport}
	if o.CompareTo != "" {
		full = append(full, o.DiffMarkdown)
	}
	var outs outputs[judged]
	outs.add("--json-report", o.JSONReport, func(j judged, w io.Writer) error { return j.rep.WriteJSON(w) })
	outs.add("--markdown-report", o.MarkdownReport, func(j judged, w io.Writer) error { return j.rep.WriteMarkdown(w) })
	outs.add("--html-report", o.HTMLReport, func(j judged, w io.Writer) error { return htmlreport.Judge(w, j.rep, j.diff) })
	outs.add("--junit", o.JUnit, func(j judged, w io.Writer) error { return j.rep.WriteJUnitDiff(w, j.diff) })
	outs.add("--summary-markdown", o.Summary, func(j judged, w io.Writer) error { return j.rep.WriteSummaryMarkdown(w, j.diff, full...) })
	ins := []input{{"--cases", o.Cases}}
	if o.CompareTo != "" {
		outs.add("--diff-json-report", o.DiffJSON, func(j judged, w io.Writer) error { return j.diff.WriteJSON(w) })
		outs.add("--diff-markdown-report", o.DiffMarkdown, func(j judged, w io.Writer) error { return j.diff.WriteMarkdown(w) })
		ins = append(ins, input{"--compare-to", o.CompareTo})
	}
	if err := outs.check(ins, []string{o.Fixtures}, nil); err != nil {
		return err
	}

	// Inputs first: any problem here is exit 2 and no file is touched.
	g, casesSHA256, err := cmdutil.LoadCases(o.Cases)
	if err != nil {
		return err
	}
	var baseline *report.Report
	if o.CompareTo != "" {
		bdata, err := contract.ReadSetFile(o.CompareTo)
		if err != nil {
			return fmt.Errorf("load baseline: %w", err)
		}
		if baseline, err = report.ReadJSON(bdata); err != nil {
			return fmt.Errorf("load baseline %s: %w", o.CompareTo, err)
		}
	}
	// The HTML report shows each case's excerpts and retrieval trace.
	res, err := judge.Run(g, o.Fixtures, judge.Options{FlagK: o.K, Evidence: o.HTMLReport != ""})
	if err != nil {
		return err
	}
	rep := report.Build(res, o.Cases, casesSHA256)
	// What made the fixtures, as their manifest says. Without a readable
	// manifest there is none, and the judge has warned about an unreadable
	// one.
	if res.Manifest != nil {
		rep.Inputs.Snapshot = report.SnapshotOf(res.Manifest)
	}
	var diff *report.Diff
	if baseline != nil {
		diff = report.Compare(baseline, rep, o.CompareTo, o.JSONReport)
	}
	// Warnings first (a fixture directory that mixes snapshots, orphan
	// fixtures), so that a failed write does not lose them. They are in
	// the reports too.
	for _, w := range res.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "rag-eval: warning: %v\n", w)
	}
	if err := outs.write(judged{rep, diff}); err != nil {
		return err
	}
	if !o.Quiet {
		if err := rep.WriteText(o.IO.Out, o.IO.ColourOut()); err != nil {
			return err
		}
		if diff != nil {
			fmt.Fprintf(o.IO.Out, "baseline %s: %s", o.CompareTo, diff.Verdict)
			for _, l := range diff.InputLines() {
				fmt.Fprintf(o.IO.Out, "\n  input changed: %s", l)
			}
			for _, r := range diff.Regressions {
				fmt.Fprintf(o.IO.Out, "\n  %s", r)
			}
			fmt.Fprintln(o.IO.Out)
		}
	}
	switch {
	case diff != nil && diff.Regressed():
		return cmdutil.Silent(cmdutil.ExitRegression)
	case !rep.Summary.Passed():
		return cmdutil.Silent(cmdutil.ExitFail)
	}
	return nil
}
