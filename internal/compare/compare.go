package compare

import (
	"fmt"
	"math/rand/v2"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// SchemaVersion is the version of the comparison JSON format.
const SchemaVersion = 1

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

// Inputs identify the golden cases both sides were judged against.
type Inputs struct {
	Cases       string `json:"cases"`
	CasesSHA256 string `json:"casesSha256"`
	K           int    `json:"k"`
}

// Method records the fixed statistics, so a reader can reproduce them.
type Method struct {
	Delta              string `json:"delta"`
	BootstrapResamples int    `json:"bootstrapResamples"`
	Interval           string `json:"interval"`
	Permutations       int    `json:"permutations"`
	Seed               [2]int `json:"seed"`
}

// Report is a two-sided comparison (docs/reports.md). Field order is the JSON
// key order: schemaVersion, left, right, metrics, cases, then tool, inputs and
// method.
type Report struct {
	SchemaVersion int        `json:"schemaVersion"`
	Left          SideReport `json:"left"`
	Right         SideReport `json:"right"`
	Metrics       []Metric   `json:"metrics"`
	Cases         []Case     `json:"cases"`
	Tool          string     `json:"tool"`
	Inputs        Inputs     `json:"inputs"`
	Method        Method     `json:"method"`
}

// SideReport is one side's identity, availability and summary (docs/checks.md) (nil
// when unavailable).
type SideReport struct {
	Name     string         `json:"name"`
	Fixtures string         `json:"fixtures"`
	Status   string         `json:"status"`
	Reason   *string        `json:"reason"`
	Summary  *judge.Summary `json:"summary"`
}

// Metric is one metric's paired comparison. Left and Right are the means
// over the pairs (over the side's own non-null cases when the other side is
// unavailable); Delta is the mean of left − right over the pairs. Every
// value is null when it has nothing to be computed from.
type Metric struct {
	Name   string              `json:"name"`
	Left   *contract.Float6    `json:"left"`
	Right  *contract.Float6    `json:"right"`
	Delta  *contract.Float6    `json:"delta"`
	CI95   *[2]contract.Float6 `json:"ci95"`
	PValue *contract.Float6    `json:"pValue"`
	Pairs  int                 `json:"pairs"`
	// NonZero counts the pairs whose difference is not 0: only they can
	// move the randomization test, whose p-value cannot go below
	// 2/2^NonZero (nor 1/10,001).
	NonZero int `json:"nonZero"`
}

// Significance is the p-value below which a metric's difference is
// significant (in bold in the Markdown output, starred in the text).
const Significance = 0.05

// Significant reports whether the metric's difference has p < Significance.
func (m *Metric) Significant() bool { return m.PValue != nil && float64(*m.PValue) < Significance }

// Case is one golden case on both sides; a side is null when unavailable.
type Case struct {
	CaseID      string    `json:"caseId"`
	Left        *CaseSide `json:"left"`
	Right       *CaseSide `json:"right"`
	Differences []string  `json:"differences"`
	Scenario    string    `json:"scenario"`
	Query       string    `json:"query"`
}

// CaseSide is the part of one side's judge.CaseResult that a comparison
// shows (docs/reports.md), in its JSON key order; the values are the judge's own.
type CaseSide struct {
	Status            judge.Status      `json:"status"`
	HitLevel          *string           `json:"hitLevel"`
	FirstExpectedRank *int              `json:"firstExpectedRank"`
	SelectedAttempt   *string           `json:"selectedAttempt"`
	TopCandidates     []judge.Candidate `json:"topCandidates"`
	FailedChecks      []string          `json:"failedChecks"`
	// SkippedChecks are the checks skipped on this side (its pipeline
	// declares it lacks what they need); omitted when none was.
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
// (docs/reports.md): recallAtK is 1 when the hit level is strong or medium
// and 0 when weak or miss; the rank metrics are the case's rank metrics
// (docs/checks.md); passRate
// is 1 when the case passed and 0 otherwise (not_run and error included, as
// in the summary's passRate), and none when it was skipped (counted apart,
// as in the summary's passRate).
func Value(metric string, c *judge.CaseResult) (float64, bool) {
	switch metric {
	case MetricPassRate:
		switch c.Status {
		case judge.StatusPass:
			return 1, true
		case judge.StatusSkipped:
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

// Build compares two sides judged against the same golden file (same cases
// in the same order). in names that file; in.K is what the reports call
// inputs.k.
func Build(in Inputs, left, right Side) *Report {
	r := &Report{
		SchemaVersion: SchemaVersion,
		Left:          sideReport(left),
		Right:         sideReport(right),
		Tool:          "rag-eval compare",
		Inputs:        in,
		Method: Method{
			Delta:              "left - right",
			BootstrapResamples: Resamples,
			Interval:           "percentile, type 7",
			Permutations:       Permutations,
			Seed:               [2]int{Seed1, Seed2},
		},
	}
	rng := NewSource()
	for _, name := range Metrics {
		r.Metrics = append(r.Metrics, metric(name, left.Result, right.Result, rng))
	}

	var golden *judge.Result
	if golden = left.Result; golden == nil {
		golden = right.Result
	}
	r.Cases = []Case{}
	if golden == nil {
		return r
	}
	for i := range golden.Cases {
		gc := &golden.Cases[i]
		c := Case{CaseID: gc.CaseID, Scenario: gc.Scenario, Query: gc.Query, Differences: []string{}}
		if left.Result != nil {
			c.Left = caseSide(&left.Result.Cases[i])
		}
		if right.Result != nil {
			c.Right = caseSide(&right.Result.Cases[i])
		}
		if c.Left != nil && c.Right != nil {
			c.Differences = differences(c.Left, c.Right)
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
	return sr
}

// metric pairs the per-case values of both sides and computes the
// statistics over them. With one side unavailable only the other side's
// mean is reported.
func metric(name string, left, right *judge.Result, rng *rand.Rand) Metric {
	m := Metric{Name: name}
	switch {
	case left == nil && right == nil:
		return m
	case left == nil:
		m.Right = ownMean(name, right)
		return m
	case right == nil:
		m.Left = ownMean(name, left)
		return m
	}
	var ls, rs, d []float64
	for i := range left.Cases {
		lv, lok := Value(name, &left.Cases[i])
		rv, rok := Value(name, &right.Cases[i])
		if lok && rok {
			ls, rs, d = append(ls, lv), append(rs, rv), append(d, lv-rv)
		}
	}
	m.Pairs = len(d)
	if len(d) == 0 {
		return m
	}
	for _, v := range d {
		if v != 0 {
			m.NonZero++
		}
	}
	p := PairedStats(d, rng)
	m.Left, m.Right, m.Delta, m.PValue = fl(mean(ls)), fl(mean(rs)), fl(p.Delta), fl(p.P)
	m.CI95 = &[2]contract.Float6{contract.Float6(p.CI95[0]), contract.Float6(p.CI95[1])}
	return m
}

func ownMean(name string, r *judge.Result) *contract.Float6 {
	var xs []float64
	for i := range r.Cases {
		if v, ok := Value(name, &r.Cases[i]); ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return nil
	}
	return fl(mean(xs))
}

func fl(v float64) *contract.Float6 {
	f := contract.Float6(v)
	return &f
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
// position by position; rank compares firstExpectedRank.
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

// Substantive reports whether the sides of c differ in more than
// scoreLabel. Hybrid and dense always label their scores differently (RRF
// vs COSINE), which says nothing about what was retrieved; the Markdown and
// text outputs count such cases apart and do not detail them.
func (c *Case) Substantive() bool {
	for _, d := range c.Differences {
		if d != DiffScoreLabel {
			return true
		}
	}
	return false
}

// Differing counts the cases whose sides differ substantively and those
// that differ only in scoreLabel.
func (r *Report) Differing() (substantive, labelOnly int) {
	for i := range r.Cases {
		switch {
		case r.Cases[i].Substantive():
			substantive++
		case len(r.Cases[i].Differences) > 0:
			labelOnly++
		}
	}
	return substantive, labelOnly
}

// differingSentence says how many cases differ, for the Markdown and text
// outputs.
func (r *Report) differingSentence() string {
	for _, s := range []SideReport{r.Left, r.Right} {
		if s.Status != Available {
			return fmt.Sprintf("No case is compared: %s is unavailable.", s.Name)
		}
	}
	sub, labelOnly := r.Differing()
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
