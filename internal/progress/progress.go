// Package progress draws a one-line progress bar on a terminal and nothing
// at all otherwise (CI logs, pipes, NO_COLOR does not matter here).
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Bar is a progress bar; the zero value and a Bar on a non-terminal draw
// nothing. It is safe for concurrent use.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	on    bool
	last  int
}

// New returns a bar writing to w when w is a terminal.
func New(w io.Writer, label string) *Bar {
	return &Bar{w: w, label: label, on: IsTerminal(w), last: -1}
}

// Set shows done of total.
func (b *Bar) Set(done, total int) {
	if b == nil || !b.on || total <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	pct := done * 100 / total
	if pct == b.last && done != total {
		return
	}
	b.last = pct
	const width = 30
	fill := pct * width / 100
	fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d", b.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total)
}

// Done ends the bar's line.
func (b *Bar) Done() {
	if b == nil || !b.on {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last >= 0 {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}

// IsTerminal reports whether w is a character device.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
