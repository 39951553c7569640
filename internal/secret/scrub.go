package secret

import (
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A pattern is one text Scrub looks for: a value, or a base64 form of it.
// Each of its units is one character of that text. Scrub matches each unit
// in any of the forms the package doc lists, so one pattern matches every
// mix of them. The units of tail are matched after the others as far as
// they go: the last characters of a base64 form, which depend on what
// follows the value.
type pattern struct {
	name  string
	units []unit
	tail  []unit
}

// A unit is one character of a pattern: a rune and its UTF-8 bytes, or a
// byte that is not valid UTF-8, whose r is -1. alt, when not 0, is another
// byte that stands for it: the URL alphabet's - and _ for base64's + and /.
type unit struct {
	r     rune
	bytes string
	alt   byte
}

// units splits text into its units. In a base64 text, + and / have the URL
// alphabet's - and _ as alternatives.
func units(text string, base64 bool) []unit {
	us := make([]unit, 0, len(text))
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 {
			r = -1
		}
		u := unit{r: r, bytes: text[i : i+n]}
		if base64 && r == '+' {
			u.alt = '-'
		} else if base64 && r == '/' {
			u.alt = '_'
		}
		us = append(us, u)
		i += n
	}
	return us
}

// base64Patterns returns the base64 forms of value Scrub looks for. value
// may start a base64 text or lie inside one, at any of three offsets: the
// basic authentication of user:password holds the password so. For each
// offset the pattern is the characters that encode value alone, and its
// tail the character holding value's last bits and the padding, which a
// value ending the text has. A pattern whose characters are fewer than
// MinLen is left out.
func base64Patterns(name, value string) []pattern {
	var out []pattern
	n := len(value)
	for k := range 3 {
		// Bits 8k to 8k+8n of the encoded bytes are value's. Character g
		// holds bits 6g to 6g+6.
		e := base64.StdEncoding.EncodeToString(append(make([]byte, k), value...))
		first, last := (8*k+5)/6, (8*k+8*n)/6 // the characters wholly value's: first ≤ g < last
		if last-first < MinLen {
			continue
		}
		out = append(out, pattern{name: name, units: units(e[first:last], true), tail: units(e[last:], true)})
	}
	return out
}

// compile rebuilds the patterns and the index of their first bytes from
// the pairs, in their order: longest value first, each value before its
// base64 forms.
func (s *Set) compile() {
	s.patterns = s.patterns[:0]
	for _, p := range s.pairs {
		s.patterns = append(s.patterns, pattern{name: p.name, units: units(p.value, false)})
		s.patterns = append(s.patterns, base64Patterns(p.name, p.value)...)
	}
	s.first = new([256][]int32)
	s.pairs2 = new(bytePairs)
	for i := range s.patterns {
		p := &s.patterns[i]
		u := p.units[0]
		firsts := []byte{u.bytes[0]}
		if u.alt != 0 {
			firsts = append(firsts, u.alt)
		}
		for _, c := range firsts {
			if l := s.first[c]; len(l) == 0 || l[len(l)-1] != int32(i) {
				s.first[c] = append(l, int32(i))
			}
			if len(u.bytes) > 1 || len(p.units) == 1 {
				s.pairs2.any[c] = true // its second byte is not a unit's first
				continue
			}
			v := p.units[1]
			for _, d := range []byte{v.bytes[0], v.alt, '%', '\\', '&', '+'} {
				s.pairs2.set(c, d)
			}
		}
	}
}

// bytePairs records which two bytes can start a match written as itself
// at its first character, so that Scrub tries the patterns at a byte only
// when the next byte fits too.
type bytePairs struct {
	bits [1 << 16 / 64]uint64
	any  [256]bool // a pattern whose first character is not one byte, or its only one
}

func (b *bytePairs) set(c, d byte) { i := int(c)<<8 | int(d); b.bits[i/64] |= 1 << (i % 64) }

func (b *bytePairs) has(c, d byte) bool {
	i := int(c)<<8 | int(d)
	return b.any[c] || b.bits[i/64]&(1<<(i%64)) != 0
}

