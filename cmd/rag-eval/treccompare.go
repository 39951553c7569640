package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/metrics"
	"github.com/ragbaseline/ragbaseline/internal/report/htmlreport"
)

// trecCompareOptions are the flags of rag-eval trec-compare.
type trecCompareOptions struct {
	qrelsPath    string
	runPaths     []string
	measures     []string
	complete     bool
	relLevel     int
	maxRetrieved int
	maxSet       bool
	baseline     string
	reportFlags

	IO *cmdutil.Streams
}

const trecCompareLong = `Compare two or more TREC runs over the same qrels, query by query, with the
paired statistics of rag-eval compare (docs/reports.md).

Each run is evaluated exactly as rag-eval trec evaluates it with the same -c,
-l, -M and -m (same per-query values; each run's mean is the "all" value rag-eval
trec prints). Every pair of runs is then compared over its queries (or, with
--baseline NAME, every run against that one): per measure both means, Δ = a − b,
a 95% bootstrap interval, a paired sign-flip randomization p-value, win/tie/loss
counts and the p-value adjusted by Holm–Bonferroni over every p-value of the
report. num_* measures are counts, gm_map and gm_bpref have no per-query
value (a geometric mean), runid and relstring are text: none is compared.

A query judged in the qrels but absent from a run counts 0 in its pairs with -c
(as trec_eval -c averages it); without -c it is dropped from the pairs of that
run (two runs with no query in common have nothing to compare). The reports
say which.

A run is named by the tag (6th column) of its first line; when a run has no
tag or two runs would share a name, every run is named by its file name
instead, and by its path when file names collide too.

Outputs: the text summary on stdout (unless --quiet), a JSON report with
--json-report, a Markdown report with --markdown-report and a self-contained
HTML page (means, pairs, a forest plot of the intervals) with --html-report.
The statistics use a fixed random seed per pair: the same files give the same
bytes.

Exit status: 0 the comparison was written, 2 usage or input error (nothing is
written).`

const trecCompareExample = `  # three runs, every pair, MAP, P@10 and nDCG@10
  rag-eval trec-compare -m map -m P.10 -m ndcg_cut.10 qrels.txt bm25.run dense.run hybrid.run

  # every run against bm25, counting missing queries as 0, into reports
  rag-eval trec-compare -c -m map -m ndcg_cut.10 --baseline bm25 \
    --json-report cmp.json --markdown-report cmp.md qrels.txt bm25.run dense.run hybrid.run`

