package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/metrics"
)

// trecOptions are the flags of rag-eval trec.
type trecOptions struct {
	qrelsPath, runPath string
	measures           []string
	perQuery           bool
	complete           bool
	relLevel           int
	maxRetrieved       int
	maxSet             bool
	decimals           int
	decimalsSet        bool
	judgedOnly         bool
	numDocs            int64
	zscoresPath        string
	relFormat          string
	resultsFormat      string
	noSummary          bool
	version            bool   // -v: print the version and exit
	debugLevel         string // -D: refused (see trecRun)

	IO *cmdutil.Streams // In is RUN "-"
}

const trecLongHead = `Evaluate a TREC run against TREC qrels and print exactly what trec_eval 9.0.8
prints for the same arguments (docs/checks.md); trec_eval's own test suite
("make quicktest") passes byte for byte.

QRELS has lines "qid iter docno rel"; RUN has lines "qid iter docno rank score
tag" ("-" reads RUN from standard input). Documents are ranked by score
descending, ties broken by docno in descending byte order; the rank column is
ignored. Queries of the run without judgments are ignored; qrels queries
without results are skipped unless -c, which counts them as zero. A docno
repeated within an evaluated query is an error, and so is a run that shares
no query with the qrels.

-m names a measure or a measure set and is repeatable; measures print in
trec_eval's order, not the order given. Without -m: -m official. Parameters
follow a '.': cutoffs "P.5,10" (P_5, P_10), recall fractions
"iprec_at_recall..1,.5", coefficients "utility.2,-1,0,0", gains per level
"ndcg.1=3,2=9". Sets:
  official   runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref
             recip_rank iprec_at_recall P
  all_trec   every measure below that reads qrels
  set        runid num_q num_ret num_rel num_rel_ret utility set_*
  qrels_jg   runid num_q map_avgjg P_avgjg Rprec_mult_avgjg (with -R qrels_jg)
  all_prefs  runid num_q prefs_* (with -R prefs or qrels_prefs)
  prefs      runid num_q prefs_num_prefs_* prefs_simp prefs_pair prefs_avgjg

Measures (default parameters after the name):
`

const trecLongTail = `
Each line is "%-22s\t%s\t%6.4f": measure, query id (or "all"), value; num_*
are integers, runid and relstring text. "all" is the mean over the evaluated
queries (num_* are sums, gm_* geometric means). -Z prints z scores, names
prefixed with "Z".

-v prints which evaluator this is (rag-eval's, compatible with trec_eval
9.0.8) and rag-eval's version, on standard output, and exits. trec_eval's -D
(debug trace) is refused, not ignored: "-D N.QID" also makes trec_eval
evaluate query QID alone, so ignoring it would print other numbers than the
command asks for.

See the documentation of package internal/metrics for every rule, the traps
of the measures' definitions, and the few places where rag-eval
deliberately differs from trec_eval.`

// trecLong is the long help: trecLongHead, the measures, trecLongTail.
func trecLong() string {
	var b strings.Builder
	b.WriteString(trecLongHead)
	format := "qrels"
	for _, m := range metrics.Measures() {
		if m.Format != format {
			format = m.Format
			switch format {
			case "prefs":
				b.WriteString("With -R prefs (\"qid jg jsg docno level\" lines: within a judgment sub-group\njsg of judgment group jg, a higher level is preferred) or -R qrels_prefs (qrels\nread as preferences, the second field the jg):\n")
			default:
				fmt.Fprintf(&b, "With -R %s (the qrels' second field names a judgment group; averaged over\nthe groups of a query):\n", format)
			}
		}
		name := m.Name + m.Params
		if len(name) > 24 {
			fmt.Fprintf(&b, "  %s\n  %-24s %s\n", name, "", m.Doc)
			continue
		}
		fmt.Fprintf(&b, "  %-24s %s\n", name, m.Doc)
	}
	b.WriteString(trecLongTail)
	return b.String()
}

