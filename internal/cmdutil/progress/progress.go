// Package progress draws a one-line progress bar. It does not decide
// whether to: cmdutil.Streams.Progress makes a bar only on a terminal, and
// a nil *Bar draws nothing.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// Bar is a progress bar. A nil Bar and the zero value draw nothing. It is
// safe for concurrent use.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	on    bool
	last  int
}

// New returns a bar drawing to w.
func New(w io.Writer, label string) *Bar {
	return &Bar{w: w, label: label, on: true, last: -1}
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
