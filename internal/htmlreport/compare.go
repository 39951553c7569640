package htmlreport

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/texttab"
)

var compareTemplate = parse("compare.tmpl")

// The comparison page is laid out for any number of sides: a column per
// side in every table, and per metric one row per pair of sides compared
// (a two-sided report has one pair, left − right).
type comparePage struct {
	page
	Inputs      []figure
	Method      string
	Sides       []compareSide
	Metrics     []metricRow
	HasAdjusted bool
	// ManyPairs: more than one pair of sides per metric, each row then
	// names its pair.
	ManyPairs bool
	Axis      forestAxis
	Differing string
	Cases     []compareCase
	Names     []string
}

type compareSide struct {
	Name, Fixtures, Status, Reason string
	Available                      bool
	Figures                        []figure
	// Skipped says which checks were skipped how often, and why.
	Skipped []string
}

type metricRow struct {
	Title       string
	Means       []string
	Pair        string
	Delta       string
	CI          string
	P           string
	PAdjusted   string
	Pairs       int
	NonZero     int
	Significant bool
	Forest      forest
}

// forest is one row of the forest plot: the interval and the point on a
// scale shared by every row.
type forest struct {
	Has                bool
	X1, X2, X, Zero, W string
	Color, Title       string
}

type forestAxis struct {
	Ticks []tick
	W     string
}

type compareCase struct {
	ID, Anchor, Scenario, Query, Differences string
	Sides                                    []caseSideView
	Rows                                     []positionRow
}

type caseSideView struct {
	Name                                   string
	Available                              bool
	Status, Hit, Rank, Attempt, Failed     string
	Skipped                                string
	StatusDiff, HitDiff, RankDiff, AttDiff bool
}

type positionRow struct {
	N     int
	Cells []positionCell
}

type positionCell struct {
	Empty                                      bool
	Source, Breadcrumb, Category, Label, Level string
	Quality                                    string
	DSource, DBreadcrumb, DCategory, DLevel    bool
	DLabel                                     bool
	Excerpt                                    []segment
}

const forestW, forestPad = 240.0, 10.0

// Compare writes the HTML report of a comparison: the sides, a table of
// each metric's means with Δ, its 95% interval (drawn as a forest plot on
// one scale) and p, and, per case whose top-K blocks differ in more than
// scoreLabel, the sides' blocks side by side with the differing fields
// marked. The blocks show their excerpts when the sides were judged with
// judge.Options.Evidence.
func Compare(w io.Writer, r *compare.Report) error {
	sides := []compare.SideReport{r.Left, r.Right}
	names := []string{r.Left.Name, r.Right.Name}
	p := comparePage{page: newPage("Path comparison: "+strings.Join(names, " vs "), ""), Names: names}
	p.Inputs = []figure{{"cases", r.Inputs.Cases}, {"cases sha256", texttab.ShortHash(r.Inputs.CasesSHA256)}, {"K", strconv.Itoa(r.Inputs.K)}}
	p.Method = fmt.Sprintf("Δ = %s over the cases both sides can score; 95%% CI: percentile bootstrap of the mean difference, %d resamples; "+
		"p: two-sided paired sign-flip randomization test, %d permutations; PCG seed (%d, %d). Bold: p < %g.",
		r.Left.Name+" − "+r.Right.Name, r.Method.BootstrapResamples, r.Method.Permutations, r.Method.Seed[0], r.Method.Seed[1], compare.Significance)
	for _, s := range sides {
		cs := compareSide{Name: s.Name, Fixtures: s.Fixtures, Status: s.Status, Reason: texttab.Or(s.Reason, ""), Available: s.Summary != nil}
		if m := s.Summary; m != nil {
			counts := figure{"pass / fail / not run / error", fmt.Sprintf("%d / %d / %d / %d", m.PassCount, m.FailCount, m.NotRunCount, m.ErrorCount)}
			if m.SkippedCount > 0 || m.SkippedCheckCount() > 0 {
				counts = figure{"pass / fail / skipped / not run / error", fmt.Sprintf("%d / %d / %d / %d / %d", m.PassCount, m.FailCount, m.SkippedCount, m.NotRunCount, m.ErrorCount)}
			}
			cs.Figures = []figure{
				{"cases", strconv.Itoa(m.CaseCount)},
				counts,
				{"hit levels (strong / medium / weak / miss / n/a)", fmt.Sprintf("%d / %d / %d / %d / %d", m.HitLevels.Strong, m.HitLevels.Medium, m.HitLevels.Weak, m.HitLevels.Miss, m.HitLevels.NA)},
				{"fallback rate", texttab.Float(m.FallbackRate)},
				{"search modes", strings.Join(m.SearchModes, ", ")},
			}
			for _, sc := range m.SkippedChecks {
				cs.Skipped = append(cs.Skipped, fmt.Sprintf("%s skipped %d× (%s)", sc.Check, sc.Count, sc.Reason))
			}
		}
		p.Sides = append(p.Sides, cs)
	}

	// One scale for every interval, symmetric around 0.
	scale := 0.0
	for _, m := range r.Metrics {
		for _, v := range []*contract.Float6{m.Delta} {
			if v != nil {
				scale = max(scale, math.Abs(float64(*v)))
			}
		}
		if m.CI95 != nil {
			scale = max(scale, math.Abs(float64(m.CI95[0])), math.Abs(float64(m.CI95[1])))
		}
	}
	scale = niceScale(scale)
	x := func(v float64) float64 { return forestPad + (forestW-2*forestPad)*(v+scale)/(2*scale) }
	p.Axis.W = num(forestW, 0)
	for i, v := range []float64{-scale, 0, scale} {
		p.Axis.Ticks = append(p.Axis.Ticks, tick{X: num(x(v), 1), Y: "12", Label: strconv.FormatFloat(v, 'f', -1, 64), Anchor: []string{"start", "middle", "end"}[i]})
	}
	for _, m := range r.Metrics {
		row := metricRow{
			Title: metricTitle(m.Name), Means: []string{texttab.Float(m.Left), texttab.Float(m.Right)},
			Pair: r.Left.Name + " − " + r.Right.Name, Delta: texttab.Signed(m.Delta), CI: ciText(m.CI95), P: texttab.Float(m.PValue),
			PAdjusted: texttab.None, Pairs: m.Pairs, NonZero: m.NonZero, Significant: m.Significant(),
		}
		f := forest{W: num(forestW, 0), Zero: num(x(0), 1)}
		if m.Delta != nil && m.CI95 != nil {
			f.Has = true
			f.X1, f.X2, f.X = num(x(float64(m.CI95[0])), 1), num(x(float64(m.CI95[1])), 1), num(x(float64(*m.Delta)), 1)
			f.Color = colNA
			if row.Significant {
				f.Color = "#111111"
			}
			f.Title = fmt.Sprintf("%s: Δ %s, 95%% CI %s", row.Title, row.Delta, row.CI)
		}
		row.Forest = f
		p.Metrics = append(p.Metrics, row)
	}

	substantive, labelOnly := r.Differing()
	p.Differing = fmt.Sprintf("%d of %d cases differ in their top-K blocks or trace; %d more differ only in scoreLabel (not shown).", substantive, len(r.Cases), labelOnly)
	for i := range r.Cases {
		c := &r.Cases[i]
		if !c.Substantive() {
			continue
		}
		p.Cases = append(p.Cases, compareCaseOf(c, names))
	}
	return render(w, compareTemplate, &p)
}

