package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/metrics"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// TrecRun is one TREC run to compare: its name, its file and its
// evaluation by metrics.Eval.
type TrecRun struct {
	Name   string
	Path   string
	SHA256 string
	Result *metrics.Result
}

// TrecInputs identify what the runs were evaluated against and how, as
// rag-eval trec's flags say it.
type TrecInputs struct {
	Qrels       string `json:"qrels"`
	QrelsSHA256 string `json:"qrelsSha256"`
	// Measures are the -m arguments as given.
	Measures []string `json:"measures"`
	// Complete is -c, RelLevel is -l and MaxRetrieved is -M. A null
	// MaxRetrieved is no limit.
	Complete     bool `json:"complete"`
	RelLevel     int  `json:"relLevel"`
	MaxRetrieved *int `json:"maxRetrieved"`
	// Missing says what a query judged in the qrels but absent from a run
	// is in a pair. With -c it is "zero": the query scores 0 on every
	// measure, as trec_eval -c averages it. Without -c it is "dropped": the
	// pair leaves the query out, and each run's mean is still over its own
	// queries.
	Missing string `json:"missing"`
	// Queries is the number of queries compared: the judged queries with
	// -c, else those evaluated in at least one run.
	Queries int `json:"queries"`
}

// TrecSide is one run's identity and coverage.
type TrecSide struct {
	Name   string `json:"name"`
	Run    string `json:"run"`
	SHA256 string `json:"sha256"`
	Status string `json:"status"`
	// Queries is the number of queries evaluated, those in the run and the
	// qrels. Missing is the number of judged queries the run has no result
	// for.
	Queries int `json:"queries"`
	Missing int `json:"missing"`
}

// TrecReport is a comparison of TREC runs (rag-eval trec-compare,
// docs/reports.md): the same statistics as Report over queries instead of
// golden cases, without per-case detail. Field order is the JSON key
// order.
type TrecReport struct {
	SchemaVersion int        `json:"schemaVersion"`
	Sides         []TrecSide `json:"sides"`
	Comparison
	Tool   string     `json:"tool"`
	Inputs TrecInputs `json:"inputs"`
	Method Method     `json:"method"`
}

// TrecMeasures returns the indices of the columns of r that are compared:
// the per-query numbers, not the counts (num_q, num_ret, num_rel,
// num_rel_ret: their "all" value is a sum), the values of "all" only
// (gm_map, gm_bpref, runid) nor the text of relstring.
func TrecMeasures(r *metrics.Result) []int {
	var out []int
	for i, c := range r.Columns {
		if !c.Integer && !c.SummaryOnly && !c.Text {
			out = append(out, i)
		}
	}
	return out
}

// BuildTrec compares runs evaluated with the same options against qrels.
// It compares every pair, or every run against runs[baseline] when
// baseline ≥ 0. The items are the queries in byte order. With in.Complete
// they are every judged query, a run's missing ones counting 0. Otherwise
// they are every query some run evaluated, and a pair uses those both runs
// evaluated. Each run's mean of a measure is then the "all" value rag-eval
// trec prints for it. Pairs are computed on up to workers goroutines, one
// per CPU for 0.
func BuildTrec(in TrecInputs, qrels *metrics.Qrels, runs []TrecRun, baseline, workers int) (*TrecReport, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no run to compare")
	}
	cols := TrecMeasures(runs[0].Result)
	if len(cols) == 0 {
		return nil, fmt.Errorf("no measure to compare: num_q, num_ret, num_rel and num_rel_ret are counts; name per-query measures such as map, P.10 or ndcg_cut.10")
	}
	t := &Table{}
	for _, c := range cols {
		t.Metrics = append(t.Metrics, runs[0].Result.Columns[c].Name)
	}
	var qids []string
	if in.Complete {
		qids = qrels.QueryIDs()
		in.Missing = "zero"
	} else {
		seen := map[string]bool{}
		for _, r := range runs {
			for _, q := range r.Result.Queries {
				if !seen[q.QID] {
					seen[q.QID] = true
					qids = append(qids, q.QID)
				}
			}
		}
		slices.Sort(qids)
		in.Missing = "dropped"
	}
	in.Queries = len(qids)
	index := make(map[string]int, len(qids))
	for i, q := range qids {
		index[q] = i
	}
	rep := &TrecReport{SchemaVersion: SchemaVersion, Tool: "rag-eval trec-compare", Inputs: in}
	judged := len(qrels.QueryIDs())
	for _, r := range runs {
		if !slices.Equal(r.Result.Columns, runs[0].Result.Columns) {
			return nil, fmt.Errorf("%s: evaluated with other measures than %s", r.Name, runs[0].Name)
		}
		t.Sides = append(t.Sides, r.Name)
		fill := math.NaN()
		if in.Complete {
			fill = 0
		}
		vals := make([][]float64, len(cols))
		for m := range vals {
			vals[m] = make([]float64, len(qids))
			for i := range vals[m] {
				vals[m][i] = fill
			}
		}
		for _, q := range r.Result.Queries {
			i, ok := index[q.QID]
			if !ok {
				return nil, fmt.Errorf("%s: query %q is not in the qrels", r.Name, q.QID)
			}
			for m, c := range cols {
				vals[m][i] = q.Values[c]
			}
		}
		t.Values = append(t.Values, vals)
		rep.Sides = append(rep.Sides, TrecSide{Name: r.Name, Run: r.Path, SHA256: r.SHA256, Status: Available,
			Queries: len(r.Result.Queries), Missing: judged - len(r.Result.Queries)})
	}
	pairs := AllPairs(len(runs))
	if baseline >= 0 {
		pairs = BaselinePairs(len(runs), baseline)
	}
	rep.Comparison = Analyze(t, pairs, baseline, workers)
	rep.Method = NewMethod(rep.Family())
	return rep, nil
}

