package compare

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// metricTitles are the display names of Metrics.
var metricTitles = map[string]string{
	MetricRecallAtK: "recall@K", MetricMRR: "MRR", MetricNDCGAtK: "nDCG@K",
	MetricDocRecallAtK: "doc recall@K", MetricPrecisionAtK: "precision@K", MetricPassRate: "pass rate",
}

// WriteMarkdown renders r: the sides, the summary table of means, then per
// pair its metric table, every case side by side and one section per case
// whose top-K blocks differ, with the differing fields in bold. Every
// table cell is escaped. Under the sides, each side whose pipeline lacks
// parts says which checks it cannot be judged on. A column no side's
// pipeline can have is left out: the fallback rate and the selected
// attempt without trace.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	var names []string
	for _, s := range r.Sides {
		names = append(names, mdcell.Escape(s.Name))
	}
	fmt.Fprintf(b, "# Path comparison: %s\n\n", strings.Join(names, " vs "))
	fmt.Fprintf(b, "Cases `%s` (sha256 `%s`), K = %d. %s\n\n",
		mdcell.Code(r.Inputs.Cases), mdcell.ShortHash(r.Inputs.CasesSHA256), r.Inputs.K, r.methodSentence(r.Method))

	fmt.Fprintf(b, "## Sides\n\n")
	fallback := !r.NoSideHas(contract.CapTrace)
	// without leaves out the fallback rate, the 7th cell, when no side has it.
	without := func(cells ...string) []string {
		if !fallback {
			return slices.Delete(cells, 6, 7)
		}
		return cells
	}
	mdcell.Row(b, without("side", "fixtures", "status", "cases", "pass / fail / not run / error", "hit levels (strong / medium / weak / miss / n/a)", "fallback rate", "search modes")...)
	mdcell.Row(b, without("---", "---", "---", "---:", "---", "---", "---:", "---")...)
	for i, s := range r.Sides {
		name := mdcell.Escape(s.Name) + " (" + Letter(i) + ")"
		if s.Summary == nil {
			mdcell.Row(b, without(name, mdcell.CodeCell(s.Fixtures),
				"**unavailable**: "+mdcell.Escape(mdcell.Or(s.Reason, mdcell.None)), "—", "—", "—", "—", "—")...)
			continue
		}
		m := s.Summary
		mdcell.Row(b, without(name, mdcell.CodeCell(s.Fixtures), s.Status, strconv.Itoa(m.CaseCount),
			fmt.Sprintf("%d / %d / %d / %d", m.PassCount, m.FailCount, m.NotRunCount, m.ErrorCount),
			fmt.Sprintf("%d / %d / %d / %d / %d", m.HitLevels.Strong, m.HitLevels.Medium, m.HitLevels.Weak, m.HitLevels.Miss, m.HitLevels.NA),
			mdcell.Float(m.FallbackRate), mdcell.Escape(strings.Join(m.SearchModes, ", ")))...)
	}
	b.WriteString("\n")
	for _, s := range r.Sides {
		if u := s.Unjudgeable(); u != "" {
			fmt.Fprintf(b, "%s cannot be judged on: %s.\n\n", mdcell.Escape(s.Name), mdcell.Escape(u))
		}
	}
	for _, s := range r.Sides {
		if s.Summary != nil {
			if line := skippedLine(s.Summary); line != "" {
				fmt.Fprintf(b, "%s: %s.\n\n", mdcell.Escape(s.Name), mdcell.Escape(line))
			}
		}
	}

	fmt.Fprintf(b, "## Summary\n\nEach side's mean over the cases it can score; a superscript lists the sides it is significantly better than.\n\n")
	var raw []string
	for _, s := range r.Sides {
		raw = append(raw, s.Name)
	}
	r.writeSummaryMarkdown(b, raw, metricTitle)

	for k := range r.Pairs {
		r.writePairCasesMarkdown(b, k)
	}
	return b.Flush()
}

func metricTitle(name string) string { return metricTitles[name] }

