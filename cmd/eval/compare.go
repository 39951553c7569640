package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

type compareOptions struct {
	Dir, Cases                 string
	Left, Right                string
	LeftName, RightName        string
	K                          int
	KSet                       bool
	JSONReport, MarkdownReport string
	Quiet                      bool

	Stdout, Stderr io.Writer
}

func newCompareCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &compareOptions{Stdout: stdout, Stderr: stderr}
	cmd := &cobra.Command{
		Use:   "compare [--left DIR --right DIR]",
		Short: "Compare two fixture sets (hybrid vs dense, current vs sidecar) case by case, with significance tests",
		Long: `compare judges two fixture directories against the same golden cases and
reports, per case, both paths' top-K blocks side by side with what differs, and
per metric (recallAtK, mrr, ndcgAtK, docRecallAtK, precisionAtK, passRate) both
means, the paired difference Δ = left − right, its 95% bootstrap interval and a
paired randomization-test p-value. The statistics use a fixed random seed, so
the same fixtures give the same report bytes.

A side whose directory does not exist, or whose _snapshot.json says
"status": "unavailable" (a sidecar that could not be reached), is reported as
unavailable with the reason; the other side is still reported in full.

Exit status: 0 the comparison was written (a side may be unavailable), 2 usage
or input error (nothing is written). Differences are reported, never failed
on: a sidecar may legitimately lack the filtered attempt.`,
		Example: `  # hybrid (fixtures/) vs dense (fixtures-dense/) on the shipped eval set
  rag-eval compare

  # the current pipeline vs a sidecar, into named reports
  rag-eval compare --left eval/rag-retrieval/fixtures --left-name current \
    --right sidecar-fixtures --right-name sidecar \
    --json-report sidecar.json --markdown-report sidecar.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.KSet = cmd.Flags().Changed("k")
			return compareRun(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", defaultEvalDir, "eval set directory; the default of every other path is inside it")
	f.StringVar(&o.Cases, "cases", "", "golden cases file (default <dir>/cases/golden-cases.json)")
	f.StringVar(&o.Left, "left", "", "left fixture directory (default <dir>/fixtures)")
	f.StringVar(&o.Right, "right", "", "right fixture directory (default <dir>/fixtures-dense)")
	f.StringVar(&o.LeftName, "left-name", "hybrid", "name of the left side in the reports")
	f.StringVar(&o.RightName, "right-name", "dense", "name of the right side in the reports")
	f.IntVar(&o.K, "k", 0, "K for cases that do not set their own (default: the cases file's k, else 5)")
	f.StringVar(&o.JSONReport, "json-report", "", "JSON report path (default <dir>/reports/compare.json)")
	f.StringVar(&o.MarkdownReport, "markdown-report", "", "Markdown report path (default <dir>/reports/compare.md)")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "do not print the summary")
	return cmd
}

func compareRun(o *compareOptions) error {
	def := func(p *string, rel string) {
		if *p == "" {
			*p = filepath.Join(o.Dir, rel)
		}
	}
	def(&o.Cases, "cases/golden-cases.json")
	def(&o.Left, "fixtures")
	def(&o.Right, "fixtures-dense")
	def(&o.JSONReport, "reports/compare.json")
	def(&o.MarkdownReport, "reports/compare.md")
	switch {
	case o.KSet && o.K < 1:
		return fmt.Errorf("--k must be at least 1, got %d", o.K)
	case o.LeftName == "" || o.RightName == "":
		return fmt.Errorf("--left-name and --right-name must not be empty")
	case o.LeftName == o.RightName:
		return fmt.Errorf("--left-name and --right-name are both %q", o.LeftName)
	}
	outs := []output{{flag: "--json-report", path: o.JSONReport}, {flag: "--markdown-report", path: o.MarkdownReport}}
	if err := checkOutputs(outs, "", o.Cases, o.Left, o.Right); err != nil {
		return err
	}

	g, casesSHA256, err := loadCases(o.Cases)
	if err != nil {
		return err
	}
	opts := judge.Options{FlagK: o.K}
	left, err := compare.LoadSide(o.LeftName, o.Left, g, opts)
	if err != nil {
		return err
	}
	right, err := compare.LoadSide(o.RightName, o.Right, g, opts)
	if err != nil {
		return err
	}
	if left.Result == nil && right.Result == nil {
		return fmt.Errorf("nothing to compare: %s is unavailable (%s) and %s is unavailable (%s)",
			o.LeftName, left.Reason, o.RightName, right.Reason)
	}
	rep := compare.Build(compare.Inputs{Cases: o.Cases, CasesSHA256: casesSHA256, K: g.ReportK(o.K)}, left, right)
	outs[0].render, outs[1].render = rep.WriteJSON, rep.WriteMarkdown
	if err := writeOutputs(outs); err != nil {
		return err
	}
	for _, s := range []compare.Side{left, right} {
		if s.Result == nil {
			fmt.Fprintf(o.Stderr, "rag-eval: warning: %s is unavailable: %s\n", s.Name, s.Reason)
			continue
		}
		for _, w := range s.Result.Warnings {
			fmt.Fprintf(o.Stderr, "rag-eval: warning: %s: %v\n", s.Name, w)
		}
	}
	if o.Quiet {
		return nil
	}
	if err := rep.WriteText(o.Stdout); err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.Stdout, "reports: %s, %s\n", o.JSONReport, o.MarkdownReport)
	return err
}
