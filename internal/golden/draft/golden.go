package draft

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// NewFile is a golden file of the drafts, kbScope set when not "": version
// 1, one case per draft in order, each with its caseId, scenario, tags
// (when it has some), query, "draft": true and count, one key per line, a
// two-space indent and a trailing newline. The same drafts give the same
// bytes.
func NewFile(drafts []Query, kbScope string) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"version\": " + strconv.Itoa(contract.GoldenVersion) + ",\n")
	if kbScope != "" {
		b.WriteString("  \"kbScope\": " + jsonString(kbScope) + ",\n")
	}
	b.WriteString("  \"cases\": [")
	for i, q := range drafts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.WriteString(caseText(q, "    ", "  "))
	}
	b.WriteString("\n  ]\n}\n")
	return b.Bytes()
}

// caseText is a draft case as JSON: one member per line, indented by
// indent+unit, the closing brace by indent. With unit "" it is one line,
// {"caseId": "…", "scenario": "…", …}.
func caseText(q Query, indent, unit string) string {
	members := []string{
		`"caseId": ` + jsonString(q.CaseID),
		`"scenario": ` + jsonString(q.Scenario),
	}
	if len(q.Tags) > 0 {
		tags := make([]string, len(q.Tags))
		for i, t := range q.Tags {
			tags[i] = jsonString(t)
		}
		members = append(members, `"tags": [`+strings.Join(tags, ", ")+`]`)
	}
	members = append(members, `"query": `+jsonString(q.Query), `"draft": true`, `"count": `+strconv.Itoa(q.Count))
	if unit == "" {
		return "{" + strings.Join(members, ", ") + "}"
	}
	inner := indent + unit
	return "{\n" + inner + strings.Join(members, ",\n"+inner) + "\n" + indent + "}"
}

// jsonString is s as a JSON string, '<', '>' and '&' as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// Merge adds the drafts to the golden file data, named name in messages,
// which must parse (contract.ParseGolden). The file's bytes are kept as
// they are, and the drafts are inserted after its last case, in the
// layout of its first case:
//
//   - when the first case starts a line, each draft starts a line with the
//     same indentation;
//   - when the first case spans several lines, each draft has one member
//     per line, indented as the first case's first member (two spaces more
//     than the case when that cannot be told);
//   - otherwise a draft is one line, or follows ", " in a one-line list.
//
// The result is checked to parse, with every case of data and then the
// drafts. With no draft, data is returned as it is.
func Merge(name string, data []byte, drafts []Query) ([]byte, error) {
	if _, err := contract.ParseGolden(name, data); err != nil {
		return nil, err
	}
	if len(drafts) == 0 {
		return data, nil
	}
	loc, err := locateCases(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	elemIndent, ownLine := lineIndent(data[loc.open+1 : loc.first])
	unit := ""
	if first := data[loc.first:loc.firstEnd]; bytes.IndexByte(first, '\n') >= 0 {
		unit = "  "
		if mi, ok := lineIndent(afterBrace(first)); ok && strings.HasPrefix(mi, elemIndent) && len(mi) > len(elemIndent) {
			unit = mi[len(elemIndent):]
		}
	}
	var ins bytes.Buffer
	for _, q := range drafts {
		if ownLine {
			ins.WriteString(",\n" + elemIndent)
		} else {
			ins.WriteString(", ")
		}
		ins.WriteString(caseText(q, elemIndent, unit))
	}
	out := make([]byte, 0, len(data)+ins.Len())
	out = append(out, data[:loc.lastEnd]...)
	out = append(out, ins.Bytes()...)
	out = append(out, data[loc.lastEnd:]...)

	g, err := contract.ParseGolden(name, out)
	if err != nil {
		return nil, fmt.Errorf("the merged %s does not parse (a bug: please report it): %w", name, err)
	}
	if old, _ := contract.ParseGolden(name, data); len(g.Cases) != len(old.Cases)+len(drafts) {
		return nil, fmt.Errorf("the merged %s has %d cases, want %d (a bug: please report it)", name, len(g.Cases), len(old.Cases)+len(drafts))
	}
	return out, nil
}

// casesLoc locates the cases array of a golden file: the offsets of its
// '[', of the start and end of its first element, and of the end of its
// last element.
type casesLoc struct{ open, first, firstEnd, lastEnd int }

// locateCases finds the cases array of a golden file that parses: the
// file itself when it is an array, else its "cases" member.
func locateCases(data []byte) (casesLoc, error) {
	start := 0
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		start = len("\uFEFF")
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data[start:]))
	off := func() int { return start + skipSpace(data[start:], int(dec.InputOffset())) }
	var loc casesLoc
	switch dec.PeekKind() {
	case '[':
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return loc, err
		}
		for {
			t, err := dec.ReadToken()
			if err != nil {
				return loc, err
			}
			if t.Kind() != '"' {
				return loc, errors.New("no cases array")
			}
			if t.String() == "cases" && dec.PeekKind() == '[' {
				break
			}
			if err := dec.SkipValue(); err != nil {
				return loc, err
			}
		}
	default:
		return loc, errors.New("not a golden file")
	}
	loc.open = off()
	if _, err := dec.ReadToken(); err != nil {
		return loc, err
	}
	for i := 0; dec.PeekKind() != ']'; i++ {
		s := off()
		if err := dec.SkipValue(); err != nil {
			return loc, err
		}
		e := start + int(dec.InputOffset())
		if i == 0 {
			loc.first, loc.firstEnd = s, e
		}
		loc.lastEnd = e
	}
	if loc.firstEnd == 0 {
		return loc, errors.New("no cases")
	}
	return loc, nil
}

// skipSpace skips JSON white space, commas and colons from i.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
			continue
		}
		break
	}
	return i
}

// lineIndent reports whether the white space ws, which precedes a value,
// ends a line, and returns the indentation after its last line break.
func lineIndent(ws []byte) (string, bool) {
	i := bytes.LastIndexByte(ws, '\n')
	if i < 0 {
		return "", false
	}
	ind := ws[i+1:]
	if len(bytes.Trim(ind, " \t")) > 0 {
		return "", false
	}
	return string(ind), true
}

// afterBrace is the white space that follows the '{' opening obj.
func afterBrace(obj []byte) []byte {
	rest := obj[1:]
	return rest[:len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))]
}