// writePairCasesMarkdown writes pair k's section: metrics, cases, top K.
func (r *Report) writePairCasesMarkdown(b *bufio.Writer, k int) {
	ai, bi := r.pairSides(k)
	an, bn := mdcell.Escape(r.Pairs[k].A), mdcell.Escape(r.Pairs[k].B)
	fmt.Fprintf(b, "## %s vs %s\n\n", an, bn)
	r.writePairMarkdown(b, k, metricTitle)

	fmt.Fprintf(b, "### Cases\n\n%s\n\n", r.differingSentence(k))
	mdcell.Row(b, "case", "scenario", an, bn, "differences")
	mdcell.Row(b, "---", "---", "---", "---", "---")
	attempt := !r.NoSideHas(contract.CapTrace)
	for _, c := range r.Cases {
		lc, rc := sideCell(c.Sides[ai], c.Sides[bi], attempt), sideCell(c.Sides[bi], c.Sides[ai], attempt)
		mdcell.Row(b, mdcell.Escape(c.CaseID), mdcell.Escape(c.Scenario), lc, rc, strings.Join(c.Differences[k], ", "))
	}
	b.WriteString("\n")

	if differing, _ := r.Differing(k); differing > 0 {
		fmt.Fprintf(b, "### Top K side by side\n\nThe cases that differ in more than scoreLabel; **bold** marks what differs at a position (scoreLabel is not marked).\n")
		for _, c := range r.Cases {
			if !c.Substantive(k) {
				continue
			}
			fmt.Fprintf(b, "\n#### %s\n\nQuery: %s  \nDifferences: %s\n\n", mdcell.Escape(c.CaseID), mdcell.Escape(c.Query), strings.Join(c.Differences[k], ", "))
			mdcell.Row(b, "#", an, bn)
			mdcell.Row(b, "---:", "---", "---")
			l, rt := c.Sides[ai].TopCandidates, c.Sides[bi].TopCandidates
			for i := range max(len(l), len(rt)) {
				diff := PositionDiffs(l, rt, i)
				mdcell.Row(b, strconv.Itoa(i+1), blockCell(l, i, diff), blockCell(rt, i, diff))
			}
		}
		b.WriteString("\n")
	}
}

// sideCell summarises one side of a case, in bold where it differs from
// the other side. It shows the selected attempt when attempt is set.
func sideCell(s, other *CaseSide, attempt bool) string {
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
	status := string(s.Status)
	if len(s.FailedChecks) > 0 {
		status += " (" + strings.Join(s.FailedChecks, ", ") + ")"
	}
	parts := []string{
		bold(status, s.Status != o.Status),
		bold(mdcell.Or(s.HitLevel, mdcell.None), !samePtr(s.HitLevel, o.HitLevel)),
		bold("rank "+mdcell.Int(s.FirstExpectedRank), !samePtr(s.FirstExpectedRank, o.FirstExpectedRank)),
	}
	if attempt {
		parts = append(parts, bold(mdcell.Escape(mdcell.Or(s.SelectedAttempt, mdcell.None)), !samePtr(s.SelectedAttempt, o.SelectedAttempt)))
	}
	return strings.Join(parts, " · ")
}

// blockCell renders position i of a top-K list: source, breadcrumb, the
// block's label (its evidenceKey, else the start of its excerpt), then
// category · scoreLabel · relevanceLevel · qualityScore. The label tells
// apart two chunks of one section. The fields named in diff are bold.
func blockCell(l []judge.Candidate, i int, diff []string) string {
	if i >= len(l) {
		return "—"
	}
	c := &l[i]
	f := func(name, v string) string {
		if v == "" {
			v = mdcell.None
		} else {
			v = mdcell.Escape(v)
		}
		if name != DiffScoreLabel && slices.Contains(diff, name) {
			return "**" + v + "**"
		}
		return v
	}
	label := ""
	if l := c.Label(); l != "" {
		label = mdcell.Escape(l) + "<br>"
	}
	return f(DiffSource, c.Source) + "<br>" + f(DiffBreadcrumb, c.Breadcrumb) + "<br>" + label +
		f(DiffCategory, c.Category) + " · " + f(DiffScoreLabel, c.ScoreLabel) + " · " +
		f(DiffRelevanceLevel, c.RelevanceLevel) + " · " + mdcell.Float(c.QualityScore)
}

func ci(c *[2]contract.Float6) string {
	if c == nil {
		return mdcell.None
	}
	return "[" + mdcell.Float(&c[0]) + ", " + mdcell.Float(&c[1]) + "]"
}
