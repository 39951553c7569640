package compare

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/texttab"
)

// WriteText writes the plain-text summary rag-eval compare prints: each
// side's availability and pass count, the metric table, and how many cases
// differ.
func (r *Report) WriteText(w io.Writer) error {
	for _, s := range []SideReport{r.Left, r.Right} {
		if s.Summary == nil {
			fmt.Fprintf(w, "%s: unavailable: %s\n", s.Name, texttab.Or(s.Reason, texttab.None))
			continue
		}
		fmt.Fprintf(w, "%s: %d/%d cases pass (%s)\n", s.Name, s.Summary.PassCount, s.Summary.CaseCount, s.Fixtures)
		if line := skippedLine(s.Summary); line != "" {
			fmt.Fprintf(w, "%s: %s\n", s.Name, line)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "metric\t%s\t%s\tΔ\t95%% CI\tp\tpairs\tdiffer\n", r.Left.Name, r.Right.Name)
	for _, m := range r.Metrics {
		mark := ""
		if m.Significant() {
			mark = " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\t%d\t%d\n", m.Name, texttab.Float(m.Left), texttab.Float(m.Right), texttab.Signed(m.Delta), ci(m.CI95), texttab.Float(m.PValue), mark, m.Pairs, m.NonZero)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "Δ = %s − %s; * p < %g. %s\n", r.Left.Name, r.Right.Name, Significance, r.differingSentence())
	return err
}

// skippedLine says what of a side was skipped: "1 case skipped; 3 checks
// skipped (selected_attempt 2: pipeline declares no trace; …)"; "" when
// nothing was.
func skippedLine(m *judge.Summary) string {
	n := m.SkippedCheckCount()
	if n == 0 && m.SkippedCount == 0 {
		return ""
	}
	parts := make([]string, len(m.SkippedChecks))
	for i, sc := range m.SkippedChecks {
		parts[i] = fmt.Sprintf("%s %d: %s", sc.Check, sc.Count, sc.Reason)
	}
	return fmt.Sprintf("%d case%s skipped; %d check%s skipped (%s)", m.SkippedCount, plural(m.SkippedCount), n, plural(n), strings.Join(parts, "; "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
