package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

var errTrailingData = errors.New("unexpected data after the top-level value")

// gProblem is a problem located by byte offset. Its line is computed at the
// end, when the problems are sorted.
type gProblem struct {
	off    int
	caseID string
	field  string
	msg    string
}

// goldenParser is the reader under ParseGolden: it walks the file with a
// jsontext.Decoder, one token or value at a time, knows the byte offset of
// each, and collects the problems found, located by line.
type goldenParser struct {
	name    string
	data    []byte
	dec     *jsontext.Decoder
	err     error                    // the syntax error that stopped the walk
	version *UnsupportedVersionError // an unsupported "version"
	probs   []gProblem
	buf     []byte   // scratch for unescaping
	strs    []string // scratch for string lists

	newlines []int // offsets of '\n' in data, once indexed
	indexed  bool  // newlines is set
}

func (p *goldenParser) indexLines() {
	p.indexed = true
	for i := 0; ; {
		j := bytes.IndexByte(p.data[i:], '\n')
		if j < 0 {
			return
		}
		p.newlines = append(p.newlines, i+j)
		i += j + 1
	}
}

// line returns the 1-based line of the byte at off.
func (p *goldenParser) line(off int) int {
	if !p.indexed {
		p.indexLines() // only needed for problems, so only then
	}
	return sort.SearchInts(p.newlines, off) + 1
}

func (p *goldenParser) add(off int, caseID, field, msg string) {
	p.probs = append(p.probs, gProblem{off: off, caseID: caseID, field: field, msg: msg})
}

func (p *goldenParser) errorList() diag.List {
	sort.SliceStable(p.probs, func(i, j int) bool { return p.probs[i].off < p.probs[j].off })
	l := make(diag.List, len(p.probs))
	for i, pr := range p.probs {
		l[i] = &diag.Error{File: p.name, Line: p.line(pr.off), Where: where(pr.caseID, pr.field), Msg: pr.msg}
	}
	return l
}

// fatal returns a single problem that stops parsing.
func (p *goldenParser) fatal(off int, msg string) diag.List {
	p.probs = p.probs[:0]
	p.add(off, "", "", msg)
	return p.errorList()
}

// syntaxError describes the problem that made the walk stop, p.err, with
// the first error encoding/json's Decoder finds in data. Its messages are
// the ones ParseGolden has always given, such as "invalid character '}'
// looking for beginning of value". The two libraries accept the same
// documents here: UTF-8 is checked first, lone surrogate escapes are
// allowed, and both nest at most 10000 deep. FuzzParseGoldenReference
// checks it. Should they ever disagree, the message is jsontext's.
func (p *goldenParser) syntaxError() diag.List {
	dec := json.NewDecoder(bytes.NewReader(p.data))
	var top json.RawMessage
	if err := dec.Decode(&top); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return p.fatal(min(max(int(se.Offset)-1, 0), len(p.data)), "invalid JSON: "+se.Error())
		case errors.Is(err, io.EOF):
			return p.fatal(len(p.data), "empty file")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return p.fatal(len(p.data), "invalid JSON: unexpected end of input")
		}
		return p.fatal(0, "invalid JSON: "+err.Error())
	}
	if rest := gSkipSpace(p.data, int(dec.InputOffset())); rest < len(p.data) {
		return p.fatal(rest, "invalid JSON: "+errTrailingData.Error())
	}
	off := 0
	var se *jsontext.SyntacticError
	if errors.As(p.err, &se) {
		off = min(int(se.ByteOffset), len(p.data))
	}
	return p.fatal(off, "invalid JSON: "+p.err.Error())
}

// Reading the JSON. Each reader below reads one token or value from the
// decoder. Once a syntax error is recorded in p.err they read nothing and
// return zero values, and the walk unwinds.

// offset returns the offset of the start of the next token: after the
// white space, comma or colon that follow the previous one.
func (p *goldenParser) offset() int {
	return gSkipSeparators(p.data, int(p.dec.InputOffset()))
}

