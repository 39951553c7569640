package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// WriteText writes the plain-text summary a person reads in a terminal or a
// CI log: pass rate, the checks the pipeline cannot be judged on, hit
// levels, recall@K and the other means, and the failing case ids. The
// fallback rate is left out for a pipeline that declares no trace. Drafts
// are counted on the first line and not listed. With colour, statuses are
// coloured with ANSI escapes.
func (r *Report) WriteText(w io.Writer, colour bool) error {
	b := bufio.NewWriter(w)
	s := r.Summary
	paint := func(code, text string) string {
		if !colour {
			return text
		}
		return "\x1b[" + code + "m" + text + "\x1b[0m"
	}
	status := paint("32", "PASS")
	if !s.Passed() {
		status = paint("31", "FAIL")
	}
	fmt.Fprintf(b, "%s  %d cases: %d pass, %d fail, %d not run, %d error%s%s (pass rate %s)\n",
		status, s.CaseCount, s.PassCount, s.FailCount, s.NotRunCount, s.ErrorCount, skippedCases(&s), draftCases(&s), mdcell.Float(s.PassRate))
	if u := r.Unjudgeable(); u != "" {
		fmt.Fprintf(b, "%s\n", u)
	}
	if line := skippedChecksLine(&s); line != "" {
		fmt.Fprintf(b, "%s\n", line)
	}
	if s.NothingJudged() {
		fmt.Fprintf(b, "%s\n", nothingJudged)
	}
	if s.AllDrafts() {
		fmt.Fprintf(b, "%s\n", allDrafts)
	}
	fmt.Fprintf(b, "hit levels: strong %d, medium %d, weak %d, miss %d, n/a %d\n",
		s.HitLevels.Strong, s.HitLevels.Medium, s.HitLevels.Weak, s.HitLevels.Miss, s.HitLevels.NA)
	fmt.Fprintf(b, "recall@%d %s  mrr %s  ndcg@%d %s  keyword coverage %s",
		r.Inputs.K, mdcell.Float(s.RecallAtK), mdcell.Float(s.MRR), r.Inputs.K, mdcell.Float(s.NDCGAtK),
		mdcell.Float(s.KeywordCoverage))
	if !r.Lacks(contract.CapTrace) {
		fmt.Fprintf(b, "  fallback rate %s", mdcell.Float(s.FallbackRate))
	}
	b.WriteString("\n")
	for i := range r.Cases {
		c := &r.Cases[i]
		switch c.Status {
		case judge.StatusPass, judge.StatusDraft:
			continue
		case judge.StatusFail:
			fmt.Fprintf(b, "  %s %s: %s\n", paint("31", "fail"), c.CaseID, strings.Join(c.FailedChecks, ", "))
		case judge.StatusSkipped:
			fmt.Fprintf(b, "  %s %s: %s\n", paint("33", "skipped"), c.CaseID, strings.Join(c.SkippedChecks, ", "))
		default:
			fmt.Fprintf(b, "  %s %s: %s\n", paint("33", string(c.Status)), c.CaseID, mdcell.Or(c.Reason, ""))
		}
	}
	return b.Flush()
}

// nothingJudged is the line of a run whose cases were all skipped, which is
// no pass.
const nothingJudged = "every case was skipped: the pipeline declares it lacks every part the golden cases check, so nothing was judged"

// allDrafts is the line of a run whose cases are all drafts: it passes,
// and it gates nothing.
const allDrafts = "every case is a draft: nothing was judged and nothing is gated until the drafts are assessed (docs/golden-sets.md)"

// draftCases is ", N drafts" after the case counts, "" when no case is a
// draft (the line is then what it was before drafts existed). A draft is
// counted apart: it is neither judged nor in the pass rate.
func draftCases(s *judge.Summary) string {
	switch s.DraftCount {
	case 0:
		return ""
	case 1:
		return ", 1 draft"
	}
	return fmt.Sprintf(", %d drafts", s.DraftCount)
}

// skippedCases is ", N skipped" after the case counts, "" when no case was
// skipped (the line is then what it was before checks could be skipped).
func skippedCases(s *judge.Summary) string {
	if s.SkippedCount == 0 {
		return ""
	}
	return fmt.Sprintf(", %d skipped", s.SkippedCount)
}

// skippedChecksLine says how many checks were skipped and why:
//
//	skipped checks: 6 (selected_attempt 4: pipeline declares no trace; rerank_top_source 2: pipeline declares no rerank)
//
// It is "" when none was.
func skippedChecksLine(s *judge.Summary) string {
	n := s.SkippedCheckCount()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("skipped checks: %d (%s)", n, skippedChecksList(s))
}

// skippedChecksList lists the skipped checks, the counts and the reasons:
//
//	selected_attempt 4: pipeline declares no trace; rerank_top_source 2: pipeline declares no rerank
func skippedChecksList(s *judge.Summary) string {
	parts := make([]string, len(s.SkippedChecks))
	for i, sc := range s.SkippedChecks {
		parts[i] = fmt.Sprintf("%s %d: %s", sc.Check, sc.Count, sc.Reason)
	}
	return strings.Join(parts, "; ")
}
