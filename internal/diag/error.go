package diag

import (
	"strconv"
	"strings"
)

// Error is one problem in a file, located by file and line.
//
// Its message reads FILE:LINE: WHERE: MSG. An empty part is left out with
// its separator. Without a file, the location reads "line LINE".
type Error struct {
	File string // the name the file was read under
	Line int    // 1-based line of the problem, 0 when it is about the whole file or unknown
	// Where is the place in the file in the words of its format, such as
	// `case "c1": field "query"` or `setup[0].name`. It is empty when the
	// problem is in no one place.
	Where string
	Msg   string // what is wrong: lowercase, no trailing period
	// Err is the problem as a value, for the few problems a caller handles
	// apart (corpus.ScopeError). errors.As reaches it. It is not printed,
	// since Msg says the same to the user.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		if e.File == "" {
			b.WriteString("line ")
		} else {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(e.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// List is every problem found in a file or a set of files, in the order of
// the files and the lines they are on. Its message has one problem per
// line. A reader returns a non-empty List or a nil error, never an empty
// List, so a caller can print every problem and stop before any work.
type List []*Error

func (l List) Error() string {
	if len(l) == 0 {
		return "no errors"
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the problems as errors, so that errors.As reaches each
// *Error.
func (l List) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}
