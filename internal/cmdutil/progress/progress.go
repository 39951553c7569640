// Package progress draws a one-line progress bar. It does not decide
// whether to: cmdutil.Streams.Progress makes a bar only on a terminal, and
// a nil *Bar draws nothing.
package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Bar is a progress bar. A nil Bar and the zero value draw nothing. It is
// safe for concurrent use.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	on    bool
	last  int
	// drawn is when the bar was last drawn, for SetNote.
	drawn time.Time
	now   func() time.Time
}

// noteEvery is how often SetNote redraws a bar whose percentage has not
// changed.
const noteEvery = 250 * time.Millisecond

// New returns a bar drawing to w.
func New(w io.Writer, label string) *Bar {
	return &Bar{w: w, label: label, on: true, last: -1, now: time.Now}
}

// Set shows done of total.
func (b *Bar) Set(done, total int) { b.SetNote(done, total, "") }

// SetNote shows done of total followed by note, such as the pace
// ("1,204 chunks/s, 12s left", see Pace). The bar is redrawn when its
// percentage changes, and for a new note at most every 250 ms.
func (b *Bar) SetNote(done, total int, note string) {
	if b == nil || !b.on || total <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	pct := done * 100 / total
	now := b.now()
	if pct == b.last && done != total && (note == "" || now.Sub(b.drawn) < noteEvery) {
		return
	}
	b.last, b.drawn = pct, now
	const width = 30
	fill := pct * width / 100
	fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d", b.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total)
	if note != "" {
		// Erase what a longer note left.
		fmt.Fprintf(b.w, "  %s\x1b[K", note)
	}
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

// Pace says how fast things go and how long is left: "1,204 chunks/s,
// 1m05s left". A rate of 0 or less is left out, and so is a time left of 0
// or less (not known yet).
func Pace(perSecond float64, unit string, left time.Duration) string {
	var parts []string
	if perSecond > 0 {
		parts = append(parts, thousands(int64(perSecond+0.5))+" "+unit+"/s")
	}
	if left > 0 {
		parts = append(parts, duration(left)+" left")
	}
	return strings.Join(parts, ", ")
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// duration writes d to the second: "42s", "3m05s", "2h07m".
func duration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", max(s, 1))
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}
