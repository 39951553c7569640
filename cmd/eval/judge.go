package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report"
)

// defaultEvalDir is the shipped eval set; every default path is inside it.
const defaultEvalDir = "eval/rag-retrieval"

type judgeOptions struct {
	Dir            string
	Cases          string
	Fixtures       string
	K              int
	JSONReport     string
	MarkdownReport string
	JUnit          string
	Quiet          bool
	KSet           bool // --k was given
	CompareTo      string
	DiffJSON       string
	DiffMarkdown   string

	Stdout, Stderr io.Writer
	Colour         bool
}

func newJudgeFlags(cmd *cobra.Command, o *judgeOptions) {
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", defaultEvalDir, "eval set directory; the default of every other path is inside it")
	f.StringVar(&o.Cases, "cases", "", "golden cases file (default <dir>/cases/golden-cases.json)")
	f.StringVar(&o.Fixtures, "fixtures", "", "fixture directory (default <dir>/fixtures)")
	f.IntVar(&o.K, "k", 0, "K for cases that do not set their own (default: the cases file's k, else 5)")
	f.StringVar(&o.JSONReport, "json-report", "", "JSON report path (default <dir>/reports/baseline.json, or current.json with --compare-to)")
	f.StringVar(&o.MarkdownReport, "markdown-report", "", "Markdown report path (default <dir>/reports/baseline.md, or current.md with --compare-to)")
	f.StringVar(&o.JUnit, "junit", "", "also write a JUnit XML report to this path")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "do not print the summary")
	f.StringVar(&o.CompareTo, "compare-to", "", "baseline JSON report to diff against; a regression exits 3")
	f.StringVar(&o.DiffJSON, "diff-json-report", "", "diff JSON path (default <dir>/reports/baseline-diff.json)")
	f.StringVar(&o.DiffMarkdown, "diff-markdown-report", "", "diff Markdown path (default <dir>/reports/baseline-diff.md)")
}

func (o *judgeOptions) defaults() {
	def := func(p *string, rel string) {
		if *p == "" {
			*p = filepath.Join(o.Dir, rel)
		}
	}
	def(&o.Cases, "cases/golden-cases.json")
	def(&o.Fixtures, "fixtures")
	report := "baseline"
	if o.CompareTo != "" {
		report = "current"
		def(&o.DiffJSON, "reports/baseline-diff.json")
		def(&o.DiffMarkdown, "reports/baseline-diff.md")
	}
	def(&o.JSONReport, "reports/"+report+".json")
	def(&o.MarkdownReport, "reports/"+report+".md")
}

// output is one file the run writes.
type output struct {
	flag, path string
	render     func(io.Writer) error
}