// peek returns the kind of the next token ('{', '}', '[', ']', '"', '0',
// 't', 'f', 'n'), or 0 after a syntax error.
func (p *goldenParser) peek() jsontext.Kind {
	if p.err != nil {
		return 0
	}
	k := p.dec.PeekKind()
	if k == 0 {
		// PeekKind keeps its error for the next read.
		if _, p.err = p.dec.ReadToken(); p.err == nil {
			p.err = errors.New("unreadable token")
		}
	}
	return k
}

// token reads the next token.
func (p *goldenParser) token() jsontext.Token {
	if p.err != nil {
		return jsontext.Token{}
	}
	t, err := p.dec.ReadToken()
	if err != nil {
		p.err = err
	}
	return t
}

// str reads the next value, a string, and returns it unescaped.
func (p *goldenParser) str() string {
	return string(p.unquote(p.value()))
}

// key reads an object key and returns it unescaped. A key of the golden
// format comes back as the constant string, without allocating.
func (p *goldenParser) key() string {
	b := p.unquote(p.value())
	if k, ok := goldenKeyNames[string(b)]; ok {
		return k
	}
	return string(b)
}

// unquote returns the contents of the JSON string raw, unescaped. It is
// valid until the next call. An escaped lone surrogate becomes U+FFFD, as in
// encoding/json.
func (p *goldenParser) unquote(raw []byte) []byte {
	if len(raw) < 2 {
		return nil // after a syntax error
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	p.buf, _ = jsontext.AppendUnquote(p.buf[:0], raw)
	return p.buf
}

// value reads the next value whole and returns its JSON text, valid until
// the next read.
func (p *goldenParser) value() []byte {
	if p.err != nil {
		return nil
	}
	v, err := p.dec.ReadValue()
	if err != nil {
		p.err = err
	}
	return v
}

// object reads the object that comes next. For each key not seen before in
// it, member is called with the offsets of the key and of the value, which
// member must read. A repeated key is passed to dup instead, with the
// offset of its first occurrence, and its value is skipped.
func (p *goldenParser) object(dup func(key string, keyOff, firstOff int), member func(key string, keyOff, valOff int)) {
	p.token() // {
	var keys gKeySet
	for p.peek() == '"' {
		keyOff := p.offset()
		key := p.key()
		if p.err != nil {
			return
		}
		if first, isDup := keys.add(key, keyOff); isDup {
			dup(key, keyOff, first)
			p.value()
		} else {
			member(key, keyOff, p.offset())
		}
	}
	p.token() // }
}

// array reads the array that comes next, calling elem with the offset of
// each element, which elem must read.
func (p *goldenParser) array(elem func(off int)) {
	p.token() // [
	for k := p.peek(); k != ']' && k != 0; k = p.peek() {
		elem(p.offset())
	}
	p.token() // ]
}

// gKeySet holds the keys of one object and the offsets where they first
// occur: a short list searched in order, then a map once the object is
// large, so that an object with many keys stays linear.
type gKeySet struct {
	list [16]gKeyOff
	n    int
	m    map[string]int
}

type gKeyOff struct {
	key string
	off int
}

// add records key at off, unless it is already there: then it returns the
// offset of its first occurrence and true.
func (s *gKeySet) add(key string, off int) (first int, dup bool) {
	if s.m != nil {
		if first, dup = s.m[key]; !dup {
			s.m[key] = off
		}
		return first, dup
	}
	for _, k := range s.list[:s.n] {
		if k.key == key {
			return k.off, true
		}
	}
	if s.n < len(s.list) {
		s.list[s.n] = gKeyOff{key, off}
		s.n++
		return 0, false
	}
	s.m = make(map[string]int, 2*len(s.list))
	for _, k := range s.list {
		s.m[k.key] = k.off
	}
	s.m[key] = off
	return 0, false
}

// gSkipSpace returns the position of the first byte of b at or after i that
// is not JSON white space.
func gSkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// gSkipSeparators skips white space, commas and colons: from the end of one
// token to the start of the next.
func gSkipSeparators(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
		default:
			return i
		}
	}
	return i
}

// gInvalidUTF8 returns the offset of the first byte of data that is not
// valid UTF-8, or -1.
func gInvalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
