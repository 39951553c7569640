package corpus

import (
	"strings"
)

// Line kinds of a markdown body, as far as chunking needs them.
const (
	lineText       = iota
	lineHeading    // an ATX heading outside fenced code
	lineFenceOpen  // the opening line of a fenced code block
	lineFenceInner // a line inside a fenced code block
	lineFenceClose // the closing line of a fenced code block
)

// mdLine is one line of a body.
type mdLine struct {
	start, end int // byte offsets, end excluding the '\n' and a '\r' before it
	kind       uint8
	blank      bool   // only white space
	level      int    // heading level 1..6
	heading    string // heading text, without the #s and closing sequence
}

// scanLines splits body into lines and classifies them, CommonMark style.
// A fenced code block opens with at least three backticks or tildes
// indented by at most three spaces. A backtick fence's info string has no
// backtick. The block closes with a line of at least as many of the same
// character and nothing else, or at the end of the body. An ATX heading
// is, outside fenced code, 1 to 6 '#' indented by at most three spaces and
// followed by white space or the end of the line. Setext headings,
// headings in block quotes or list items and HTML blocks are not
// recognised: they are text.
func scanLines(body string) []mdLine {
	lines := make([]mdLine, 0, strings.Count(body, "\n")+1)
	var fenceChar byte
	fenceLen := 0
	for start := 0; start < len(body); {
		end := strings.IndexByte(body[start:], '\n')
		next := 0
		if end < 0 {
			end, next = len(body), len(body)
		} else {
			end += start
			next = end + 1
		}
		text := body[start:end]
		if strings.HasSuffix(text, "\r") {
			text = text[:len(text)-1]
			end--
		}
		l := mdLine{start: start, end: end, blank: isBlank(text)}
		indent, rest := leadingIndent(text)
		switch {
		case fenceLen > 0:
			l.kind = lineFenceInner
			if indent <= 3 {
				if n := countRun(rest, fenceChar); n >= fenceLen && isBlank(rest[n:]) {
					l.kind = lineFenceClose
					fenceLen = 0
				}
			}
		case indent <= 3 && (strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~")):
			c := rest[0]
			n := countRun(rest, c)
			if c == '`' && strings.IndexByte(rest[n:], '`') >= 0 {
				break // not a fence: text
			}
			l.kind = lineFenceOpen
			fenceChar, fenceLen = c, n
		case indent <= 3 && strings.HasPrefix(rest, "#"):
			n := countRun(rest, '#')
			if n > 6 || n < len(rest) && rest[n] != ' ' && rest[n] != '\t' {
				break
			}
			l.kind = lineHeading
			l.level = n
			l.heading = headingText(rest[n:])
		}
		lines = append(lines, l)
		start = next
	}
	return lines
}

// headingText strips an ATX heading's content of surrounding white space
// and of its optional closing sequence of '#'s.
func headingText(s string) string {
	s = strings.Trim(s, " \t")
	t := strings.TrimRight(s, "#")
	if t == "" {
		return ""
	}
	if len(t) < len(s) && (strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
		s = t
	}
	return strings.TrimRight(s, " \t")
}

// leadingIndent returns the indentation of s in columns (a tab advances to
// the next multiple of 4) and s without it.
func leadingIndent(s string) (int, string) {
	col := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, s[i:]
		}
	}
	return col, ""
}

func countRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

func isBlank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// firstH1 returns the first non-empty level-1 heading.
func firstH1(lines []mdLine) (mdLine, bool) {
	for _, l := range lines {
		if l.kind == lineHeading && l.level == 1 && l.heading != "" {
			return l, true
		}
	}
	return mdLine{}, false
}

// hasText reports whether some line is neither blank nor a heading.
func hasText(lines []mdLine) bool {
	for _, l := range lines {
		if !l.blank && l.kind != lineHeading {
			return true
		}
	}
	return false
}