// newCmdTrecCompare builds rag-eval trec-compare: it parses the flags and
// arguments into trecCompareOptions and calls runF, or trecCompareRun when
// runF is nil.
func newCmdTrecCompare(f *cmdutil.Streams, runF func(*trecCompareOptions) error) *cobra.Command {
	opts := &trecCompareOptions{IO: f}
	cmd := &cobra.Command{
		Use:     "trec-compare [-c] [-l N] [-M N] -m MEASURE[.k,k…] … [--baseline NAME] QRELS RUN RUN [RUN…]",
		Short:   "Compare TREC runs against qrels with paired significance tests (every pair or against a baseline)",
		Long:    trecCompareLong,
		Example: trecCompareExample,
		Args:    cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.qrelsPath, opts.runPaths = args[0], args[1:]
			opts.maxSet = cmd.Flags().Changed("Max_retrieved_per_topic")
			if runF != nil {
				return runF(opts)
			}
			return trecCompareRun(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&opts.measures, "measure", "m", nil, "`MEASURE` to compare, with cutoffs as MEASURE.k,k,… (repeatable, required)")
	fs.BoolVarP(&opts.complete, "complete_rel_info_wanted", "c", false, "compare over every qrels query; a query a run lacks counts as zero")
	fs.IntVarP(&opts.relLevel, "level_for_rel", "l", metrics.DefaultRelLevel, "a document is relevant when its grade is >= `N`")
	fs.IntVarP(&opts.maxRetrieved, "Max_retrieved_per_topic", "M", 0, "evaluate only the first `N` documents of each ranking (default: all)")
	fs.StringVar(&opts.baseline, "baseline", "", "compare every run against the run `NAME` only (default: every pair)")
	fs.StringVar(&opts.JSONReport, "json-report", "", "also write the JSON report to this path")
	fs.StringVar(&opts.MarkdownReport, "markdown-report", "", "also write the Markdown report to this path")
	fs.StringVar(&opts.HTMLReport, "html-report", "", "also write a self-contained HTML report to this path (one file, readable offline)")
	fs.BoolVar(&opts.Quiet, "quiet", false, "do not print the summary")
	return cmd
}

// trecCompareRun does the work of rag-eval trec-compare. Every error it
// returns is an input or usage error (exit code 2).
func trecCompareRun(opts *trecCompareOptions) error {
	mo := metrics.DefaultOptions(opts.measures...)
	mo.Complete = opts.complete
	mo.RelLevel = opts.relLevel
	var maxRet *int
	if opts.maxSet {
		if opts.maxRetrieved < 0 {
			return fmt.Errorf("-M %d: the number of documents must be >= 0", opts.maxRetrieved)
		}
		mo.MaxRetrieved = opts.maxRetrieved
		maxRet = &opts.maxRetrieved
	}
	if len(opts.measures) == 0 {
		return fmt.Errorf("name the measures to compare with -m (for example -m map -m P.10 -m ndcg_cut.10)")
	}
	if err := metrics.ValidateMeasures(opts.measures); err != nil {
		return err
	}
	// An output on the qrels is refused as judge refuses one on its cases,
	// with the same message.
	var outs outputs[*compare.TrecReport]
	outs.add("--json-report", opts.JSONReport, (*compare.TrecReport).WriteJSON)
	outs.add("--markdown-report", opts.MarkdownReport, (*compare.TrecReport).WriteMarkdown)
	outs.add("--html-report", opts.HTMLReport, func(r *compare.TrecReport, w io.Writer) error { return htmlreport.TrecCompare(w, r) })
	if err := outs.check([]input{{"the qrels", opts.qrelsPath}}, nil, opts.runPaths); err != nil {
		return err
	}

	seen := map[string]string{}
	for _, p := range opts.runPaths {
		key := samePath(p)
		if prev, ok := seen[key]; ok {
			if prev == p {
				return fmt.Errorf("the run %s is given twice", p)
			}
			return fmt.Errorf("the runs %s and %s are the same file", prev, p)
		}
		seen[key] = p
	}
	qf, err := readCompareFile(opts.qrelsPath, metrics.ReadQrels)
	if err != nil {
		return fmt.Errorf("read qrels: %w", err)
	}
	// Read and evaluate the runs on every core. The first error in argument
	// order is the one returned.
	runs := make([]compare.TrecRun, len(opts.runPaths))
	tags := make([]string, len(opts.runPaths))
	errs := make([]error, len(opts.runPaths))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, path := range opts.runPaths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			rf, err := readCompareFile(path, metrics.ReadRun)
			if err != nil {
				errs[i] = fmt.Errorf("read run: %w", err)
				return
			}
			res, err := metrics.Eval(mo, qf.v, rf.v)
			if err != nil {
				errs[i] = fmt.Errorf("trec-compare: %s: %w", path, err)
				return
			}
			runs[i] = compare.TrecRun{Path: path, SHA256: rf.sha256, Result: res}
			tags[i] = rf.tag
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	names := runNames(opts.runPaths, tags)
	for i := range runs {
		runs[i].Name = names[i]
	}
	base, err := baselineIndex(opts.baseline, names)
	if err != nil {
		return err
	}
	for _, c := range runs[0].Result.Columns {
		switch {
		case c.Text:
			fmt.Fprintf(opts.IO.ErrOut, "rag-eval: warning: %s is text, not compared\n", c.Name)
		case c.Integer:
			fmt.Fprintf(opts.IO.ErrOut, "rag-eval: warning: %s is a count, not compared\n", c.Name)
		case c.SummaryOnly:
			fmt.Fprintf(opts.IO.ErrOut, "rag-eval: warning: %s has no per-query value, not compared\n", c.Name)
		}
	}
	in := compare.TrecInputs{Qrels: opts.qrelsPath, QrelsSHA256: qf.sha256, Measures: opts.measures,
		Complete: opts.complete, RelLevel: opts.relLevel, MaxRetrieved: maxRet}
	rep, err := compare.BuildTrec(in, qf.v, runs, base, 0)
	if err != nil {
		return err
	}
	if err := outs.write(rep); err != nil {
		return err
	}
	if opts.Quiet {
		return nil
	}
	return rep.WriteText(opts.IO.Out)
}

// comparedFile is a qrels or run file read by metrics, with the SHA-256 of
// its bytes and, for a run, the tag of its first result line.
type comparedFile[T any] struct {
	v      T
	sha256 string
	tag    string
}

// readCompareFile reads path with read, hashing the bytes read. path must
// name a regular file, as for rag-eval trec (readTrec).
func readCompareFile[T any](path string, read func(io.Reader, string) (T, error)) (comparedFile[T], error) {
	var out comparedFile[T]
	f, _, err := contract.OpenFile(path, true)
	if err != nil {
		return out, err
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 1<<16)
	out.tag = firstTag(br)
	if out.v, err = read(br, path); err != nil {
		return out, err
	}
	if _, err := io.Copy(h, f); err != nil {
		return out, err
	}
	out.sha256 = hex.EncodeToString(h.Sum(nil))
	return out, nil
}

// firstTag peeks at the start of a run file and returns the 6th field of
// its first line that is not blank, "" when there is none in the first 64
// KiB. A line starting with '#' is a line like any other, as the metrics
// reader reads it.
func firstTag(br *bufio.Reader) string {
	head, err := br.Peek(br.Size())
	whole := err != nil // the peek holds the whole file
	for len(head) > 0 {
		line, rest, found := bytes.Cut(head, []byte("\n"))
		if !found && !whole {
			return "" // the line goes on beyond the peek
		}
		head = rest
		// Fields split as the metrics reader splits them: C white space.
		fields := bytes.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\v' || r == '\f' || r == '\r'
		})
		if len(fields) == 0 {
			continue
		}
		if len(fields) >= 6 {
			return string(fields[5])
		}
		return ""
	}
	return ""
}

// runNames names the runs by their tags. When a tag is missing or two
// would coincide, it names them by their file names, then by their paths.
func runNames(paths, tags []string) []string {
	distinct := func(ns []string) bool {
		seen := map[string]bool{}
		for _, n := range ns {
			if n == "" || seen[n] {
				return false
			}
			seen[n] = true
		}
		return true
	}
	if distinct(tags) {
		return tags
	}
	base := make([]string, len(paths))
	for i, p := range paths {
		base[i] = filepath.Base(p)
	}
	if distinct(base) {
		return base
	}
	return slices.Clone(paths)
}
