package htmlreport

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

var judgeTemplate = parse("judge.tmpl")

type figure struct{ Label, Value string }

type judgePage struct {
	page
	Inputs   []figure
	Snapshot string
	Figures  []figure
	Statuses stack
	Hits     stack
	Diff     *diffView
	Groups   []groupView
	Warnings []string
	// SkippedChecks are the checks skipped, per check and reason.
	SkippedChecks []judge.SkippedChecks
	Filter        filterView
	Cases         []caseView
	CaseCount     int

	// Unjudgeable says which checks the pipeline cannot be judged on and
	// why, "" when it lacks nothing a check needs.
	Unjudgeable string
}

type filterView struct {
	Statuses, Scenarios, Tags []string
}

type groupView struct {
	Title, What string
	// Skipped: a column of skipped cases (some case was skipped).
	Skipped bool
	// Drafts: a column of drafts (some case is a draft).
	Drafts bool
	// Fallback: a column of fallback rates (the pipeline may have a trace).
	Fallback bool
	Rows     []groupRow
}

type groupRow struct {
	Name                                              string
	Cases, Pass, Fail, Skipped, Drafts, NotRun, Error int
	PassRate, Recall, MRR, NDCG, Fallback             string
	PassWidth                                         string
}

type caseView struct {
	Anchor, ID, Scenario, Status, Query string
	Tags                                []string
	Hit                                 string
	HitOrder                            int
	Rank                                string
	RankSort                            string
	MRR, NDCG                           string
	MRRSort, NDCGSort                   string
	Failed                              string
	K                                   int
	Reason                              string
	Checks                              []checkView
	Keywords                            []string
	Trace                               *traceView
	Blocks                              []blockView
	Fields                              []figure
	// Draft: the case is a draft, whose reason is no failure.
	Draft bool
}

type checkView struct {
	Name, Message string
	Passed        bool
	// Skipped means the check did not run, as its pipeline lacks what it
	// needs. Message says why.
	Skipped bool
}

type traceView struct {
	Fields   []figure
	Attempts []attemptView
}

type attemptView struct {
	Name, Filter, Candidates, BestQuality, LowQuality, Latency string
	Selected                                                   bool
}

type blockView struct {
	Rank                                       int
	Source, DocID, Breadcrumb, Category, Level string
	Quality                                    string
	Expected                                   bool
	Excerpt                                    []segment
	Cut                                        string // what the page left out of the excerpt (see excerpt)
	// Key is the block's evidenceKey. Start is the start of its excerpt
	// when it has neither a key nor an excerpt shown (blockOf). One of
	// them tells apart two chunks of one section.
	Key, Start string
}

// keyOrStart are a block's Key and Start: its evidenceKey, else the start
// of its excerpt when the page shows no excerpt.
func keyOrStart(t *judge.Candidate) (key, start string) {
	if t.EvidenceKey != "" || t.Excerpt != "" {
		return t.EvidenceKey, ""
	}
	return "", t.ExcerptStart
}

