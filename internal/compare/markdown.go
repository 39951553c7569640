package compare

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/markdown"
	"github.com/ragbaseline/ragbaseline/internal/report"
)

// Significance is the p-value below which a metric's difference is marked
// significant in the Markdown and text output.
const Significance = 0.05

// metricTitles are the display names of Metrics.
var metricTitles = map[string]string{
	MetricRecallAtK: "recall@K", MetricMRR: "MRR", MetricNDCGAtK: "nDCG@K",
	MetricDocRecallAtK: "doc recall@K", MetricPrecisionAtK: "precision@K", MetricPassRate: "pass rate",
}

// WriteMarkdown renders r: both sides, the metric table, every case side by
// side, then one section per case whose top-K blocks differ, with the
// differing fields in bold. Every table cell is escaped.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	ln, rn := markdown.Escape(r.Left.Name), markdown.Escape(r.Right.Name)
	fmt.Fprintf(b, "# Path comparison: %s vs %s\n\n", ln, rn)
	fmt.Fprintf(b, "Cases `%s` (sha256 `%s`), K = %d. Δ = %s − %s over the cases both sides can score; "+
		"95%% CI: percentile bootstrap of the mean difference, %d resamples; p: two-sided paired sign-flip "+
		"randomization test, %d permutations; PCG seed (%d, %d). **Bold** Δ: p < %g.\n\n",
		markdown.Code(r.Inputs.Cases), markdown.ShortHash(r.Inputs.CasesSHA256), r.Inputs.K, ln, rn,
		r.Method.BootstrapResamples, r.Method.Permutations, r.Method.Seed[0], r.Method.Seed[1], Significance)

	fmt.Fprintf(b, "## Sides\n\n")
	markdown.Row(b, "side", "fixtures", "status", "cases", "pass / fail / not run / error", "hit levels (strong / medium / weak / miss / n/a)", "fallback rate", "search modes")
	markdown.Row(b, "---", "---", "---", "---:", "---", "---", "---:", "---")
	for _, s := range []SideReport{r.Left, r.Right} {
		if s.Summary == nil {
			markdown.Row(b, markdown.Escape(s.Name), markdown.CodeCell(s.Fixtures),
				"**unavailable**: "+markdown.Escape(deref(s.Reason)), "—", "—", "—", "—", "—")
			continue
		}
		m := s.Summary
		markdown.Row(b, markdown.Escape(s.Name), markdown.CodeCell(s.Fixtures), s.Status, strconv.Itoa(m.CaseCount),
			fmt.Sprintf("%d / %d / %d / %d", m.PassCount, m.FailCount, m.NotRunCount, m.ErrorCount),
			fmt.Sprintf("%d / %d / %d / %d / %d", m.HitLevels.Strong, m.HitLevels.Medium, m.HitLevels.Weak, m.HitLevels.Miss, m.HitLevels.NA),
			fmtF(m.FallbackRate), markdown.Escape(strings.Join(m.SearchModes, ", ")))
	}
	b.WriteString("\n")

	fmt.Fprintf(b, "## Metrics\n\n")
	markdown.Row(b, "metric", ln, rn, "Δ", "95% CI", "p", "pairs", "pairs that differ")
	markdown.Row(b, "---", "---:", "---:", "---:", "---", "---:", "---:", "---:")
	for _, m := range r.Metrics {
		delta := signed(m.Delta)
		if m.Significant() {
			delta = "**" + delta + "**"
		}
		markdown.Row(b, metricTitles[m.Name], fmtF(m.Left), fmtF(m.Right), delta, ci(m.CI95), fmtF(m.PValue), strconv.Itoa(m.Pairs), strconv.Itoa(m.NonZero))
	}
	b.WriteString("\n")

	fmt.Fprintf(b, "## Cases\n\n%s\n\n", r.differingSentence())
	markdown.Row(b, "case", "scenario", ln, rn, "differences")
	markdown.Row(b, "---", "---", "---", "---", "---")
	for _, c := range r.Cases {
		lc, rc := sideCell(c.Left, c.Right), sideCell(c.Right, c.Left)
		markdown.Row(b, markdown.Escape(c.CaseID), markdown.Escape(c.Scenario), lc, rc, strings.Join(c.Differences, ", "))
	}
	b.WriteString("\n")

	if differing, _ := r.Differing(); differing > 0 {
		fmt.Fprintf(b, "## Top K side by side\n\nThe cases that differ in more than scoreLabel; **bold** marks what differs at a position (scoreLabel is not marked).\n")
		for _, c := range r.Cases {
			if !c.Substantive() {
				continue
			}
			fmt.Fprintf(b, "\n### %s\n\nQuery: %s  \nDifferences: %s\n\n", markdown.Escape(c.CaseID), markdown.Escape(c.Query), strings.Join(c.Differences, ", "))
			markdown.Row(b, "#", ln, rn)
			markdown.Row(b, "---:", "---", "---")
			l, rt := c.Left.TopCandidates, c.Right.TopCandidates
			for i := range max(len(l), len(rt)) {
				diff := PositionDiffs(l, rt, i)
				markdown.Row(b, strconv.Itoa(i+1), blockCell(l, i, diff), blockCell(rt, i, diff))
			}
		}
	}
	return b.Flush()
}

