package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/htmlreport"
)

type compareOptions struct {
	IO *cmdutil.Streams
	evalFlags
	reportFlags
	Left, Right         string
	LeftName, RightName string
	Sides               []string // --side NAME=DIR, in order
	Baseline            string
	twoSide             bool // --left, --right or their names were given
}

// newCmdCompare builds rag-eval compare: it parses the flags into
// compareOptions and calls runF, or compareRun when runF is nil.
func newCmdCompare(f *cmdutil.Streams, runF func(*compareOptions) error) *cobra.Command {
	o := &compareOptions{IO: f}
	cmd := &cobra.Command{
		Use:   "compare [--left DIR --right DIR | --side NAME=DIR --side NAME=DIR…] [--baseline NAME]",
		Short: "Compare fixture sets (hybrid vs dense vs another embedder, current vs sidecar) case by case, with significance tests",
		Long: `compare judges two or more fixture directories against the same golden cases
and reports, per pair of sides, the sides' top-K blocks case by case with what
differs, and per metric (recallAtK, mrr, ndcgAtK, docRecallAtK, precisionAtK,
passRate) both means, the paired difference Δ = a − b, its 95% bootstrap
interval, a paired randomization-test p-value, win/tie/loss counts and the
p-value adjusted for multiple testing (Holm–Bonferroni over every p-value of
the report). A summary table gives each side's means, marked with the letters
of the sides it is significantly better than. The statistics use a fixed
random seed per pair, so the same fixtures give the same report bytes.

Sides are --left and --right (the two-side form, named by --left-name and
--right-name), or --side NAME=DIR repeated, two or more, with distinct names.
Every pair of sides is compared (Δ = the earlier side − the later one), or
with --baseline NAME every other side against that one (Δ = side − baseline).
A pair's numbers are those a two-side comparison of the same sides gives, but
the adjusted p-value, which depends on how many tests the report makes.

A side whose directory does not exist, or whose _snapshot.json says
"status": "unavailable" (a sidecar that could not be reached), is reported as
unavailable with the reason; the other sides are still reported in full.

Exit status: 0 the comparison was written (a side may be unavailable), 2 usage
or input error (nothing is written). Differences are reported, never failed
on: a sidecar may legitimately lack the filtered attempt.`,
		Example: `  # hybrid (fixtures/) vs dense (fixtures-dense/) on the shipped eval set
  rag-eval compare

  # the current pipeline vs a sidecar, into named reports
  rag-eval compare --left eval/rag-retrieval/fixtures --left-name current \
    --right sidecar-fixtures --right-name sidecar \
    --json-report sidecar.json --markdown-report sidecar.md

  # three ways, every pair
  rag-eval compare --side hybrid=eval/rag-retrieval/fixtures \
    --side dense=eval/rag-retrieval/fixtures-dense \
    --side local-hash-v1=eval/rag-retrieval/fixtures-local

  # every side against the current one
  rag-eval compare --side current=fixtures --side k20=fixtures-k20 \
    --side k100=fixtures-k100 --baseline current`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, f := range []string{"left", "right", "left-name", "right-name"} {
				o.twoSide = o.twoSide || cmd.Flags().Changed(f)
			}
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
	fs.StringArrayVar(&o.Sides, "side", nil, "a side as `NAME=DIR` (repeatable, two or more; instead of --left and --right)")
	fs.StringVar(&o.Baseline, "baseline", "", "compare every side against the side `NAME` only (default: every pair)")
	o.reportFlags.add(fs, "<dir>/reports/compare.json", "<dir>/reports/compare.md")
	return cmd
}

// sideSpec is a side to load: its name and fixture directory.
type sideSpec struct{ name, dir string }

// sideSpecs returns the sides of o, checked: --side NAME=DIR… or
// --left/--right, names non-empty and distinct.
func (o *compareOptions) sideSpecs() ([]sideSpec, error) {
	var specs []sideSpec
	switch {
	case len(o.Sides) > 0 && o.twoSide:
		return nil, fmt.Errorf("--side cannot be combined with --left, --right, --left-name or --right-name")
	case len(o.Sides) == 1:
		return nil, fmt.Errorf("--side %s: give at least two sides", o.Sides[0])
	case len(o.Sides) > 0:
		for _, s := range o.Sides {
			name, dir, ok := strings.Cut(s, "=")
			if !ok || name == "" || dir == "" {
				return nil, fmt.Errorf("--side %q: want NAME=DIR", s)
			}
			specs = append(specs, sideSpec{name, dir})
		}
	default:
		o.Default(&o.Left, "fixtures")
		o.Default(&o.Right, "fixtures-dense")
		if o.LeftName == "" || o.RightName == "" {
			return nil, fmt.Errorf("--left-name and --right-name must not be empty")
		}
		if o.LeftName == o.RightName {
			return nil, fmt.Errorf("--left-name and --right-name are both %q", o.LeftName)
		}
		specs = []sideSpec{{o.LeftName, o.Left}, {o.RightName, o.Right}}
	}
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.name] {
			return nil, fmt.Errorf("--side: two sides are named %q", s.name)
		}
		seen[s.name] = true
	}
	return specs, nil
}

