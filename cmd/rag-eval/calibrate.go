package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/calibrate"
	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/report/htmlreport"
)

type calibrateOptions struct {
	IO *cmdutil.Streams
	evalFlags
	reportFlags
	Fixtures []string
}

// newCmdCalibrate builds rag-eval calibrate: it parses the flags into
// calibrateOptions and calls runF, or calibrateRun when runF is nil.
func newCmdCalibrate(f *cmdutil.Streams, runF func(*calibrateOptions) error) *cobra.Command {
	o := &calibrateOptions{IO: f}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure how well qualityScore separates relevant from non-relevant evidence",
		Long: `calibrate judges each fixture directory against the golden cases and reports,
per search mode, the distributions of qualityScore and relevanceLevel for
relevant and non-relevant top-K blocks, the best qualityScore of cases that
should and should not find evidence, and the thresholds that best separate
them (maximal Youden's J = TPR − FPR), beside the thresholds the fixtures were
produced with (lowQuality, minQuality, levels.high, levels.medium from the
directory's _snapshot.json).

A default fixture directory that does not exist is skipped with a warning; one
named with --fixtures must exist. A directory whose manifest says it is
unavailable is reported as such, without statistics.

Exit status: 0 reports written, 2 usage or input error (no report is written).`,
		Example: `  # calibrate on the shipped eval set (hybrid and dense fixtures)
  rag-eval calibrate

  # one directory, reports elsewhere
  rag-eval calibrate --fixtures eval/rag-retrieval/fixtures --json-report /tmp/cal.json --markdown-report /tmp/cal.md`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(o)
			}
			return calibrateRun(o)
		},
	}
	flags := cmd.Flags()
	o.evalFlags.add(flags, "", kUsage)
	flags.StringArrayVar(&o.Fixtures, "fixtures", nil, "fixture directory, repeatable (default <dir>/fixtures and <dir>/fixtures-dense)")
	o.reportFlags.add(flags, "<dir>/reports/calibration.json", "<dir>/reports/calibration.md")
	return cmd
}

func calibrateRun(o *calibrateOptions) error {
	if err := o.checkK(); err != nil {
		return err
	}
	o.Default(&o.Cases, cmdutil.CasesFile)
	o.Default(&o.JSONReport, "reports/calibration.json")
	o.Default(&o.MarkdownReport, "reports/calibration.md")
	var outs outputs[*calibrate.Report]
	outs.add("--json-report", o.JSONReport, (*calibrate.Report).WriteJSON)
	outs.add("--markdown-report", o.MarkdownReport, (*calibrate.Report).WriteMarkdown)
	outs.add("--html-report", o.HTMLReport, func(r *calibrate.Report, w io.Writer) error { return htmlreport.Calibration(w, r) })

	// Inputs first: any problem here is exit 2 and no file is touched.
	dirs, explicit := o.Fixtures, len(o.Fixtures) > 0
	if !explicit {
		dirs = []string{filepath.Join(o.Dir, "fixtures"), filepath.Join(o.Dir, "fixtures-dense")}
	}
	if err := outs.check([]input{{"--cases", o.Cases}}, dirs, nil); err != nil {
		return err
	}
	var warnings []string
	var present []string
	for _, d := range dirs {
		fi, err := os.Stat(d)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("fixtures %s: not a directory", d)
		case errors.Is(err, fs.ErrNotExist) && !explicit:
			warnings = append(warnings, fmt.Sprintf("skipping fixture directory %s: it does not exist", d))
			continue
		case err != nil:
			return fmt.Errorf("fixtures: %w", err)
		}
		present = append(present, d)
	}
	if len(present) == 0 {
		return fmt.Errorf("no fixture directory to calibrate on (looked for %s)", strings.Join(dirs, ", "))
	}
	g, casesSHA256, err := cmdutil.LoadCases(o.Cases)
	if err != nil {
		return err
	}
	inputs := make([]calibrate.Input, 0, len(present))
	for _, d := range present {
		in, err := calibrate.Load(g, d, o.K)
		if err != nil {
			return fmt.Errorf("fixtures %s: %w", d, err)
		}
		if in.Result != nil {
			for _, w := range in.Result.Warnings {
				warnings = append(warnings, w.Error())
			}
		}
		inputs = append(inputs, in)
	}
	rep := calibrate.Build(o.Cases, casesSHA256, g.ReportK(o.K), inputs)
	for _, m := range rep.Modes {
		warnings = append(warnings, m.Warnings...)
	}
	// Warnings first, so that a failed write does not lose them.
	for _, w := range warnings {
		fmt.Fprintf(o.IO.ErrOut, "rag-eval: warning: %s\n", w)
	}
	if err := outs.write(rep); err != nil {
		return err
	}
	if !o.Quiet {
		return rep.WriteText(o.IO.Out)
	}
	return nil
}
