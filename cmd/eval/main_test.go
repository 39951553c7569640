package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ragbaseline/ragbaseline/internal/scripttest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rag-eval": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the end-to-end CLI scripts in testdata/script: each is a
// txtar archive of inputs and the rag-eval invocations with their expected
// output and exit status.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"status": scripttest.Status,
		},
	})
}