const trecExample = `  # trec_eval qrels.txt run.txt: the official measures
  rag-eval trec qrels.txt run.txt

  # every measure, per query
  rag-eval trec -q -m all_trec qrels.txt run.txt

  # trec_eval -q -m map -m P.5,10 -m ndcg_cut.10 qrels.txt run.txt
  rag-eval trec -q -m map -m P.5,10 -m ndcg_cut.10 qrels.txt run.txt

  # MS MARCO style: MRR@10 over every judged query
  rag-eval trec -c -M 10 -m recip_rank qrels.txt run.txt

  # graded judgments, relevant means grade >= 2
  rag-eval trec -l 2 -m recall.10,100 -m ndcg_cut.10 qrels.txt run.txt`

// newCmdTrec builds rag-eval trec: it parses the flags and arguments into
// trecOptions and calls runF, or trecRun when runF is nil.
func newCmdTrec(f *cmdutil.Streams, runF func(*trecOptions) error) *cobra.Command {
	opts := &trecOptions{IO: f}
	cmd := &cobra.Command{
		Use:     "trec [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-Z FILE] [-R FORMAT] [-m MEASURE[.p,p…]]… QRELS RUN",
		Short:   "Evaluate a TREC run against qrels, printing what trec_eval 9.0.8 prints",
		Long:    trecLong(),
		Example: trecExample,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.version {
				return nil // trec_eval -v exits before looking at files
			}
			return cobra.ExactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.version {
				_, err := fmt.Fprintf(opts.IO.Out, "rag-eval trec: trec_eval 9.0.8-compatible evaluator, rag-eval version %s\n", cmd.Root().Version)
				return err
			}
			if cmd.Flags().Changed("Debug_level") {
				return fmt.Errorf("-D %s: trec_eval's debug trace is not implemented (and -D N.QID would evaluate QID alone): drop -D, and to see one query use -q or keep only its lines in the run", opts.debugLevel)
			}
			opts.qrelsPath, opts.runPath = args[0], args[1]
			opts.maxSet = cmd.Flags().Changed("Max_retrieved_per_topic")
			opts.decimalsSet = cmd.Flags().Changed("decimals")
			if runF != nil {
				return runF(opts)
			}
			return trecRun(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&opts.measures, "measure", "m", nil, "`MEASURE` or measure set to compute, with parameters as MEASURE.p,p,… (repeatable; default official)")
	fs.BoolVarP(&opts.perQuery, "query_eval_wanted", "q", false, "print each query's values before the \"all\" values")
	fs.BoolVarP(&opts.complete, "complete_rel_info_wanted", "c", false, "average over every qrels query; queries without results count as zero")
	fs.IntVarP(&opts.relLevel, "level_for_rel", "l", metrics.DefaultRelLevel, "a document is relevant when its grade is >= `N`")
	fs.IntVarP(&opts.maxRetrieved, "Max_retrieved_per_topic", "M", 0, "evaluate only the first `N` documents of each ranking (default: all)")
	fs.BoolVarP(&opts.judgedOnly, "Judged_docs_only", "J", false, "drop retrieved documents without a judgment before computing anything")
	fs.Int64VarP(&opts.numDocs, "Number_docs_in_coll", "N", 0, "number of documents in the collection (utility's fourth coefficient)")
	fs.StringVarP(&opts.zscoresPath, "Zscore", "Z", "", "print z scores against the \"qid measure mean stddev\" lines of `FILE`")
	fs.StringVarP(&opts.relFormat, "Rel_info_format", "R", "qrels", "format of QRELS: qrels, qrels_jg (second field = judgment group), prefs (\"qid jg jsg docno level\") or qrels_prefs (qrels read as preferences)")
	fs.StringVarP(&opts.resultsFormat, "Results_format", "T", "trec_results", "format of RUN: trec_results")
	fs.BoolVarP(&opts.noSummary, "nosummary", "n", false, "print no \"all\" lines")
	fs.BoolVarP(&opts.version, "version", "v", false, "print which evaluator this is and rag-eval's version, and exit")
	fs.StringVarP(&opts.debugLevel, "Debug_level", "D", "", "trec_eval's debug trace: not implemented, refused with an error")
	fs.IntVar(&opts.decimals, "decimals", 0, "print `D` decimals instead of trec_eval's 4 (not trec_eval output; for cross-checks)")
	return cmd
}

// trecRun does the work of rag-eval trec. Every error it returns is an input
// or usage error (exit code 2).
func trecRun(opts *trecOptions) error {
	measures := opts.measures
	if len(measures) == 0 {
		// trec_eval.c: no -m means -m official.
		measures = []string{"official"}
	}
	mo := metrics.DefaultOptions(measures...)
	mo.Complete = opts.complete
	mo.JudgedOnly = opts.judgedOnly
	mo.NumDocs = opts.numDocs
	mo.RelLevel = opts.relLevel
	if opts.maxSet {
		if opts.maxRetrieved < 0 {
			return fmt.Errorf("-M %d: the number of documents must be >= 0", opts.maxRetrieved)
		}
		mo.MaxRetrieved = opts.maxRetrieved
	}
	// 0 is the flag's "not given", which prints trec_eval's 4 decimals.
	// Asked for, 0 would silently print 4.
	if opts.decimals < 0 || opts.decimals > 30 || opts.decimalsSet && opts.decimals == 0 {
		return fmt.Errorf("--decimals %d: want 1 to 30", opts.decimals)
	}
	if err := metrics.ValidateMeasures(measures); err != nil {
		return err
	}
	if opts.resultsFormat != "trec_results" {
		return fmt.Errorf("-T %s: the only results format is trec_results", opts.resultsFormat)
	}
	readQrels := metrics.ReadQrels
	switch opts.relFormat {
	case "qrels", "qrels_jg":
	case "prefs":
		readQrels = metrics.ReadPrefs
	case "qrels_prefs":
		readQrels = metrics.ReadQrelsPrefs
	default:
		return fmt.Errorf("-R %s: the formats are qrels, qrels_jg, prefs and qrels_prefs", opts.relFormat)
	}
	mo.RelFormat = opts.relFormat
	if opts.zscoresPath != "" {
		z, err := readTrec(opts.zscoresPath, nil, metrics.ReadZScores)
		if err != nil {
			return fmt.Errorf("read z scores: %w", err)
		}
		mo.ZScores = z
	}

	// Read the two files at once: on two cores that hides the qrels.
	var qrels *metrics.Qrels
	qerr := make(chan error, 1)
	go func() {
		var err error
		qrels, err = readTrec(opts.qrelsPath, nil, readQrels)
		qerr <- err
	}()
	run, rerr := readTrec(opts.runPath, opts.IO.In, metrics.ReadRun)
	if err := <-qerr; err != nil {
		return fmt.Errorf("read qrels: %w", err)
	}
	if rerr != nil {
		return fmt.Errorf("read run: %w", rerr)
	}
	res, err := metrics.Eval(mo, qrels, run)
	if err != nil {
		return fmt.Errorf("trec: %w", err)
	}
	return metrics.WriteText(opts.IO.Out, res, metrics.TextOptions{PerQuery: opts.perQuery, Decimals: opts.decimals, NoSummary: opts.noSummary})
}

// readTrec opens path ("-" is stdin when stdin is not nil) and reads it with
// read. A path must name a regular file (contract.OpenFile, a symbolic link
// followed), as for trec_eval, which cannot read a pipe either. It is read
// whole, with no cap: a run of 1,000 documents for 50,000 queries is 2 GB.
func readTrec[T any](path string, stdin io.Reader, read func(io.Reader, string) (T, error)) (T, error) {
	if path == "-" && stdin != nil {
		return read(stdin, "<stdin>")
	}
	f, _, err := contract.OpenFile(path, true)
	if err != nil {
		var zero T
		if stdin != nil && errors.Is(err, contract.ErrRefused) {
			err = fmt.Errorf("%w (- reads the run from standard input)", err)
		}
		return zero, err
	}
	defer f.Close()
	return read(f, path)
}
