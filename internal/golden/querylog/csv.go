package querylog

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// readCSV reads a CSV log (RFC 4180, as encoding/csv reads it) whose first
// row names the columns. The query column is required. count, tags and
// scenario are read when present, and other columns are ignored. Column
// names are matched ignoring letter case and surrounding white space. A
// tags cell lists tags separated by commas or semicolons. An empty count
// is 1, and an empty scenario is none. Every row has as many cells as the
// header.
func readCSV(data []byte, p *problems) []Record {
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:invalidAt(data)], []byte("\n"))
		p.add(line, "", "not valid UTF-8")
		return nil
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, bom)))
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			p.add(1, "", "no header row: the first row must name the columns, one of them query")
		} else {
			p.addCSV(err)
		}
		return nil
	}
	cols := map[string]int{"query": -1, "count": -1, "tags": -1, "scenario": -1}
	for i, name := range head {
		name = strings.ToLower(strings.TrimSpace(name))
		if j, known := cols[name]; known {
			if j >= 0 {
				p.add(1, "", "two columns named "+quote(name)+" in the header")
				return nil
			}
			cols[name] = i
		}
	}
	if cols["query"] < 0 {
		p.add(1, "", "no query column in the header row (it has "+strings.Join(quoteAll(head), ", ")+")")
		return nil
	}
	var recs []Record
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.addCSV(err)
			continue
		}
		n, _ := r.FieldPos(0)
		rec := Record{Count: 1, Line: n}
		ok := true
		cell := func(name string) (string, int) {
			i := cols[name]
			if i < 0 {
				return "", 0
			}
			line, _ := r.FieldPos(i)
			return row[i], line
		}
		if q, line := cell("query"); strings.TrimSpace(q) == "" {
			p.add(line, field("query"), "must not be "+emptyWord(q))
			ok = false
		} else {
			rec.Query = strings.TrimSpace(q)
		}
		if c, line := cell("count"); strings.TrimSpace(c) != "" {
			if v, msg := parseCount(strings.TrimSpace(c), false); msg != "" {
				p.add(line, field("count"), msg)
				ok = false
			} else {
				rec.Count = v
			}
		}
		if t, _ := cell("tags"); t != "" {
			for _, tag := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ';' }) {
				if tag = strings.TrimSpace(tag); tag != "" {
					rec.Tags = append(rec.Tags, tag)
				}
			}
		}
		if sc, _ := cell("scenario"); strings.TrimSpace(sc) != "" {
			rec.Scenario = strings.TrimSpace(sc)
		}
		if ok {
			recs = append(recs, rec)
		}
	}
	return recs
}

// addCSV adds a problem of encoding/csv, at its line.
func (p *problems) addCSV(err error) {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		p.add(pe.Line, "", pe.Err.Error())
		return
	}
	p.add(0, "", err.Error())
}

// invalidAt is the offset of the first byte of data that is not valid
// UTF-8.
func invalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}
