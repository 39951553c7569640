package eval

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
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

	IO *cmdutil.Streams // In is RUN "-"
}

const trecLong = `Evaluate a TREC run against TREC qrels and print exactly what trec_eval 9.0.8
prints for the same arguments (docs/checks.md).

QRELS has lines "qid iter docno rel"; RUN has lines "qid iter docno rank score
tag" ("-" reads RUN from standard input). Documents are ranked by score
descending, ties broken by docno in descending byte order; the rank column is
ignored. Queries of the run without judgments are ignored; qrels queries
without results are skipped unless -c, which counts them as zero. A docno
repeated within an evaluated query is an error, and so is a run that shares
no query with the qrels.

Measures (-m, repeatable; printed in trec_eval's order, not the order given):
  num_q num_ret num_rel num_rel_ret map Rprec recip_rank
  P recall ndcg_cut success    cutoff measures: P.5,10 names P_5 and P_10;
                               without cutoffs P, recall and ndcg_cut use
                               5,10,15,20,30,100,200,500,1000, success 1,5,10
trec_eval's other measures and measure sets (official, all_trec, …) are not
computed; name the measures you want.

Each line is "%-22s\t%s\t%6.4f": measure, query id (or "all"), value; num_*
are integers. "all" is the mean over the evaluated queries (num_* are sums).

See the documentation of package internal/metrics for every rule and the few
places where rag-eval deliberately differs from trec_eval.`

const trecExample = `  # trec_eval -q -m map -m P.5,10 -m ndcg_cut.10 qrels.txt run.txt
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
		Use:     "trec [-q] [-c] [-l N] [-M N] -m MEASURE[.k,k…] … QRELS RUN",
		Short:   "Evaluate a TREC run against qrels, printing what trec_eval 9.0.8 prints",
		Long:    trecLong,
		Example: trecExample,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.qrelsPath, opts.runPath = args[0], args[1]
			opts.maxSet = cmd.Flags().Changed("Max_retrieved_per_topic")
			if runF != nil {
				return runF(opts)
			}
			return trecRun(opts)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&opts.measures, "measure", "m", nil, "`MEASURE` to compute, with cutoffs as MEASURE.k,k,… (repeatable, required)")
	fs.BoolVarP(&opts.perQuery, "query_eval_wanted", "q", false, "print each query's values before the \"all\" values")
	fs.BoolVarP(&opts.complete, "complete_rel_info_wanted", "c", false, "average over every qrels query; queries without results count as zero")
	fs.IntVarP(&opts.relLevel, "level_for_rel", "l", metrics.DefaultRelLevel, "a document is relevant when its grade is >= `N`")
	fs.IntVarP(&opts.maxRetrieved, "Max_retrieved_per_topic", "M", 0, "evaluate only the first `N` documents of each ranking (default: all)")
	fs.IntVar(&opts.decimals, "decimals", 0, "print `D` decimals instead of trec_eval's 4 (not trec_eval output; for cross-checks)")
	return cmd
}

// trecRun does the work of rag-eval trec. Every error it returns is an input
// or usage error (exit code 2).
func trecRun(opts *trecOptions) error {
	mo := metrics.DefaultOptions(opts.measures...)
	mo.Complete = opts.complete
	mo.RelLevel = opts.relLevel
	if opts.maxSet {
		if opts.maxRetrieved < 0 {
			return fmt.Errorf("-M %d: the number of documents must be >= 0", opts.maxRetrieved)
		}
		mo.MaxRetrieved = opts.maxRetrieved
	}
	if opts.decimals < 0 || opts.decimals > 30 {
		return fmt.Errorf("--decimals %d: want 1 to 30", opts.decimals)
	}
	if err := metrics.ValidateMeasures(opts.measures); err != nil {
		return err
	}

	// Read the two files at once: on two cores that hides the qrels.
	var qrels *metrics.Qrels
	qerr := make(chan error, 1)
	go func() {
		var err error
		qrels, err = readTrec(opts.qrelsPath, nil, metrics.ReadQrels)
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
	return metrics.WriteText(opts.IO.Out, res, metrics.TextOptions{PerQuery: opts.perQuery, Decimals: opts.decimals})
}

// readTrec opens path ("-" is stdin when stdin is not nil) and reads it with
// read.
func readTrec[T any](path string, stdin io.Reader, read func(io.Reader, string) (T, error)) (T, error) {
	if path == "-" && stdin != nil {
		return read(stdin, "<stdin>")
	}
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f, path)
}
