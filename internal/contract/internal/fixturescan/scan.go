// Package fixturescan is the hand-tuned JSON scanner under
// contract.DecodeFixture. It validates a document held in memory exactly as
// encoding/json does, for syntax, escapes, UTF-8 and nesting depth. It
// hands out the document's keys, strings and numbers by byte position, so
// the fixture decoder can read the few fields the judge needs and skip the
// rest at close to the speed of reading the file. README.md says why it
// exists and what would let it be deleted.
//
// The caller drives the scan. Every method takes the position of a value,
// or of what follows one, and returns the position after what it read, or
// -1 once the document is found invalid. The first problem is kept in Err.
// Its message uses encoding/json's words.
package fixturescan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects accepted, the limit
// of encoding/json.
const MaxDepth = 10000

const errEOF = "unexpected end of input"

// Kind is the type of a JSON value, known from its first byte.
type Kind uint8

// The kinds of value. Missing is the zero Kind, for a value that is not
// there. Invalid is a byte that starts no value.
const (
	Missing Kind = iota
	String
	Number
	Object
	Array
	Bool
	Null
	Invalid
)

// KindOf returns the kind of the value starting with c.
func KindOf(c byte) Kind {
	switch c {
	case '"':
		return String
	case '{':
		return Object
	case '[':
		return Array
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return Number
	}
	return Invalid
}

// String names the kind for a message: "a string", "an object", "null", …
func (k Kind) String() string {
	return [...]string{"nothing", "a string", "a number", "an object", "an array", "a boolean", "null", "an invalid value"}[k]
}

// Error is the first problem of an invalid document.
type Error struct {
	Offset int    // byte offset of the problem
	Msg    string // "not valid UTF-8", or "invalid JSON: " and encoding/json's description
}

func (e *Error) Error() string { return e.Msg }

// Scanner reads one JSON document. The zero Scanner is not usable: call
// Reset first.
type Scanner struct {
	data []byte
	err  *Error
	out  strings.Builder // the strings String returned, one after another
	key  bytes.Buffer    // an unescaped key
}

// Reset starts scanning data. The strings String returns are copies, made
// into a few large buffers rather than one allocation each, so data may be
// reused as soon as the scan is over.
func (s *Scanner) Reset(data []byte) {
	s.data, s.err = data, nil
	s.out = strings.Builder{} // the strings of the last scan keep its buffers
	// The strings the judge reads are about 30% of a fixture's bytes.
	s.out.Grow(len(data) / 3)
}

// room makes room in s.out for n more bytes of the string at data[i]
// without moving what it holds: when it is full, the strings already
// returned keep its buffer and a new one is started, as large as what is
// left of data (which bounds what is left to copy) or twice the last one,
// whichever is smaller.
func (s *Scanner) room(i, n int) {
	if s.out.Cap()-s.out.Len() >= n {
		return
	}
	size := max(n, min(2*s.out.Cap(), len(s.data)-i))
	s.out = strings.Builder{}
	s.out.Grow(size)
}

// Err returns the first problem found, or nil.
func (s *Scanner) Err() *Error { return s.err }

// Fail records a syntax problem at off (unless one is recorded already)
// and returns -1, the failed position.
func (s *Scanner) Fail(off int, msg string) int {
	if s.err == nil {
		s.err = &Error{Offset: off, Msg: "invalid JSON: " + msg}
	}
	return -1
}

// End checks that nothing but white space follows the top-level value that
// ends at i.
func (s *Scanner) End(i int) {
	if i < 0 {
		return
	}
	if i = SkipSpace(s.data, i); i < len(s.data) {
		s.Fail(i, "invalid character "+quoteChar(s.data, i)+" after top-level value")
	}
}

// String decodes a string value at data[i], or skips a value of another
// kind, returning "" and that kind. depth is the depth of the enclosing
// container (0 at top level).
func (s *Scanner) String(i, depth int) (string, Kind, int) {
	if s.data[i] != '"' {
		return "", KindOf(s.data[i]), s.SkipValue(i, depth)
	}
	end, esc := s.scanString(i)
	if end < 0 {
		return "", String, -1
	}
	// A strings.Builder never changes the bytes it holds, and room keeps
	// it from moving them, so what String returned before stays valid.
	s.room(i, end-i)
	start := s.out.Len()
	if esc {
		unquote(&s.out, s.data[i+1:end-1])
	} else {
		s.out.Write(s.data[i+1 : end-1])
	}
	return s.out.String()[start:], String, end
}

