package main

import (
	"errors"
	"io"
	"os"
	"runtime/debug"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

func main() {
	// Judging allocates short-lived fixture text at a high rate while the
	// live heap stays small; collect less often unless GOGC says otherwise,
	// with a soft memory limit well under the 500 MB budget.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(800)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(384 << 20)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes rag-eval with args and returns the process exit code. Errors
// are printed once, here, prefixed "rag-eval: "; an error that only carries
// an exit code (the summary already said what happened) prints nothing.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if ee := (*exitError)(nil); err != nil && !(errors.As(err, &ee) && ee.err == nil) {
		cmdutil.PrintError(stderr, "rag-eval", err)
	}
	return exitCode(err)
}
