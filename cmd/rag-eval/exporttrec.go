package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

type exportTrecOptions struct {
	evalFlags
	Fixtures, Qrels, Run string
}

// newCmdExportTrec builds rag-eval export-trec: it parses the flags into
// exportTrecOptions and calls runF, or exportTrecRun when runF is nil.
func newCmdExportTrec(_ *cmdutil.Streams, runF func(*exportTrecOptions) error) *cobra.Command {
	o := &exportTrecOptions{}
	cmd := &cobra.Command{
		Use:   "export-trec --qrels FILE --run FILE",
		Short: "Write the judge's document rankings and grades as TREC qrels and run files",
		Long: `export-trec writes, for every case that has a hit level (it names expected
documents and was judged), the case's document ranking as a TREC run (document i
of n scores n-i+1) and its grades as TREC qrels. Any TREC tool then reproduces
the per-case rank metrics of the JSON report:

  recip_rank = reciprocalRank, ndcg_cut.K = ndcgAtK, recall.K = docRecallAtK,
  P.K = precisionAtK, with -c so that cases with an empty ranking count as 0.

Grades are trec_eval relevance levels as they are (0 judged non-relevant, 1
and up relevant), so every trec measure reads the files (-m all_trec, -l 2, …).
Query ids are case ids. Document ids containing white space or '%' are
percent-encoded.`,
		Example: `  rag-eval export-trec --qrels qrels.txt --run run.txt
  rag-eval trec -c -q -m recip_rank -m ndcg_cut.5 -m recall.5 -m P.5 qrels.txt run.txt`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(o)
			}
			return exportTrecRun(o)
		},
	}
	fs := cmd.Flags()
	o.evalFlags.add(fs, "eval set directory; the default of --cases and --fixtures is inside it", kUsageShort)
	fs.StringVar(&o.Fixtures, "fixtures", "", "fixture directory (default <dir>/fixtures)")
	fs.StringVar(&o.Qrels, "qrels", "", "qrels output file (required)")
	fs.StringVar(&o.Run, "run", "", "run output file (required)")
	cmd.MarkFlagRequired("qrels")
	cmd.MarkFlagRequired("run")
	return cmd
}

func exportTrecRun(o *exportTrecOptions) error {
	if err := o.checkK(); err != nil {
		return err
	}
	o.Default(&o.Cases, cmdutil.CasesFile)
	o.Default(&o.Fixtures, "fixtures")
	if samePath(o.Qrels) == samePath(o.Run) {
		return fmt.Errorf("--qrels and --run are the same file %s", o.Qrels)
	}
	// The two files are outputs as a report is: neither may replace the
	// cases or a fixture.
	var outs outputs[exported]
	outs.add("--qrels", o.Qrels, func(e exported, w io.Writer) error { _, err := w.Write(e.qrels); return err })
	outs.add("--run", o.Run, func(e exported, w io.Writer) error { _, err := w.Write(e.run); return err })
	if err := outs.check([]input{{"--cases", o.Cases}}, []string{o.Fixtures}, nil); err != nil {
		return err
	}
	g, _, err := cmdutil.LoadCases(o.Cases)
	if err != nil {
		return err
	}
	res, err := judge.Run(g, o.Fixtures, judge.Options{FlagK: o.K})
	if err != nil {
		return err
	}
	var e exported
	e.qrels, e.run = judge.ExportTREC(res)
	return outs.write(e)
}

// exported is what export-trec writes: the qrels and the run.
type exported struct{ qrels, run []byte }
