package contract

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// DecodeFixture decodes a fixture file (docs/fixtures.md) for the judge.
//
// It reads only what the judge needs: fixtureVersion, caseId, query,
// retrievedAt, searchMode, kbScope and, in lookupResult, found,
// evidenceStatus, evidenceBlocks[].{rank, docId, source, breadcrumb,
// category, excerpt, qualityScore, relevanceLevel, scoreLabel},
// contextPack.sources, retrievalTrace.{selectedAttempt, fallbackReason} and
// rerankTrace.topSource. Every other field (pipeline, packedText, attempts,
// unknown fields, …) is skipped and left zero, but the whole document is
// still validated as JSON exactly as encoding/json does (syntax, escapes,
// nesting depth of at most 10000) and must be valid UTF-8.
//
// A fixture is invalid, and DecodeFixture returns an error, when
// (docs/fixtures.md, "Decoding"):
//
//   - the input is not valid UTF-8 or not one JSON value (trailing data other
//     than white space included);
//   - the value is not an object;
//   - fixtureVersion is present and is not a number whose value is one of
//     SupportedFixtureVersions (a missing fixtureVersion means 1);
//   - caseId or query is missing or not a string;
//   - lookupResult is missing or not an object;
//   - lookupResult.evidenceBlocks is present but not an array (null is not
//     an array), or one of its elements is not an object: a block that
//     cannot be read would shift every later position silently.
//
// Every other judged field of the wrong type is treated as absent and left
// zero, and its LookupResult.Has bit is clear:
//
//   - HasFound: found is true or false;
//   - HasEvidenceStatus, HasSelectedAttempt, HasRerankTopSource: a string;
//   - HasEvidenceBlocks: an array (in a valid fixture, clear only when the
//     field is missing);
//   - HasContextSources: contextPack.sources is an array whose elements are
//     all strings; an array with any other element is absent as a whole
//     (Sources nil), never a partial list;
//   - HasFallbackReason: a string, or null (FallbackReason nil).
//
// In a block, HasRank is set when rank is a number whose exact decimal value
// is an integer from 1 to math.MaxInt32 (so 3, 3.0 and 0.3e1 all give 3),
// and HasQuality when qualityScore is a number that strconv.ParseFloat reads
// without error (one beyond the float64 range is absent). A string field
// of the wrong type is "". The top-level searchMode, kbScope and retrievedAt
// are read when they are strings and are "" otherwise; retrievedAt is not
// checked.
//
// When a key occurs twice in an object the last one wins, as with
// encoding/json, including for the validity rules above. Keys match
// exactly (case-sensitive), after unescaping. Strings are unescaped exactly
// as encoding/json does (an unpaired \ud800 surrogate becomes U+FFFD).
//
// Decoded strings without escapes share memory with one string copy of
// data, so a caller that keeps a fixture keeps that copy alive. data itself
// is not retained. DecodeFixture is safe for concurrent use.
//
// The error is an *UnsupportedVersionError for an unsupported
// fixtureVersion and an *Error otherwise, with the 1-based line of the
// problem (0 for a missing field) and, for a contract violation, the field
// path ("caseId", "lookupResult.evidenceBlocks"). Use ParseFixture to put
// the file name in it.
func DecodeFixture(data []byte) (*Fixture, error) {
	return ParseFixture("", data)
}

// ParseFixture is DecodeFixture for a file read under name, which it puts
// in its errors.
func ParseFixture(name string, data []byte) (*Fixture, error) {
	return parseFixture(name, data, string(data))
}

// ParseFixtureBorrowed is ParseFixture without the string copy of data:
// the decoded strings alias data itself, so they are valid only while data
// is neither modified nor reused. It is for a caller that reads a fixture
// into a reused buffer, extracts what it needs (copying every string it
// keeps, e.g. with strings.Clone) and only then reads the next file; the
// judge does this to judge large fixture sets at close to the speed of
// reading them.
func ParseFixtureBorrowed(name string, data []byte) (*Fixture, error) {
	if len(data) == 0 {
		return ParseFixture(name, data)
	}
	return parseFixture(name, data, unsafe.String(&data[0], len(data)))
}

