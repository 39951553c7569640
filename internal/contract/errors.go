package contract

import (
	"errors"
	"strconv"
	"strings"
)

// Error is one problem in an input file, located by file and line.
//
// Its message reads FILE:LINE: case "ID": field "F": MSG, each of the
// location parts omitted when absent (empty File, zero Line, empty CaseID or
// Field).
type Error struct {
	File   string // the name the file was read under
	Line   int    // 1-based line where the offending case or value starts; 0 when unknown
	CaseID string // the caseId of the case the problem is in; "" outside a case or when unknown
	Field  string // the JSON key of the offending field; "" when the problem is not in one field
	Msg    string // what is wrong: lowercase, no trailing period
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
	if e.CaseID != "" {
		b.WriteString("case ")
		b.WriteString(strconv.Quote(e.CaseID))
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString("field ")
		b.WriteString(strconv.Quote(e.Field))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in one file, in the order of the lines
// they are on. Its message has one problem per line. A parser returns a
// non-empty ErrorList or a nil error, never an empty list.
type ErrorList []*Error

func (l ErrorList) Error() string {
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

// Unwrap returns the problems as errors, so errors.As can reach an *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// ErrUnsupportedVersion matches every *UnsupportedVersionError with errors.Is.
var ErrUnsupportedVersion = errors.New("unsupported version")

// UnsupportedVersionError reports a format version this package cannot read.
// Nothing else in the file is validated when it is returned: another version
// may mean other fields.
type UnsupportedVersionError struct {
	File      string
	Line      int    // 1-based line of the version value; 0 when unknown
	Field     string // the version key, such as "version"
	Version   string // the value as written in the file (JSON text, shortened when long)
	Supported []int  // the versions that are supported
}

func (e *UnsupportedVersionError) Error() string {
	var b strings.Builder
	b.WriteString((&Error{File: e.File, Line: e.Line, Field: e.Field, Msg: "unsupported version "}).Error())
	b.WriteString(e.Version)
	b.WriteString(" (supported: ")
	for i, v := range e.Supported {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(v))
	}
	b.WriteByte(')')
	return b.String()
}

// Is reports whether target is ErrUnsupportedVersion.
func (e *UnsupportedVersionError) Is(target error) bool { return target == ErrUnsupportedVersion }