// Judge writes the HTML report of a judge run: r, and, when diff is not
// nil, its baseline diff first (regressions, then improvements, then other
// changes, each linking to the case below). The cases show their excerpts
// and retrieval trace when r was built from a run with
// judge.Options.Evidence. A part the pipeline declares it lacks has no
// figure, column or field (report.Report.Lacks), and a line under the
// snapshot says which checks it cannot be judged on.
func Judge(w io.Writer, r *report.Report, diff *report.Diff) error {
	p := judgePage{page: newPage("RAG retrieval evaluation", "")}
	in := r.Inputs
	p.Inputs = []figure{
		{"cases", in.Cases}, {"cases sha256", mdcell.ShortHash(in.CasesSHA256)},
		{"fixtures", in.Fixtures}, {"K", strconv.Itoa(in.K)},
	}
	p.Snapshot = report.SnapshotLine(in.Snapshot)
	p.Unjudgeable = r.Unjudgeable()
	trace := !r.Lacks(contract.CapTrace)
	s := r.Summary
	counts := figure{"pass / fail / not run / error", fmt.Sprintf("%d / %d / %d / %d", s.PassCount, s.FailCount, s.NotRunCount, s.ErrorCount)}
	skipped := s.SkippedCount > 0 || s.SkippedCheckCount() > 0
	if skipped {
		counts = figure{"pass / fail / skipped / not run / error", fmt.Sprintf("%d / %d / %d / %d / %d", s.PassCount, s.FailCount, s.SkippedCount, s.NotRunCount, s.ErrorCount)}
	}
	p.Figures = []figure{
		{"cases", strconv.Itoa(s.CaseCount)},
		counts,
		{"pass rate", mdcell.Float(s.PassRate)},
		{"recall@K", mdcell.Float(s.RecallAtK)},
		{"MRR", mdcell.Float(s.MRR)},
		{"nDCG@K", mdcell.Float(s.NDCGAtK)},
		{"avg first expected rank", mdcell.Float(s.AvgFirstExpectedRank)},
		{"keyword coverage", mdcell.Float(s.KeywordCoverage)},
	}
	if trace {
		p.Figures = append(p.Figures, figure{"fallback rate", mdcell.Float(s.FallbackRate)})
	}
	if skipped {
		p.Figures = append(p.Figures, figure{"skipped checks", strconv.Itoa(s.SkippedCheckCount())})
	}
	if s.DraftCount > 0 {
		p.Figures = append(p.Figures, figure{"drafts (not judged)", strconv.Itoa(s.DraftCount)})
	}
	p.SkippedChecks = s.SkippedChecks
	p.Statuses = newStack("case statuses", 480,
		count{"pass", s.PassCount, colPass}, count{"fail", s.FailCount, colFail}, count{"skipped", s.SkippedCount, colNA},
		count{"not run", s.NotRunCount, colNotRun}, count{"error", s.ErrorCount, colError}, count{"draft", s.DraftCount, colDraft})
	h := s.HitLevels
	p.Hits = newStack("hit levels", 480,
		count{"strong", h.Strong, colPass}, count{"medium", h.Medium, colMedium}, count{"weak", h.Weak, colWeak},
		count{"miss", h.Miss, colFail}, count{"n/a", h.NA, colNA})
	p.Groups = []groupView{groupOf("By scenario", "scenario", r.ByScenario, s.SkippedCount > 0, s.DraftCount > 0),
		groupOf("By tag", "tag", r.ByTag, s.SkippedCount > 0, s.DraftCount > 0)}
	for i := range p.Groups {
		p.Groups[i].Fallback = trace
	}
	p.Warnings = r.Warnings

	statuses, scenarios, tags := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i := range r.Cases {
		c := &r.Cases[i]
		statuses[string(c.Status)] = true
		scenarios[c.Scenario] = true
		for _, t := range c.Tags {
			tags[t] = true
		}
		cv := caseOf(c)
		cv.Fields = slices.DeleteFunc(cv.Fields, func(f figure) bool { return r.Lacks(fieldNeeds[f.Label]) })
		p.Cases = append(p.Cases, cv)
	}
	p.CaseCount = len(p.Cases)
	p.Filter = filterView{Statuses: statusOrder(statuses), Scenarios: sorted(scenarios), Tags: sorted(tags)}
	if diff != nil {
		ids := make(map[string]bool, len(r.Cases))
		for i := range r.Cases {
			ids[r.Cases[i].CaseID] = true
		}
		p.Diff = diffOf(diff, ids)
		p.Title = "RAG retrieval evaluation and baseline diff"
	}
	return render(w, judgeTemplate, &p)
}

// Anchor is the id of a case's element in the judge report.
func Anchor(caseID string) string { return "case-" + caseID }

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// statusOrder lists the statuses seen, known ones in the judge's order
// first.
func statusOrder(m map[string]bool) []string {
	var out []string
	for _, s := range []string{"pass", "fail", "skipped", "not_run", "error", "draft"} {
		if m[s] {
			out = append(out, s)
			delete(m, s)
		}
	}
	return append(out, sorted(m)...)
}

