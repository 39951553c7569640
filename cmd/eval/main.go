package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes rag-eval with args and returns the process exit code. Errors
// are printed once, here, prefixed "rag-eval: "; an error that only carries
// an exit code (the summary already said what happened) prints nothing.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if ee := (*exitError)(nil); err != nil && !(errors.As(err, &ee) && ee.err == nil) {
		fmt.Fprintf(stderr, "rag-eval: %v\n", err)
	}
	return exitCode(err)
}
