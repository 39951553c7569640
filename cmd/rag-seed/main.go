package main

import (
	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

// version is set at build time with -ldflags "-X main.version=…", as make
// build, make dist and the Dockerfile do. go install leaves it "dev", and
// --version then prints the module version (cmdutil.Version).
var version = "dev"

// tool is rag-seed. An error that says nothing else is a backend that
// failed mid-run: exit 1. Usage errors and invalid documents say so: exit
// 2. An interrupt stops the seed between documents and releases its lock.
var tool = cmdutil.Tool{Name: "rag-seed", Unmarked: cmdutil.ExitFail, Interrupt: true, Root: newRootCmd}

func main() { tool.Main(version) }

// newRootCmd builds rag-seed: the seed command alone (seed.go).
func newRootCmd(f *cmdutil.Streams) *cobra.Command {
	return newCmdSeed(f, nil)
}