func parseFixture(name string, data []byte, src string) (*Fixture, error) {
	d := fixtureDecoder{data: data}
	d.src = src
	a := new(fixtureAlloc)
	a.f.FixtureVersion = FixtureVersion

	i := fxSkipSpace(data, 0)
	if i >= len(data) {
		d.err = &fxProblem{off: i, msg: "empty file"}
	} else if data[i] == '{' {
		i = d.fixture(i, a)
	} else {
		d.top.notObject = fxSeen{fxKindOf(data[i]), i}
		i = d.skipValue(i, 0)
	}
	if i >= 0 {
		if i = fxSkipSpace(data, i); i < len(data) {
			d.fail(i, "invalid character "+fxQuoteChar(data, i)+" after top-level value")
		}
	}
	if d.err == nil {
		d.check()
	}
	if d.err != nil {
		return nil, d.err.error(name, data)
	}
	return &a.f, nil
}

// maxFixtureDepth is the deepest nesting of arrays and objects accepted,
// the limit of encoding/json.
const maxFixtureDepth = 10000

const fxErrEOF = "unexpected end of input"

// fixtureAlloc holds everything DecodeFixture returns that is not a slice
// or a string, so that it costs one allocation.
type fixtureAlloc struct {
	f        Fixture
	lr       LookupResult
	fallback string
}

// fxKind is the type of a JSON value, named in error messages.
type fxKind uint8

const (
	fxMissing fxKind = iota
	fxString
	fxNumber
	fxObject
	fxArray
	fxBool
	fxNull
	fxInvalid
)

func fxKindOf(c byte) fxKind {
	switch c {
	case '"':
		return fxString
	case '{':
		return fxObject
	case '[':
		return fxArray
	case 't', 'f':
		return fxBool
	case 'n':
		return fxNull
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return fxNumber
	}
	return fxInvalid
}

func (k fxKind) String() string {
	return [...]string{"nothing", "a string", "a number", "an object", "an array", "a boolean", "null", "an invalid value"}[k]
}

// fxSeen is the kind and position of the last value of a field.
type fxSeen struct {
	kind fxKind
	off  int
}

// fxProblem is an error found while decoding. A contract violation is
// reported only if the document is otherwise valid JSON and no later
// duplicate key replaces the value it is about.
type fxProblem struct {
	off     int // byte offset, -1 when the problem has no position
	field   string
	msg     string
	version string // the fixtureVersion text, for an unsupported version
}

func (p *fxProblem) error(name string, data []byte) error {
	line := 0
	if p.off >= 0 {
		line = 1 + bytes.Count(data[:p.off], []byte{'\n'})
	}
	if p.version != "" {
		return &UnsupportedVersionError{File: name, Line: line, Field: "fixtureVersion",
			Version: strings.Clone(p.version), Supported: slices.Clone(SupportedFixtureVersions)}
	}
	return &Error{File: name, Line: line, Field: p.field, Msg: p.msg}
}

// fxTopState records what the validity rules need about the last occurrence
// of each top-level field.
type fxTopState struct {
	notObject fxSeen
	version   *fxProblem
	caseID    fxSeen
	query     fxSeen
	lookup    fxSeen
	blocks    *fxProblem // about the evidenceBlocks of the last lookupResult
}

type fixtureDecoder struct {
	data []byte
	src  string // string(data): decoded strings are substrings of it
	err  *fxProblem
	top  fxTopState

	blockBuf  [32]EvidenceBlock // scratch for evidenceBlocks
	sourceBuf [16]string        // scratch for contextPack.sources
}

// fail records the first syntax error and returns -1, the "failed"
// position.
func (d *fixtureDecoder) fail(off int, msg string) int {
	if d.err == nil {
		d.err = &fxProblem{off: off, msg: "invalid JSON: " + msg}
	}
	return -1
}

// check applies the contract rules once the document is known to be JSON.
func (d *fixtureDecoder) check() {
	t := &d.top
	wrong := func(field string, s fxSeen, want string) {
		if s.kind == fxMissing {
			d.err = &fxProblem{off: -1, field: field, msg: "missing required field"}
		} else {
			d.err = &fxProblem{off: s.off, field: field, msg: "expected " + want + ", got " + s.kind.String()}
		}
	}
	switch {
	case t.notObject.kind != fxMissing:
		d.err = &fxProblem{off: t.notObject.off, msg: "expected a fixture object, got " + t.notObject.kind.String()}
	case t.version != nil:
		d.err = t.version
	case t.caseID.kind != fxString:
		wrong("caseId", t.caseID, "a string")
	case t.query.kind != fxString:
		wrong("query", t.query, "a string")
	case t.lookup.kind != fxObject:
		wrong("lookupResult", t.lookup, "an object")
	case t.blocks != nil:
		d.err = t.blocks
	}
}