// scrub replaces each match of a pattern in msg by ${NAME}. At each byte
// it takes the longest match of any pattern starting there. A match that
// overlaps the one before it extends that one, so the text both cover is
// replaced whole, by one reference, or by two when their names differ.
func (s *Set) scrub(msg string) string {
	var b strings.Builder
	var m matcher
	written := 0 // msg[:written] is in b, replaced
	covered := 0 // the end of the last match
	last := ""   // the name of the last match
	found := false
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		end, name := -1, ""
		try := func(c byte) {
			for _, pi := range s.first[c] {
				p := &s.patterns[pi]
				if e := m.match(p, msg, i); e > end {
					end, name = e, p.name
				}
			}
		}
		raw := s.first[c] != nil && (i+1 == len(msg) || s.pairs2.has(c, msg[i+1]))
		if raw {
			try(c)
		}
		switch c {
		case '+', '%', '\\', '&':
			// The first byte of the character the escape at i stands for.
			if d, ok := decodedFirst(msg, i); ok && (d != c || !raw) {
				try(d)
			}
		}
		switch {
		case end < 0:
		case i >= covered:
			if !found {
				b.Grow(len(msg))
				found = true
			}
			b.WriteString(msg[written:i])
			b.WriteString("${" + name + "}")
			written, covered, last = end, end, name
		case end > covered:
			if name != last {
				b.WriteString("${" + name + "}")
				last = name
			}
			written, covered = end, end
		}
	}
	if !found {
		return msg
	}
	b.WriteString(msg[written:])
	return b.String()
}

// decodedFirst returns the first byte of the character an escape at i in
// msg stands for, and false when there is none: + for a space, %XX, \xHH,
// a JSON escape or an HTML character reference.
func decodedFirst(msg string, i int) (byte, bool) {
	firstOf := func(r rune) (byte, bool) {
		var buf [utf8.UTFMax]byte
		utf8.EncodeRune(buf[:], r)
		return buf[0], true
	}
	switch msg[i] {
	case '+':
		return ' ', true
	case '%':
		if v := hex2(msg, i+1); v >= 0 {
			return byte(v), true
		}
	case '\\':
		if i+1 >= len(msg) {
			return 0, false
		}
		switch c := msg[i+1]; c {
		case 'x':
			if v := hex2(msg, i+2); v >= 0 {
				return byte(v), true
			}
		case 'u':
			if v, ok := hex4(msg, i); ok {
				if utf16.IsSurrogate(rune(v)) {
					if v2, ok := hex4(msg, i+6); ok {
						return firstOf(utf16.DecodeRune(rune(v), rune(v2)))
					}
					return 0, false
				}
				return firstOf(rune(v))
			}
		default:
			if r, ok := jsonUnescape(c); ok {
				return byte(r), true
			}
		}
	case '&':
		if r, n := htmlRef(msg, i); n > 0 {
			return firstOf(r)
		}
	}
	return 0, false
}

// A matcher holds the position sets of one match, reused from one match
// to the next.
type matcher struct{ cur, next []int }

// match returns the end of the longest match of p in msg at i, or -1.
func (m *matcher) match(p *pattern, msg string, i int) int {
	m.cur = append(m.cur[:0], i)
	for k := range p.units {
		u := &p.units[k]
		m.next = m.next[:0]
		for _, j := range m.cur {
			m.next = u.ends(msg, j, m.next)
		}
		if len(m.next) == 0 {
			return -1
		}
		m.cur, m.next = m.next, m.cur
	}
	for k := range p.tail {
		u := &p.tail[k]
		m.next = m.next[:0]
		for _, j := range m.cur {
			m.next = u.ends(msg, j, m.next)
		}
		if len(m.next) == 0 {
			break
		}
		m.cur, m.next = m.next, m.cur
	}
	end := -1
	for _, j := range m.cur {
		end = max(end, j)
	}
	return end
}

