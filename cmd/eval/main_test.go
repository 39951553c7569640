package main

import (
	"context"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/scripttest"
)

// update rewrites what the tests compare against from what rag-eval does
// now: the scripts' cmp files (testscript's UpdateScripts) and the manual
// in doc.go (TestManual). Review the diff before committing it.
var update = flag.Bool("update", false, "rewrite the scripts' expected files and the manual from the binary's output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"rag-eval": main})
}

// TestScript runs the end-to-end CLI scripts in testdata/script: each is a
// txtar archive of inputs and the rag-eval invocations with their expected
// output and exit status ("status N rag-eval …"; "exec" is status 0).
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status": scripttest.Status,
		},
	})
}

// run runs rag-eval in this process, as main does but without tuning the
// collector, and returns its exit code.
func run(args []string, stdout, stderr io.Writer) cmdutil.ExitCode {
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr}
	return tool.Run(context.Background(), newRootCmd(f), args)
}