// fixture decodes the top-level object at data[i] == '{'.
func (d *fixtureDecoder) fixture(i int, a *fixtureAlloc) int {
	data := d.data
	f := &a.f
	i, more := d.openObject(i, 1)
	for more {
		var key string
		if key, i = d.key(i); i < 0 {
			return -1
		}
		var k fxKind
		off := i
		switch key {
		case "fixtureVersion":
			i = d.fixtureVersion(i, f)
		case "caseId":
			f.CaseID, k, i = d.str(i, 1)
			d.top.caseID = fxSeen{k, off}
		case "query":
			f.Query, k, i = d.str(i, 1)
			d.top.query = fxSeen{k, off}
		case "retrievedAt":
			f.RetrievedAt, _, i = d.str(i, 1)
		case "searchMode":
			f.SearchMode, _, i = d.str(i, 1)
		case "kbScope":
			f.KBScope, _, i = d.str(i, 1)
		case "lookupResult":
			d.top.lookup = fxSeen{fxKindOf(data[i]), off}
			d.top.blocks = nil
			if data[i] == '{' {
				a.lr = LookupResult{}
				f.LookupResult = &a.lr
				i = d.lookupResult(i, a)
			} else {
				f.LookupResult = nil
				i = d.skipValue(i, 1)
			}
		default:
			i = d.skipValue(i, 1)
		}
		if i < 0 {
			return -1
		}
		i, more = d.nextMember(i)
	}
	return i
}

func (d *fixtureDecoder) fixtureVersion(i int, f *Fixture) int {
	off := i
	d.top.version = nil
	f.FixtureVersion = FixtureVersion
	var end int
	if fxKindOf(d.data[i]) == fxNumber {
		end = d.scanNumber(i)
	} else {
		end = d.skipValue(i, 1)
	}
	if end < 0 {
		return -1
	}
	v, ok := 0, false
	text := fxShorten(d.src[i:end])
	switch fxKindOf(d.data[i]) {
	case fxNumber:
		v, ok = fxExactInt(d.data[i:end])
	case fxObject, fxArray:
		text = fxKindOf(d.data[i]).String()
	}
	if !ok || !slices.Contains(SupportedFixtureVersions, v) {
		d.top.version = &fxProblem{off: off, version: text}
		return end
	}
	f.FixtureVersion = v
	return end
}

