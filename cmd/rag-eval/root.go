package main

import (
	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

// tool is rag-eval. An error that says nothing else is a usage or input
// error (docs/reports.md). A failed case (1) and a regression (3) say so.
var tool = cmdutil.Tool{Name: "rag-eval", Unmarked: cmdutil.ExitUsage, Root: newRootCmd, PreRun: tuneGC}

// newRootCmd builds rag-eval: the judge, with its subcommands.
func newRootCmd(f *cmdutil.Streams) *cobra.Command {
	root := newCmdJudge(f, nil)
	root.AddCommand(newCmdTrec(f, nil), newCmdExportTrec(f, nil), newCmdCompare(f, nil), newCmdCalibrate(f, nil))
	root.AddCommand(newCmdInit(f, nil))
	root.AddCommand(newCmdTrecCompare(f, nil))
	root.AddCommand(newCmdDraft(f, nil))
	return root
}
