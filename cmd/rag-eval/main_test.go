package main

import (
	"context"
	"flag"
	"io"
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/testkit/scripttest"
)

// update rewrites what the tests compare against from what rag-eval does
// now: the scripts' cmp files (testscript's UpdateScripts) and the manual
// in doc.go (TestManual). Review the diff before committing it.
var update = flag.Bool("update", false, "rewrite the scripts' expected files and the manual from the binary's output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"rag-eval": main})
}

// TestScript runs the end-to-end CLI scripts in testdata/script. Each is a
// txtar archive of inputs and rag-eval invocations with their exit status:
// "status N rag-eval …" wants exactly N, "exec" wants 0. The outputs are
// compared whole with the archive's files under want/, which -update
// rewrites. The HTML pages and the version are checked in part only, and
// the scripts say why.
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
			"mkfifo": scripttest.Mkfifo,
			"sparse": scripttest.Sparse,
		},
	})
}

// run runs rag-eval in this process, as main does but without tuning the
// collector, and returns its exit code.
func run(args []string, stdout, stderr io.Writer) cmdutil.ExitCode {
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr}
	return tool.Run(context.Background(), tool.Command(f, version), args)
}

// tuneGC: GOGC 800 for every command, the soft memory limit for all but
// trec, and neither where GOGC or GOMEMLIMIT is set.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	root := tool.Command(&cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, version)
	trec, _, err := root.Find([]string{"trec"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name             string
		cmd              *cobra.Command
		gogc, gomemlimit string
		percent          int
		limit            int64
	}{
		{"judge", root, "", "", 800, 384 << 20},
		{"trec", trec, "", "", 800, math.MaxInt64},
		{"GOGC and GOMEMLIMIT set", root, "100", "1GiB", 100, math.MaxInt64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOGC", tt.gogc)
			t.Setenv("GOMEMLIMIT", tt.gomemlimit)
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(math.MaxInt64)
			tuneGC(tt.cmd, nil)
			if p := debug.SetGCPercent(100); p != tt.percent {
				t.Errorf("GC percent %d, want %d", p, tt.percent)
			}
			if l := debug.SetMemoryLimit(-1); l != tt.limit {
				t.Errorf("memory limit %d, want %d", l, tt.limit)
			}
		})
	}
}