// Significant reports whether the metric's difference has p < Significance.
func (m *Metric) Significant() bool { return m.PValue != nil && float64(*m.PValue) < Significance }

// sideCell summarises one side of a case, in bold where it differs from
// the other side.
func sideCell(s, other *CaseSide) string {
	if s == nil {
		return "unavailable"
	}
	bold := func(v string, differs bool) string {
		if differs && other != nil {
			return "**" + v + "**"
		}
		return v
	}
	var o CaseSide
	if other != nil {
		o = *other
	}
	status := s.Status
	if len(s.FailedChecks) > 0 {
		status += " (" + strings.Join(s.FailedChecks, ", ") + ")"
	}
	parts := []string{
		bold(status, s.Status != o.Status),
		bold(deref(s.HitLevel), !samePtr(s.HitLevel, o.HitLevel)),
		bold("rank "+intOr(s.FirstExpectedRank), !samePtr(s.FirstExpectedRank, o.FirstExpectedRank)),
		bold(markdown.Escape(deref(s.SelectedAttempt)), !samePtr(s.SelectedAttempt, o.SelectedAttempt)),
	}
	return strings.Join(parts, " · ")
}

// blockCell renders position i of a top-K list: source, breadcrumb, then
// category · scoreLabel · relevanceLevel · qualityScore; the fields named
// in diff are bold.
func blockCell(l []Candidate, i int, diff []string) string {
	if i >= len(l) {
		return "—"
	}
	c := &l[i]
	f := func(name, v string) string {
		if v == "" {
			v = "—"
		} else {
			v = markdown.Escape(v)
		}
		if name != DiffScoreLabel && slices.Contains(diff, name) {
			return "**" + v + "**"
		}
		return v
	}
	return f(DiffSource, c.Source) + "<br>" + f(DiffBreadcrumb, c.Breadcrumb) + "<br>" +
		f(DiffCategory, c.Category) + " · " + f(DiffScoreLabel, c.ScoreLabel) + " · " +
		f(DiffRelevanceLevel, c.RelevanceLevel) + " · " + fmtF(c.QualityScore)
}

func fmtF(f report.Float) string {
	if f == nil {
		return "—"
	}
	return string(contract.AppendFloat6(nil, float64(*f)))
}

// signed writes f with a plus sign when it is positive after rounding.
func signed(f report.Float) string {
	if f == nil {
		return "—"
	}
	s := fmtF(f)
	if contract.Round6(float64(*f)) > 0 {
		s = "+" + s
	}
	return s
}

func ci(c *[2]contract.Float6) string {
	if c == nil {
		return "—"
	}
	return "[" + string(contract.AppendFloat6(nil, float64(c[0]))) + ", " + string(contract.AppendFloat6(nil, float64(c[1]))) + "]"
}

func deref(s *string) string {
	if s == nil {
		return "—"
	}
	return *s
}

func intOr(p *int) string {
	if p == nil {
		return "—"
	}
	return strconv.Itoa(*p)
}
