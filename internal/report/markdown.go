package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// WriteMarkdown renders r as a Markdown document: the summary, a table per
// scenario, a table of every case, then one section per failing case with
// its check messages. Every table cell is escaped. The rows and columns of
// a part the pipeline declares it lacks are left out, and the checks it
// cannot be judged on are named under the snapshot line (parts.go).
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# RAG retrieval evaluation\n\n")
	fmt.Fprintf(b, "Cases `%s` (sha256 `%s`), fixtures `%s`, K = %d.\n\n",
		mdcell.Code(r.Inputs.Cases), mdcell.ShortHash(r.Inputs.CasesSHA256), mdcell.Code(r.Inputs.Fixtures), r.Inputs.K)
	writeSnapshotLine(b, r.Inputs.Snapshot)
	if u := r.Unjudgeable(); u != "" {
		fmt.Fprintf(b, "%s\n\n", escape(u))
	}

	fmt.Fprintf(b, "## Summary\n\n")
	s := r.Summary
	row(b, "metric", "value")
	row(b, "---", "---:")
	row(b, "cases", strconv.Itoa(s.CaseCount))
	row(b, "pass / fail / not run / error", fmt.Sprintf("%d / %d / %d / %d", s.PassCount, s.FailCount, s.NotRunCount, s.ErrorCount))
	if n := s.SkippedCheckCount(); n > 0 || s.SkippedCount > 0 {
		row(b, "skipped cases", strconv.Itoa(s.SkippedCount))
		row(b, "skipped checks", strconv.Itoa(n))
	}
	if s.DraftCount > 0 {
		row(b, "drafts (not judged)", strconv.Itoa(s.DraftCount))
	}
	row(b, "pass rate", mdcell.Float(s.PassRate))
	row(b, "hit levels (strong / medium / weak / miss / n/a)", fmt.Sprintf("%d / %d / %d / %d / %d",
		s.HitLevels.Strong, s.HitLevels.Medium, s.HitLevels.Weak, s.HitLevels.Miss, s.HitLevels.NA))
	row(b, "recall@K", mdcell.Float(s.RecallAtK))
	row(b, "avg first expected rank", mdcell.Float(s.AvgFirstExpectedRank))
	row(b, "MRR", mdcell.Float(s.MRR))
	row(b, "nDCG@K", mdcell.Float(s.NDCGAtK))
	row(b, "doc recall@K", mdcell.Float(s.DocRecallAtK))
	row(b, "precision@K", mdcell.Float(s.PrecisionAtK))
	row(b, "keyword coverage", mdcell.Float(s.KeywordCoverage))
	trace := !r.Lacks(contract.CapTrace)
	if trace {
		row(b, "fallback rate", mdcell.Float(s.FallbackRate))
	}
	if !r.Lacks(contract.CapEvidenceStatus) {
		row(b, "evidence status", histogram(s.EvidenceStatus))
	}
	if trace {
		row(b, "selected attempt", histogram(s.SelectedAttempt))
	}
	if !r.Lacks(contract.CapQualityScore) {
		row(b, "relevance levels (top K)", histogram(s.RelevanceLevels))
	}
	row(b, "search modes", escape(strings.Join(s.SearchModes, ", ")))
	b.WriteString("\n")

	groupTable(b, "By scenario", "scenario", r.ByScenario, s.SkippedCount > 0, s.DraftCount > 0, trace)
	groupTable(b, "By tag", "tag", r.ByTag, s.SkippedCount > 0, s.DraftCount > 0, trace)

	if len(s.SkippedChecks) > 0 {
		fmt.Fprintf(b, "## Skipped checks\n\n")
		b.WriteString("Checks that need a part of the lookup result the pipeline declares it does not produce: neither passed nor failed.\n\n")
		row(b, "check", "reason", "cases")
		row(b, "---", "---", "---:")
		for _, sc := range s.SkippedChecks {
			row(b, "`"+sc.Check+"`", escape(sc.Reason), strconv.Itoa(sc.Count))
		}
		b.WriteString("\n")
	}

	if len(r.Warnings) > 0 {
		fmt.Fprintf(b, "## Warnings\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(b, "- %s\n", escape(w))
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(b, "## Cases\n\n")
	row(b, "case", "scenario", "status", "hit level", "first rank", "top candidates", "failed checks")
	row(b, "---", "---", "---", "---", "---:", "---", "---")
	for i := range r.Cases {
		c := &r.Cases[i]
		tops := make([]string, len(c.TopCandidates))
		for i, t := range c.TopCandidates {
			tops[i] = fmt.Sprintf("%d. %s", t.Rank, t.Source)
		}
		row(b, escape(c.CaseID), escape(c.Scenario), string(c.Status), mdcell.Or(c.HitLevel, mdcell.None), mdcell.Int(c.FirstExpectedRank),
			escape(strings.Join(tops, "\n")), escape(ChecksCell(c)))
	}
	b.WriteString("\n")

	var failing []*judge.CaseResult
	for i := range r.Cases {
		if c := &r.Cases[i]; Failing(c) {
			failing = append(failing, c)
		}
	}
	if len(failing) > 0 {
		fmt.Fprintf(b, "## Failing cases\n")
		for _, c := range failing {
			fmt.Fprintf(b, "\n### %s (%s)\n\n", escape(c.CaseID), c.Status)
			fmt.Fprintf(b, "Query: %s\n\n", escape(c.Query))
			if c.Reason != nil {
				fmt.Fprintf(b, "- %s\n", escape(*c.Reason))
			}
			for _, ch := range c.Checks {
				if !ch.Passed && !ch.Skipped {
					fmt.Fprintf(b, "- `%s`: %s\n", ch.Name, escape(mdcell.Or(ch.Message, "")))
				}
			}
		}
	}
	return b.Flush()
}

// Failing reports whether c is a case the reports list as failing: one
// that did not pass, was not skipped and is no draft.
func Failing(c *judge.CaseResult) bool {
	return c.Status != judge.StatusPass && c.Status != judge.StatusSkipped && c.Status != judge.StatusDraft
}

// groupTable writes a table of summaries by group. It has a skipped column
// when skipped is set, that is when some case of the report was skipped,
// and a drafts column after it when drafts is set. It has a fallback rate
// column when fallback is set, that is unless the pipeline declares no
// trace.
func groupTable(b *bufio.Writer, title, what string, groups map[string]judge.Summary, skipped, drafts, fallback bool) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n\n", title)
	head := []string{what, "cases", "pass", "fail", "not run", "error", "pass rate", "recall@K", "MRR", "nDCG@K", "fallback rate"}
	align := []string{"---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"}
	if drafts {
		head = slices.Insert(head, 6, "drafts")
		align = slices.Insert(align, 6, "---:")
	}
	if skipped {
		head = slices.Insert(head, 6, "skipped")
		align = slices.Insert(align, 6, "---:")
	}
	if !fallback {
		head, align = head[:len(head)-1], align[:len(align)-1]
	}
	row(b, head...)
	row(b, align...)
	for _, name := range sortedKeys(groups) {
		s := groups[name]
		cells := []string{escape(name), strconv.Itoa(s.CaseCount), strconv.Itoa(s.PassCount), strconv.Itoa(s.FailCount),
			strconv.Itoa(s.NotRunCount), strconv.Itoa(s.ErrorCount), mdcell.Float(s.PassRate), mdcell.Float(s.RecallAtK),
			mdcell.Float(s.MRR), mdcell.Float(s.NDCGAtK), mdcell.Float(s.FallbackRate)}
		if drafts {
			cells = slices.Insert(cells, 6, strconv.Itoa(s.DraftCount))
		}
		if skipped {
			cells = slices.Insert(cells, 6, strconv.Itoa(s.SkippedCount))
		}
		if !fallback {
			cells = cells[:len(cells)-1]
		}
		row(b, cells...)
	}
	b.WriteString("\n")
}

func row(b *bufio.Writer, cells ...string) { mdcell.Row(b, cells...) }

func escape(s string) string { return mdcell.Escape(s) }

func histogram(m map[string]int) string {
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", escape(k), m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ChecksCell is the failed checks of c, then its skipped ones:
//
//	found; skipped: selected_attempt, rerank_top_source
func ChecksCell(c *judge.CaseResult) string {
	cell := strings.Join(c.FailedChecks, ", ")
	if len(c.SkippedChecks) > 0 {
		if cell != "" {
			cell += "; "
		}
		cell += "skipped: " + strings.Join(c.SkippedChecks, ", ")
	}
	return cell
}
