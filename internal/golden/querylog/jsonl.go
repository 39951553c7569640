package querylog

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// maxCount is the largest count accepted, as for the golden file's
// integers.
const maxCount = math.MaxInt32

// readJSONL reads a log of JSON objects, one per line:
// {"query": "…", "count": 3, "tags": ["…"], "scenario": "…"}. query is
// required, the others are optional (null is absent), and other fields are
// ignored. A blank line is skipped.
func readJSONL(data []byte, p *problems) []Record {
	var recs []Record
	eachLine(data, func(n int, line []byte) bool {
		if len(bytes.TrimSpace(line)) == 0 {
			return true
		}
		if !utf8.Valid(line) {
			p.add(n, "", "not valid UTF-8")
			return true
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
			p.add(n, "", "expected a JSON object, got "+describeLine(line, err))
			return true
		}
		if r, ok := fieldsRecord(n, obj, p); ok {
			recs = append(recs, r)
		}
		return true
	})
	return recs
}

// describeLine says what a line that is no JSON object is: a broken
// object's syntax error, else the line's value or, when it is no JSON,
// its text.
func describeLine(line []byte, err error) string {
	line = bytes.TrimSpace(line)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return describe(line)
	case line[0] == '{' && errors.As(err, &se):
		return "a broken object (invalid JSON: " + err.Error() + ")"
	case json.Valid(line):
		return describe(line)
	}
	return "text that is no JSON: " + quote(string(line))
}

// describe names a JSON value for a message: its text when it is a short
// scalar, else its kind.
func describe(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return diag.Clip(string(raw), 40, diag.Chars)
}

// fieldsRecord makes the record of line n from the members of its object:
// query, count, tags and scenario. It reports false when a member is wrong,
// each problem added to p.
func fieldsRecord(n int, obj map[string]json.RawMessage, p *problems) (Record, bool) {
	r := Record{Count: 1, Line: n}
	ok := true
	bad := func(name, msg string) {
		p.add(n, field(name), msg)
		ok = false
	}
	q, has := obj["query"]
	switch s, isStr := rawString(q); {
	case !has || isNull(q):
		bad("query", "missing required field")
	case !isStr:
		bad("query", "expected a string, got "+describe(q))
	case strings.TrimSpace(s) == "":
		bad("query", "must not be "+emptyWord(s))
	default:
		r.Query = strings.TrimSpace(s)
	}
	if c, has := obj["count"]; has && !isNull(c) {
		if v, msg := parseCount(strings.TrimSpace(string(c)), true); msg != "" {
			bad("count", msg)
		} else {
			r.Count = v
		}
	}
	if t, has := obj["tags"]; has && !isNull(t) {
		var list []json.RawMessage
		if err := json.Unmarshal(t, &list); err != nil {
			bad("tags", "expected an array of strings, got "+describe(t))
		} else {
			for i, e := range list {
				s, isStr := rawString(e)
				switch {
				case !isStr:
					bad("tags", "expected an array of strings, got "+describe(e)+" at index "+strconv.Itoa(i))
				case strings.TrimSpace(s) == "":
					bad("tags", emptyWord(s)+" string at index "+strconv.Itoa(i))
				default:
					r.Tags = append(r.Tags, strings.TrimSpace(s))
				}
			}
		}
	}
	if sc, has := obj["scenario"]; has && !isNull(sc) {
		switch s, isStr := rawString(sc); {
		case !isStr:
			bad("scenario", "expected a string, got "+describe(sc))
		case s != "" && strings.TrimSpace(s) == "":
			bad("scenario", "must not be blank; leave it out or use \"\" for the default")
		default:
			r.Scenario = strings.TrimSpace(s)
		}
	}
	return r, ok
}

// parseCount reads a count: an integer from 1 to maxCount. json says
// whether text is a JSON number, which may be written 3.0 or 3e0; a CSV
// cell takes decimal digits only. msg says what is wrong, "" when nothing.
func parseCount(text string, json bool) (int, string) {
	if !json {
		n, err := strconv.Atoi(text)
		switch {
		case err != nil && !allDigits(text):
			return 0, "expected an integer, got " + quote(text)
		case err != nil || n > maxCount:
			return 0, "must be at most " + strconv.Itoa(maxCount) + ", got " + diag.Clip(text, 40, diag.Chars)
		case n < 1:
			return 0, "must be at least 1, got " + text
		}
		return n, ""
	}
	f, err := strconv.ParseFloat(text, 64)
	switch {
	case err != nil && !isJSONNumber(text), err == nil && f != math.Trunc(f):
		return 0, "expected an integer, got " + describe([]byte(text))
	case err != nil || f > maxCount:
		return 0, "must be at most " + strconv.Itoa(maxCount) + ", got " + describe([]byte(text))
	case f < 1:
		return 0, "must be at least 1, got " + describe([]byte(text))
	}
	return int(f), ""
}

// isJSONNumber reports whether text starts like a JSON number, so that a
// ParseFloat error on it is a range error (1e400), not a type error.
func isJSONNumber(text string) bool {
	return text != "" && (text[0] == '-' || '0' <= text[0] && text[0] <= '9')
}

func allDigits(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// rawString decodes raw when it is a JSON string.
func rawString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// emptyWord says whether a string that trims to "" is empty or blank.
func emptyWord(s string) string {
	if s == "" {
		return "empty"
	}
	return "blank"
}