// Key reads an object key at data[i] and the colon after it, and returns
// the key, unescaped and valid until the next call, and the position of the
// value, which is inside data.
func (s *Scanner) Key(i int) ([]byte, int) {
	data := s.data
	if data[i] != '"' {
		return nil, s.Fail(i, "invalid character "+quoteChar(data, i)+" looking for beginning of object key string")
	}
	end, esc := s.scanString(i)
	if end < 0 {
		return nil, -1
	}
	k := data[i+1 : end-1]
	if esc {
		s.key.Reset()
		unquote(&s.key, k)
		k = s.key.Bytes()
	}
	i = SkipSpace(data, end)
	if i >= len(data) {
		return nil, s.Fail(i, errEOF)
	}
	if data[i] != ':' {
		return nil, s.Fail(i, "invalid character "+quoteChar(data, i)+" after object key")
	}
	i = SkipSpace(data, i+1)
	if i >= len(data) {
		return nil, s.Fail(i, errEOF)
	}
	return k, i
}

// OpenObject enters the object at data[i] == '{', whose own depth is
// depth. more reports whether a member follows, at the returned position
// inside data. Otherwise the position is after the closing brace.
func (s *Scanner) OpenObject(i, depth int) (next int, more bool) {
	return s.open(i, depth, '}')
}

// NextMember reads what follows a member value: a comma and the next key
// (more) or the closing brace.
func (s *Scanner) NextMember(i int) (next int, more bool) {
	return s.next(i, '}', "after object key:value pair")
}

// OpenArray is OpenObject for the array at data[i] == '['.
func (s *Scanner) OpenArray(i, depth int) (next int, more bool) {
	return s.open(i, depth, ']')
}

func (s *Scanner) open(i, depth int, closing byte) (int, bool) {
	if depth > MaxDepth {
		return s.Fail(i, "exceeded max depth"), false
	}
	i = SkipSpace(s.data, i+1)
	if i >= len(s.data) {
		return s.Fail(i, errEOF), false
	}
	if s.data[i] == closing {
		return i + 1, false
	}
	return i, true
}

// NextElement is NextMember for arrays.
func (s *Scanner) NextElement(i int) (next int, more bool) {
	return s.next(i, ']', "after array element")
}

func (s *Scanner) next(i int, closing byte, context string) (int, bool) {
	data := s.data
	if i < 0 {
		return -1, false
	}
	i = SkipSpace(data, i)
	if i >= len(data) {
		return s.Fail(i, errEOF), false
	}
	switch data[i] {
	case ',':
		i = SkipSpace(data, i+1)
		if i >= len(data) {
			return s.Fail(i, errEOF), false
		}
		return i, true
	case closing:
		return i + 1, false
	}
	return s.Fail(i, "invalid character "+quoteChar(data, i)+" "+context), false
}

