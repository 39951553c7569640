package corpus

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// The frontmatter is a strict subset of YAML: a flat mapping of keys to
// scalars or lists of scalars, each written on one line. A block list takes
// one line per item. Everything it accepts means the same in YAML.
// Anything else, such as nesting, multi-line scalars, anchors, tags or flow
// mappings, is an error rather than a guess.

// fmEntry is one key of the frontmatter.
type fmEntry struct {
	key   string
	line  int      // line of the key
	list  bool     // a [flow] or block list
	empty bool     // "key:" with nothing after it and no list items below
	value string   // the scalar, when !list
	items []fmItem // the items, when list
}

// fmItem is one list item.
type fmItem struct {
	text string
	line int
}

// parseFrontmatter parses the lines between the two "---" lines. lines[0]
// is line firstLine of the file. It returns every entry it could read and
// a problem for every line it could not. An entry whose value could not
// be read is returned with bad set in badKeys, so a caller does not also
// report it missing.
func parseFrontmatter(file string, lines []string, firstLine int) (entries []fmEntry, badKeys map[string]bool, problems diag.List) {
	add := func(i int, msg string) {
		problems = append(problems, &diag.Error{File: file, Line: firstLine + i, Msg: msg})
	}
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		if isBlankOrComment(ln) {
			continue
		}
		switch {
		case ln[0] == '\t':
			add(i, "tab in indentation (YAML allows only spaces)")
			continue
		case ln[0] == ' ':
			add(i, "unexpected indented line (values must be on the line of their key; list items need a \"key:\" line above)")
			continue
		case isItemLine(ln):
			add(i, "list item without a \"key:\" line above it")
			continue
		}
		key, rest, ok := splitKey(ln)
		if !ok {
			add(i, `expected "key: value"`)
			continue
		}
		e := fmEntry{key: key, line: firstLine + i}
		switch {
		case rest == "" || rest[0] == '#':
			// A block list, or an empty value.
			indent, bad := -1, false
			for i+1 < len(lines) {
				next := lines[i+1]
				if isBlankOrComment(next) {
					i++
					continue
				}
				if next[0] != ' ' && next[0] != '\t' && !isItemLine(next) {
					break
				}
				i++
				trimmed := strings.TrimLeft(next, " ")
				if strings.HasPrefix(trimmed, "\t") {
					add(i, "tab in indentation (YAML allows only spaces)")
					bad = true
					continue
				}
				if !isItemLine(trimmed) {
					add(i, "unexpected indented line (values must be on the line of their key; multi-line values are not supported)")
					bad = true
					continue
				}
				if n := len(next) - len(trimmed); indent < 0 {
					indent = n
				} else if n != indent {
					add(i, "list item indented differently from the first item")
					bad = true
					continue
				}
				v, msg := parseScalar(strings.TrimLeft(trimmed[1:], " \t"), false)
				if msg != "" {
					add(i, key+": "+msg)
					bad = true
					continue
				}
				e.items = append(e.items, fmItem{text: v, line: firstLine + i})
			}
			if bad {
				markBad(&badKeys, key)
				continue
			}
			e.list = indent >= 0
			e.empty = !e.list
		case rest[0] == '[':
			items, msg := parseFlowList(rest)
			if msg != "" {
				add(i, key+": "+msg)
				markBad(&badKeys, key)
				continue
			}
			e.list = true
			for _, it := range items {
				e.items = append(e.items, fmItem{text: it, line: e.line})
			}
		default:
			v, msg := parseScalar(rest, false)
			if msg != "" {
				add(i, key+": "+msg)
				markBad(&badKeys, key)
				continue
			}
			e.value = v
		}
		entries = append(entries, e)
	}
	return entries, badKeys, problems
}

func markBad(m *map[string]bool, key string) {
	if *m == nil {
		*m = make(map[string]bool)
	}
	(*m)[key] = true
}

// isBlankOrComment reports whether ln is white space, or a comment line.
func isBlankOrComment(ln string) bool {
	t := strings.TrimLeft(ln, " \t")
	return t == "" || t[0] == '#'
}

// isItemLine reports whether ln starts a block list item: "-" followed by
// white space or the end of the line.
func isItemLine(ln string) bool {
	return ln == "-" || strings.HasPrefix(ln, "- ") || strings.HasPrefix(ln, "-\t")
}

// splitKey splits "key: rest" into the key and the value text with
// surrounding white space removed. Keys are ASCII letters, digits, '_' and
// '-'. The colon must follow the key directly and be followed by white
// space or the end of the line.
func splitKey(ln string) (key, rest string, ok bool) {
	i := 0
	for i < len(ln) && isKeyByte(ln[i]) {
		i++
	}
	if i == 0 || i >= len(ln) || ln[i] != ':' {
		return "", "", false
	}
	rest = ln[i+1:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", false
	}
	return ln[:i], strings.Trim(rest, " \t"), true
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// parseScalar reads one scalar from s (which starts with its first
// character and has no trailing white space): a double-quoted or
// single-quoted string, or a plain scalar, optionally followed by a
// comment. inFlow is set inside a [flow] list, where s is one item. It
// returns the value or a message.
func parseScalar(s string, inFlow bool) (string, string) {
	if s == "" {
		return "", "empty value"
	}
	switch s[0] {
	case '"', '\'':
		v, n, msg := parseQuoted(s)
		if msg != "" {
			return "", msg
		}
		if msg := trailing(s[n:]); msg != "" {
			return "", msg
		}
		return v, ""
	case '[':
		return "", "nested lists are not supported"
	}
	// A plain scalar ends at a comment: '#' after white space.
	if i := commentStart(s); i >= 0 {
		s = strings.TrimRight(s[:i], " \t")
	}
	if msg := checkPlain(s, inFlow); msg != "" {
		return "", msg
	}
	return s, ""
}

// trailing checks what follows a quoted value or a list: nothing, or a
// comment after white space.
func trailing(rest string) string {
	t := strings.TrimLeft(rest, " \t")
	if t == "" || t[0] == '#' && len(t) < len(rest) {
		return ""
	}
	return "unexpected text " + strconv.Quote(shorten(t)) + " after the value"
}

// commentStart returns the index of the '#' that starts a comment in a
// plain scalar, or -1.
func commentStart(s string) int {
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			return i
		}
	}
	return -1
}

