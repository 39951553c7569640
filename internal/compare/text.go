package compare

import (
	"fmt"
	"io"

	"github.com/ragbaseline/ragbaseline/internal/texttab"
)

// WriteText writes the plain-text summary rag-eval compare prints: each
// side's availability and pass count, the means per side, each pair's
// metric table and how many of its cases differ.
func (r *Report) WriteText(w io.Writer) error {
	var names []string
	for _, s := range r.Sides {
		names = append(names, s.Name)
		if s.Summary == nil {
			fmt.Fprintf(w, "%s: unavailable: %s\n", s.Name, texttab.Or(s.Reason, texttab.None))
			continue
		}
		fmt.Fprintf(w, "%s: %d/%d cases pass (%s)\n", s.Name, s.Summary.PassCount, s.Summary.CaseCount, s.Fixtures)
	}
	if err := r.writeText(w, names); err != nil {
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
