package htmlreport

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

var (
	compareTemplate = parse("compare.tmpl")
	trecTemplate    = parse("treccompare.tmpl")
)

// The comparison pages are laid out for any number of sides: the summary
// table has a column per side, the pair table one row per pair and metric,
// and a differing case one column of blocks per side.
type comparePage struct {
	page
	Inputs []figure
	Method string
	Sides  []compareSide
	stats
	Differing []string
	Cases     []compareCase
}

// stats is the part of a page drawn from a compare.Comparison: the means
// per side with their letters, and the pairs.
type stats struct {
	Letters []sideLetter
	Summary []summaryRow
	// ManyPairs: more than one pair, so the pair table names each row's
	// pair and each pair begins with a heading row.
	ManyPairs bool
	Pairs     []pairRows
	Axis      forestAxis
}

type sideLetter struct{ Name, Letter string }

type summaryRow struct {
	Title string
	Cells []meanCell
}

type meanCell struct {
	Mean string
	// Better are the letters of the sides this one is significantly
	// better than.
	Better string
}

type compareSide struct {
	Name, Letter, Fixtures, Status, Reason string
	Available                              bool
	Figures                                []figure
	// Skipped says which checks were skipped how often, and why.
	Skipped []string
	// Unjudgeable lists the checks the side's pipeline cannot be judged
	// on, with their reasons, "" when none.
	Unjudgeable string
}

// pairRows are one pair's metric rows.
type pairRows struct {
	A, B string
	// LA and LB are A's and B's letters, as the summary names the sides.
	LA, LB  string
	Metrics []metricRow
}

type metricRow struct {
	Title       string
	Pair        string
	A, B        string
	Delta       string
	CI          string
	P           string
	PAdjusted   string
	TTestP      string
	WTL         string
	Pairs       int
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
	ID, Anchor, Scenario, Query string
	// Differences lists, per pair that differs, what differs.
	Differences []string
	Sides       []caseSideView
	Rows        []positionRow
}

type caseSideView struct {
	Name                                   string
	Available                              bool
	Status, Hit, Rank, Attempt, Failed     string
	Skipped                                string
	StatusDiff, HitDiff, RankDiff, AttDiff bool
	// ShowAttempt: some side's pipeline may have a trace.
	ShowAttempt bool
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
	// Key and Start tell apart two chunks of one section (keyOrStart).
	Key, Start string
	Cut        string // what the page left out of the excerpt (see excerpt)
}

const forestW, forestPad = 180.0, 8.0

