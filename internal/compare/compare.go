package compare

import (
	"fmt"
	"math"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// SchemaVersion is the version of the comparison JSON format. Version 2
// has any number of sides and pairs. Version 1 had left and right.
const SchemaVersion = 2

// Side statuses (the manifest's vocabulary).
const (
	Available   = contract.StatusAvailable
	Unavailable = contract.StatusUnavailable
)

// Side is one path to compare: its name, its fixture directory and the
// judgement of that directory against the golden cases. Result is nil when
// the side is unavailable, and Reason says why.
type Side struct {
	Name     string
	Fixtures string
	Result   *judge.Result
	Reason   string
}

// Inputs identify the golden cases every side was judged against.
type Inputs = judge.CaseSet

// Method records the fixed statistics, so a reader can reproduce them.
type Method struct {
	Delta              string `json:"delta"`
	BootstrapResamples int    `json:"bootstrapResamples"`
	Interval           string `json:"interval"`
	Permutations       int    `json:"permutations"`
	Seed               [2]int `json:"seed"`
	// Streams says which draws come from which source.
	Streams string `json:"streams"`
	// Adjustment is the multiple-testing correction of pAdjusted, Family
	// the number of p-values it adjusted together, Alpha the adjusted
	// p-value below which a difference is significant.
	Adjustment string  `json:"adjustment"`
	Family     int     `json:"family"`
	Alpha      float64 `json:"alpha"`
}

// NewMethod returns the method of a report whose Holm family has family
// p-values.
func NewMethod(family int) Method {
	return Method{
		Delta:              "a - b",
		BootstrapResamples: Resamples,
		Interval:           "percentile, type 7",
		Permutations:       Permutations,
		Seed:               [2]int{Seed1, Seed2},
		Streams:            "one PCG source per pair; its metrics in order, bootstrap then permutations",
		Adjustment:         "holm",
		Family:             family,
		Alpha:              Significance,
	}
}

// Family counts the p-values of c, the tests Holm adjusted together.
func (c *Comparison) Family() int {
	n := 0
	for _, p := range c.Pairs {
		for _, m := range p.Metrics {
			if m.PValue != nil {
				n++
			}
		}
	}
	return n
}

// Report is a comparison of fixture directories (docs/reports.md). Field
// order is the JSON key order: schemaVersion, sides, baseline, metrics,
// pairs, cases, then tool, inputs and method.
type Report struct {
	SchemaVersion int          `json:"schemaVersion"`
	Sides         []SideReport `json:"sides"`
	Comparison
	Cases  []Case `json:"cases"`
	Tool   string `json:"tool"`
	Inputs Inputs `json:"inputs"`
	Method Method `json:"method"`
}

// SideReport is one side's identity, availability and summary
// (docs/checks.md). The summary is nil when the side is unavailable.
type SideReport struct {
	Name     string         `json:"name"`
	Fixtures string         `json:"fixtures"`
	Status   string         `json:"status"`
	Reason   *string        `json:"reason"`
	Summary  *judge.Summary `json:"summary"`
	// Pipeline is what the side's manifest says made its fixtures, nil
	// without one. The outputs leave out what no side's pipeline can have
	// (Report.NoSideHas). The JSON does not carry it.
	Pipeline *contract.Pipeline `json:"-"`
}

// Lacks reports whether the side's pipeline declares that it lacks the
// part capability (contract.Cap*). An unavailable side, and one without a
// declaration, lacks nothing.
func (s *SideReport) Lacks(capability string) bool {
	return capability != "" && s.Summary != nil && s.Pipeline.Lacks(capability)
}

// Unjudgeable lists the checks the side's pipeline cannot be judged on,
// each with its reason: "selected_attempt (pipeline declares no trace),
// …". It is "" when there are none, or the side is unavailable.
func (s *SideReport) Unjudgeable() string {
	if s.Summary == nil {
		return ""
	}
	return judge.UnjudgeableList(s.Pipeline)
}

// NoSideHas reports whether every available side's pipeline declares that
// it lacks the part capability. The outputs then leave out its columns,
// such as the fallback rate and the selected attempt without trace.
func (r *Report) NoSideHas(capability string) bool {
	some := false
	for i := range r.Sides {
		if r.Sides[i].Summary == nil {
			continue
		}
		if !r.Sides[i].Lacks(capability) {
			return false
		}
		some = true
	}
	return some
}

// Case is one golden case on every side. Sides[s] is null when side s is
// unavailable. Differences[k] lists what differs between the sides of
// pair k. It is empty when either side is unavailable.
type Case struct {
	CaseID      string      `json:"caseId"`
	Sides       []*CaseSide `json:"sides"`
	Differences [][]string  `json:"differences"`
	Scenario    string      `json:"scenario"`
	Query       string      `json:"query"`
}

// CaseSide is the part of one side's judge.CaseResult that a comparison
// shows (docs/reports.md), in its JSON key order. The values are the
// judge's own.
type CaseSide struct {
	Status            judge.Status      `json:"status"`
	HitLevel          *string           `json:"hitLevel"`
	FirstExpectedRank *int              `json:"firstExpectedRank"`
	SelectedAttempt   *string           `json:"selectedAttempt"`
	TopCandidates     []judge.Candidate `json:"topCandidates"`
	FailedChecks      []string          `json:"failedChecks"`
	// SkippedChecks are the checks skipped on this side, as its pipeline
	// declares it lacks what they need. It is omitted when none was.
	SkippedChecks []string `json:"skippedChecks,omitempty"`
}

// Metric names, in report order (which is also the order in which they
// draw from the random source).
const (
	MetricRecallAtK    = "recallAtK"
	MetricMRR          = "mrr"
	MetricNDCGAtK      = "ndcgAtK"
	MetricDocRecallAtK = "docRecallAtK"
	MetricPrecisionAtK = "precisionAtK"
	MetricPassRate     = "passRate"
)

// Metrics lists the compared metrics in report order.
var Metrics = []string{MetricRecallAtK, MetricMRR, MetricNDCGAtK, MetricDocRecallAtK, MetricPrecisionAtK, MetricPassRate}

// Difference names, in the order they are listed for a case.
const (
	DiffSource          = "source"
	DiffBreadcrumb      = "breadcrumb"
	DiffCategory        = "category"
	DiffRank            = "rank"
	DiffScoreLabel      = "scoreLabel"
	DiffRelevanceLevel  = "relevanceLevel"
	DiffHitLevel        = "hitLevel"
	DiffSelectedAttempt = "selectedAttempt"
)

// Value is a case's per-case value of a metric, and whether it has one
// (docs/reports.md).
//
//   - recallAtK is 1 when the hit level is strong or medium, and 0 when it
//     is weak or miss.
//   - The rank metrics are the case's rank metrics (docs/checks.md).
//   - passRate is 1 when the case passed and 0 otherwise, not_run and error
//     included. A skipped case has none, as it is counted apart, and a
//     draft has none, as it is not judged. Both are as in the summary's
//     passRate.
func Value(metric string, c *judge.CaseResult) (float64, bool) {
	switch metric {
	case MetricPassRate:
		switch c.Status {
		case judge.StatusPass:
			return 1, true
		case judge.StatusSkipped, judge.StatusDraft:
			return 0, false
		}
		return 0, true
	case MetricRecallAtK:
		if c.HitLevel == nil {
			return 0, false
		}
		switch *c.HitLevel {
		case judge.HitStrong, judge.HitMedium:
			return 1, true
		case judge.HitWeak, judge.HitMiss:
			return 0, true
		}
		return 0, false
	}
	m := c.Metrics
	if m == nil {
		return 0, false
	}
	switch metric {
	case MetricMRR:
		return float64(m.ReciprocalRank), true
	case MetricNDCGAtK:
		return float64(m.NDCGAtK), true
	case MetricDocRecallAtK:
		return float64(m.DocRecallAtK), true
	case MetricPrecisionAtK:
		return float64(m.PrecisionAtK), true
	}
	return 0, false
}

// Build compares sides judged against the same golden file, so the same
// cases in the same order. It compares every pair of sides, or with
// baseline ≥ 0 every side against sides[baseline] (Analyze). in names that
// file. in.K is what the reports call inputs.k. Pairs are computed on up to
// workers goroutines, one per CPU for 0, with the same result for any
// number.
func Build(in Inputs, sides []Side, baseline, workers int) *Report {
	r := &Report{SchemaVersion: SchemaVersion, Tool: "rag-eval compare", Inputs: in}
	t := &Table{Metrics: Metrics}
	var golden *judge.Result
	for _, s := range sides {
		r.Sides = append(r.Sides, sideReport(s))
		t.Sides = append(t.Sides, s.Name)
		if s.Result == nil {
			t.Values = append(t.Values, nil)
			continue
		}
		if golden == nil {
			golden = s.Result
		}
		vals := make([][]float64, len(Metrics))
		for m, name := range Metrics {
			vals[m] = make([]float64, len(s.Result.Cases))
			for i := range s.Result.Cases {
				v, ok := Value(name, &s.Result.Cases[i])
				if !ok {
					v = math.NaN()
				}
				vals[m][i] = v
			}
		}
		t.Values = append(t.Values, vals)
	}
	pairs := AllPairs(len(sides))
	if baseline >= 0 {
		pairs = BaselinePairs(len(sides), baseline)
	}
	r.Comparison = Analyze(t, pairs, baseline, workers)
	r.Method = NewMethod(r.Family())

	r.Cases = []Case{}
	if golden == nil {
		return r
	}
	for i := range golden.Cases {
		gc := &golden.Cases[i]
		c := Case{CaseID: gc.CaseID, Scenario: gc.Scenario, Query: gc.Query, Sides: make([]*CaseSide, len(sides)), Differences: make([][]string, len(pairs))}
		for s := range sides {
			if sides[s].Result != nil {
				c.Sides[s] = caseSide(&sides[s].Result.Cases[i])
			}
		}
		for k, p := range pairs {
			c.Differences[k] = []string{}
			if a, b := c.Sides[p[0]], c.Sides[p[1]]; a != nil && b != nil {
				c.Differences[k] = differences(a, b)
			}
		}
		r.Cases = append(r.Cases, c)
	}
	return r
}

func sideReport(s Side) SideReport {
	sr := SideReport{Name: s.Name, Fixtures: s.Fixtures, Status: Available}
	if s.Result == nil {
		sr.Status = Unavailable
		reason := s.Reason
		sr.Reason = &reason
		return sr
	}
	sum := s.Result.Summarize().Overall
	sr.Summary = &sum
	if m := s.Result.Manifest; m != nil && m.Status == contract.StatusAvailable {
		sr.Pipeline = m.Pipeline
	}
	return sr
}

func caseSide(c *judge.CaseResult) *CaseSide {
	return &CaseSide{
		Status: c.Status, HitLevel: c.HitLevel, FirstExpectedRank: c.FirstExpectedRank,
		SelectedAttempt: c.SelectedAttempt, TopCandidates: c.TopCandidates, FailedChecks: c.FailedChecks,
		SkippedChecks: c.SkippedChecks,
	}
}

// blockFields are the per-position fields compared, in difference order.
var blockFields = []struct {
	name string
	get  func(*judge.Candidate) string
}{
	{DiffSource, func(c *judge.Candidate) string { return c.Source }},
	{DiffBreadcrumb, func(c *judge.Candidate) string { return c.Breadcrumb }},
	{DiffCategory, func(c *judge.Candidate) string { return c.Category }},
	{DiffScoreLabel, func(c *judge.Candidate) string { return c.ScoreLabel }},
	{DiffRelevanceLevel, func(c *judge.Candidate) string { return c.RelevanceLevel }},
}

// PositionDiffs returns the names of the block fields that differ at
// 0-based position i of two top-K lists (a position one side lacks differs
// in every field), in difference order.
func PositionDiffs(l, r []judge.Candidate, i int) []string {
	var out []string
	for _, f := range blockFields {
		if i >= len(l) || i >= len(r) || f.get(&l[i]) != f.get(&r[i]) {
			out = append(out, f.name)
		}
	}
	return out
}

// differences lists what differs between the two sides of a case, in the
// order source, breadcrumb, category, rank, scoreLabel, relevanceLevel,
// hitLevel, selectedAttempt. The block fields compare the top-K blocks
// position by position. rank compares firstExpectedRank.
func differences(l, r *CaseSide) []string {
	diff := map[string]bool{
		DiffRank:            !samePtr(l.FirstExpectedRank, r.FirstExpectedRank),
		DiffHitLevel:        !samePtr(l.HitLevel, r.HitLevel),
		DiffSelectedAttempt: !samePtr(l.SelectedAttempt, r.SelectedAttempt),
	}
	for i := range max(len(l.TopCandidates), len(r.TopCandidates)) {
		for _, name := range PositionDiffs(l.TopCandidates, r.TopCandidates, i) {
			diff[name] = true
		}
	}
	out := []string{}
	for _, name := range differenceOrder {
		if diff[name] {
			out = append(out, name)
		}
	}
	return out
}

var differenceOrder = []string{DiffSource, DiffBreadcrumb, DiffCategory, DiffRank, DiffScoreLabel, DiffRelevanceLevel, DiffHitLevel, DiffSelectedAttempt}

// Substantive reports whether the sides of pair k differ in more than
// scoreLabel in c. Hybrid and dense always label their scores
// differently, RRF vs COSINE, which says nothing about what was retrieved.
// The Markdown and text outputs count such cases apart and do not detail
// them.
func (c *Case) Substantive(k int) bool {
	for _, d := range c.Differences[k] {
		if d != DiffScoreLabel {
			return true
		}
	}
	return false
}

// Differing counts the cases whose sides of pair k differ substantively
// and those that differ only in scoreLabel.
func (r *Report) Differing(k int) (substantive, labelOnly int) {
	for i := range r.Cases {
		switch {
		case r.Cases[i].Substantive(k):
			substantive++
		case len(r.Cases[i].Differences[k]) > 0:
			labelOnly++
		}
	}
	return substantive, labelOnly
}

// pairSides returns the indices of pair k's sides.
func (r *Report) pairSides(k int) (a, b int) {
	for i, s := range r.Sides {
		if s.Name == r.Pairs[k].A {
			a = i
		}
		if s.Name == r.Pairs[k].B {
			b = i
		}
	}
	return a, b
}

// differingSentence says how many cases of pair k differ, for the Markdown
// and text outputs.
func (r *Report) differingSentence(k int) string {
	a, b := r.pairSides(k)
	for _, s := range []SideReport{r.Sides[a], r.Sides[b]} {
		if s.Status != Available {
			return fmt.Sprintf("No case is compared: %s is unavailable.", s.Name)
		}
	}
	sub, labelOnly := r.Differing(k)
	out := fmt.Sprintf("%d of %d cases differ in content or order", sub, len(r.Cases))
	if labelOnly > 0 {
		out += fmt.Sprintf("; %d more differ only in scoreLabel", labelOnly)
	}
	return out + "."
}

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
