package report

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// appendCase appends c as encoding/json would write it with
// SetIndent(indent, "  ") and SetEscapeHTML(false), without the trailing
// newline. It exists because the cases are most of a large report and
// reflection-based encoding dominated rag-eval's time on 10,000 cases;
// TestAppendCaseMatchesEncodingJSON keeps the two identical.
func appendCase(b []byte, c *Case, indent string) []byte {
	w := jw{b: b, indent: indent}
	w.open('{')
	w.key("caseId")
	w.str(c.CaseID)
	w.key("scenario")
	w.str(c.Scenario)
	w.key("tags")
	w.strs(c.Tags)
	w.key("query")
	w.str(c.Query)
	w.key("status")
	w.str(c.Status)
	w.key("reason")
	w.strp(c.Reason)
	w.key("k")
	w.int(c.K)
	w.key("hitLevel")
	w.strp(c.HitLevel)
	w.key("firstExpectedRank")
	if c.FirstExpectedRank == nil {
		w.null()
	} else {
		w.int(*c.FirstExpectedRank)
	}
	w.key("topCandidates")
	if c.TopCandidates == nil {
		w.null()
	} else if len(c.TopCandidates) == 0 {
		w.raw("[]")
	} else {
		w.open('[')
		for i := range c.TopCandidates {
			t := &c.TopCandidates[i]
			w.elem()
			w.open('{')
			w.key("rank")
			w.int(t.Rank)
			w.key("source")
			w.str(t.Source)
			w.key("docId")
			w.str(t.DocID)
			w.key("breadcrumb")
			w.str(t.Breadcrumb)
			w.key("category")
			w.str(t.Category)
			w.key("relevanceLevel")
			w.str(t.RelevanceLevel)
			w.key("qualityScore")
			w.float(t.QualityScore)
			w.close('}')
		}
		w.close(']')
	}
	w.key("checks")
	if c.Checks == nil {
		w.null()
	} else if len(c.Checks) == 0 {
		w.raw("[]")
	} else {
		w.open('[')
		for i := range c.Checks {
			ch := &c.Checks[i]
			w.elem()
			w.open('{')
			w.key("name")
			w.str(ch.Name)
			w.key("passed")
			w.raw(strconv.FormatBool(ch.Passed))
			w.key("message")
			w.strp(ch.Message)
			w.close('}')
		}
		w.close(']')
	}
	w.key("failedChecks")
	w.strs(c.FailedChecks)
	w.key("selectedAttempt")
	w.strp(c.SelectedAttempt)
	w.key("fallbackReason")
	w.strp(c.FallbackReason)
	w.key("evidenceStatus")
	w.strp(c.EvidenceStatus)
	w.key("rerankTopSource")
	w.strp(c.RerankTopSource)
	w.key("searchMode")
	w.strp(c.SearchMode)
	w.key("metrics")
	if m := c.Metrics; m == nil {
		w.null()
	} else {
		w.open('{')
		w.key("reciprocalRank")
		w.f6(m.ReciprocalRank)
		w.key("ndcgAtK")
		w.f6(m.NDCGAtK)
		w.key("docRecallAtK")
		w.f6(m.DocRecallAtK)
		w.key("precisionAtK")
		w.f6(m.PrecisionAtK)
		w.close('}')
	}
	w.close('}')
	return w.b
}

// jw writes indented JSON the way encoding/json's indenter lays it out.
type jw struct {
	b      []byte
	indent string
	depth  int
	first  bool // no member written yet at this depth
}

func (w *jw) newline() {
	w.b = append(w.b, '\n')
	w.b = append(w.b, w.indent...)
	for range w.depth {
		w.b = append(w.b, "  "...)
	}
}

func (w *jw) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.first = true
}

func (w *jw) close(c byte) {
	w.depth--
	w.newline()
	w.b = append(w.b, c)
	w.first = false
}

// elem starts an array element or object member.
func (w *jw) elem() {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.newline()
}

func (w *jw) key(k string) {
	w.elem()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, `": `...)
}

func (w *jw) raw(s string) { w.b = append(w.b, s...) }
func (w *jw) null()        { w.raw("null") }
func (w *jw) int(i int)    { w.b = strconv.AppendInt(w.b, int64(i), 10) }

func (w *jw) f6(f contract.Float6) {
	w.b = contract.AppendFloat6(w.b, float64(f))
}

func (w *jw) float(f Float) {
	if f == nil {
		w.null()
		return
	}
	w.f6(*f)
}

func (w *jw) strp(s *string) {
	if s == nil {
		w.null()
		return
	}
	w.str(*s)
}

func (w *jw) strs(ss []string) {
	switch {
	case ss == nil:
		w.null()
	case len(ss) == 0:
		w.raw("[]")
	default:
		w.open('[')
		for _, s := range ss {
			w.elem()
			w.str(s)
		}
		w.close(']')
	}
}

// str appends s quoted. Strings that need no escaping (the norm) are
// copied as they are; any other goes through encoding/json, so the
// escaping rules are exactly its own.
func (w *jw) str(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			if c >= utf8.RuneSelf && plainUTF8(s[i:]) {
				break
			}
			q, _ := json.Marshal(s) // a string always marshals
			w.b = append(w.b, unescapeHTML(q)...)
			return
		}
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
}

// plainUTF8 reports whether s is valid UTF-8 without characters JSON
// encoding escapes (controls, quote, backslash, U+2028, U+2029).
func plainUTF8(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// unescapeHTML undoes json.Marshal's HTML escaping (\u003c, \u003e,
// \u0026), which the report does not use (SetEscapeHTML(false)).
func unescapeHTML(q []byte) []byte {
	out := q[:0]
	for i := 0; i < len(q); i++ {
		if q[i] == '\\' && i+5 < len(q) && q[i+1] == 'u' && q[i+2] == '0' && q[i+3] == '0' {
			switch string(q[i+4 : i+6]) {
			case "3c":
				out = append(out, '<')
				i += 5
				continue
			case "3e":
				out = append(out, '>')
				i += 5
				continue
			case "26":
				out = append(out, '&')
				i += 5
				continue
			}
		}
		if q[i] == '\\' && i+1 < len(q) {
			out = append(out, q[i], q[i+1])
			i++
			continue
		}
		out = append(out, q[i])
	}
	return out
}
