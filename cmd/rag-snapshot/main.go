package main

import (
	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

// version is set at build time with -ldflags "-X main.version=…", as make
// build, make dist and the Dockerfile do. go install leaves it "dev", and
// --version then prints the module version (cmdutil.Version).
var version = "dev"

// tool is rag-snapshot. An error that says nothing else is a failed case,
// pipeline or store: exit 1. Usage and input errors say so: exit 2. An
// interrupt stops a snapshot without moving anything in, and drains serve.
var tool = cmdutil.Tool{Name: "rag-snapshot", Unmarked: cmdutil.ExitFail, Interrupt: true, Root: newRootCmd}

func main() { tool.Main(version) }

// newRootCmd builds rag-snapshot: the snapshot (snapshot.go), with serve
// (serve.go).
func newRootCmd(f *cmdutil.Streams) *cobra.Command {
	root := newCmdSnapshot(f, nil)
	root.AddCommand(newCmdServe(f, nil))
	return root
}
