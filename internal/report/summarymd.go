package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// SummaryMarkdownLimit is the most bytes WriteSummaryMarkdown writes. It is
// below GitHub's limit on a comment body, 65,536 characters, since a
// character is at least one byte. It leaves room for a line a CI job adds,
// such as a marker or a link.
const SummaryMarkdownLimit = 60000

// summaryLineLimit caps one line, such as a long check message, in bytes.
const summaryLineLimit = 1000

// WriteSummaryMarkdown writes one Markdown document the size of a pull
// request comment or a CI job summary. d is the diff against a baseline,
// nil for none. The document holds, in order:
//
//   - a verdict line
//   - with a diff, what changed in the inputs and the regressions, each
//     with the rules it broke, its failed checks with their messages and
//     its first block before and after
//   - the failed checks of every case that did not pass, with their
//     messages, except a regressed case's, which are not repeated
//   - a compact summary table, with the baseline's values and the deltas
//     when d is set
//
// With a pipeline that declares it lacks parts, a line after the verdict
// says which checks it cannot be judged on and why.
//
// Every part is always there but the two lists. They are cut at a line
// boundary when the whole would exceed SummaryMarkdownLimit bytes. A note
// then says how many lines were left out and where the full reports are.
// full is the paths to name there, such as the Markdown report and diff. A
// line longer than 1,000 bytes is shortened. The same inputs give the same
// bytes.
func (r *Report) WriteSummaryMarkdown(w io.Writer, d *Diff, full ...string) error {
	var head, lists, foot strings.Builder

	// The verdict.
	s := r.Summary
	verdict := "PASS"
	if !s.Passed() {
		verdict = "FAIL"
	}
	if d != nil && d.Regressed() {
		verdict = "REGRESSION"
	}
	fmt.Fprintf(&head, "## rag-eval: %s\n\n", verdict)
	fmt.Fprintf(&head, "%d cases: %d pass, %d fail, %d not run, %d error%s%s (pass rate %s)", s.CaseCount, s.PassCount, s.FailCount,
		s.NotRunCount, s.ErrorCount, skippedCases(&s), draftCases(&s), mdcell.Float(s.PassRate))
	if d != nil {
		n := len(d.Regressions)
		fmt.Fprintf(&head, "; against the baseline `%s`: %s (%d regression%s, %d improved, %d changed, %d added)",
			mdcell.Code(d.Baseline), d.Verdict, n, plural(n), d.Counts.Improved, d.Counts.Changed, d.Counts.Added)
	}
	head.WriteString(".\n\n")
	if s.NothingJudged() {
		fmt.Fprintf(&head, "%s\n\n", nothingJudged)
	}
	if u := r.Unjudgeable(); u != "" {
		fmt.Fprintf(&head, "%s\n\n", escape(u))
	}
	if s.AllDrafts() {
		fmt.Fprintf(&head, "%s\n\n", allDrafts)
	}
	if n := s.SkippedCheckCount(); n > 0 {
		fmt.Fprintf(&head, "Skipped checks (neither passed nor failed): %d: %s.\n\n", n, escape(skippedChecksList(&s)))
	}
	if d != nil {
		if lines := d.InputLines(); len(lines) > 0 {
			head.WriteString("Inputs that changed: " + escape(strings.Join(lines, "; ")) + ".\n\n")
		}
	}

	// The lists, regressions first.
	var items []string
	shown := map[string]bool{} // regressed cases whose checks are listed already
	if d != nil && len(d.Regressions) > 0 {
		items = append(items, fmt.Sprintf("### Regressions (%d)", len(d.Regressions)), "")
		for _, reg := range d.MetricRegressions() {
			items = append(items, "- "+escape(reg))
		}
		for i := range d.Cases {
			c := &d.Cases[i]
			reg := c.regression()
			if reg == "" {
				continue
			}
			items = append(items, "- "+escape(reg))
			if c.Change == ChangeRegressed && c.Explain != nil {
				shown[c.CaseID] = true
				for _, f := range c.Explain.FailedChecks {
					items = append(items, fmt.Sprintf("  - `%s`: %s", mdcell.Code(f.Name), escape(mdcell.Or(f.Message, ""))))
				}
				items = append(items, "  - first block: "+firstBlock(c.Explain.Evidence.Baseline)+" → "+firstBlock(c.Explain.Evidence.Current))
			}
		}
		items = append(items, "")
	}
	var failing []*judge.CaseResult
	for i := range r.Cases {
		if c := &r.Cases[i]; Failing(c) {
			failing = append(failing, c)
		}
	}
	if len(failing) > 0 {
		items = append(items, fmt.Sprintf("### Failed checks (%d case%s)", len(failing), plural(len(failing))), "")
		for _, c := range failing {
			if c.Reason != nil {
				items = append(items, fmt.Sprintf("- **%s** (%s): %s", escape(c.CaseID), c.Status, escape(*c.Reason)))
				continue
			}
			items = append(items, fmt.Sprintf("- **%s** (%s): %s", escape(c.CaseID), c.Status, escape(strings.Join(c.FailedChecks, ", "))))
			if shown[c.CaseID] {
				items[len(items)-1] += " (regressed: messages above)"
				continue
			}
			for _, ch := range c.Checks {
				if !ch.Passed && !ch.Skipped {
					items = append(items, fmt.Sprintf("  - `%s`: %s", mdcell.Code(ch.Name), escape(mdcell.Or(ch.Message, ""))))
				}
			}
		}
		items = append(items, "")
	}

	// The summary table.
	foot.WriteString("### Summary\n\n")
	if d != nil {
		mdcell.Row(&foot, "metric", "baseline", "current", "delta")
		mdcell.Row(&foot, "---", "---:", "---:", "---:")
		for _, m := range diffMetrics {
			v := d.Summary[m]
			mdcell.Row(&foot, m, mdcell.Float(v.Baseline), mdcell.Float(v.Current), mdcell.Signed(v.Delta))
		}
	} else {
		mdcell.Row(&foot, "metric", "value")
		mdcell.Row(&foot, "---", "---:")
		mdcell.Row(&foot, "passRate", mdcell.Float(s.PassRate))
		mdcell.Row(&foot, "recallAtK", mdcell.Float(s.RecallAtK))
		mdcell.Row(&foot, "mrr", mdcell.Float(s.MRR))
		mdcell.Row(&foot, "ndcgAtK", mdcell.Float(s.NDCGAtK))
		mdcell.Row(&foot, "avgFirstExpectedRank", mdcell.Float(s.AvgFirstExpectedRank))
	}
	fmt.Fprintf(&foot, "\nHit levels: strong %d, medium %d, weak %d, miss %d, n/a %d.\n",
		s.HitLevels.Strong, s.HitLevels.Medium, s.HitLevels.Weak, s.HitLevels.Miss, s.HitLevels.NA)

	// Cut the lists to fit, at a line boundary, leaving room for the note.
	for i, it := range items {
		items[i] = clip(it, summaryLineLimit)
	}
	where := "the full reports"
	if len(full) > 0 {
		quoted := make([]string, len(full))
		for i, f := range full {
			quoted[i] = "`" + mdcell.Code(f) + "`"
		}
		where = strings.Join(quoted, " and ")
	}
	noteFor := func(n int) string {
		return fmt.Sprintf("*… %d more line%s left out: this summary is capped at %d bytes; see %s.*\n\n", n, plural(n), SummaryMarkdownLimit, where)
	}
	budget := SummaryMarkdownLimit - head.Len() - foot.Len()
	total := 0
	for _, it := range items {
		total += len(it) + 1
	}
	if total > budget {
		budget -= len(noteFor(len(items))) + 1 // the note and the blank line before it
		used, kept := 0, 0
		for _, it := range items {
			if used+len(it)+1 > budget {
				break
			}
			used += len(it) + 1
			kept++
		}
		omitted := len(items) - kept
		items = append(items[:kept:kept], "", noteFor(omitted))
		items[len(items)-1] = strings.TrimSuffix(items[len(items)-1], "\n")
	}
	for _, it := range items {
		lists.WriteString(it + "\n")
	}

	b := bufio.NewWriter(w)
	b.WriteString(head.String())
	b.WriteString(lists.String())
	b.WriteString(foot.String())
	return b.Flush()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// firstBlock is a block's compact form in the summary: "source · key
// kb/doc#Setup@2 (0.55)", with the block's judge.BlockLabel.
func firstBlock(blocks []EvidenceBlock) string {
	if len(blocks) == 0 {
		return "none"
	}
	t := blocks[0]
	s := escape(t.Source)
	if l := judge.BlockLabel(t.EvidenceKey, t.ExcerptStart); l != "" {
		s += " · " + escape(l)
	}
	if t.QualityScore != nil {
		s += " (" + mdcell.Float(t.QualityScore) + ")"
	}
	return s
}

// clip shortens s to at most n bytes, marking the cut with " …". The mark
// counts in the n bytes, since the summary has a byte budget. When it does
// not fit, the cut is unmarked.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	mark := " " + diag.Ellipsis
	cut := n - len(mark)
	if cut <= 0 {
		mark, cut = "", n
	}
	head, _ := diag.Prefix(s, cut, diag.Bytes)
	return head + mark
}
