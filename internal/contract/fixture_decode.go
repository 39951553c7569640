package contract

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/ragbaseline/ragbaseline/internal/contract/internal/fixturescan"
	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// DecodeFixture decodes a fixture file (docs/fixtures.md) for the judge.
//
// It reads only what the judge needs: fixtureVersion, caseId, query,
// retrievedAt, searchMode, kbScope, pipeline.{searchMode, capabilities}
// and, in lookupResult, found,
// evidenceStatus, evidenceBlocks[].{rank, evidenceKey, docId, source,
// breadcrumb, category, excerpt, qualityScore, relevanceLevel, scoreLabel},
// contextPack.sources, retrievalTrace.{selectedAttempt, fallbackReason} and
// rerankTrace.topSource. Every other field is skipped and left zero: the
// pipeline's name and parameters, packedText, attempts, unknown fields, and
// so on. The whole document is still validated as JSON exactly as
// encoding/json does, for its syntax, its escapes and a nesting depth of at
// most 10000, and it must be valid UTF-8.
// One leading UTF-8 byte order mark is skipped first, as in a
// golden-cases file (TrimBOM).
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
//   - HasEvidenceBlocks: an array, so in a valid fixture the bit is clear
//     only when the field is missing;
//   - HasContextSources: contextPack.sources is an array whose elements are
//     all strings. An array with any other element is absent as a whole,
//     with Sources nil, never a partial list;
//   - HasFallbackReason: a string, or null (FallbackReason nil).
//
// In a block, HasRank is set when rank is a number whose exact decimal value
// is an integer from 1 to math.MaxInt32, so 3, 3.0 and 0.3e1 all give 3.
// HasQuality is set when qualityScore is a number that strconv.ParseFloat
// reads without error. A number beyond the float64 range is absent. A
// string field of the wrong type is "", and its bit in the block's Has is
// clear. The bit is set for a string. The top-level searchMode, kbScope
// and retrievedAt are read when they are strings and are "" otherwise.
// retrievedAt is not checked.
//
// Fixture.Pipeline is nil unless pipeline is an object. It then holds only
// its searchMode, a string or "", and its capabilities. Those are an array
// of strings, or nil for not declared, and [] declares none. The
// LookupResult is Partial: encoding it again writes only the fields that
// were read.
//
// When a key occurs twice in an object the last one wins, as with
// encoding/json, including for the validity rules above. Keys match
// exactly, case included, after unescaping. Strings are unescaped exactly
// as encoding/json does: an unpaired \ud800 surrogate becomes U+FFFD.
//
// The decoded strings are copies, made into one buffer per fixture, rarely
// a few. A caller that keeps one of them thus keeps that buffer alive. data
// is not retained: the caller may reuse it at once. DecodeFixture is safe
// for concurrent use. The bytes are read by the hand-tuned scanner of
// internal/contract/internal/fixturescan. Its README says why it exists and
// what would let it go.
//
// The error is an *UnsupportedVersionError for an unsupported
// fixtureVersion and a *diag.Error otherwise. Its Line is the 1-based line
// of the problem, 0 for a missing field. For a contract violation its Where
// names the field path, such as field "lookupResult.evidenceBlocks". Use
// ParseFixture to put the file name in it.
func DecodeFixture(data []byte) (*Fixture, error) {
	return ParseFixture("", data)
}

// ParseFixture is DecodeFixture for a file read under name, which it puts
// in its errors.
func ParseFixture(name string, data []byte) (*Fixture, error) {
	data = TrimBOM(data)
	d := fixtureDecoder{data: data}
	d.s.Reset(data)
	a := new(fixtureAlloc)
	a.f.FixtureVersion = FixtureVersion

	i := fixturescan.SkipSpace(data, 0)
	switch {
	case i >= len(data):
		d.err = &fxProblem{off: i, msg: "empty file"}
	case data[i] == '{':
		i = d.fixture(i, a)
	default:
		d.top.notObject = fxSeen{fixturescan.KindOf(data[i]), i}
		i = d.s.SkipValue(i, 0)
	}
	d.s.End(i)
	if e := d.s.Err(); e != nil {
		d.err = &fxProblem{off: e.Offset, msg: e.Msg}
	}
	if d.err == nil {
		d.check()
	}
	if d.err != nil {
		return nil, d.err.error(name, data)
	}
	return &a.f, nil
}

// fixtureAlloc holds everything DecodeFixture returns that is not a slice
// or a string, so that it costs one allocation.
type fixtureAlloc struct {
	f        Fixture
	lr       LookupResult
	pipe     Pipeline
	fallback string
}

