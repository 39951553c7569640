package eval

import (
	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

// version is what --version prints: set by Main from cmd/rag-eval's
// main.version, which make build sets with -ldflags "-X main.version=…".
var version = "dev"

// tool is rag-eval: an error that says nothing else is a usage or input
// error (docs/reports.md); a failed case (1) and a regression (3) say so.
var tool = cmdutil.Tool{Name: "rag-eval", Unmarked: cmdutil.ExitUsage}

// newRootCmd builds rag-eval: the judge, with its subcommands.
func newRootCmd(f *cmdutil.Streams) *cobra.Command {
	root := newCmdJudge(f, nil)
	root.Version = version
	root.AddCommand(newCmdTrec(f, nil), newCmdExportTrec(f, nil), newCmdCompare(f, nil), newCmdCalibrate(f, nil))
	root.AddCommand(newCmdInit(f, nil))
	root.AddCommand(newCmdTrecCompare(f, nil))
	cmdutil.Setup(root, f)
	return root
}