// ends appends to out the end of each form of u found in msg at j, each
// once.
func (u *unit) ends(msg string, j int, out []int) []int {
	if j >= len(msg) {
		return out
	}
	if u.alt != 0 {
		alt := unit{r: rune(u.alt), bytes: string(rune(u.alt))}
		out = alt.ends(msg, j, out)
	}
	e1, e2 := -1, -1 // at most two forms of u can match at j
	c := msg[j]
	if c == u.bytes[0] && strings.HasPrefix(msg[j:], u.bytes) {
		e1 = j + len(u.bytes)
	}
	switch c {
	case '+':
		if u.r == ' ' {
			e2 = j + 1 // a query's space
		}
	case '%':
		e2 = escapedBytes(msg, j, u.bytes, "%")
	case '\\':
		if e2 = escapedBytes(msg, j, u.bytes, `\x`); e2 >= 0 || u.r < 0 || j+1 >= len(msg) {
			break
		}
		if msg[j+1] == 'u' {
			e2 = jsonUnicode(msg, j, u.r)
		} else if r, ok := jsonUnescape(msg[j+1]); ok && r == u.r {
			e2 = j + 2
		}
	case '&':
		if u.r >= 0 {
			e2 = htmlEntity(msg, j, u.r)
		}
	}
	for _, e := range [2]int{e1, e2} {
		if e >= 0 && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// escapedBytes returns the end of b written at j in msg byte by byte, each
// as prefix and two hex digits of either case (%2F, \x2f), or -1.
func escapedBytes(msg string, j int, b, prefix string) int {
	for k := 0; k < len(b); k++ {
		if !strings.HasPrefix(msg[j:], prefix) {
			return -1
		}
		if v := hex2(msg, j+len(prefix)); v < 0 || byte(v) != b[k] {
			return -1
		}
		j += len(prefix) + 2
	}
	return j
}

// jsonUnescape returns the rune the two-character JSON escape \c stands
// for.
func jsonUnescape(c byte) (rune, bool) {
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// jsonUnicode returns the end of r written at j in msg as a JSON \uXXXX
// escape, hex digits of either case, or two for a rune outside the Basic
// Multilingual Plane, or -1.
func jsonUnicode(msg string, j int, r rune) int {
	v, ok := hex4(msg, j)
	if !ok {
		return -1
	}
	if r < 0x10000 {
		if rune(v) == r {
			return j + 6
		}
		return -1
	}
	hi, lo := utf16.EncodeRune(r)
	if rune(v) != hi {
		return -1
	}
	if v2, ok := hex4(msg, j+6); ok && rune(v2) == lo {
		return j + 12
	}
	return -1
}

// hex4 reads \uXXXX at j.
func hex4(msg string, j int) (int, bool) {
	if j+6 > len(msg) || msg[j] != '\\' || msg[j+1] != 'u' {
		return 0, false
	}
	v := 0
	for _, c := range []byte(msg[j+2 : j+6]) {
		d := unhex(c)
		if d < 0 {
			return 0, false
		}
		v = v<<4 | d
	}
	return v, true
}

// htmlNamed are the named HTML character references Scrub reads.
var htmlNamed = []struct {
	r    rune
	name string
}{{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&apos;"}}

// htmlEntity returns the end of r written at j in msg as an HTML character
// reference, or -1.
func htmlEntity(msg string, j int, r rune) int {
	if v, n := htmlRef(msg, j); n > 0 && v == r {
		return j + n
	}
	return -1
}

// htmlRef reads the HTML character reference at j in msg, &#43;, &#x2B;
// or &amp;, and returns its rune and length, or a length of 0. The
// semicolon is required.
func htmlRef(msg string, j int) (rune, int) {
	for _, n := range htmlNamed {
		if strings.HasPrefix(msg[j:], n.name) {
			return n.r, len(n.name)
		}
	}
	k := j + 2
	if !strings.HasPrefix(msg[j:], "&#") || k >= len(msg) {
		return 0, 0
	}
	base := 10
	if msg[k] == 'x' || msg[k] == 'X' {
		base, k = 16, k+1
	}
	v, digits := 0, 0
	for ; k < len(msg) && digits < 8; k, digits = k+1, digits+1 {
		d := unhex(msg[k])
		if d < 0 || d >= base {
			break
		}
		v = v*base + d
	}
	if digits == 0 || k >= len(msg) || msg[k] != ';' {
		return 0, 0
	}
	return rune(v), k + 1 - j
}

// hex2 reads two hex digits of either case at j, or returns -1.
func hex2(msg string, j int) int {
	if j+2 > len(msg) {
		return -1
	}
	hi, lo := unhex(msg[j]), unhex(msg[j+1])
	if hi < 0 || lo < 0 {
		return -1
	}
	return hi<<4 | lo
}

// unhex is the value of a hex digit of either case, or -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
