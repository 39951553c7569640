package htmlreport

import (
	"io"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

type trecPage struct {
	page
	Inputs  []figure
	Missing string
	Method  string
	Runs    []trecRun
	stats
}

type trecRun struct {
	Name, Letter, Run, SHA256 string
	Queries, Missing          int
}

// TrecCompare writes the HTML report of a comparison of TREC runs
// (rag-eval trec-compare): the qrels and options, each run with its
// coverage, the means per run and measure with the letters of the runs
// each is significantly better than, and per pair and measure both means,
// Δ, its 95% interval as a forest plot on one scale, p, the
// Holm-adjusted p, win/tie/loss and the t-test p. There is no per-query
// evidence: a run file holds none.
func TrecCompare(w io.Writer, r *compare.TrecReport) error {
	var names []string
	for _, s := range r.Sides {
		names = append(names, s.Name)
	}
	p := trecPage{page: newPage("Run comparison: "+strings.Join(names, " vs "), "")}
	maxRet := "all"
	if r.Inputs.MaxRetrieved != nil {
		maxRet = strconv.Itoa(*r.Inputs.MaxRetrieved)
	}
	p.Inputs = []figure{
		{"qrels", r.Inputs.Qrels}, {"qrels sha256", mdcell.ShortHash(r.Inputs.QrelsSHA256)},
		{"measures", strings.Join(r.Inputs.Measures, " ")}, {"relevant: grade ≥", strconv.Itoa(r.Inputs.RelLevel)},
		{"documents per query", maxRet},
	}
	p.Missing = r.MissingSentence()
	p.Method = methodText(&r.Comparison, r.Method, "queries")
	for i, s := range r.Sides {
		p.Runs = append(p.Runs, trecRun{Name: s.Name, Letter: compare.Letter(i), Run: s.Run, SHA256: mdcell.ShortHash(s.SHA256), Queries: s.Queries, Missing: s.Missing})
	}
	p.stats = newStats(&r.Comparison, names, func(n string) string { return n })
	return render(w, trecTemplate, &p)
}