// Compare writes the HTML report of a comparison of any number of sides.
// It shows:
//
//   - each side's summary, what it skipped and the checks it cannot be
//     judged on. A figure or field no pipeline can have, as the fallback
//     rate and the selected attempt without trace, is left out.
//   - the means per side and metric, with the letters of the sides each is
//     significantly better than
//   - per pair and metric, both means, Δ, its 95% interval, p, the
//     Holm-adjusted p, win/tie/loss and the t-test p, with the intervals
//     drawn as a forest plot on one scale for every row
//   - per case whose top-K blocks differ in more than scoreLabel in some
//     pair, every side's blocks in a column of its own, with the fields on
//     which the sides disagree at a position marked
//
// The blocks show their excerpts when the sides were judged with
// judge.Options.Evidence.
func Compare(w io.Writer, r *compare.Report) error {
	var names []string
	for _, s := range r.Sides {
		names = append(names, s.Name)
	}
	p := comparePage{page: newPage("Path comparison: "+strings.Join(names, " vs "), "")}
	p.Inputs = []figure{{"cases", r.Inputs.Cases}, {"cases sha256", mdcell.ShortHash(r.Inputs.CasesSHA256)}, {"K", strconv.Itoa(r.Inputs.K)}}
	p.Method = methodText(&r.Comparison, r.Method, "cases")
	for i, s := range r.Sides {
		cs := compareSide{Name: s.Name, Letter: compare.Letter(i), Fixtures: s.Fixtures, Status: s.Status, Reason: mdcell.Or(s.Reason, ""), Available: s.Summary != nil}
		if m := s.Summary; m != nil {
			counts := figure{"pass / fail / not run / error", fmt.Sprintf("%d / %d / %d / %d", m.PassCount, m.FailCount, m.NotRunCount, m.ErrorCount)}
			if m.SkippedCount > 0 || m.SkippedCheckCount() > 0 {
				counts = figure{"pass / fail / skipped / not run / error", fmt.Sprintf("%d / %d / %d / %d / %d", m.PassCount, m.FailCount, m.SkippedCount, m.NotRunCount, m.ErrorCount)}
			}
			cs.Figures = []figure{
				{"cases", strconv.Itoa(m.CaseCount)},
				counts,
				{"hit levels (strong / medium / weak / miss / n/a)", fmt.Sprintf("%d / %d / %d / %d / %d", m.HitLevels.Strong, m.HitLevels.Medium, m.HitLevels.Weak, m.HitLevels.Miss, m.HitLevels.NA)},
			}
			if !s.Lacks(contract.CapTrace) {
				cs.Figures = append(cs.Figures, figure{"fallback rate", mdcell.Float(m.FallbackRate)})
			}
			cs.Figures = append(cs.Figures, figure{"search modes", strings.Join(m.SearchModes, ", ")})
			cs.Unjudgeable = s.Unjudgeable()
			for _, sc := range m.SkippedChecks {
				cs.Skipped = append(cs.Skipped, fmt.Sprintf("%s skipped %d× (%s)", sc.Check, sc.Count, sc.Reason))
			}
		}
		p.Sides = append(p.Sides, cs)
	}
	p.stats = newStats(&r.Comparison, names, metricTitle)

	index := sideIndex(names)
	for k, pr := range r.Pairs {
		a, b := r.Sides[index[pr.A]], r.Sides[index[pr.B]]
		if a.Summary == nil || b.Summary == nil {
			gone := a
			if a.Summary != nil {
				gone = b
			}
			p.Differing = append(p.Differing, fmt.Sprintf("%s vs %s: no case is compared, %s is unavailable.", pr.A, pr.B, gone.Name))
			continue
		}
		sub, labelOnly := r.Differing(k)
		line := fmt.Sprintf("%s vs %s: %d of %d cases differ in their top-K blocks or trace", pr.A, pr.B, sub, len(r.Cases))
		if labelOnly > 0 {
			line += fmt.Sprintf("; %d more only in scoreLabel", labelOnly)
		}
		p.Differing = append(p.Differing, line+".")
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		if cc, ok := compareCaseOf(c, r.Pairs, names, !r.NoSideHas(contract.CapTrace)); ok {
			p.Cases = append(p.Cases, cc)
		}
	}
	return render(w, compareTemplate, &p)
}

// methodText describes the statistics of a comparison whose items are
// items ("cases", "queries").
func methodText(c *compare.Comparison, m compare.Method, items string) string {
	pairs := "every pair of sides, Δ = the earlier − the later"
	if c.Baseline != nil {
		pairs = "every side against " + *c.Baseline + ", Δ = side − " + *c.Baseline
	}
	return fmt.Sprintf("Compared: %s, over the %s both sides can score. 95%% CI: percentile bootstrap of the mean difference, %d resamples; "+
		"p: two-sided paired sign-flip randomization test, %d permutations; one PCG source seeded (%d, %d) per pair; "+
		"p adj.: Holm–Bonferroni over all %d p-values of the report; W / T / L: %s where a − b is above, at, below 0; t-test p: paired t-test, for reference only. "+
		"Bold Δ, black intervals and the letters of the summary: p adj. < %g.",
		pairs, items, m.BootstrapResamples, m.Permutations, m.Seed[0], m.Seed[1], m.Family, items, m.Alpha)
}

