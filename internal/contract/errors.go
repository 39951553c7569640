package contract

import (
	"errors"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// quotedLen is the most bytes of a value that a message quotes.
const quotedLen = 40

// where names a place in a golden or fixture file for diag.Error.Where:
// case "ID": field "F". An empty part is left out.
func where(caseID, field string) string {
	var b strings.Builder
	if caseID != "" {
		b.WriteString("case ")
		b.WriteString(strconv.Quote(caseID))
	}
	if field != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString("field ")
		b.WriteString(strconv.Quote(field))
	}
	return b.String()
}

// ErrUnsupportedVersion matches every *UnsupportedVersionError with errors.Is.
var ErrUnsupportedVersion = errors.New("unsupported version")

// UnsupportedVersionError reports a format version this package cannot read.
// Nothing else in the file is validated when it is returned: another version
// may mean other fields.
type UnsupportedVersionError struct {
	File      string
	Line      int    // 1-based line of the version value, 0 when unknown
	Field     string // the version key, such as "version"
	Version   string // the value as written in the file, JSON text shortened when long
	Supported []int  // the versions that are supported
}

func (e *UnsupportedVersionError) Error() string {
	var b strings.Builder
	b.WriteString("unsupported version ")
	b.WriteString(e.Version)
	b.WriteString(" (supported: ")
	for i, v := range e.Supported {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(v))
	}
	b.WriteByte(')')
	return (&diag.Error{File: e.File, Line: e.Line, Where: where("", e.Field), Msg: b.String()}).Error()
}

// Is reports whether target is ErrUnsupportedVersion.
func (e *UnsupportedVersionError) Is(target error) bool { return target == ErrUnsupportedVersion }