// fxSeen is the kind and position of the last value of a field.
type fxSeen struct {
	kind fixturescan.Kind
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
			Version: p.version, Supported: slices.Clone(SupportedFixtureVersions)}
	}
	return &diag.Error{File: name, Line: line, Where: where("", p.field), Msg: p.msg}
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
	s    fixturescan.Scanner
	err  *fxProblem // the first syntax error, or the contract violation
	top  fxTopState

	blockBuf  [32]EvidenceBlock // scratch for evidenceBlocks
	sourceBuf [16]string        // scratch for contextPack.sources
}

// check applies the contract rules once the document is known to be JSON.
func (d *fixtureDecoder) check() {
	t := &d.top
	wrong := func(field string, s fxSeen, want string) {
		if s.kind == fixturescan.Missing {
			d.err = &fxProblem{off: -1, field: field, msg: "missing required field"}
		} else {
			d.err = &fxProblem{off: s.off, field: field, msg: "expected " + want + ", got " + s.kind.String()}
		}
	}
	switch {
	case t.notObject.kind != fixturescan.Missing:
		d.err = &fxProblem{off: t.notObject.off, msg: "expected a fixture object, got " + t.notObject.kind.String()}
	case t.version != nil:
		d.err = t.version
	case t.caseID.kind != fixturescan.String:
		wrong("caseId", t.caseID, "a string")
	case t.query.kind != fixturescan.String:
		wrong("query", t.query, "a string")
	case t.lookup.kind != fixturescan.Object:
		wrong("lookupResult", t.lookup, "an object")
	case t.blocks != nil:
		d.err = t.blocks
	}
}

// fixture decodes the top-level object at data[i] == '{'.
func (d *fixtureDecoder) fixture(i int, a *fixtureAlloc) int {
	data := d.data
	f := &a.f
	i, more := d.s.OpenObject(i, 1)
	for more {
		var key []byte
		if key, i = d.s.Key(i); i < 0 {
			return -1
		}
		var k fixturescan.Kind
		off := i
		switch string(key) {
		case "fixtureVersion":
			i = d.fixtureVersion(i, f)
		case "caseId":
			f.CaseID, k, i = d.s.String(i, 1)
			d.top.caseID = fxSeen{k, off}
		case "query":
			f.Query, k, i = d.s.String(i, 1)
			d.top.query = fxSeen{k, off}
		case "retrievedAt":
			f.RetrievedAt, _, i = d.s.String(i, 1)
		case "searchMode":
			f.SearchMode, _, i = d.s.String(i, 1)
		case "kbScope":
			f.KBScope, _, i = d.s.String(i, 1)
		case "pipeline":
			f.Pipeline = nil
			if data[i] == '{' {
				a.pipe = Pipeline{}
				f.Pipeline = &a.pipe
				i = d.pipeline(i, &a.pipe)
			} else {
				i = d.s.SkipValue(i, 1)
			}
		case "lookupResult":
			d.top.lookup = fxSeen{fixturescan.KindOf(data[i]), off}
			d.top.blocks = nil
			if data[i] == '{' {
				a.lr = LookupResult{Partial: true}
				f.LookupResult = &a.lr
				i = d.lookupResult(i, a)
			} else {
				f.LookupResult = nil
				i = d.s.SkipValue(i, 1)
			}
		default:
			i = d.s.SkipValue(i, 1)
		}
		if i < 0 {
			return -1
		}
		i, more = d.s.NextMember(i)
	}
	return i
}

func (d *fixtureDecoder) fixtureVersion(i int, f *Fixture) int {
	off := i
	d.top.version = nil
	f.FixtureVersion = FixtureVersion
	var end int
	if fixturescan.KindOf(d.data[i]) == fixturescan.Number {
		end = d.s.Number(i)
	} else {
		end = d.s.SkipValue(i, 1)
	}
	if end < 0 {
		return -1
	}
	v, ok := 0, false
	kind := fixturescan.KindOf(d.data[i])
	if kind == fixturescan.Number {
		v, ok = fixturescan.ExactInt(d.data[i:end])
	}
	if !ok || !slices.Contains(SupportedFixtureVersions, v) {
		text := kind.String()
		if kind != fixturescan.Object && kind != fixturescan.Array {
			text = diag.Clip(string(d.data[i:end]), quotedLen, diag.Bytes)
		}
		d.top.version = &fxProblem{off: off, version: text}
		return end
	}
	f.FixtureVersion = v
	return end
}

