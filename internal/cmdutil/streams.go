package cmdutil

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil/progress"
)

// Streams are a command's standard streams, as cli/cli's iostreams are.
// It is the one place that knows what they are connected to.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// System returns the process's standard streams.
func System() *Streams { return &Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr} }

// IsTerminal reports whether w is a terminal. Only an *os.File can be one,
// and only a file the terminal driver answers for: a character device such
// as /dev/null is not.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// ColourOut reports whether output to Out may be coloured: Out is a
// terminal and NO_COLOR is unset or empty (no-color.org).
func (s *Streams) ColourOut() bool {
	return os.Getenv("NO_COLOR") == "" && IsTerminal(s.Out)
}

// Progress returns a progress bar on ErrOut when ErrOut is a terminal.
// Otherwise, as in CI logs and pipes, it returns nil, which draws nothing.
// NO_COLOR does not matter here.
func (s *Streams) Progress(label string) *progress.Bar {
	if !IsTerminal(s.ErrOut) {
		return nil
	}
	return progress.New(s.ErrOut, label)
}
