// Package markdown holds the few rules every Markdown report of rag-eval
// (the judge's report and diff, compare, calibrate) shares: how a table row
// is written and how text is made safe inside a table cell or a code span.
package markdown

import (
	"io"
	"strings"
)

// Row writes one table row; cells must already be escaped.
func Row(w io.StringWriter, cells ...string) {
	w.WriteString("|")
	for _, c := range cells {
		w.WriteString(" ")
		w.WriteString(c)
		w.WriteString(" |")
	}
	w.WriteString("\n")
}

var escaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", "|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>", "`", "\\`",
)

// Escape makes s safe inside a table cell or list item: pipes are escaped,
// HTML is neutralised and line breaks become <br>.
func Escape(s string) string { return escaper.Replace(s) }

var coder = strings.NewReplacer("`", "'", "\n", " ", "\r", " ")

// Code makes s safe inside an inline code span on one line.
func Code(s string) string { return coder.Replace(s) }

// CodeCell is s as an inline code span inside a table cell: like Code, and
// a pipe is escaped too (GitHub splits cells at a pipe even inside a code
// span unless it is escaped).
func CodeCell(s string) string { return "`" + strings.ReplaceAll(Code(s), "|", `\|`) + "`" }

// ShortHash is the first 12 characters of a hex digest, for display.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