// fxShorten returns s, cut to about 40 bytes at a character boundary.
func fxShorten(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	i := limit
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// lookupResult decodes the object at data[i] == '{' into a.lr.
func (d *fixtureDecoder) lookupResult(i int, a *fixtureAlloc) int {
	data := d.data
	lr := &a.lr
	i, more := d.openObject(i, 2)
	for more {
		var key string
		if key, i = d.key(i); i < 0 {
			return -1
		}
		var k fxKind
		switch key {
		case "found":
			lr.Found = false
			lr.Has &^= HasFound
			switch data[i] {
			case 't':
				lr.Found = true
				lr.Has |= HasFound
				i = d.literal(i, "true")
			case 'f':
				lr.Has |= HasFound
				i = d.literal(i, "false")
			default:
				i = d.skipValue(i, 2)
			}
		case "evidenceStatus":
			lr.EvidenceStatus, k, i = d.str(i, 2)
			lr.Has = lr.Has.setIf(HasEvidenceStatus, k == fxString)
		case "evidenceBlocks":
			lr.EvidenceBlocks = nil
			lr.Has &^= HasEvidenceBlocks
			d.top.blocks = nil
			if data[i] == '[' {
				lr.Has |= HasEvidenceBlocks
				i = d.evidenceBlocks(i, lr)
			} else {
				d.top.blocks = &fxProblem{off: i, field: "lookupResult.evidenceBlocks",
					msg: "expected an array, got " + fxKindOf(data[i]).String()}
				i = d.skipValue(i, 2)
			}
		case "contextPack":
			lr.ContextPack.Sources = nil
			lr.Has &^= HasContextSources
			if data[i] == '{' {
				i = d.contextPack(i, lr)
			} else {
				i = d.skipValue(i, 2)
			}
		case "retrievalTrace":
			lr.RetrievalTrace.SelectedAttempt = ""
			lr.RetrievalTrace.FallbackReason = nil
			lr.Has &^= HasSelectedAttempt | HasFallbackReason
			if data[i] == '{' {
				i = d.retrievalTrace(i, a)
			} else {
				i = d.skipValue(i, 2)
			}
		case "rerankTrace":
			lr.RerankTrace.TopSource = ""
			lr.Has &^= HasRerankTopSource
			if data[i] == '{' {
				i = d.rerankTrace(i, lr)
			} else {
				i = d.skipValue(i, 2)
			}
		default:
			i = d.skipValue(i, 2)
		}
		if i < 0 {
			return -1
		}
		i, more = d.nextMember(i)
	}
	return i
}

// setIf returns p with bit set when on, cleared otherwise.
func (p Presence) setIf(bit Presence, on bool) Presence {
	if on {
		return p | bit
	}
	return p &^ bit
}

// evidenceBlocks decodes the array at data[i] == '['.
func (d *fixtureDecoder) evidenceBlocks(i int, lr *LookupResult) int {
	data := d.data
	blocks := d.blockBuf[:0]
	n := 0
	i, more := d.openArray(i, 3)
	for more {
		if data[i] == '{' {
			blocks = append(blocks, EvidenceBlock{})
			i = d.block(i, &blocks[len(blocks)-1])
		} else {
			if d.top.blocks == nil {
				d.top.blocks = &fxProblem{off: i, field: "lookupResult.evidenceBlocks",
					msg: "expected an array of objects, got " + fxKindOf(data[i]).String() + " at index " + strconv.Itoa(n)}
			}
			i = d.skipValue(i, 3)
		}
		if i < 0 {
			return -1
		}
		n++
		i, more = d.nextElement(i)
	}
	if len(blocks) > 0 && &blocks[0] != &d.blockBuf[0] {
		lr.EvidenceBlocks = blocks // outgrew the scratch array: already on the heap
	} else {
		lr.EvidenceBlocks = append([]EvidenceBlock{}, blocks...)
	}
	return i
}

// block decodes the evidence block at data[i] == '{'.
func (d *fixtureDecoder) block(i int, b *EvidenceBlock) int {
	data := d.data
	i, more := d.openObject(i, 4)
	for more {
		var key string
		if key, i = d.key(i); i < 0 {
			return -1
		}
		switch key {
		case "rank":
			b.Rank, b.HasRank = 0, false
			if fxKindOf(data[i]) != fxNumber {
				i = d.skipValue(i, 4)
				break
			}
			end := d.scanNumber(i)
			if end < 0 {
				return -1
			}
			b.Rank, b.HasRank = fxExactInt(data[i:end])
			i = end
		case "qualityScore":
			b.QualityScore, b.HasQuality = 0, false
			if fxKindOf(data[i]) != fxNumber {
				i = d.skipValue(i, 4)
				break
			}
			end := d.scanNumber(i)
			if end < 0 {
				return -1
			}
			if v, err := strconv.ParseFloat(d.src[i:end], 64); err == nil {
				b.QualityScore, b.HasQuality = Float6(v), true
			}
			i = end
		case "docId":
			b.DocID, _, i = d.str(i, 4)
		case "source":
			b.Source, _, i = d.str(i, 4)
		case "breadcrumb":
			b.Breadcrumb, _, i = d.str(i, 4)
		case "category":
			b.Category, _, i = d.str(i, 4)
		case "excerpt":
			b.Excerpt, _, i = d.str(i, 4)
		case "relevanceLevel":
			b.RelevanceLevel, _, i = d.str(i, 4)
		case "scoreLabel":
			b.ScoreLabel, _, i = d.str(i, 4)
		default:
			i = d.skipValue(i, 4)
		}
		if i < 0 {
			return -1
		}
		i, more = d.nextMember(i)
	}
	return i
}

// contextPack decodes the object at data[i] == '{'.
func (d *fixtureDecoder) contextPack(i int, lr *LookupResult) int {
	data := d.data
	i, more := d.openObject(i, 3)
	for more {
		var key string
		if key, i = d.key(i); i < 0 {
			return -1
		}
		if key == "sources" {
			lr.ContextPack.Sources = nil
			lr.Has &^= HasContextSources
			if data[i] == '[' {
				var ok bool
				lr.ContextPack.Sources, ok, i = d.stringArray(i, 4)
				lr.Has = lr.Has.setIf(HasContextSources, ok)
			} else {
				i = d.skipValue(i, 3)
			}
		} else {
			i = d.skipValue(i, 3)
		}
		if i < 0 {
			return -1
		}
		i, more = d.nextMember(i)
	}
	return i
}

// stringArray decodes the array at data[i] == '[', whose own depth is
// depth. ok reports whether every element was a string; if not, the
// returned slice is nil.
func (d *fixtureDecoder) stringArray(i, depth int) (ss []string, ok bool, next int) {
	ss = d.sourceBuf[:0]
	ok = true
	i, more := d.openArray(i, depth)
	for more {
		var s string
		var k fxKind
		s, k, i = d.str(i, depth)
		if i < 0 {
			return nil, false, -1
		}
		if k == fxString {
			ss = append(ss, s)
		} else {
			ok = false
		}
		i, more = d.nextElement(i)
	}
	if !ok || i < 0 {
		return nil, false, i
	}
	if len(ss) > 0 && &ss[0] != &d.sourceBuf[0] {
		return ss, true, i
	}
	return append([]string{}, ss...), true, i
}

// retrievalTrace decodes the object at data[i] == '{'.
func (d *fixtureDecoder) retrievalTrace(i int, a *fixtureAlloc) int {
	data := d.data
	lr := &a.lr
	rt := &lr.RetrievalTrace
	i, more := d.openObject(i, 3)
	for more {
		var key string
		if key, i = d.key(i); i < 0 {
			return -1
		}
		var k fxKind
		switch key {
		case "selectedAttempt":
			rt.SelectedAttempt, k, i = d.str(i, 3)
			lr.Has = lr.Has.setIf(HasSelectedAttempt, k == fxString)
		case "fallbackReason":
			rt.FallbackReason = nil
			lr.Has &^= HasFallbackReason
			switch data[i] {
			case 'n':
				lr.Has |= HasFallbackReason
				i = d.literal(i, "null")
			case '"':
				a.fallback, _, i = d.str(i, 3)
				rt.FallbackReason = &a.fallback
				lr.Has |= HasFallbackReason
			default:
				i = d.skipValue(i, 3)
			}
		default:
			i = d.skipValue(i, 3)
		}
		if i < 0 {
			return -1
		}
		i, more = d.nextMember(i)
	}
	return i
}

// rerankTrace decodes the object at data[i] == '{'.
func (d *fixtureDecoder) rerankTrace(i int, lr *LookupResult) int {
	i, more := d.openObject(i, 3)
	for more {
		var key string
		if key, i = d.key(i); i < 0 {
			return -1
		}
		if key == "topSource" {
			var k fxKind
			lr.RerankTrace.TopSource, k, i = d.str(i, 3)
			lr.Has = lr.Has.setIf(HasRerankTopSource, k == fxString)
		} else {
			i = d.skipValue(i, 3)
		}
		if i < 0 {
			return -1
		}
		i, more = d.nextMember(i)
	}
	return i
}

// fxExactInt reports the value of the JSON number text when its exact decimal
// value is an integer from 1 to math.MaxInt32.
func fxExactInt(text []byte) (int, bool) {
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
	var digits []byte
	var buf [32]byte
	digits = buf[:0]
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

// str decodes a string value at data[i], or skips a value of another kind
// (returning "" and its kind). depth is the depth of the enclosing
// container.
func (d *fixtureDecoder) str(i, depth int) (string, fxKind, int) {
	if d.data[i] != '"' {
		return "", fxKindOf(d.data[i]), d.skipValue(i, depth)
	}
	end, esc := d.scanString(i)
	if end < 0 {
		return "", fxString, -1
	}
	if esc {
		return fxUnquote(d.data[i+1 : end-1]), fxString, end
	}
	return d.src[i+1 : end-1], fxString, end
}

// key reads an object key at data[i] and the colon after it, and returns
// the key and the position of the value, which is inside data.
func (d *fixtureDecoder) key(i int) (string, int) {
	data := d.data
	if data[i] != '"' {
		return "", d.fail(i, "invalid character "+fxQuoteChar(data, i)+" looking for beginning of object key string")
	}
	end, esc := d.scanString(i)
	if end < 0 {
		return "", -1
	}
	var k string
	if esc {
		k = fxUnquote(data[i+1 : end-1])
	} else {
		k = d.src[i+1 : end-1]
	}
	i = fxSkipSpace(data, end)
	if i >= len(data) {
		return "", d.fail(i, fxErrEOF)
	}
	if data[i] != ':' {
		return "", d.fail(i, "invalid character "+fxQuoteChar(data, i)+" after object key")
	}
	i = fxSkipSpace(data, i+1)
	if i >= len(data) {
		return "", d.fail(i, fxErrEOF)
	}
	return k, i
}

// openObject enters the object at data[i] == '{', whose own depth is
// depth. more reports whether a member follows, at the returned position
// (inside data); otherwise the position is after the closing brace.
func (d *fixtureDecoder) openObject(i, depth int) (int, bool) {
	if depth > maxFixtureDepth {
		return d.fail(i, "exceeded max depth"), false
	}
	i = fxSkipSpace(d.data, i+1)
	if i >= len(d.data) {
		return d.fail(i, fxErrEOF), false
	}
	if d.data[i] == '}' {
		return i + 1, false
	}
	return i, true
}

// nextMember reads what follows a member value: a comma and the next key
// (more) or the closing brace.
func (d *fixtureDecoder) nextMember(i int) (int, bool) {
	data := d.data
	i = fxSkipSpace(data, i)
	if i >= len(data) {
		return d.fail(i, fxErrEOF), false
	}
	switch data[i] {
	case ',':
		i = fxSkipSpace(data, i+1)
		if i >= len(data) {
			return d.fail(i, fxErrEOF), false
		}
		return i, true
	case '}':
		return i + 1, false
	}
	return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" after object key:value pair"), false
}

// openArray is openObject for the array at data[i] == '['.
func (d *fixtureDecoder) openArray(i, depth int) (int, bool) {
	if depth > maxFixtureDepth {
		return d.fail(i, "exceeded max depth"), false
	}
	i = fxSkipSpace(d.data, i+1)
	if i >= len(d.data) {
		return d.fail(i, fxErrEOF), false
	}
	if d.data[i] == ']' {
		return i + 1, false
	}
	return i, true
}

// nextElement is nextMember for arrays.
func (d *fixtureDecoder) nextElement(i int) (int, bool) {
	data := d.data
	i = fxSkipSpace(data, i)
	if i >= len(data) {
		return d.fail(i, fxErrEOF), false
	}
	switch data[i] {
	case ',':
		i = fxSkipSpace(data, i+1)
		if i >= len(data) {
			return d.fail(i, fxErrEOF), false
		}
		return i, true
	case ']':
		return i + 1, false
	}
	return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" after array element"), false
}

