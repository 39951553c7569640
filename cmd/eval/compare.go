package eval

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/htmlreport"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

type compareOptions struct {
	IO *cmdutil.Streams
	evalFlags
	reportFlags
	Left, Right         string
	LeftName, RightName string
}

// newCmdCompare builds rag-eval compare: it parses the flags into
// compareOptions and calls runF, or compareRun when runF is nil.
func newCmdCompare(f *cmdutil.Streams, runF func(*compareOptions) error) *cobra.Command {
	o := &compareOptions{IO: f}
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
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(o)
			}
			return compareRun(o)
		},
	}
	fs := cmd.Flags()
	o.evalFlags.add(fs, "", kUsage)
	fs.StringVar(&o.Left, "left", "", "left fixture directory (default <dir>/fixtures)")
	fs.StringVar(&o.Right, "right", "", "right fixture directory (default <dir>/fixtures-dense)")
	fs.StringVar(&o.LeftName, "left-name", "hybrid", "name of the left side in the reports")
	fs.StringVar(&o.RightName, "right-name", "dense", "name of the right side in the reports")
	o.reportFlags.add(fs, "<dir>/reports/compare.json", "<dir>/reports/compare.md")
	return cmd
}

func compareRun(o *compareOptions) error {
	o.Default(&o.Cases, cmdutil.CasesFile)
	o.Default(&o.Left, "fixtures")
	o.Default(&o.Right, "fixtures-dense")
	o.Default(&o.JSONReport, "reports/compare.json")
	o.Default(&o.MarkdownReport, "reports/compare.md")
	if err := o.checkK(); err != nil {
		return err
	}
	switch {
	case o.LeftName == "" || o.RightName == "":
		return fmt.Errorf("--left-name and --right-name must not be empty")
	case o.LeftName == o.RightName:
		return fmt.Errorf("--left-name and --right-name are both %q", o.LeftName)
	}
	outs := o.outputs()
	if err := checkOutputs(outs, "", o.Cases, o.Left, o.Right); err != nil {
		return err
	}

	g, casesSHA256, err := cmdutil.LoadCases(o.Cases)
	if err != nil {
		return err
	}
	// The HTML report shows each block's excerpt.
	opts := judge.Options{FlagK: o.K, Evidence: o.HTMLReport != ""}
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
	if len(outs) > 2 {
		outs[2].render = func(w io.Writer) error { return htmlreport.Compare(w, rep) }
	}
	if err := writeOutputs(outs); err != nil {
		return err
	}
	for _, s := range []compare.Side{left, right} {
		if s.Result == nil {
			fmt.Fprintf(o.IO.ErrOut, "rag-eval: warning: %s is unavailable: %s\n", s.Name, s.Reason)
			continue
		}
		for _, w := range s.Result.Warnings {
			fmt.Fprintf(o.IO.ErrOut, "rag-eval: warning: %s: %v\n", s.Name, w)
		}
	}
	if o.Quiet {
		return nil
	}
	if err := rep.WriteText(o.IO.Out); err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.IO.Out, "reports: %s, %s\n", o.JSONReport, o.MarkdownReport)
	return err
}
