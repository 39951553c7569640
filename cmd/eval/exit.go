package main

import (
	"errors"
	"fmt"
)

// Exit codes of rag-eval (docs/reports.md). When several apply, exitUsage wins,
// then exitRegression, then exitFail.
const (
	exitOK         = 0 // every case passed, no regression
	exitFail       = 1 // some case failed, was not run, or errored
	exitUsage      = 2 // usage or input error; no report was written
	exitRegression = 3 // regression against the baseline
)

// exitError carries the exit code chosen for an error. Errors without one
// are usage/input errors (exitUsage).
type exitError struct {
	code int
	err  error // nil when the code is the whole message (fail, regression)
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// silentExit returns an error that only sets the exit code: the command has
// already told the user what happened (the summary on stdout).
func silentExit(code int) error { return &exitError{code: code} }

// exitCode maps an error returned by a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUsage
}