// skipValue validates and skips the value at data[i]; depth is the depth
// of the enclosing container (0 at top level).
func (d *fixtureDecoder) skipValue(i, depth int) int {
	data := d.data
	if i >= len(data) {
		return d.fail(i, fxErrEOF)
	}
	switch c := data[i]; c {
	case '"':
		end, _ := d.scanString(i)
		return end
	case '{':
		i, more := d.openObject(i, depth+1)
		for more {
			if data[i] != '"' {
				return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" looking for beginning of object key string")
			}
			if i, _ = d.scanString(i); i < 0 {
				return -1
			}
			i = fxSkipSpace(data, i)
			if i >= len(data) {
				return d.fail(i, fxErrEOF)
			}
			if data[i] != ':' {
				return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" after object key")
			}
			if i = d.skipValue(fxSkipSpace(data, i+1), depth+1); i < 0 {
				return -1
			}
			i, more = d.nextMember(i)
		}
		return i
	case '[':
		i, more := d.openArray(i, depth+1)
		for more {
			if i = d.skipValue(i, depth+1); i < 0 {
				return -1
			}
			i, more = d.nextElement(i)
		}
		return i
	case 't':
		return d.literal(i, "true")
	case 'f':
		return d.literal(i, "false")
	case 'n':
		return d.literal(i, "null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return d.scanNumber(i)
	}
	return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" looking for beginning of value")
}