func sideIndex(names []string) map[string]int {
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	return index
}

// newStats lays out the summary and the pairs of c, whose sides are
// names, with the metric titles of title.
func newStats(c *compare.Comparison, names []string, title func(string) string) stats {
	var st stats
	index := sideIndex(names)
	for i, n := range names {
		st.Letters = append(st.Letters, sideLetter{Name: n, Letter: compare.Letter(i)})
	}
	for _, m := range c.Metrics {
		row := summaryRow{Title: title(m.Name)}
		for s := range names {
			var ls string
			for _, o := range m.BetterThan[s] {
				ls += compare.Letter(index[o])
			}
			row.Cells = append(row.Cells, meanCell{Mean: mdcell.Float(m.Means[s]), Better: ls})
		}
		st.Summary = append(st.Summary, row)
	}

	// One scale for every interval, symmetric around 0.
	scale := 0.0
	for _, pr := range c.Pairs {
		for _, m := range pr.Metrics {
			if m.Delta != nil {
				scale = max(scale, math.Abs(float64(*m.Delta)))
			}
			if m.CI95 != nil {
				scale = max(scale, math.Abs(float64(m.CI95[0])), math.Abs(float64(m.CI95[1])))
			}
		}
	}
	scale = niceScale(scale)
	x := func(v float64) float64 { return forestPad + (forestW-2*forestPad)*(v+scale)/(2*scale) }
	st.Axis.W = num(forestW, 0)
	for i, v := range []float64{-scale, 0, scale} {
		st.Axis.Ticks = append(st.Axis.Ticks, tick{X: num(x(v), 1), Y: "12", Label: strconv.FormatFloat(v, 'f', -1, 64), Anchor: []string{"start", "middle", "end"}[i]})
	}
	st.ManyPairs = len(c.Pairs) > 1
	for _, pr := range c.Pairs {
		rows := pairRows{A: pr.A, B: pr.B, LA: compare.Letter(index[pr.A]), LB: compare.Letter(index[pr.B])}
		for _, m := range pr.Metrics {
			row := metricRow{
				Title: title(m.Name), Pair: pr.A + " − " + pr.B, A: mdcell.Float(m.A), B: mdcell.Float(m.B),
				Delta: mdcell.Signed(m.Delta), CI: ciText(m.CI95), P: mdcell.Float(m.PValue), PAdjusted: mdcell.Float(m.PAdjusted),
				TTestP: mdcell.Float(m.TTestP), WTL: mdcell.None, Pairs: m.Pairs, Significant: m.Significant(),
			}
			if m.Pairs > 0 {
				row.WTL = fmt.Sprintf("%d / %d / %d", m.Wins, m.Ties, m.Losses)
			}
			f := forest{W: num(forestW, 0), Zero: num(x(0), 1)}
			if m.Delta != nil && m.CI95 != nil {
				f.Has = true
				f.X1, f.X2, f.X = num(x(float64(m.CI95[0])), 1), num(x(float64(m.CI95[1])), 1), num(x(float64(*m.Delta)), 1)
				f.Color = colNA
				if row.Significant {
					f.Color = "#111111"
				}
				f.Title = fmt.Sprintf("%s, %s: Δ %s, 95%% CI %s", row.Title, row.Pair, row.Delta, row.CI)
			}
			row.Forest = f
			rows.Metrics = append(rows.Metrics, row)
		}
		st.Pairs = append(st.Pairs, rows)
	}
	return st
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
		return mdcell.None
	}
	return "[" + mdcell.Float(&c[0]) + ", " + mdcell.Float(&c[1]) + "]"
}

