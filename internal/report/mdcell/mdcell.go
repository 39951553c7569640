// Package mdcell holds what every Markdown table rag-eval writes shares
// (the judge's report and baseline diff, compare, calibrate). It writes a
// table row, makes text safe inside a cell or a code span, and shows a value
// that may be absent. It knows nothing of retrieval. The renderers in
// packages report, compare and calibrate decide what goes in which column.
//
// A value that is absent (JSON null) is shown as None. A number is shown as
// the JSON reports write it: the number's own MarshalJSON decides, so that a
// cell and the JSON report never disagree. For the reports' numbers
// (contract.Float6) that is rounded half away from zero to 6 decimals, in
// the shortest form.
package mdcell

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// Row writes one table row. The cells must already be escaped.
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

// None is how a cell shows an absent value.
const None = "—"

// Float is f as its JSON, or None when f is nil or its JSON cannot be
// written.
func Float[F json.Marshaler](f *F) string {
	if f == nil {
		return None
	}
	j, err := (*f).MarshalJSON()
	if err != nil {
		return None
	}
	return string(j)
}

// Signed is Float with a plus sign when f is positive as written, for a
// difference. A zero after rounding has no sign.
func Signed[F json.Marshaler](f *F) string {
	s := Float(f)
	if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 {
		s = "+" + s
	}
	return s
}

// Int is *p, or None when p is nil.
func Int(p *int) string {
	if p == nil {
		return None
	}
	return strconv.Itoa(*p)
}

// Or is *p, or absent when p is nil.
func Or(p *string, absent string) string {
	if p == nil {
		return absent
	}
	return *p
}

// JSONText is a JSON value as cell text: a string as itself, anything else
// (a number, a list, null) as its JSON.
func JSONText(v any) string {
	j, _ := json.Marshal(v)
	if len(j) > 0 && j[0] == '"' {
		var s string
		if json.Unmarshal(j, &s) == nil {
			return s
		}
	}
	return string(j)
}