// literal skips true, false or null at data[i] == lit[0].
func (d *fixtureDecoder) literal(i int, lit string) int {
	data := d.data
	for k := 1; k < len(lit); k++ {
		if i+k >= len(data) {
			return d.fail(i+k, fxErrEOF)
		}
		if data[i+k] != lit[k] {
			return d.fail(i+k, "invalid character "+fxQuoteChar(data, i+k)+" in literal "+lit+" (expecting '"+lit[k:k+1]+"')")
		}
	}
	return i + len(lit)
}

// scanNumber validates the number at data[i] and returns its end.
func (d *fixtureDecoder) scanNumber(i int) int {
	data := d.data
	n := len(data)
	if data[i] == '-' {
		i++
		if i >= n {
			return d.fail(i, fxErrEOF)
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
		return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" in numeric literal")
	}
	if i < n && data[i] == '.' {
		i++
		if i >= n {
			return d.fail(i, fxErrEOF)
		}
		if data[i]-'0' > 9 {
			return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" after decimal point in numeric literal")
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
			return d.fail(i, fxErrEOF)
		}
		if data[i]-'0' > 9 {
			return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" in exponent of numeric literal")
		}
		for i < n && data[i]-'0' <= 9 {
			i++
		}
	}
	return i
}

const (
	fxLSB = 0x0101010101010101
	fxMSB = 0x8080808080808080
)