// baselineIndex returns the index of --baseline among names, −1 without it.
func baselineIndex(baseline string, names []string) (int, error) {
	if baseline == "" {
		return -1, nil
	}
	if i := slices.Index(names, baseline); i >= 0 {
		return i, nil
	}
	return -1, fmt.Errorf("--baseline %q is not a side (sides: %s)", baseline, strings.Join(names, ", "))
}

func compareRun(o *compareOptions) error {
	o.Default(&o.Cases, cmdutil.CasesFile)
	o.Default(&o.JSONReport, "reports/compare.json")
	o.Default(&o.MarkdownReport, "reports/compare.md")
	if err := o.checkK(); err != nil {
		return err
	}
	specs, err := o.sideSpecs()
	if err != nil {
		return err
	}
	var names, dirs []string
	for _, s := range specs {
		names, dirs = append(names, s.name), append(dirs, s.dir)
	}
	base, err := baselineIndex(o.Baseline, names)
	if err != nil {
		return err
	}
	var outs outputs[*compare.Report]
	outs.add("--json-report", o.JSONReport, (*compare.Report).WriteJSON)
	outs.add("--markdown-report", o.MarkdownReport, (*compare.Report).WriteMarkdown)
	outs.add("--html-report", o.HTMLReport, func(r *compare.Report, w io.Writer) error { return htmlreport.Compare(w, r) })
	if err := outs.check([]input{{"--cases", o.Cases}}, dirs, nil); err != nil {
		return err
	}

	g, casesSHA256, err := cmdutil.LoadCases(o.Cases)
	if err != nil {
		return err
	}
	// The HTML report shows each block's excerpt.
	opts := judge.Options{FlagK: o.K, Evidence: o.HTMLReport != ""}
	var sides []compare.Side
	var unavailable []string
	for _, s := range specs {
		side, err := compare.LoadSide(s.name, s.dir, g, opts)
		if err != nil {
			return err
		}
		if side.Result == nil {
			unavailable = append(unavailable, fmt.Sprintf("%s is unavailable (%s)", side.Name, side.Reason))
		}
		sides = append(sides, side)
	}
	if len(unavailable) == len(sides) {
		return fmt.Errorf("nothing to compare: %s", strings.Join(unavailable, " and "))
	}
	rep := compare.Build(compare.Inputs{Cases: o.Cases, CasesSHA256: casesSHA256, K: g.ReportK(o.K)}, sides, base, 0)
	// Warnings first, so that a failed write does not lose them.
	for _, s := range sides {
		if s.Result == nil {
			fmt.Fprintf(o.IO.ErrOut, "rag-eval: warning: %s is unavailable: %s\n", s.Name, s.Reason)
			continue
		}
		for _, w := range s.Result.Warnings {
			fmt.Fprintf(o.IO.ErrOut, "rag-eval: warning: %s: %v\n", s.Name, w)
		}
	}
	if err := outs.write(rep); err != nil {
		return err
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