// pipeline decodes the object at data[i] == '{': its searchMode and
// capabilities only.
func (d *fixtureDecoder) pipeline(i int, p *Pipeline) int {
	data := d.data
	i, more := d.s.OpenObject(i, 2)
	for more {
		var key []byte
		if key, i = d.s.Key(i); i < 0 {
			return -1
		}
		switch string(key) {
		case "searchMode":
			p.SearchMode, _, i = d.s.String(i, 2)
		case "capabilities":
			p.Capabilities = nil
			if data[i] == '[' {
				p.Capabilities, _, i = d.stringArray(i, 3)
			} else {
				i = d.s.SkipValue(i, 2)
			}
		default:
			i = d.s.SkipValue(i, 2)
		}
		if i < 0 {
			return -1
		}
		i, more = d.s.NextMember(i)
	}
	return i
}

// lookupResult decodes the object at data[i] == '{' into a.lr.
func (d *fixtureDecoder) lookupResult(i int, a *fixtureAlloc) int {
	data := d.data
	lr := &a.lr
	i, more := d.s.OpenObject(i, 2)
	for more {
		var key []byte
		if key, i = d.s.Key(i); i < 0 {
			return -1
		}
		var k fixturescan.Kind
		switch string(key) {
		case "found":
			lr.Found = false
			lr.Has &^= HasFound
			switch data[i] {
			case 't':
				lr.Found = true
				lr.Has |= HasFound
				i = d.s.Literal(i, "true")
			case 'f':
				lr.Has |= HasFound
				i = d.s.Literal(i, "false")
			default:
				i = d.s.SkipValue(i, 2)
			}
		case "evidenceStatus":
			lr.EvidenceStatus, k, i = d.s.String(i, 2)
			lr.Has = lr.Has.setIf(HasEvidenceStatus, k == fixturescan.String)
		case "evidenceBlocks":
			lr.EvidenceBlocks = nil
			lr.Has &^= HasEvidenceBlocks
			d.top.blocks = nil
			if data[i] == '[' {
				lr.Has |= HasEvidenceBlocks
				i = d.evidenceBlocks(i, lr)
			} else {
				d.top.blocks = &fxProblem{off: i, field: "lookupResult.evidenceBlocks",
					msg: "expected an array, got " + fixturescan.KindOf(data[i]).String()}
				i = d.s.SkipValue(i, 2)
			}
		case "contextPack":
			lr.ContextPack.Sources = nil
			lr.Has &^= HasContextSources
			if data[i] == '{' {
				i = d.contextPack(i, lr)
			} else {
				i = d.s.SkipValue(i, 2)
			}
		case "retrievalTrace":
			lr.RetrievalTrace.SelectedAttempt = ""
			lr.RetrievalTrace.FallbackReason = nil
			lr.Has &^= HasSelectedAttempt | HasFallbackReason
			if data[i] == '{' {
				i = d.retrievalTrace(i, a)
			} else {
				i = d.s.SkipValue(i, 2)
			}
		case "rerankTrace":
			lr.RerankTrace.TopSource = ""
			lr.Has &^= HasRerankTopSource
			if data[i] == '{' {
				i = d.rerankTrace(i, lr)
			} else {
				i = d.s.SkipValue(i, 2)
			}
		default:
			i = d.s.SkipValue(i, 2)
		}
		if i < 0 {
			return -1
		}
		i, more = d.s.NextMember(i)
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
	i, more := d.s.OpenArray(i, 3)
	for more {
		if data[i] == '{' {
			blocks = append(blocks, EvidenceBlock{})
			i = d.block(i, &blocks[len(blocks)-1])
		} else {
			if d.top.blocks == nil {
				d.top.blocks = &fxProblem{off: i, field: "lookupResult.evidenceBlocks",
					msg: "expected an array of objects, got " + fixturescan.KindOf(data[i]).String() + " at index " + strconv.Itoa(n)}
			}
			i = d.s.SkipValue(i, 3)
		}
		if i < 0 {
			return -1
		}
		n++
		i, more = d.s.NextElement(i)
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
	i, more := d.s.OpenObject(i, 4)
	for more {
		var key []byte
		if key, i = d.s.Key(i); i < 0 {
			return -1
		}
		switch string(key) {
		case "rank":
			b.Rank, b.HasRank = 0, false
			if fixturescan.KindOf(data[i]) != fixturescan.Number {
				i = d.s.SkipValue(i, 4)
				break
			}
			end := d.s.Number(i)
			if end < 0 {
				return -1
			}
			b.Rank, b.HasRank = fixturescan.ExactInt(data[i:end])
			i = end
		case "qualityScore":
			b.QualityScore, b.HasQuality = 0, false
			if fixturescan.KindOf(data[i]) != fixturescan.Number {
				i = d.s.SkipValue(i, 4)
				break
			}
			end := d.s.Number(i)
			if end < 0 {
				return -1
			}
			if v, err := fixturescan.ParseFloat(d.data[i:end]); err == nil {
				b.QualityScore, b.HasQuality = Float6(v), true
			}
			i = end
		case "evidenceKey":
			i = d.blockString(i, b, &b.EvidenceKey, BlockHasEvidenceKey)
		case "docId":
			i = d.blockString(i, b, &b.DocID, BlockHasDocID)
		case "source":
			i = d.blockString(i, b, &b.Source, BlockHasSource)
		case "breadcrumb":
			i = d.blockString(i, b, &b.Breadcrumb, BlockHasBreadcrumb)
		case "category":
			i = d.blockString(i, b, &b.Category, BlockHasCategory)
		case "excerpt":
			i = d.blockString(i, b, &b.Excerpt, BlockHasExcerpt)
		case "relevanceLevel":
			i = d.blockString(i, b, &b.RelevanceLevel, BlockHasRelevanceLevel)
		case "scoreLabel":
			i = d.blockString(i, b, &b.ScoreLabel, BlockHasScoreLabel)
		default:
			i = d.s.SkipValue(i, 4)
		}
		if i < 0 {
			return -1
		}
		i, more = d.s.NextMember(i)
	}
	return i
}

// blockString decodes the string field of b at data[i] into *dst, and sets
// or clears its bit.
func (d *fixtureDecoder) blockString(i int, b *EvidenceBlock, dst *string, bit BlockPresence) int {
	var k fixturescan.Kind
	*dst, k, i = d.s.String(i, 4)
	if k == fixturescan.String {
		b.Has |= bit
	} else {
		b.Has &^= bit
	}
	return i
}

// contextPack decodes the object at data[i] == '{'.
func (d *fixtureDecoder) contextPack(i int, lr *LookupResult) int {
	data := d.data
	i, more := d.s.OpenObject(i, 3)
	for more {
		var key []byte
		if key, i = d.s.Key(i); i < 0 {
			return -1
		}
		if string(key) == "sources" {
			lr.ContextPack.Sources = nil
			lr.Has &^= HasContextSources
			if data[i] == '[' {
				var ok bool
				lr.ContextPack.Sources, ok, i = d.stringArray(i, 4)
				lr.Has = lr.Has.setIf(HasContextSources, ok)
			} else {
				i = d.s.SkipValue(i, 3)
			}
		} else {
			i = d.s.SkipValue(i, 3)
		}
		if i < 0 {
			return -1
		}
		i, more = d.s.NextMember(i)
	}
	return i
}

// stringArray decodes the array at data[i] == '[', whose own depth is
// depth. ok reports whether every element was a string. If not, the
// returned slice is nil.
func (d *fixtureDecoder) stringArray(i, depth int) (ss []string, ok bool, next int) {
	ss = d.sourceBuf[:0]
	ok = true
	i, more := d.s.OpenArray(i, depth)
	for more {
		var s string
		var k fixturescan.Kind
		s, k, i = d.s.String(i, depth)
		if i < 0 {
			return nil, false, -1
		}
		if k == fixturescan.String {
			ss = append(ss, s)
		} else {
			ok = false
		}
		i, more = d.s.NextElement(i)
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
	i, more := d.s.OpenObject(i, 3)
	for more {
		var key []byte
		if key, i = d.s.Key(i); i < 0 {
			return -1
		}
		var k fixturescan.Kind
		switch string(key) {
		case "selectedAttempt":
			rt.SelectedAttempt, k, i = d.s.String(i, 3)
			lr.Has = lr.Has.setIf(HasSelectedAttempt, k == fixturescan.String)
		case "fallbackReason":
			rt.FallbackReason = nil
			lr.Has &^= HasFallbackReason
			switch data[i] {
			case 'n':
				lr.Has |= HasFallbackReason
				i = d.s.Literal(i, "null")
			case '"':
				a.fallback, _, i = d.s.String(i, 3)
				rt.FallbackReason = &a.fallback
				lr.Has |= HasFallbackReason
			default:
				i = d.s.SkipValue(i, 3)
			}
		default:
			i = d.s.SkipValue(i, 3)
		}
		if i < 0 {
			return -1
		}
		i, more = d.s.NextMember(i)
	}
	return i
}

// rerankTrace decodes the object at data[i] == '{'.
func (d *fixtureDecoder) rerankTrace(i int, lr *LookupResult) int {
	i, more := d.s.OpenObject(i, 3)
	for more {
		var key []byte
		if key, i = d.s.Key(i); i < 0 {
			return -1
		}
		if string(key) == "topSource" {
			var k fixturescan.Kind
			lr.RerankTrace.TopSource, k, i = d.s.String(i, 3)
			lr.Has = lr.Has.setIf(HasRerankTopSource, k == fixturescan.String)
		} else {
			i = d.s.SkipValue(i, 3)
		}
		if i < 0 {
			return -1
		}
		i, more = d.s.NextMember(i)
	}
	return i
}
