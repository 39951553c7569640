package main

import (
	"os"
	"runtime/debug"

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
var tool = cmdutil.Tool{Name: "rag-seed", Unmarked: cmdutil.ExitFail, Interrupt: true, Root: newRootCmd, PreRun: tuneGC}

func main() { tool.Main(version) }

// newRootCmd builds rag-seed: the seed command alone (seed.go).
func newRootCmd(f *cmdutil.Streams) *cobra.Command {
	return newCmdSeed(f, nil)
}

// tuneGC is rag-seed's one decision about the garbage collector, made
// where GOGC leaves it open. The embedded index keeps every vector on the
// heap. Collecting when the heap has grown by half, not doubled, keeps a
// seed of 100,000 chunks under 1 GB (docs/performance.md).
func tuneGC(*cobra.Command, []string) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}
