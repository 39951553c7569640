package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// WriteJSON writes r as JSON indented by two spaces, with no HTML escaping
// and a trailing newline. It is byte for byte what encoding/json writes for
// r, except in topCandidates. They leave out scoreLabel, which the report's
// schema, schemaVersion 1 of docs/reports.md, does not have. They end with
// evidenceKey, or excerptStart for a block without one, each written only
// when not "", which encoding/json leaves out. The same report always
// gives the same bytes.
//
// The cases are most of a large report, and reflection-based encoding
// dominated rag-eval's time on 10,000 of them. So they are written by hand
// (appendCase), and every other member goes through encoding/json.
// TestWriteJSONMatchesEncodingJSON keeps the two the same.
func (r *Report) WriteJSON(w io.Writer) error {
	e := encoder{w: w, b: make([]byte, 0, flushAt+4096)}
	e.open('{')
	e.key("schemaVersion")
	e.int(r.SchemaVersion)
	e.key("tool")
	e.str(r.Tool)
	e.key("inputs")
	e.value(&r.Inputs)
	e.key("summary")
	e.value(&r.Summary)
	e.key("byScenario")
	e.value(r.ByScenario)
	e.key("byTag")
	e.value(r.ByTag)
	e.key("warnings")
	e.value(r.Warnings)
	e.key("cases")
	e.list(len(r.Cases), r.Cases == nil, func(i int) {
		e.appendCase(&r.Cases[i])
		e.flush(flushAt)
	})
	e.close('}')
	e.raw("\n")
	e.flush(0)
	return e.err
}

// appendCase writes c as encoding/json would, without scoreLabel, with
// evidenceKey and excerptStart.
func (e *encoder) appendCase(c *judge.CaseResult) {
	e.open('{')
	e.key("caseId")
	e.str(c.CaseID)
	e.key("scenario")
	e.str(c.Scenario)
	e.key("tags")
	e.strs(c.Tags)
	e.key("query")
	e.str(c.Query)
	e.key("status")
	e.str(string(c.Status))
	e.key("reason")
	e.strp(c.Reason)
	e.key("k")
	e.int(c.K)
	e.key("hitLevel")
	e.strp(c.HitLevel)
	e.key("firstExpectedRank")
	if c.FirstExpectedRank == nil {
		e.null()
	} else {
		e.int(*c.FirstExpectedRank)
	}
	e.key("topCandidates")
	e.list(len(c.TopCandidates), c.TopCandidates == nil, func(i int) {
		t := &c.TopCandidates[i]
		e.open('{')
		e.key("rank")
		e.int(t.Rank)
		e.key("source")
		e.str(t.Source)
		e.key("docId")
		e.str(t.DocID)
		e.key("breadcrumb")
		e.str(t.Breadcrumb)
		e.key("category")
		e.str(t.Category)
		e.key("relevanceLevel")
		e.str(t.RelevanceLevel)
		e.key("qualityScore")
		e.floatp(t.QualityScore)
		if t.EvidenceKey != "" {
			e.key("evidenceKey")
			e.str(t.EvidenceKey)
		}
		if t.ExcerptStart != "" {
			e.key("excerptStart")
			e.str(t.ExcerptStart)
		}
		e.close('}')
	})
	e.key("checks")
	e.list(len(c.Checks), c.Checks == nil, func(i int) {
		ch := &c.Checks[i]
		e.open('{')
		e.key("name")
		e.str(ch.Name)
		e.key("passed")
		e.raw(strconv.FormatBool(ch.Passed))
		if ch.Skipped {
			e.key("skipped")
			e.raw("true")
		}
		e.key("message")
		e.strp(ch.Message)
		e.close('}')
	})
	e.key("failedChecks")
	e.strs(c.FailedChecks)
	if len(c.SkippedChecks) > 0 {
		e.key("skippedChecks")
		e.strs(c.SkippedChecks)
	}
	e.key("selectedAttempt")
	e.strp(c.SelectedAttempt)
	e.key("fallbackReason")
	e.strp(c.FallbackReason)
	e.key("evidenceStatus")
	e.strp(c.EvidenceStatus)
	e.key("rerankTopSource")
	e.strp(c.RerankTopSource)
	e.key("searchMode")
	e.strp(c.SearchMode)
	e.key("metrics")
	if m := c.Metrics; m == nil {
		e.null()
	} else {
		e.open('{')
		e.key("reciprocalRank")
		e.float(m.ReciprocalRank)
		e.key("ndcgAtK")
		e.float(m.NDCGAtK)
		e.key("docRecallAtK")
		e.float(m.DocRecallAtK)
		e.key("precisionAtK")
		e.float(m.PrecisionAtK)
		e.close('}')
	}
	e.close('}')
}