// checkPlain rejects plain scalars that YAML would read as something other
// than a string, or not at all.
func checkPlain(s string, inFlow bool) string {
	if s == "" {
		return "empty value"
	}
	c := s[0]
	switch c {
	case '{', '}', ']', ',', '&', '*', '!', '|', '>', '%', '@', '`', '#':
		return "a plain value cannot start with " + strconv.Quote(string(c)) + " (quote the value)"
	case '-', '?', ':':
		if len(s) == 1 || s[1] == ' ' || s[1] == '\t' {
			return "a plain value cannot start with " + strconv.Quote(s[:1]+" ") + " (quote the value)"
		}
	}
	if strings.HasSuffix(s, ":") || strings.Contains(s, ": ") || strings.Contains(s, ":\t") {
		return `a plain value cannot contain ": " (quote the value)`
	}
	if inFlow && strings.ContainsAny(s, "[]{}") {
		return "a plain list item cannot contain brackets or braces (quote the item)"
	}
	switch s {
	case "~", "null", "Null", "NULL":
		return "null is not a value (remove the key, or quote the value)"
	}
	return ""
}

// parseQuoted reads the quoted string at the start of s and returns its
// value and the number of bytes it took.
func parseQuoted(s string) (string, int, string) {
	if s[0] == '\'' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] != '\'' {
				b.WriteByte(s[i])
				continue
			}
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), i + 1, ""
		}
		return "", 0, "unterminated quoted value (multi-line values are not supported)"
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c == '"' {
			return b.String(), i + 1, ""
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		if r, ok := simpleEscapes[s[i]]; ok {
			b.WriteRune(r)
			continue
		}
		var n int
		switch s[i] {
		case 'x':
			n = 2
		case 'u':
			n = 4
		case 'U':
			n = 8
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return "", 0, "unknown escape \\" + string(r) + " in a quoted value"
		}
		if i+n >= len(s) {
			return "", 0, "short \\" + s[i:i+1] + " escape in a quoted value"
		}
		v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
		if err != nil {
			return "", 0, "invalid \\" + s[i:i+1] + " escape in a quoted value"
		}
		r := rune(v)
		if !utf8.ValidRune(r) {
			return "", 0, "escape \\" + s[i:i+1+n] + " is not a Unicode character"
		}
		b.WriteRune(r)
		i += n
	}
	return "", 0, "unterminated quoted value (multi-line values are not supported)"
}

// simpleEscapes are the one-character escapes of YAML double-quoted
// strings.
var simpleEscapes = map[byte]rune{
	'0': 0, 'a': '\a', 'b': '\b', 't': '\t', '\t': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r',
	'e': 0x1b, ' ': ' ', '"': '"', '/': '/', '\\': '\\', 'N': 0x85, '_': 0xa0, 'L': 0x2028, 'P': 0x2029,
}

// parseFlowList reads a one-line flow list "[a, "b, c", d]" and what
// follows it (a comment at most).
func parseFlowList(s string) ([]string, string) {
	items := []string{}
	i := 1
	afterComma := false
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return nil, "unterminated list (a [...] list must close on its line)"
		}
		switch s[i] {
		case ']':
			if afterComma {
				return nil, "empty list item"
			}
			if msg := trailing(s[i+1:]); msg != "" {
				return nil, msg
			}
			return items, ""
		case ',':
			return nil, "empty list item"
		case '[', '{':
			return nil, "nested lists and mappings are not supported"
		case '"', '\'':
			v, n, msg := parseQuoted(s[i:])
			if msg != "" {
				return nil, msg
			}
			items = append(items, v)
			i += n
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ']' {
				if s[j] == '#' && (s[j-1] == ' ' || s[j-1] == '\t') {
					return nil, "unterminated list (a [...] list must close on its line)"
				}
				j++
			}
			v := strings.TrimRight(s[i:j], " \t")
			if msg := checkPlain(v, true); msg != "" {
				return nil, msg
			}
			items = append(items, v)
			i = j
		}
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		switch {
		case i >= len(s):
			return nil, "unterminated list (a [...] list must close on its line)"
		case s[i] == ',':
			i++
			afterComma = true
		case s[i] == ']':
			afterComma = false
		default:
			return nil, "expected \",\" or \"]\" after a list item"
		}
	}
}

// shorten cuts s to at most 40 characters for a message, "..." included.
// The seed document problems have always marked a cut so, not with
// diag.Ellipsis, and their messages stay as they were.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	head, _ := diag.Prefix(s, 37, diag.Chars)
	return head + "..."
}
