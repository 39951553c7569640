package calibrate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// WriteText writes the plain-text summary, one line per mode: the best
// block threshold and the best case threshold, each beside the shipped
// thresholds it justifies or does not. The mode name, status and reason
// come from the manifest. One that holds a control character, a line or
// paragraph separator or invalid UTF-8 is written Go-quoted, as a newline
// would split its line.
func (r *Report) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	for i := range r.Modes {
		m := &r.Modes[i]
		if m.Blocks == nil {
			fmt.Fprintf(b, "%s: %s: %s\n", oneLine(m.Name), oneLine(m.Status), oneLine(mdcell.Or(m.Reason, "no reason given")))
			continue
		}
		s := m.Shipped
		fmt.Fprintf(b, "%s: blocks best %s vs shipped medium %s, high %s, minQuality %s; cases best %s vs shipped lowQuality %s",
			oneLine(m.Name), bestText(m.Blocks.Best, m.Blocks.Relevant.Count, m.Blocks.NonRelevant.Count),
			mdcell.Float(s.Levels.Medium), mdcell.Float(s.Levels.High), mdcell.Float(s.MinQuality),
			bestText(m.Cases.Best, m.Cases.Relevant.Count, m.Cases.NonRelevant.Count), mdcell.Float(s.LowQuality))
		if nb, nc := m.Blocks.Counts.MissingScore, m.Cases.Counts.MissingScore; nb+nc > 0 {
			fmt.Fprintf(b, "; without a score: %d block%s, %d case%s", nb, plural(nb), nc, plural(nc))
		}
		b.WriteString("\n")
	}
	return b.Flush()
}

func bestText(t *Threshold, rel, non int) string {
	if t == nil {
		return fmt.Sprintf("— (%d relevant, %d non-relevant scores)", rel, non)
	}
	return fmt.Sprintf("%s (TPR %s, FPR %s; %d relevant, %d non-relevant)", mdcell.Float(t.Threshold), mdcell.Float(t.TPR), mdcell.Float(t.FPR), rel, non)
}

// oneLine returns s, or s Go-quoted when it holds a rune that would break
// or hide the line it is written on.
func oneLine(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp)
	}) {
		return strconv.Quote(s)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