// flushAt is how much output the encoder holds before it writes.
const flushAt = 64 << 10

// encoder writes indented JSON to w the way encoding/json lays it out,
// with two spaces and SetEscapeHTML(false).
type encoder struct {
	w     io.Writer
	err   error // the first write or encoding error
	b     []byte
	depth int
	first bool // no member written yet at this depth
}

// flush writes what is held once it is more than n bytes.
func (e *encoder) flush(n int) {
	if len(e.b) <= n {
		return
	}
	if e.err == nil {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

// indent is the indentation of the deepest line the report has, and more.
const indent = "\n                                "

// newline starts a line indented two spaces per depth.
func (e *encoder) newline() {
	if n := 1 + 2*e.depth; n <= len(indent) {
		e.b = append(e.b, indent[:n]...)
		return
	}
	e.b = append(e.b, '\n')
	for range e.depth {
		e.b = append(e.b, "  "...)
	}
}

func (e *encoder) open(c byte) {
	e.b = append(e.b, c)
	e.depth++
	e.first = true
}

func (e *encoder) close(c byte) {
	e.depth--
	e.newline()
	e.b = append(e.b, c)
	e.first = false
}

// elem starts an array element or object member.
func (e *encoder) elem() {
	if !e.first {
		e.b = append(e.b, ',')
	}
	e.first = false
	e.newline()
}

func (e *encoder) key(k string) {
	e.elem()
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, `": `...)
}

func (e *encoder) raw(s string) { e.b = append(e.b, s...) }
func (e *encoder) null()        { e.raw("null") }
func (e *encoder) int(i int)    { e.b = strconv.AppendInt(e.b, int64(i), 10) }

func (e *encoder) float(f contract.Float6) { e.b = contract.AppendFloat6(e.b, float64(f)) }

func (e *encoder) floatp(f *contract.Float6) {
	if f == nil {
		e.null()
		return
	}
	e.float(*f)
}

func (e *encoder) strp(s *string) {
	if s == nil {
		e.null()
		return
	}
	e.str(*s)
}

func (e *encoder) strs(ss []string) {
	e.list(len(ss), ss == nil, func(i int) { e.str(ss[i]) })
}

// list writes an array of n elements as encoding/json writes a slice:
// null when the slice is nil, [] when it is empty, else one element per
// line, each written by elem.
func (e *encoder) list(n int, isNil bool, elem func(i int)) {
	switch {
	case isNil:
		e.null()
	case n == 0:
		e.raw("[]")
	default:
		e.open('[')
		for i := 0; i < n; i++ {
			e.elem()
			elem(i)
		}
		e.close(']')
	}
}

// value writes v with encoding/json at the current depth.
func (e *encoder) value(v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(string(bytes.Repeat([]byte("  "), e.depth)), "  ")
	if err := enc.Encode(v); err != nil {
		if e.err == nil {
			e.err = err
		}
		e.null()
		return
	}
	e.b = append(e.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// str writes s quoted. Strings that need no escaping, the norm, are copied
// as they are. Any other goes through encoding/json, so that the escaping
// rules are exactly its own.
func (e *encoder) str(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			if c >= utf8.RuneSelf && plainUTF8(s[i:]) {
				break
			}
			e.value(s)
			return
		}
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, s...)
	e.b = append(e.b, '"')
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
