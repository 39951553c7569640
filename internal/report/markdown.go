package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/texttab"
)

// WriteMarkdown renders r as a Markdown document: the summary, a table per
// scenario, a table of every case, then one section per failing case with
// its check messages. Every table cell is escaped.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# RAG retrieval evaluation\n\n")
	fmt.Fprintf(b, "Cases `%s` (sha256 `%s`), fixtures `%s`, K = %d.\n\n",
		texttab.Code(r.Inputs.Cases), texttab.ShortHash(r.Inputs.CasesSHA256), texttab.Code(r.Inputs.Fixtures), r.Inputs.K)
	writeSnapshotLine(b, r.Inputs.Snapshot)

	fmt.Fprintf(b, "## Summary\n\n")
	s := r.Summary
	row(b, "metric", "value")
	row(b, "---", "---:")
	row(b, "cases", strconv.Itoa(s.CaseCount))
	row(b, "pass / fail / not run / error", fmt.Sprintf("%d / %d / %d / %d", s.PassCount, s.FailCount, s.NotRunCount, s.ErrorCount))
	row(b, "pass rate", texttab.Float(s.PassRate))
	row(b, "hit levels (strong / medium / weak / miss / n/a)", fmt.Sprintf("%d / %d / %d / %d / %d",
		s.HitLevels.Strong, s.HitLevels.Medium, s.HitLevels.Weak, s.HitLevels.Miss, s.HitLevels.NA))
	row(b, "recall@K", texttab.Float(s.RecallAtK))
	row(b, "avg first expected rank", texttab.Float(s.AvgFirstExpectedRank))
	row(b, "MRR", texttab.Float(s.MRR))
	row(b, "nDCG@K", texttab.Float(s.NDCGAtK))
	row(b, "doc recall@K", texttab.Float(s.DocRecallAtK))
	row(b, "precision@K", texttab.Float(s.PrecisionAtK))
	row(b, "keyword coverage", texttab.Float(s.KeywordCoverage))
	row(b, "fallback rate", texttab.Float(s.FallbackRate))
	row(b, "evidence status", histogram(s.EvidenceStatus))
	row(b, "selected attempt", histogram(s.SelectedAttempt))
	row(b, "relevance levels (top K)", histogram(s.RelevanceLevels))
	row(b, "search modes", escape(strings.Join(s.SearchModes, ", ")))
	b.WriteString("\n")

	groupTable(b, "By scenario", "scenario", r.ByScenario)
	groupTable(b, "By tag", "tag", r.ByTag)

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
		row(b, escape(c.CaseID), escape(c.Scenario), string(c.Status), texttab.Or(c.HitLevel, texttab.None), texttab.Int(c.FirstExpectedRank),
			escape(strings.Join(tops, "\n")), escape(strings.Join(c.FailedChecks, ", ")))
	}
	b.WriteString("\n")

	var failing []*judge.CaseResult
	for i := range r.Cases {
		if c := &r.Cases[i]; c.Status != judge.StatusPass {
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
				if !ch.Passed {
					fmt.Fprintf(b, "- `%s`: %s\n", ch.Name, escape(texttab.Or(ch.Message, "")))
				}
			}
		}
	}
	return b.Flush()
}

func groupTable(b *bufio.Writer, title, what string, groups map[string]judge.Summary) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n\n", title)
	row(b, what, "cases", "pass", "fail", "not run", "error", "pass rate", "recall@K", "MRR", "nDCG@K", "fallback rate")
	row(b, "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:")
	for _, name := range sortedKeys(groups) {
		s := groups[name]
		row(b, escape(name), strconv.Itoa(s.CaseCount), strconv.Itoa(s.PassCount), strconv.Itoa(s.FailCount),
			strconv.Itoa(s.NotRunCount), strconv.Itoa(s.ErrorCount), texttab.Float(s.PassRate), texttab.Float(s.RecallAtK),
			texttab.Float(s.MRR), texttab.Float(s.NDCGAtK), texttab.Float(s.FallbackRate))
	}
	b.WriteString("\n")
}

func row(b *bufio.Writer, cells ...string) { texttab.Row(b, cells...) }

func escape(s string) string { return texttab.Escape(s) }

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