// compareCaseOf lays out case c when its sides differ in more than
// scoreLabel in some pair: one column of blocks per side, a field marked
// at a position where the available sides do not all agree on it (as
// compare.PositionDiffs compares two). The sides show their selected
// attempts when attempt is set.
func compareCaseOf(c *compare.Case, pairs []compare.Pair, names []string, attempt bool) (compareCase, bool) {
	cc := compareCase{ID: c.CaseID, Anchor: Anchor(c.CaseID), Scenario: c.Scenario, Query: c.Query}
	shown := false
	for k := range pairs {
		if c.Substantive(k) {
			shown = true
		}
		if len(c.Differences[k]) > 0 {
			d := strings.Join(c.Differences[k], ", ")
			if len(pairs) > 1 {
				d = pairs[k].A + " vs " + pairs[k].B + ": " + d
			}
			cc.Differences = append(cc.Differences, d)
		}
	}
	if !shown {
		return cc, false
	}
	var avail []*compare.CaseSide
	for _, s := range c.Sides {
		if s != nil {
			avail = append(avail, s)
		}
	}
	// differs reports whether the available sides disagree on f.
	differs := func(f func(*compare.CaseSide) string) bool {
		for _, o := range avail[1:] {
			if f(o) != f(avail[0]) {
				return true
			}
		}
		return false
	}
	statusDiff := differs(func(s *compare.CaseSide) string { return string(s.Status) })
	hitDiff := differs(func(s *compare.CaseSide) string { return mdcell.Or(s.HitLevel, "") })
	rankDiff := differs(func(s *compare.CaseSide) string { return mdcell.Int(s.FirstExpectedRank) })
	attDiff := differs(func(s *compare.CaseSide) string { return mdcell.Or(s.SelectedAttempt, "") })
	lists := make([][]judge.Candidate, len(c.Sides))
	n := 0
	for i, s := range c.Sides {
		v := caseSideView{Name: names[i], Available: s != nil, ShowAttempt: attempt}
		if s != nil {
			v.Status, v.Hit, v.Rank = string(s.Status), mdcell.Or(s.HitLevel, mdcell.None), mdcell.Int(s.FirstExpectedRank)
			v.Attempt, v.Failed = mdcell.Or(s.SelectedAttempt, mdcell.None), strings.Join(s.FailedChecks, ", ")
			v.Skipped = strings.Join(s.SkippedChecks, ", ")
			v.StatusDiff, v.HitDiff, v.RankDiff, v.AttDiff = statusDiff, hitDiff, rankDiff, attDiff
			lists[i] = s.TopCandidates
			n = max(n, len(s.TopCandidates))
		}
		cc.Sides = append(cc.Sides, v)
	}
	for i := range n {
		// What differs at position i between any two available sides.
		diff := map[string]bool{}
		for a := range c.Sides {
			for b := a + 1; b < len(c.Sides); b++ {
				if c.Sides[a] != nil && c.Sides[b] != nil {
					for _, d := range compare.PositionDiffs(lists[a], lists[b], i) {
						diff[d] = true
					}
				}
			}
		}
		row := positionRow{N: i + 1}
		for s, l := range lists {
			if c.Sides[s] == nil || i >= len(l) {
				row.Cells = append(row.Cells, positionCell{Empty: true})
				continue
			}
			b := &l[i]
			key, start := keyOrStart(b)
			segs, cut := excerpt(b.Excerpt, nil)
			row.Cells = append(row.Cells, positionCell{
				Key: key, Start: start,
				Source: b.Source, Breadcrumb: b.Breadcrumb, Category: b.Category, Label: b.ScoreLabel, Level: b.RelevanceLevel,
				Quality:     mdcell.Float(b.QualityScore),
				DSource:     diff[compare.DiffSource],
				DBreadcrumb: diff[compare.DiffBreadcrumb],
				DCategory:   diff[compare.DiffCategory],
				DLevel:      diff[compare.DiffRelevanceLevel],
				DLabel:      diff[compare.DiffScoreLabel],
				Excerpt:     segs,
				Cut:         cut,
			})
		}
		cc.Rows = append(cc.Rows, row)
	}
	return cc, true
}
