package querylog

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// readText reads a plain-text log: one query per line, its surrounding
// white space removed. A line that is blank is skipped. Lines end with "\n" or "\r\n", and a leading byte order mark
// is skipped. A line that is not valid UTF-8 is a problem.
func readText(data []byte, p *problems) []Record {
	recs := make([]Record, 0, bytes.Count(data, []byte("\n"))+1)
	eachLine(data, func(n int, line []byte) bool {
		if !utf8.Valid(line) {
			p.add(n, "", "not valid UTF-8")
			return true
		}
		if s := strings.TrimSpace(string(line)); s != "" {
			recs = append(recs, Record{Query: s, Count: 1, Line: n})
		}
		return true
	})
	return recs
}

// eachLine calls fn with every line of data and its 1-based number, the
// line ending and a leading byte order mark removed, until fn returns
// false.
func eachLine(data []byte, fn func(n int, line []byte) bool) {
	data = bytes.TrimPrefix(data, bom)
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if !fn(n, bytes.TrimSuffix(line, []byte("\r"))) {
			return
		}
	}
}
