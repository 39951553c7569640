package corpus

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// ScopeError is the Err of the problem of a document whose kb_scope is not
// the kb scope being loaded. A wrong flag or golden file gives one per
// document, so rag-seed finds them with errors.As and reports them all in
// one line.
type ScopeError struct {
	Declared string // the document's kb_scope
	Loading  string // the kb scope being loaded
}

func (e *ScopeError) Error() string {
	return fmt.Sprintf("kb_scope %q does not match the kb scope being loaded (%q)", e.Declared, e.Loading)
}

// sortProblems orders problems by file, then line, keeping the order in
// which problems on the same line were found.
func sortProblems(ps diag.List) {
	slices.SortStableFunc(ps, func(a, b *diag.Error) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
}