// niceScale rounds the largest |value| up to 0.05, 0.1, 0.2, 0.25, 0.5 or
// 1 (at least 0.05, so a plot of zeros has a scale).
func niceScale(v float64) float64 {
	for _, s := range []float64{0.05, 0.1, 0.2, 0.25, 0.5, 1} {
		if v <= s {
			return s
		}
	}
	return math.Ceil(v)
}

var metricTitles = map[string]string{
	compare.MetricRecallAtK: "recall@K", compare.MetricMRR: "MRR", compare.MetricNDCGAtK: "nDCG@K",
	compare.MetricDocRecallAtK: "doc recall@K", compare.MetricPrecisionAtK: "precision@K", compare.MetricPassRate: "pass rate",
}

func metricTitle(name string) string {
	if t, ok := metricTitles[name]; ok {
		return t
	}
	return name
}

func ciText(c *[2]contract.Float6) string {
	if c == nil {
		return texttab.None
	}
	return "[" + texttab.Float(&c[0]) + ", " + texttab.Float(&c[1]) + "]"
}

func compareCaseOf(c *compare.Case, names []string) compareCase {
	cc := compareCase{ID: c.CaseID, Anchor: Anchor(c.CaseID), Scenario: c.Scenario, Query: c.Query, Differences: strings.Join(c.Differences, ", ")}
	sides := []*compare.CaseSide{c.Left, c.Right}
	for i, s := range sides {
		v := caseSideView{Name: names[i], Available: s != nil}
		if s != nil {
			o := sides[1-i]
			v.Status, v.Hit, v.Rank = string(s.Status), texttab.Or(s.HitLevel, texttab.None), texttab.Int(s.FirstExpectedRank)
			v.Attempt, v.Failed = texttab.Or(s.SelectedAttempt, texttab.None), strings.Join(s.FailedChecks, ", ")
			v.Skipped = strings.Join(s.SkippedChecks, ", ")
			if o != nil {
				v.StatusDiff = s.Status != o.Status
				v.HitDiff = texttab.Or(s.HitLevel, "") != texttab.Or(o.HitLevel, "")
				v.RankDiff = texttab.Int(s.FirstExpectedRank) != texttab.Int(o.FirstExpectedRank)
				v.AttDiff = texttab.Or(s.SelectedAttempt, "") != texttab.Or(o.SelectedAttempt, "")
			}
		}
		cc.Sides = append(cc.Sides, v)
	}
	var lists [2][]judge.Candidate
	for i, s := range sides {
		if s != nil {
			lists[i] = s.TopCandidates
		}
	}
	for i := range max(len(lists[0]), len(lists[1])) {
		diff := compare.PositionDiffs(lists[0], lists[1], i)
		row := positionRow{N: i + 1}
		for _, l := range lists {
			if i >= len(l) {
				row.Cells = append(row.Cells, positionCell{Empty: true})
				continue
			}
			b := &l[i]
			row.Cells = append(row.Cells, positionCell{
				Source: b.Source, Breadcrumb: b.Breadcrumb, Category: b.Category, Label: b.ScoreLabel, Level: b.RelevanceLevel,
				Quality:     texttab.Float(b.QualityScore),
				DSource:     slices.Contains(diff, compare.DiffSource),
				DBreadcrumb: slices.Contains(diff, compare.DiffBreadcrumb),
				DCategory:   slices.Contains(diff, compare.DiffCategory),
				DLevel:      slices.Contains(diff, compare.DiffRelevanceLevel),
				DLabel:      slices.Contains(diff, compare.DiffScoreLabel),
				Excerpt:     highlight(b.Excerpt, nil),
			})
		}
		cc.Rows = append(cc.Rows, row)
	}
	return cc
}