// fxStringStops sets the high bit of the bytes of w (little-endian) that end
// a run of plain string text: '"', '\\', a control character or a byte of
// a multi-byte UTF-8 sequence. Only the lowest marked byte is exact (the
// usual SWAR borrow can mark bytes above it), which is all scanString uses.
func fxStringStops(w uint64) uint64 {
	q := w ^ (fxLSB * '"')
	b := w ^ (fxLSB * '\\')
	return ((q-fxLSB)&^q | (b-fxLSB)&^b | (w-fxLSB*0x20)&^w | w) & fxMSB
}

// scanString validates the string at data[i] == '"' and returns the
// position after its closing quote and whether it holds escapes.
func (d *fixtureDecoder) scanString(i int) (int, bool) {
	data := d.data
	n := len(data)
	esc := false
	i++
	for {
		// Skip plain ASCII text eight bytes at a time, then one at a time
		// in the last seven bytes of the input.
		if i+8 <= n {
			m := fxStringStops(binary.LittleEndian.Uint64(data[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		} else if i >= n {
			return d.fail(n, fxErrEOF), false
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
				return d.fail(n, fxErrEOF), false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if i+k >= n {
						return d.fail(n, fxErrEOF), false
					}
					if !fxIsHex(data[i+k]) {
						return d.fail(i+k, "invalid character "+fxQuoteChar(data, i+k)+" in \\u hexadecimal character escape"), false
					}
				}
				i += 6
			default:
				return d.fail(i+1, "invalid character "+fxQuoteChar(data, i+1)+" in string escape code"), false
			}
		case c < 0x20:
			return d.fail(i, "invalid character "+fxQuoteChar(data, i)+" in string literal"), false
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
					if d.err == nil {
						d.err = &fxProblem{off: i, msg: "not valid UTF-8"}
					}
					return -1, false
				}
				i += size
			}
		}
	}
}

func fxIsHex(c byte) bool {
	return c-'0' <= 9 || (c|0x20)-'a' <= 'f'-'a'
}

// fxSkipSpace returns the position of the first byte at or after i that is
// not JSON white space.
func fxSkipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ':
			// Indentation comes in runs of spaces.
			if i+8 <= len(data) && binary.LittleEndian.Uint64(data[i:]) == fxLSB*' ' {
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

// fxUnquote decodes the contents of a validated JSON string (without the
// quotes) the way encoding/json does.
func fxUnquote(s []byte) string {
	var b strings.Builder
	b.Grow(len(s)) // an escape is never shorter than what it decodes to
	for r := 0; r < len(s); {
		if s[r] != '\\' {
			j := bytes.IndexByte(s[r:], '\\')
			if j < 0 {
				j = len(s) - r
			}
			b.Write(s[r : r+j])
			r += j
			continue
		}
		switch c := s[r+1]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			rr := fxHex4(s[r+2:])
			r += 6
			if utf16.IsSurrogate(rr) {
				if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
					if dec := utf16.DecodeRune(rr, fxHex4(s[r+2:])); dec != utf8.RuneError {
						b.WriteRune(dec)
						r += 6
						continue
					}
				}
				rr = utf8.RuneError
			}
			b.WriteRune(rr)
			continue
		default: // '"', '\\', '/'
			b.WriteByte(c)
		}
		r += 2
	}
	return b.String()
}

// fxHex4 decodes four validated hex digits.
func fxHex4(s []byte) rune {
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

// fxQuoteChar formats the character at data[i] for an error message the way
// encoding/json does ('x', '\n'), or names an invalid UTF-8 byte.
func fxQuoteChar(data []byte, i int) string {
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