func judgeRun(o *judgeOptions) error {
	o.defaults()
	if o.KSet && o.K < 1 {
		return fmt.Errorf("--k must be at least 1, got %d", o.K)
	}
	outs := []output{{flag: "--json-report", path: o.JSONReport}, {flag: "--markdown-report", path: o.MarkdownReport}}
	if o.JUnit != "" {
		outs = append(outs, output{flag: "--junit", path: o.JUnit})
	}
	if o.CompareTo != "" {
		outs = append(outs, output{flag: "--diff-json-report", path: o.DiffJSON}, output{flag: "--diff-markdown-report", path: o.DiffMarkdown})
	}
	if err := checkOutputs(outs, o.CompareTo, o.Cases, o.Fixtures); err != nil {
		return err
	}

	// Inputs first: any problem here is exit 2 and no file is touched.
	g, casesSHA256, err := loadCases(o.Cases)
	if err != nil {
		return err
	}
	var baseline *report.Report
	if o.CompareTo != "" {
		bdata, err := os.ReadFile(o.CompareTo)
		if err != nil {
			return fmt.Errorf("load baseline: %w", err)
		}
		if baseline, err = report.ReadJSON(bdata); err != nil {
			return fmt.Errorf("load baseline %s: %w", o.CompareTo, err)
		}
	}
	res, err := judge.Run(g, o.Fixtures, judge.Options{FlagK: o.K})
	if err != nil {
		return err
	}
	rep := report.Build(res, o.Cases, casesSHA256)
	outs[0].render = rep.WriteJSON
	outs[1].render = rep.WriteMarkdown
	var diff *report.Diff
	for i := range outs {
		switch outs[i].flag {
		case "--junit":
			outs[i].render = rep.WriteJUnit
		case "--diff-json-report", "--diff-markdown-report":
			if diff == nil {
				diff = report.Compare(baseline, rep, o.CompareTo, o.JSONReport)
			}
			outs[i].render = diff.WriteJSON
			if outs[i].flag == "--diff-markdown-report" {
				outs[i].render = diff.WriteMarkdown
			}
		}
	}
	// Warnings first (a fixture directory that mixes snapshots, orphan
	// fixtures), so that a failed write does not lose them. They are in
	// the reports too.
	for _, w := range res.Warnings {
		fmt.Fprintf(o.Stderr, "rag-eval: warning: %v\n", w)
	}
	if err := writeOutputs(outs); err != nil {
		return err
	}
	if !o.Quiet {
		if err := rep.WriteText(o.Stdout, o.Colour); err != nil {
			return err
		}
		if diff != nil {
			fmt.Fprintf(o.Stdout, "baseline %s: %s", o.CompareTo, diff.Verdict)
			for _, r := range diff.Regressions {
				fmt.Fprintf(o.Stdout, "\n  %s", r)
			}
			fmt.Fprintln(o.Stdout)
		}
	}
	switch {
	case diff != nil && diff.Regressed():
		return silentExit(exitRegression)
	case rep.Summary.PassCount != rep.Summary.CaseCount:
		return silentExit(exitFail)
	}
	return nil
}

// loadCases reads and strictly parses the golden cases file (any problem is
// an input error, exit 2) and returns it with the hex SHA-256 of its bytes,
// which every report records.
func loadCases(path string) (*contract.GoldenFile, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("load golden cases: %w", err)
	}
	g, err := contract.ParseGolden(path, data)
	if err != nil {
		return nil, "", fmt.Errorf("load golden cases:\n%w", err)
	}
	sum := sha256.Sum256(data)
	return g, hex.EncodeToString(sum[:]), nil
}

// checkOutputs rejects output paths that collide with each other, with the
// cases file or with the baseline (a baseline is never overwritten by the
// run that compares against it), or that lie inside a fixture directory
// (a report there would replace a fixture, or be read as one next time).
func checkOutputs(outs []output, baseline, cases string, fixtureDirs ...string) error {
	seen := map[string]string{samePath(cases): "--cases"}
	if baseline != "" {
		seen[samePath(baseline)] = "--compare-to"
	}
	for _, o := range outs {
		key := samePath(o.path)
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%s %s is the same file as %s", o.flag, o.path, prev)
		}
		seen[key] = o.flag
		for _, d := range fixtureDirs {
			if rel, err := filepath.Rel(samePath(d), key); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return fmt.Errorf("%s %s is inside the fixture directory %s", o.flag, o.path, d)
			}
		}
	}
	return nil
}

// samePath returns a key that is equal for two paths naming the same file.
func samePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	} else if errors.Is(err, os.ErrNotExist) {
		if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			return filepath.Join(d, filepath.Base(abs))
		}
	}
	return abs
}

// writeOutputs renders every output concurrently into memory, then writes
// each atomically. A rendering error writes nothing.
func writeOutputs(outs []output) error {
	bufs := make([]bytes.Buffer, len(outs))
	errs := make([]error, len(outs))
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			if err := outs[i].render(&bufs[i]); err != nil {
				errs[i] = fmt.Errorf("render %s: %w", outs[i].path, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, out := range outs {
		if err := atomicfile.WriteFile(out.path, bufs[i].Bytes(), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out.path, err)
		}
	}
	return nil
}
