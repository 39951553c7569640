package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

// evalFlags are the flags of every rag-eval command that judges an eval
// set: --dir, --cases and --k.
type evalFlags struct {
	cmdutil.EvalSet
	K     int
	kFlag *pflag.Flag
}

// Usages of --dir and --k that differ between commands.
const (
	kUsage      = "K for cases that do not set their own (default: the cases file's k, else 5)"
	kUsageShort = "K for cases that do not set their own"
)

func (e *evalFlags) add(fs *pflag.FlagSet, dirUsage, kUsage string) {
	e.AddFlags(fs, dirUsage)
	fs.IntVar(&e.K, "k", 0, kUsage)
	e.kFlag = fs.Lookup("k")
}

// kSet reports whether --k was given.
func (e *evalFlags) kSet() bool { return e.kFlag != nil && e.kFlag.Changed }

// checkK rejects a --k below 1. Without --k, K is 0: each case's own K,
// else the cases file's, else 5.
func (e *evalFlags) checkK() error {
	if e.kSet() && e.K < 1 {
		return cmdutil.Usage(fmt.Errorf("--k must be at least 1, got %d", e.K))
	}
	return nil
}

// reportFlags are the flags of a command that writes a JSON and a
// Markdown report and prints a summary.
type reportFlags struct {
	JSONReport     string
	MarkdownReport string
	HTMLReport     string
	Quiet          bool
}

// add defines --json-report, --markdown-report, --html-report and --quiet.
// The help only names the defaults: each command's run sets them with
// evalFlags.Default. --html-report has no default.
func (r *reportFlags) add(fs *pflag.FlagSet, jsonDefault, markdownDefault string) {
	fs.StringVar(&r.JSONReport, "json-report", "", "JSON report path (default "+jsonDefault+")")
	fs.StringVar(&r.MarkdownReport, "markdown-report", "", "Markdown report path (default "+markdownDefault+")")
	fs.StringVar(&r.HTMLReport, "html-report", "", "also write a self-contained HTML report to this path (one file, readable offline)")
	fs.BoolVarP(&r.Quiet, "quiet", "q", false, "do not print the summary")
}
