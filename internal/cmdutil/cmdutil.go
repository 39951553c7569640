// Package cmdutil holds what the three binaries share about errors: which
// ones are usage errors (exit 2), and how an error is printed (once, every
// line prefixed with the tool's name).
package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// UsageError marks a usage or input error: the command exits 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage marks err as a usage or input error.
func Usage(err error) error { return &UsageError{err} }

// Usagef is Usage(fmt.Errorf(format, args...)).
func Usagef(format string, args ...any) error { return Usage(fmt.Errorf(format, args...)) }

// IsUsage reports whether err is, or wraps, a usage error.
func IsUsage(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue)
}

// PrintError writes err to w, every line prefixed "tool: ", so a list of
// problems (one per line) reads as the tool's own messages.
func PrintError(w io.Writer, tool string, err error) {
	for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		fmt.Fprintf(w, "%s: %s\n", tool, line)
	}
}