// SkipValue validates and skips the value at data[i]. depth is the depth
// of the enclosing container, 0 at top level.
func (s *Scanner) SkipValue(i, depth int) int {
	data := s.data
	if i >= len(data) {
		return s.Fail(i, errEOF)
	}
	switch c := data[i]; c {
	case '"':
		end, _ := s.scanString(i)
		return end
	case '{':
		i, more := s.OpenObject(i, depth+1)
		for more {
			if data[i] != '"' {
				return s.Fail(i, "invalid character "+quoteChar(data, i)+" looking for beginning of object key string")
			}
			if i, _ = s.scanString(i); i < 0 {
				return -1
			}
			i = SkipSpace(data, i)
			if i >= len(data) {
				return s.Fail(i, errEOF)
			}
			if data[i] != ':' {
				return s.Fail(i, "invalid character "+quoteChar(data, i)+" after object key")
			}
			if i = s.SkipValue(SkipSpace(data, i+1), depth+1); i < 0 {
				return -1
			}
			i, more = s.NextMember(i)
		}
		return i
	case '[':
		i, more := s.OpenArray(i, depth+1)
		for more {
			if i = s.SkipValue(i, depth+1); i < 0 {
				return -1
			}
			i, more = s.NextElement(i)
		}
		return i
	case 't':
		return s.Literal(i, "true")
	case 'f':
		return s.Literal(i, "false")
	case 'n':
		return s.Literal(i, "null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return s.Number(i)
	}
	return s.Fail(i, "invalid character "+quoteChar(data, i)+" looking for beginning of value")
}

// Literal skips true, false or null at data[i] == lit[0].
func (s *Scanner) Literal(i int, lit string) int {
	data := s.data
	for k := 1; k < len(lit); k++ {
		if i+k >= len(data) {
			return s.Fail(i+k, errEOF)
		}
		if data[i+k] != lit[k] {
			return s.Fail(i+k, "invalid character "+quoteChar(data, i+k)+" in literal "+lit+" (expecting '"+lit[k:k+1]+"')")
		}
	}
	return i + len(lit)
}

// Number validates the number at data[i] and returns its end.
func (s *Scanner) Number(i int) int {
	data := s.data
	n := len(data)
	if data[i] == '-' {
		i++
		if i >= n {
			return s.Fail(i, errEOF)
		}
	}
	switch c := data[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i++
		for i < n && data[i]-'0' <= 9 {
			i++
		}
	default:
		return s.Fail(i, "invalid character "+quoteChar(data, i)+" in numeric literal")
	}
	if i < n && data[i] == '.' {
		i++
		if i >= n {
			return s.Fail(i, errEOF)
		}
		if data[i]-'0' > 9 {
			return s.Fail(i, "invalid character "+quoteChar(data, i)+" after decimal point in numeric literal")
		}
		for i < n && data[i]-'0' <= 9 {
			i++
		}
	}
	if i < n && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < n && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= n {
			return s.Fail(i, errEOF)
		}
		if data[i]-'0' > 9 {
			return s.Fail(i, "invalid character "+quoteChar(data, i)+" in exponent of numeric literal")
		}
		for i < n && data[i]-'0' <= 9 {
			i++
		}
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// stringStops sets the high bit of the bytes of w (little-endian) that end
// a run of plain string text: '"', '\\', a control character or a byte of
// a multi-byte UTF-8 sequence. Only the lowest marked byte is exact (the
// usual SWAR borrow can mark bytes above it), which is all scanString uses.
func stringStops(w uint64) uint64 {
	q := w ^ (lsb * '"')
	b := w ^ (lsb * '\\')
	return ((q-lsb)&^q | (b-lsb)&^b | (w-lsb*0x20)&^w | w) & msb
}

// scanString validates the string at data[i] == '"' and returns the
// position after its closing quote and whether it holds escapes.
func (s *Scanner) scanString(i int) (int, bool) {
	data := s.data
	n := len(data)
	esc := false
	i++
	for {
		// Skip plain ASCII text eight bytes at a time, then one at a time
		// in the last seven bytes of the input.
		if i+8 <= n {
			m := stringStops(binary.LittleEndian.Uint64(data[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else if i >= n {
			return s.Fail(n, errEOF), false
		} else if c := data[i]; c >= 0x20 && c < 0x80 && c != '"' && c != '\\' {
			i++
			continue
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, esc
		case c == '\\':
			esc = true
			if i+1 >= n {
				return s.Fail(n, errEOF), false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if i+k >= n {
						return s.Fail(n, errEOF), false
					}
					if !isHex(data[i+k]) {
						return s.Fail(i+k, "invalid character "+quoteChar(data, i+k)+" in \\u hexadecimal character escape"), false
					}
				}
				i += 6
			default:
				return s.Fail(i+1, "invalid character "+quoteChar(data, i+1)+" in string escape code"), false
			}
		case c < 0x20:
			return s.Fail(i, "invalid character "+quoteChar(data, i)+" in string literal"), false
		default:
			// Multi-byte UTF-8, often a run of it (CJK text).
			for i < n && data[i] >= 0x80 {
				c := data[i]
				if c >= 0xE1 && c <= 0xEF && c != 0xED && i+2 < n && data[i+1]&0xC0 == 0x80 && data[i+2]&0xC0 == 0x80 {
					i += 3 // the common three-byte case, never a surrogate or overlong
					continue
				}
				r, size := utf8.DecodeRune(data[i:])
				if r == utf8.RuneError && size == 1 {
					if s.err == nil {
						s.err = &Error{Offset: i, Msg: "not valid UTF-8"}
					}
					return -1, false
				}
				i += size
			}
		}
	}
}

func isHex(c byte) bool {
	return c-'0' <= 9 || (c|0x20)-'a' <= 'f'-'a'
}

// SkipSpace returns the position of the first byte of data at or after i
// that is not JSON white space.
func SkipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ':
			// Indentation comes in runs of spaces.
			if i+8 <= len(data) && binary.LittleEndian.Uint64(data[i:]) == lsb*' ' {
				i += 8
			} else {
				i++
			}
		case '\n', '\t', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// unquote writes the contents of a validated JSON string (without the
// quotes) to w, unescaped the way encoding/json does: an unpaired surrogate
// escape becomes U+FFFD.
func unquote(w interface {
	io.Writer
	io.ByteWriter
	WriteRune(rune) (int, error)
}, s []byte) {
	for r := 0; r < len(s); {
		if s[r] != '\\' {
			j := bytes.IndexByte(s[r:], '\\')
			if j < 0 {
				j = len(s) - r
			}
			w.Write(s[r : r+j])
			r += j
			continue
		}
		switch c := s[r+1]; c {
		case 'b':
			w.WriteByte('\b')
		case 'f':
			w.WriteByte('\f')
		case 'n':
			w.WriteByte('\n')
		case 'r':
			w.WriteByte('\r')
		case 't':
			w.WriteByte('\t')
		case 'u':
			rr := hex4(s[r+2:])
			r += 6
			if utf16.IsSurrogate(rr) {
				if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
					if dec := utf16.DecodeRune(rr, hex4(s[r+2:])); dec != utf8.RuneError {
						w.WriteRune(dec)
						r += 6
						continue
					}
				}
				rr = utf8.RuneError
			}
			w.WriteRune(rr)
			continue
		default: // '"', '\\', '/'
			w.WriteByte(c)
		}
		r += 2
	}
}

// hex4 decodes four validated hex digits.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// quoteChar formats the character at data[i] for an error message the way
// encoding/json does ('x', '\n'), or names an invalid UTF-8 byte.
func quoteChar(data []byte, i int) string {
	c := data[i]
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	if c < utf8.RuneSelf {
		s := strconv.Quote(string(rune(c)))
		return "'" + s[1:len(s)-1] + "'"
	}
	r, size := utf8.DecodeRune(data[i:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("byte 0x%02x (invalid UTF-8)", c)
	}
	s := strconv.Quote(string(r))
	return "'" + s[1:len(s)-1] + "'"
}

// ParseFloat parses the JSON number text as strconv.ParseFloat does,
// without allocating.
func ParseFloat(text []byte) (float64, error) {
	return strconv.ParseFloat(string(text), 64)
}

// ExactInt reports the value of the JSON number text when its exact
// decimal value is an integer from 1 to math.MaxInt32 (so 3, 3.0 and 0.3e1
// all give 3). text must be a valid JSON number.
func ExactInt(text []byte) (int, bool) {
	// Fast path: a plain positive integer.
	if len(text) <= 10 {
		v := 0
		j := 0
		for ; j < len(text); j++ {
			c := text[j] - '0'
			if c > 9 {
				break
			}
			v = v*10 + int(c)
		}
		if j == len(text) {
			if v < 1 || v > math.MaxInt32 {
				return 0, false
			}
			return v, true
		}
	}
	if text[0] == '-' {
		return 0, false // never ≥ 1
	}
	// digits × 10^exp, with the digits of the integer and fraction parts.
	var buf [32]byte
	digits := buf[:0]
	j := 0
	for ; j < len(text) && text[j] >= '0' && text[j] <= '9'; j++ {
		digits = append(digits, text[j])
	}
	exp := 0
	if j < len(text) && text[j] == '.' {
		for j++; j < len(text) && text[j] >= '0' && text[j] <= '9'; j++ {
			digits = append(digits, text[j])
			exp--
		}
	}
	if j < len(text) { // exponent
		j++
		neg := false
		if text[j] == '+' || text[j] == '-' {
			neg = text[j] == '-'
			j++
		}
		e := 0
		for ; j < len(text); j++ {
			if e < 1e9 {
				e = e*10 + int(text[j]-'0')
			}
		}
		if neg {
			e = -e
		}
		exp += e
	}
	// Strip leading zeros, then move trailing zeros into the exponent.
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	if len(digits) == 0 || exp < 0 || len(digits)+exp > 10 {
		return 0, false // zero, a fraction, or above MaxInt32
	}
	v := 0
	for _, c := range digits {
		v = v*10 + int(c-'0')
	}
	for ; exp > 0; exp-- {
		v *= 10
	}
	if v > math.MaxInt32 {
		return 0, false
	}
	return v, true
}