func groupOf(title, what string, groups map[string]judge.Summary, skipped, drafts bool) groupView {
	g := groupView{Title: title, What: what, Skipped: skipped, Drafts: drafts}
	for _, name := range sorted(keys(groups)) {
		s := groups[name]
		w := 0.0
		if s.PassRate != nil {
			w = 60 * float64(*s.PassRate)
		}
		g.Rows = append(g.Rows, groupRow{
			Name: name, Cases: s.CaseCount, Pass: s.PassCount, Fail: s.FailCount, Skipped: s.SkippedCount, Drafts: s.DraftCount, NotRun: s.NotRunCount, Error: s.ErrorCount,
			PassRate: mdcell.Float(s.PassRate), Recall: mdcell.Float(s.RecallAtK), MRR: mdcell.Float(s.MRR),
			NDCG: mdcell.Float(s.NDCGAtK), Fallback: mdcell.Float(s.FallbackRate), PassWidth: num(w, 1),
		})
	}
	return g
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func hitOrder(h *string) int {
	if h == nil {
		return 0
	}
	switch *h {
	case judge.HitStrong:
		return 5
	case judge.HitMedium:
		return 4
	case judge.HitWeak:
		return 3
	case judge.HitMiss:
		return 2
	}
	return 1
}

func caseOf(c *judge.CaseResult) caseView {
	v := caseView{
		Anchor: Anchor(c.CaseID), ID: c.CaseID, Scenario: c.Scenario, Status: string(c.Status), Query: c.Query,
		Tags: c.Tags, Hit: mdcell.Or(c.HitLevel, mdcell.None), HitOrder: hitOrder(c.HitLevel),
		Rank: mdcell.Int(c.FirstExpectedRank), RankSort: "1000000000",
		MRR: mdcell.None, NDCG: mdcell.None, MRRSort: "-1", NDCGSort: "-1",
		Failed: report.ChecksCell(c), K: c.K, Reason: mdcell.Or(c.Reason, ""), Draft: c.Status == judge.StatusDraft,
	}
	if c.FirstExpectedRank != nil {
		v.RankSort = strconv.Itoa(*c.FirstExpectedRank)
	}
	if m := c.Metrics; m != nil {
		v.MRR, v.NDCG = mdcell.Float(&m.ReciprocalRank), mdcell.Float(&m.NDCGAtK)
		v.MRRSort, v.NDCGSort = v.MRR, v.NDCG
	}
	for _, ch := range c.Checks {
		v.Checks = append(v.Checks, checkView{Name: ch.Name, Passed: ch.Passed, Skipped: ch.Skipped, Message: mdcell.Or(ch.Message, "")})
	}
	var exp judge.Expected // expects nothing without the golden case
	if g := c.Case; g != nil {
		v.Keywords = g.ExpectedKeywords
		exp = judge.ExpectedOf(g)
	}
	for _, t := range c.TopCandidates {
		segs, cut := excerpt(t.Excerpt, v.Keywords)
		bv := blockView{
			Rank: t.Rank, Source: t.Source, DocID: t.DocID, Breadcrumb: t.Breadcrumb, Category: t.Category,
			Level: t.RelevanceLevel, Quality: mdcell.Float(t.QualityScore),
			Expected: exp.Has(t.Source, t.DocID),
			Excerpt:  segs, Cut: cut,
		}
		bv.Key, bv.Start = keyOrStart(&t)
		v.Blocks = append(v.Blocks, bv)
	}
	v.Fields = []figure{
		{"search mode", mdcell.Or(c.SearchMode, mdcell.None)},
		{"evidence status", mdcell.Or(c.EvidenceStatus, mdcell.None)},
		{"selected attempt", mdcell.Or(c.SelectedAttempt, mdcell.None)},
		{"fallback reason", mdcell.Or(c.FallbackReason, mdcell.None)},
		{"rerank top source", mdcell.Or(c.RerankTopSource, mdcell.None)},
	}
	if t := c.Trace; t != nil {
		tv := &traceView{}
		if h := t.L0Hints; len(h.Categories)+len(h.MatchedTerms)+len(h.MatchedSources) > 0 {
			tv.Fields = append(tv.Fields,
				figure{"L0 hint categories", strings.Join(h.Categories, ", ")},
				figure{"L0 matched terms", strings.Join(h.MatchedTerms, ", ")})
		}
		for _, a := range t.Attempts {
			f := "kbScope " + mdcell.Or(nonEmpty(a.Filter.KBScope), mdcell.None)
			if len(a.Filter.Categories) > 0 {
				f += "; categories " + strings.Join(a.Filter.Categories, ", ")
			}
			tv.Attempts = append(tv.Attempts, attemptView{
				Name: a.Name, Filter: f, Candidates: strconv.Itoa(a.Candidates),
				BestQuality: mdcell.Float(&a.BestQuality), LowQuality: strconv.FormatBool(a.LowQuality),
				Latency: strconv.FormatInt(a.LatencyMs, 10), Selected: a.Name == t.SelectedAttempt,
			})
		}
		v.Trace = tv
	}
	return v
}

// fieldNeeds is the capability each of a case's fields needs, "" when it
// needs none.
var fieldNeeds = map[string]string{
	"evidence status":   contract.CapEvidenceStatus,
	"selected attempt":  contract.CapTrace,
	"fallback reason":   contract.CapFallback,
	"rerank top source": contract.CapRerank,
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// diffView is the baseline diff: the verdict, the inputs that changed,
// the summary deltas and the cases in three sections.
type diffView struct {
	Baseline, Verdict string
	Inputs            []string
	Regressions       []string
	Summary           []deltaRow
	Counts            report.Counts
	Sections          []diffSection
}

type deltaRow struct{ Metric, Baseline, Current, Delta string }

type diffSection struct {
	Title, Empty string
	// Open: the section's cases show their details without a click.
	Open  bool
	Cases []diffCase
}

type diffCase struct {
	ID, Anchor, Change string
	Linked             bool
	Open               bool
	// Moved names the fields that moved, for the closed line.
	Moved    string
	Fields   []fieldRow
	Why      []string
	Reason   string
	Failed   []checkView
	Evidence []evidenceRow
}

type fieldRow struct{ Field, Baseline, Current string }

type evidenceRow struct {
	N                 int
	Baseline, Current string
}

func diffOf(d *report.Diff, ids map[string]bool) *diffView {
	// The cases' regressions are in their section, with why.
	v := &diffView{Baseline: d.Baseline, Verdict: d.Verdict, Inputs: d.InputLines(), Regressions: d.MetricRegressions(), Counts: d.Counts}
	for _, m := range []struct{ key, title string }{
		{"passRate", "pass rate"}, {"recallAtK", "recall@K"}, {"mrr", "MRR"}, {"ndcgAtK", "nDCG@K"}, {"avgFirstExpectedRank", "avg first expected rank"},
	} {
		s := d.Summary[m.key]
		v.Summary = append(v.Summary, deltaRow{m.title, mdcell.Float(s.Baseline), mdcell.Float(s.Current), mdcell.Signed(s.Delta)})
	}
	sections := []struct {
		title, empty string
		changes      []string
	}{
		{"Regressions", "No case regressed.", []string{report.ChangeRegressed, report.ChangeRemoved}},
		{"Improvements", "No case improved.", []string{report.ChangeImproved}},
		{"Other changes", "No other case changed.", []string{report.ChangeChanged, report.ChangeAdded}},
	}
	for _, sec := range sections {
		ds := diffSection{Title: sec.title, Empty: sec.empty, Open: sec.title == "Regressions"}
		for _, c := range d.Cases {
			if !slices.Contains(sec.changes, c.Change) {
				continue
			}
			dc := diffCase{ID: c.CaseID, Anchor: Anchor(c.CaseID), Change: c.Change, Linked: ids[c.CaseID], Open: ds.Open}
			var moved []string
			for _, f := range c.Fields {
				dc.Fields = append(dc.Fields, fieldRow{f.Field, mdcell.JSONText(f.Baseline), mdcell.JSONText(f.Current)})
				moved = append(moved, f.Field)
			}
			dc.Moved = strings.Join(moved, ", ")
			if e := c.Explain; e != nil {
				dc.Why = e.Why
				dc.Reason = mdcell.Or(e.Reason, "")
				for _, f := range e.FailedChecks {
					dc.Failed = append(dc.Failed, checkView{Name: f.Name, Message: mdcell.Or(f.Message, "")})
				}
				for i := range max(len(e.Evidence.Baseline), len(e.Evidence.Current)) {
					dc.Evidence = append(dc.Evidence, evidenceRow{i + 1, report.EvidenceCell(e.Evidence.Baseline, i), report.EvidenceCell(e.Evidence.Current, i)})
				}
			}
			ds.Cases = append(ds.Cases, dc)
		}
		v.Sections = append(v.Sections, ds)
	}
	return v
}
