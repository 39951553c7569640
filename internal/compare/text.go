package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// WriteText writes the plain-text summary rag-eval compare prints: each
// side's availability and pass count, the checks it cannot be judged on,
// the means per side, each pair's metric table and how many of its cases
// differ.
func (r *Report) WriteText(w io.Writer) error {
	var names []string
	for _, s := range r.Sides {
		names = append(names, s.Name)
		if s.Summary == nil {
			fmt.Fprintf(w, "%s: unavailable: %s\n", s.Name, mdcell.Or(s.Reason, mdcell.None))
			continue
		}
		fmt.Fprintf(w, "%s: %d/%d cases pass (%s)\n", s.Name, s.Summary.PassCount, s.Summary.CaseCount, s.Fixtures)
		if u := s.Unjudgeable(); u != "" {
			fmt.Fprintf(w, "%s cannot be judged on: %s\n", s.Name, u)
		}
		if line := skippedLine(s.Summary); line != "" {
			fmt.Fprintf(w, "%s: %s\n", s.Name, line)
		}
	}
	// With two sides the pair's table has both means (over the same cases).
	if err := r.writeText(w, names, len(names) > 2); err != nil {
		return err
	}
	fmt.Fprintf(w, "* p adj. < %g (Holm over %d p-values).\n", Significance, r.Method.Family)
	for k, p := range r.Pairs {
		if _, err := fmt.Fprintf(w, "%s vs %s: %s\n", p.A, p.B, r.differingSentence(k)); err != nil {
			return err
		}
	}
	return nil
}

// skippedLine says what of a side was skipped:
//
//	1 case skipped; 3 checks skipped (selected_attempt 2: pipeline declares no trace; …)
//
// It is "" when nothing was.
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