// WriteJSON writes r as indented JSON, as Report.WriteJSON does.
func (r *TrecReport) WriteJSON(w io.Writer) error { return writeJSON(w, r) }

func (r *TrecReport) names() []string {
	var out []string
	for _, s := range r.Sides {
		out = append(out, s.Name)
	}
	return out
}

func trecTitle(name string) string { return name }

// MissingSentence states how queries missing from a run are treated.
func (r *TrecReport) MissingSentence() string {
	if r.Inputs.Complete {
		return fmt.Sprintf("-c: every one of the %d judged queries is compared; a query a run has no result for counts 0 on every measure.", r.Inputs.Queries)
	}
	return fmt.Sprintf("%d queries evaluated by at least one run; a pair compares the queries both runs evaluated (a query one run lacks is dropped from the pair), while each run's mean in the summary is over its own queries, as rag-eval trec averages.", r.Inputs.Queries)
}

// disjointSentence says that pair k has no query in common, "" when it
// has: without -c, two runs that evaluated different queries have nothing
// to compare.
func (r *TrecReport) disjointSentence(k int) string {
	p := &r.Pairs[k]
	for _, m := range p.Metrics {
		if m.Pairs > 0 {
			return ""
		}
	}
	return fmt.Sprintf("%s and %s evaluated no query in common: nothing is compared (with -c, a query a run lacks would count 0).", p.A, p.B)
}

// WriteMarkdown renders r: the runs, the summary table of means, then per
// pair its metric table.
func (r *TrecReport) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	var names []string
	for _, s := range r.Sides {
		names = append(names, mdcell.Escape(s.Name))
	}
	fmt.Fprintf(b, "# Run comparison: %s\n\n", strings.Join(names, " vs "))
	maxRet := "all"
	if r.Inputs.MaxRetrieved != nil {
		maxRet = strconv.Itoa(*r.Inputs.MaxRetrieved)
	}
	fmt.Fprintf(b, "Qrels `%s` (sha256 `%s`); measures %s; relevant: grade ≥ %d (-l); documents per query: %s (-M). %s %s\n\n",
		mdcell.Code(r.Inputs.Qrels), mdcell.ShortHash(r.Inputs.QrelsSHA256), mdcell.Escape(strings.Join(r.Inputs.Measures, " ")),
		r.Inputs.RelLevel, maxRet, r.MissingSentence(), r.methodSentence(r.Method))
	fmt.Fprintf(b, "## Runs\n\n")
	mdcell.Row(b, "run", "file", "queries evaluated", "judged queries without results")
	mdcell.Row(b, "---", "---", "---:", "---:")
	for i, s := range r.Sides {
		mdcell.Row(b, mdcell.Escape(s.Name)+" ("+Letter(i)+")", mdcell.CodeCell(s.Run), strconv.Itoa(s.Queries), strconv.Itoa(s.Missing))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "## Summary\n\nEach run's mean (rag-eval trec's \"all\" value); a superscript lists the runs it is significantly better than.\n\n")
	r.writeSummaryMarkdown(b, r.names(), trecTitle)
	for k, p := range r.Pairs {
		fmt.Fprintf(b, "## %s vs %s\n\n", mdcell.Escape(p.A), mdcell.Escape(p.B))
		r.writePairMarkdown(b, k, trecTitle)
		if s := r.disjointSentence(k); s != "" {
			fmt.Fprintf(b, "%s\n\n", mdcell.Escape(s))
		}
	}
	return b.Flush()
}

// WriteText writes the plain-text summary rag-eval trec-compare prints:
// each run's coverage, the means table (each run's "all" value, with the
// letters of the runs it is significantly better than), then each pair's
// metric table.
func (r *TrecReport) WriteText(w io.Writer) error {
	for _, s := range r.Sides {
		fmt.Fprintf(w, "%s: %d queries evaluated, %d judged queries without results (%s)\n", s.Name, s.Queries, s.Missing, s.Run)
	}
	// Always the means: without -c a pair's means are over the queries both
	// runs evaluated, not each run's "all" value.
	if err := r.writeText(w, r.names(), true); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "* p adj. < %g (Holm over %d p-values). %s\n", Significance, r.Method.Family, r.MissingSentence()); err != nil {
		return err
	}
	for k := range r.Pairs {
		if s := r.disjointSentence(k); s != "" {
			if _, err := fmt.Fprintln(w, s); err != nil {
				return err
			}
		}
	}
	return nil
}
