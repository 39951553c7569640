package corpus

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a seed document, located by file and
// line. Its message reads FILE:LINE: MSG.
type Problem struct {
	File string // the path the file was read under
	Line int    // 1-based line of the offending key or list item; 1 for problems of the whole file
	Msg  string // what is wrong: lowercase, no trailing period
	// DeclaredScope is the document's kb_scope when the problem is that
	// it is not the kb scope being loaded, so a caller can report all of
	// them in one message ("" for any other problem).
	DeclaredScope string
}

func (p Problem) Error() string {
	return p.File + ":" + strconv.Itoa(p.Line) + ": " + p.Msg
}

// Problems is every problem found in a set of seed documents, sorted by
// file, then line. Its message has one problem per line. LoadDir returns a
// non-empty Problems or a nil error, never an empty list, so a caller can
// list them all with errors.As and exit without writing anything.
type Problems []Problem

func (ps Problems) Error() string {
	if len(ps) == 0 {
		return "no problems"
	}
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// Unwrap returns the problems as errors.
func (ps Problems) Unwrap() []error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errs
}

// sortProblems orders problems by file, then line, keeping the order in
// which problems on the same line were found.
func sortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
}
