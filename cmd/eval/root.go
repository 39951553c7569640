package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &judgeOptions{Stdout: stdout, Stderr: stderr, Colour: isTerminal(stdout)}
	root := &cobra.Command{
		Use:   "rag-eval",
		Short: "Judge frozen retrieval fixtures against golden cases, offline",
		Long: `rag-eval judges the fixtures written by rag-snapshot against the golden cases,
without any service: it reads files and writes reports.

Exit status: 0 every case passed (and no regression), 1 some case failed, was
not run or errored, 2 usage or input error (no report is written), 3 regression
against the --compare-to baseline. When several apply: 2, then 3, then 1.`,
		Example: `  # judge the shipped eval set, write eval/rag-retrieval/reports/baseline.json|md
  rag-eval

  # judge in CI against the accepted baseline; exit 3 on regression
  rag-eval --compare-to eval/rag-retrieval/reports/baseline.json --junit junit.xml

  # hybrid (fixtures/) vs dense (fixtures-dense/), with significance tests
  rag-eval compare

  # how well qualityScore separates relevant from irrelevant blocks, per mode
  rag-eval calibrate

  # reproduce the rank metrics with trec_eval
  rag-eval export-trec --qrels q.txt --run r.txt && rag-eval trec -c -q -m recip_rank q.txt r.txt`,
		Version:       version,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.KSet = cmd.Flags().Changed("k")
			return judgeRun(o)
		},
	}
	newJudgeFlags(root, o)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newTrecCmd(stdout), newExportTrecCmd(stdout), newCompareCmd(stdout, stderr), newCalibrateCmd(stdout))
	return root
}

// isTerminal reports whether w is a character device and colour is not
// switched off with NO_COLOR.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
