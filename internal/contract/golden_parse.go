package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxCaseIDLen is the longest caseId accepted, in bytes, so that the fixture
// file name <caseId>.json fits in the 255-byte name limit of common file
// systems with room to spare.
const MaxCaseIDLen = 200

// gMaxInt is the largest k, expectedFirstRankMax, relevance grade or version
// accepted; larger numbers are errors rather than silently overflowing.
const gMaxInt = math.MaxInt32

// LoadGolden reads the file at path and parses it with ParseGolden, using
// path as the file name in error messages. A read error is returned as is
// (an *fs.PathError).
func LoadGolden(path string) (*GoldenFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseGolden(path, data)
}

// ParseGolden decodes and validates a golden-cases file (docs/golden-cases.md).
// name is used in error messages.
//
// The file is UTF-8 JSON (a leading byte order mark is skipped) holding one
// value: either an object with the keys "version", "kbScope", "k" and
// "cases", or a bare array of cases, which has version 1 and no file-level
// kbScope or k. A missing or null "version" means version 1.
//
// When the version is not in SupportedGoldenVersions the only error returned
// is an *UnsupportedVersionError (errors.Is ErrUnsupportedVersion), before
// anything else is validated. Otherwise every problem in the file is returned
// at once as an ErrorList sorted by line; each *Error names the line where the
// offending case or value starts (for an element of a list or an entry of
// relevance, the element or entry), the caseId and the field. When the file is
// not UTF-8 or not JSON, that one problem is the whole list.
//
// Problems (docs/golden-cases.md lists them for users):
//   - an unknown key, in the file object or in a case, with the closest known
//     name suggested; a key repeated in one object;
//   - a value of the wrong type; null is accepted for every optional field
//     and declares nothing, but not for caseId, scenario, query or cases;
//   - a missing caseId, scenario or query; an empty or blank query or
//     scenario; a caseId not matching [A-Za-z0-9][A-Za-z0-9._-]* or longer
//     than MaxCaseIDLen bytes; two caseIds equal or differing only in letter
//     case (the message names the line of the first);
//   - a case that declares no check other than query (Case.DeclaresCheck);
//     not reported when a field of the case is unknown or mistyped, since
//     that is its likely cause;
//   - both expectedFallbackReason and expectedFallbackReasons;
//   - minKeywordCoverage without expectedKeywords, or outside [0, 1];
//   - expectedFirstRankMax without expectedSources or expectedDocIds (the
//     first expected rank needs expected documents);
//   - k (case or file) or expectedFirstRankMax not an integer, below 1 or
//     above 2147483647; a number written with a fraction or exponent counts
//     as an integer when its value is one (1.0, 1e1);
//   - a relevance grade that is not an integer, negative, above
//     2147483647, or 0 on an expected document (keys are compared, trimmed,
//     with expectedDocIds when the case uses them, else expectedSources);
//     an empty or blank relevance key;
//   - an empty or blank string inside a list (tags, expectedSources, …);
//   - a blank (whitespace-only) but non-empty single-value expectation or
//     kbScope, which the judge would trim to an empty expectation; "" itself
//     declares nothing;
//   - an empty cases list, or a null or missing "cases" key: "no cases".
//
// Values are stored as written, untrimmed; the judge trims when comparing.
// Fields that are absent, null, [] or "" (and an empty relevance object)
// are left as zero values: nil slices, maps and pointers, "" strings.
// Expectation values are not checked against the names the pipeline uses
// today (attempt names, fallback reasons, evidence statuses): an unknown
// value makes its check fail visibly rather than disappear.
//
// ParseGolden never panics and its time grows linearly with the size of data
// (n log n in the number of problems, which are sorted).
//
// Strings written without escapes share memory with one string copy of
// data, so a caller that keeps the file keeps that copy alive. data itself
// is not retained.
func ParseGolden(name string, data []byte) (*GoldenFile, error) {
	return parseGolden(name, data, false)
}

// parseGolden is ParseGolden. With viaJSON it reads the file with
// encoding/json's Decoder, one token at a time, as ParseGolden first did: a
// simple but ten times slower reference, which FuzzParseGoldenScanner
// compares the byte scanner with.
func parseGolden(name string, data []byte, viaJSON bool) (*GoldenFile, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	p := &goldenParser{name: name, data: data, viaJSON: viaJSON}

	if off := gInvalidUTF8(data); off >= 0 {
		return nil, p.fatal(off, "not valid UTF-8")
	}
	end, err := p.scan()
	if err != nil {
		return nil, err
	}
	topOff := gSkipSpace(data, 0)
	top := data[topOff:end]

	g := &GoldenFile{Version: 1}
	switch gKindOf(top) {
	case '[':
		g.Cases = p.decodeCases(top, topOff, "")
	case '{':
		if verr := p.decodeFile(g, top, topOff); verr != nil {
			return nil, verr
		}
	default:
		p.add(topOff, "", "", "expected an object with \"cases\" or an array of cases, got "+gDescribe(top))
	}
	if len(p.probs) > 0 {
		return nil, p.errorList()
	}
	return g, nil
}

// Known keys, in the order used to pick a suggestion for a misspelt key.
var (
	goldenFileKeys = []string{"version", "kbScope", "k", "cases"}
	goldenCaseKeys = []string{
		"caseId", "scenario", "tags", "query", "notes",
		"expectedSources", "expectedDocIds", "expectedBreadcrumbs", "expectedKeywords",
		"minKeywordCoverage", "relevance", "mustNotSources", "mustNotDocIds",
		"expectedFound", "expectedSelectedAttempt", "expectedFallbackReason",
		"expectedFallbackReasons", "expectedEvidenceStatus", "expectedContextSources",
		"expectedRerankTopSource", "expectedFirstRankMax", "k",
	}
)

// Indexes into goldenCaseKeys.
const (
	gkCaseID = iota
	gkScenario
	gkTags
	gkQuery
	gkNotes
	gkExpectedSources
	gkExpectedDocIDs
	gkExpectedBreadcrumbs
	gkExpectedKeywords
	gkMinKeywordCoverage
	gkRelevance
	gkMustNotSources
	gkMustNotDocIDs
	gkExpectedFound
	gkExpectedSelectedAttempt
	gkExpectedFallbackReason
	gkExpectedFallbackReasons
	gkExpectedEvidenceStatus
	gkExpectedContextSources
	gkExpectedRerankTopSource
	gkExpectedFirstRankMax
	gkK
	gkCount
)

var goldenCaseKeyIndex = func() map[string]int {
	m := make(map[string]int, len(goldenCaseKeys))
	for i, k := range goldenCaseKeys {
		m[k] = i
	}
	return m
}()

// gProblem is an Error located by byte offset; lines are computed at the end.
type gProblem struct {
	off    int
	caseID string
	field  string
	msg    string
}

type goldenParser struct {
	name  string
	data  []byte
	src   string  // string(data): strings without escapes are substrings of it
	spans []gSpan // every array and object in data, in order of their starts
	last  int     // the index in spans of the span last asked for
	probs []gProblem

	newlines []int // offsets of '\n' in data, once indexed
	indexed  bool  // newlines is set

	viaJSON bool // walk with encoding/json (see parseGolden)
}

// gSpan is an array or object: the offsets of its opening bracket and of
// the byte after its closing bracket, and how many elements or members it
// has.
type gSpan struct{ start, end, n int }

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

func (p *goldenParser) errorList() ErrorList {
	sort.SliceStable(p.probs, func(i, j int) bool { return p.probs[i].off < p.probs[j].off })
	l := make(ErrorList, len(p.probs))
	for i, pr := range p.probs {
		l[i] = &Error{File: p.name, Line: p.line(pr.off), CaseID: pr.caseID, Field: pr.field, Msg: pr.msg}
	}
	return l
}

// fatal returns a single problem that stops parsing.
func (p *goldenParser) fatal(off int, msg string) ErrorList {
	p.probs = p.probs[:0]
	p.add(off, "", "", msg)
	return p.errorList()
}

// syntaxError turns a decoding error of the value starting at base into a
// located problem.
func (p *goldenParser) syntaxError(err error, base int) ErrorList {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return p.fatal(min(base+max(int(se.Offset)-1, 0), len(p.data)), "invalid JSON: "+se.Error())
	case errors.Is(err, io.EOF):
		return p.fatal(len(p.data), "empty file")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return p.fatal(len(p.data), "invalid JSON: unexpected end of input")
	}
	return p.fatal(base, "invalid JSON: "+err.Error())
}

// decodeFile decodes the top-level object into g. It returns an error only
// for an unsupported version; other problems are recorded.
func (p *goldenParser) decodeFile(g *GoldenFile, obj []byte, off int) error {
	var verRaw, kbRaw, kRaw, casesRaw []byte
	var verOff, kbOff, kOff, casesOff int
	p.walkObject(obj, off, func(key string, keyOff, firstOff int) {
		p.add(keyOff, "", key, "duplicate key (first at line "+strconv.Itoa(p.line(firstOff))+")")
	}, func(key string, keyOff int, val []byte, valOff int) {
		switch key {
		case "version":
			verRaw, verOff = val, valOff
		case "kbScope":
			kbRaw, kbOff = val, valOff
		case "k":
			kRaw, kOff = val, valOff
		case "cases":
			casesRaw, casesOff = val, valOff
		default:
			msg := "unknown field"
			if _, ok := goldenCaseKeyIndex[key]; ok {
				msg += "; " + strconv.Quote(key) + " belongs in a case inside \"cases\""
			} else if s := gSuggest(key, goldenFileKeys); s != "" {
				msg += "; did you mean " + strconv.Quote(s) + "?"
			}
			p.add(keyOff, "", key, msg)
		}
	})

	if verRaw != nil && gKindOf(verRaw) != 'n' {
		v, ok := 0, false
		if gKindOf(verRaw) == '0' {
			if f, isInt := gParseInt(verRaw); isInt && f >= 0 && f <= gMaxInt {
				v, ok = int(f), slices.Contains(SupportedGoldenVersions, int(f))
			}
		}
		if !ok {
			return &UnsupportedVersionError{
				File: p.name, Line: p.line(verOff), Field: "version",
				Version: gShorten(verRaw), Supported: slices.Clone(SupportedGoldenVersions),
			}
		}
		g.Version = v
	}
	if kbRaw != nil {
		g.KBScope, _ = p.optString(kbRaw, kbOff, "kbScope")
	}
	if kRaw != nil {
		if k, ok := p.posInt(kRaw, kOff, "k"); ok && k != nil {
			g.K = *k
		}
	}
	switch {
	case casesRaw == nil:
		p.add(off, "", "cases", "missing required field")
	case gKindOf(casesRaw) == 'n':
		p.add(casesOff, "", "cases", "no cases")
	case gKindOf(casesRaw) != '[':
		p.add(casesOff, "", "cases", "expected an array of cases, got "+gDescribe(casesRaw))
	default:
		g.Cases = p.decodeCases(casesRaw, casesOff, "cases")
	}
	return nil
}

type gCaseIDLoc struct {
	id  string
	off int
}

// decodeCases decodes an array of cases starting at off. field is the key
// the array is under ("" for a bare array).
func (p *goldenParser) decodeCases(arr []byte, off int, field string) []Case {
	var cases []Case
	if n := p.size(off); n > 0 {
		cases = make([]Case, 0, n)
	}
	ids := make(map[string]gCaseIDLoc, len(cases))
	n := 0
	p.walkArray(arr, off, func(elem []byte, elemOff int) {
		n++
		if gKindOf(elem) != '{' {
			p.add(elemOff, "", "", "expected a case object, got "+gDescribe(elem))
			return
		}
		c, idOff := p.decodeCase(elem, elemOff)
		if idOff >= 0 {
			folded := strings.ToLower(c.CaseID)
			if first, dup := ids[folded]; !dup {
				ids[folded] = gCaseIDLoc{c.CaseID, idOff}
			} else if first.id == c.CaseID {
				p.add(idOff, c.CaseID, "caseId", "duplicate caseId (first at line "+strconv.Itoa(p.line(first.off))+")")
			} else {
				p.add(idOff, c.CaseID, "caseId", "differs only in letter case from caseId "+
					strconv.Quote(first.id)+" at line "+strconv.Itoa(p.line(first.off)))
			}
		}
		cases = append(cases, c)
	})
	if n == 0 {
		p.add(off, "", field, "no cases")
	}
	return cases
}

type gZeroGrade struct {
	key string
	off int
}

// decodeCase decodes and validates one case object starting at off. It
// returns the offset of the caseId value, or -1 when the case has no string
// caseId.
func (p *goldenParser) decodeCase(obj []byte, off int) (c Case, idOff int) {
	start := len(p.probs)
	var (
		seen     [gkCount]int // value offset + 1; 0 when absent
		badType  bool         // some field is unknown or mistyped
		badList  [gkCount]bool
		zeroes   []gZeroGrade
		required = [...]int{gkCaseID, gkScenario, gkQuery}
	)
	idOff = -1
	p.walkObject(obj, off, func(key string, keyOff, firstOff int) {
		p.add(keyOff, "", key, "duplicate key (first at line "+strconv.Itoa(p.line(firstOff))+")")
	}, func(key string, keyOff int, val []byte, valOff int) {
		i, known := goldenCaseKeyIndex[key]
		if !known {
			msg := "unknown field"
			if key == "version" || key == "kbScope" || key == "cases" {
				msg += "; " + strconv.Quote(key) + " can only be set at file level"
			} else if s := gSuggest(key, goldenCaseKeys); s != "" {
				msg += "; did you mean " + strconv.Quote(s) + "?"
			}
			p.add(keyOff, "", key, msg)
			badType = true
			return
		}
		seen[i] = valOff + 1
		ok := true
		switch i {
		case gkCaseID:
			var s string
			if s, ok = p.reqString(val, valOff, key); ok && s != "" {
				c.CaseID, idOff = s, valOff
				p.checkCaseID(s, valOff)
			}
		case gkScenario:
			c.Scenario, ok = p.reqString(val, valOff, key)
		case gkQuery:
			c.Query, ok = p.reqString(val, valOff, key)
		case gkNotes:
			c.Notes, ok = p.anyString(val, valOff, key)
		case gkExpectedSelectedAttempt:
			c.ExpectedSelectedAttempt, ok = p.optString(val, valOff, key)
		case gkExpectedFallbackReason:
			c.ExpectedFallbackReason, ok = p.optString(val, valOff, key)
		case gkExpectedEvidenceStatus:
			c.ExpectedEvidenceStatus, ok = p.optString(val, valOff, key)
		case gkExpectedRerankTopSource:
			c.ExpectedRerankTopSource, ok = p.optString(val, valOff, key)
		case gkTags:
			c.Tags, ok = p.stringList(val, valOff, key)
		case gkExpectedSources:
			c.ExpectedSources, ok = p.stringList(val, valOff, key)
		case gkExpectedDocIDs:
			c.ExpectedDocIDs, ok = p.stringList(val, valOff, key)
		case gkExpectedBreadcrumbs:
			c.ExpectedBreadcrumbs, ok = p.stringList(val, valOff, key)
		case gkExpectedKeywords:
			c.ExpectedKeywords, ok = p.stringList(val, valOff, key)
		case gkMustNotSources:
			c.MustNotSources, ok = p.stringList(val, valOff, key)
		case gkMustNotDocIDs:
			c.MustNotDocIDs, ok = p.stringList(val, valOff, key)
		case gkExpectedFallbackReasons:
			c.ExpectedFallbackReasons, ok = p.stringList(val, valOff, key)
		case gkExpectedContextSources:
			c.ExpectedContextSources, ok = p.stringList(val, valOff, key)
		case gkMinKeywordCoverage:
			c.MinKeywordCoverage, ok = p.fraction(val, valOff, key)
		case gkRelevance:
			c.Relevance, zeroes, ok = p.relevance(val, valOff, key)
		case gkExpectedFound:
			c.ExpectedFound, ok = p.boolean(val, valOff, key)
		case gkExpectedFirstRankMax:
			c.ExpectedFirstRankMax, ok = p.posInt(val, valOff, key)
		case gkK:
			c.K, ok = p.posInt(val, valOff, key)
		}
		if !ok {
			badType = true
			badList[i] = true
		}
	})

	for _, i := range required {
		if seen[i] == 0 {
			p.add(off, "", goldenCaseKeys[i], "missing required field")
		}
	}
	if c.ExpectedFallbackReason != "" && len(c.ExpectedFallbackReasons) > 0 {
		later := gkExpectedFallbackReasons
		if seen[gkExpectedFallbackReason] > seen[gkExpectedFallbackReasons] {
			later = gkExpectedFallbackReason
		}
		p.add(seen[later]-1, "", goldenCaseKeys[later],
			"both expectedFallbackReason and expectedFallbackReasons are set; use one")
	}
	if c.MinKeywordCoverage != nil && len(c.ExpectedKeywords) == 0 && !badList[gkExpectedKeywords] {
		p.add(seen[gkMinKeywordCoverage]-1, "", "minKeywordCoverage", "set without expectedKeywords")
	}
	if c.ExpectedFirstRankMax != nil && !c.UsesExpectedDocs() && !badList[gkExpectedSources] && !badList[gkExpectedDocIDs] {
		p.add(seen[gkExpectedFirstRankMax]-1, "", "expectedFirstRankMax", "set without expectedSources or expectedDocIds")
	}
	if len(zeroes) > 0 && !badList[gkExpectedSources] && !badList[gkExpectedDocIDs] {
		list := c.ExpectedSources
		if c.UsesDocIDIdentity() {
			list = c.ExpectedDocIDs
		}
		expected := make(map[string]bool, len(list))
		for _, e := range list {
			expected[strings.TrimSpace(e)] = true
		}
		for _, z := range zeroes {
			if expected[strings.TrimSpace(z.key)] {
				p.add(z.off, "", "relevance", "grade 0 for expected document "+strconv.Quote(z.key)+
					"; expected documents are relevant (grade 1 or more)")
			}
		}
	}
	if !badType && !c.DeclaresCheck() {
		p.add(off, "", "", "declares no check other than query")
	}

	for i := start; i < len(p.probs); i++ {
		p.probs[i].caseID = c.CaseID
	}
	return c, idOff
}

func (p *goldenParser) checkCaseID(id string, off int) {
	switch {
	case !gValidCaseID(id):
		p.add(off, "", "caseId", "must match [A-Za-z0-9][A-Za-z0-9._-]*")
	case len(id) > MaxCaseIDLen:
		p.add(off, "", "caseId", "longer than "+strconv.Itoa(MaxCaseIDLen)+" bytes")
	}
}

// gValidCaseID reports whether id matches ^[A-Za-z0-9][A-Za-z0-9._-]*$.
func gValidCaseID(id string) bool {
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// Value decoders. Each records its own problems and reports whether the
// value had the right type (range problems do not make it mistyped).

// reqString decodes a required, non-blank string (null is not accepted).
func (p *goldenParser) reqString(val []byte, off int, field string) (string, bool) {
	if gKindOf(val) != '"' {
		p.add(off, "", field, "expected a string, got "+gDescribe(val))
		return "", false
	}
	s := p.unquote(val, off)
	if strings.TrimSpace(s) == "" {
		p.add(off, "", field, gEmptyMsg(s))
	}
	return s, true
}

// anyString decodes an optional string with any content.
func (p *goldenParser) anyString(val []byte, off int, field string) (string, bool) {
	switch gKindOf(val) {
	case 'n':
		return "", true
	case '"':
		return p.unquote(val, off), true
	}
	p.add(off, "", field, "expected a string, got "+gDescribe(val))
	return "", false
}

// optString decodes an optional string that, when not "", is not blank.
func (p *goldenParser) optString(val []byte, off int, field string) (string, bool) {
	s, ok := p.anyString(val, off, field)
	if s != "" && strings.TrimSpace(s) == "" {
		p.add(off, "", field, "must not be blank; use \"\" or leave the field out to declare nothing")
	}
	return s, ok
}

// stringList decodes an optional array of non-blank strings; [] is nil.
func (p *goldenParser) stringList(val []byte, off int, field string) ([]string, bool) {
	switch gKindOf(val) {
	case 'n':
		return nil, true
	case '[':
	default:
		p.add(off, "", field, "expected an array of strings, got "+gDescribe(val))
		return nil, false
	}
	var list []string
	if n := p.size(off); n > 0 {
		list = make([]string, 0, n)
	}
	ok := true
	i := -1
	p.walkArray(val, off, func(elem []byte, elemOff int) {
		i++
		if gKindOf(elem) != '"' {
			p.add(elemOff, "", field, "expected an array of strings, got "+gDescribe(elem)+" at index "+strconv.Itoa(i))
			ok = false
			return
		}
		s := p.unquote(elem, elemOff)
		if strings.TrimSpace(s) == "" {
			p.add(elemOff, "", field, gEmptyWord(s)+" string at index "+strconv.Itoa(i))
		}
		list = append(list, s)
	})
	if !ok {
		return nil, false
	}
	return list, true
}

// boolean decodes an optional boolean.
func (p *goldenParser) boolean(val []byte, off int, field string) (*bool, bool) {
	switch gKindOf(val) {
	case 'n':
		return nil, true
	case 't', 'f':
		b := val[0] == 't'
		return &b, true
	}
	p.add(off, "", field, "expected a boolean, got "+gDescribe(val))
	return nil, false
}

// posInt decodes an optional integer in [1, gMaxInt].
func (p *goldenParser) posInt(val []byte, off int, field string) (*int, bool) {
	switch gKindOf(val) {
	case 'n':
		return nil, true
	case '0':
	default:
		p.add(off, "", field, "expected an integer, got "+gDescribe(val))
		return nil, false
	}
	f, isInt := gParseInt(val)
	switch {
	case !isInt:
		p.add(off, "", field, "expected an integer, got "+gDescribe(val))
		return nil, false
	case f < 1:
		p.add(off, "", field, "must be at least 1, got "+gDescribe(val))
		return nil, true
	case f > gMaxInt:
		p.add(off, "", field, "must be at most "+strconv.Itoa(gMaxInt)+", got "+gDescribe(val))
		return nil, true
	}
	n := int(f)
	return &n, true
}

// fraction decodes an optional number in [0, 1].
func (p *goldenParser) fraction(val []byte, off int, field string) (*float64, bool) {
	switch gKindOf(val) {
	case 'n':
		return nil, true
	case '0':
	default:
		p.add(off, "", field, "expected a number, got "+gDescribe(val))
		return nil, false
	}
	f, err := strconv.ParseFloat(string(val), 64)
	if err != nil || f < 0 || f > 1 {
		p.add(off, "", field, "must be between 0 and 1, got "+gDescribe(val))
	}
	return &f, true
}

// relevance decodes an optional object of document → integer grade; {} is
// nil. It also returns the keys graded 0, for the expected-document check.
func (p *goldenParser) relevance(val []byte, off int, field string) (map[string]int, []gZeroGrade, bool) {
	switch gKindOf(val) {
	case 'n':
		return nil, nil, true
	case '{':
	default:
		p.add(off, "", field, "expected an object of document grades, got "+gDescribe(val))
		return nil, nil, false
	}
	var m map[string]int
	size := p.size(off)
	var zeroes []gZeroGrade
	ok := true
	p.walkObject(val, off, func(key string, keyOff, firstOff int) {
		p.add(keyOff, "", field, "duplicate key "+strconv.Quote(key)+" (first at line "+strconv.Itoa(p.line(firstOff))+")")
	}, func(key string, keyOff int, grade []byte, gradeOff int) {
		if strings.TrimSpace(key) == "" {
			p.add(keyOff, "", field, gEmptyWord(key)+" document key")
		}
		prefix := func() string { return "grade for " + strconv.Quote(key) }
		var f float64
		isInt := false
		if gKindOf(grade) == '0' {
			f, isInt = gParseInt(grade)
		}
		switch {
		case !isInt:
			p.add(gradeOff, "", field, prefix()+": expected an integer, got "+gDescribe(grade))
			ok = false
			return
		case f < 0:
			p.add(gradeOff, "", field, prefix()+" is negative: "+gDescribe(grade))
			return
		case f > gMaxInt:
			p.add(gradeOff, "", field, prefix()+" is above "+strconv.Itoa(gMaxInt)+": "+gDescribe(grade))
			return
		case f == 0:
			zeroes = append(zeroes, gZeroGrade{key, gradeOff})
		}
		if m == nil {
			m = make(map[string]int, size)
		}
		m[key] = int(f)
	})
	if !ok {
		return nil, nil, false
	}
	return m, zeroes, true
}

// Reading the JSON. scan validates the whole file in one pass, recording
// where each array and object ends; the walkers then hand out the members
// and elements of valid JSON as slices of data, which the value decoders
// above check. With viaJSON, encoding/json does both jobs.

// scan checks that data holds one JSON value and nothing but white space
// after it, exactly as encoding/json's Decoder does, and returns the end of
// the value. The error, when there is one, is the whole list of problems.
func (p *goldenParser) scan() (int, error) {
	if !p.viaJSON {
		p.src = string(p.data)
		if end := p.index(); end >= 0 {
			return end, nil
		}
		// Invalid: let encoding/json describe the problem.
	}
	dec := json.NewDecoder(bytes.NewReader(p.data))
	var top json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return 0, p.syntaxError(err, 0)
	}
	end := int(dec.InputOffset())
	if rest := gSkipSpace(p.data, end); rest < len(p.data) {
		return 0, p.fatal(rest, "invalid JSON: unexpected data after the top-level value")
	}
	if !p.viaJSON {
		// index rejected what encoding/json accepts: a bug, which
		// FuzzParseGoldenScanner looks for.
		return 0, p.fatal(0, "invalid JSON")
	}
	return end, nil
}

// index validates data as scan describes, with the scanning primitives of
// the fixture decoder, and records the span of every array and object. It
// returns the end of the value, or -1 when data is not valid.
func (p *goldenParser) index() int {
	d := &fixtureDecoder{data: p.data, src: p.src}
	// One span per bracket at most (fewer when strings hold brackets).
	p.spans = make([]gSpan, 0, bytes.Count(p.data, []byte("{"))+bytes.Count(p.data, []byte("[")))
	i := fxSkipSpace(p.data, 0)
	if i >= len(p.data) {
		return -1
	}
	if i = p.indexValue(d, i, 0); i < 0 || fxSkipSpace(p.data, i) < len(p.data) {
		return -1
	}
	return i
}

// indexValue validates the value at data[i], i < len(data), and returns its
// end or -1. depth is that of the enclosing container (0 at top level).
func (p *goldenParser) indexValue(d *fixtureDecoder, i, depth int) int {
	var more bool
	span := len(p.spans)
	switch p.data[i] {
	case '{':
		p.spans = append(p.spans, gSpan{start: i})
		for i, more = d.openObject(i, depth+1); more; i, more = d.nextMember(i) {
			if _, i = d.key(i); i < 0 {
				return -1
			}
			if i = p.indexValue(d, i, depth+1); i < 0 {
				return -1
			}
			p.spans[span].n++
		}
	case '[':
		p.spans = append(p.spans, gSpan{start: i})
		for i, more = d.openArray(i, depth+1); more; i, more = d.nextElement(i) {
			if i = p.indexValue(d, i, depth+1); i < 0 {
				return -1
			}
			p.spans[span].n++
		}
	default:
		return d.skipValue(i, depth)
	}
	if i >= 0 {
		p.spans[span].end = i
	}
	return i
}

// valueEnd returns the end of the value at data[i], in the JSON index has
// validated.
func (p *goldenParser) valueEnd(i int) int {
	data := p.data
	switch data[i] {
	case '"':
		return gStringEnd(data, i)
	case '{', '[':
		return p.span(i).end
	case 't', 'n':
		return i + len("true")
	case 'f':
		return i + len("false")
	}
	for i++; i < len(data) && gIsNumberByte(data[i]); i++ {
	}
	return i
}

// span returns the span of the array or object at data[i], in the JSON
// index has validated.
func (p *goldenParser) span(i int) gSpan {
	// Spans are mostly asked for in the order index found them, once for
	// the end and once more for the size.
	k := p.last
	if p.spans[k].start != i {
		k++
	}
	if k == len(p.spans) || p.spans[k].start != i {
		k = sort.Search(len(p.spans), func(k int) bool { return p.spans[k].start >= i })
	}
	p.last = k
	return p.spans[k]
}

// size returns how many elements or members the array or object at data[i]
// has, for preallocation: 0 with viaJSON.
func (p *goldenParser) size(i int) int {
	if p.viaJSON {
		return 0
	}
	return p.span(i).n
}

// gStringEnd returns the end of the valid JSON string at data[i] == '"'.
func gStringEnd(data []byte, i int) int {
	for i++; ; {
		q := i + bytes.IndexByte(data[i:], '"')
		backslashes := 0
		for data[q-1-backslashes] == '\\' {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		i = q + 1 // an escaped quote
	}
}

func gIsNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// unquote decodes the JSON string val, found at offset off of data, as
// encoding/json does.
func (p *goldenParser) unquote(val []byte, off int) string {
	if p.viaJSON {
		return gUnquote(val)
	}
	if bytes.IndexByte(val, '\\') >= 0 {
		return fxUnquote(val[1 : len(val)-1])
	}
	return p.src[off+1 : off+len(val)-1]
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

// walkObject calls fn for each member of the JSON object obj, which starts
// at byte offset base of the file, with the offsets of its key and value. A
// repeated key is passed to dup instead, with the offset of its first
// occurrence. obj must be valid JSON.
func (p *goldenParser) walkObject(obj []byte, base int, dup func(key string, keyOff, firstOff int),
	fn func(key string, keyOff int, val []byte, valOff int)) {
	if p.viaJSON {
		p.walkObjectJSON(obj, base, dup, fn)
		return
	}
	data := p.data
	var keys gKeySet
	for i := gSkipSpace(data, base+1); data[i] != '}'; {
		keyOff, keyEnd := i, gStringEnd(data, i)
		key := p.unquote(data[keyOff:keyEnd], keyOff)
		valOff := gSkipSpace(data, gSkipSpace(data, keyEnd)+1) // after the colon
		valEnd := p.valueEnd(valOff)
		if first, isDup := keys.add(key, keyOff); isDup {
			dup(key, keyOff, first)
		} else {
			fn(key, keyOff, data[valOff:valEnd], valOff)
		}
		if i = gSkipSpace(data, valEnd); data[i] == ',' {
			i = gSkipSpace(data, i+1)
		}
	}
}

// walkArray calls fn for each element of the JSON array arr, which starts
// at byte offset base of the file, with the element's offset. arr must be
// valid JSON.
func (p *goldenParser) walkArray(arr []byte, base int, fn func(elem []byte, off int)) {
	if p.viaJSON {
		p.walkArrayJSON(arr, base, fn)
		return
	}
	data := p.data
	for i := gSkipSpace(data, base+1); data[i] != ']'; {
		end := p.valueEnd(i)
		fn(data[i:end], i)
		if i = gSkipSpace(data, end); data[i] == ',' {
			i = gSkipSpace(data, i+1)
		}
	}
}

// walkObjectJSON is walkObject with encoding/json.
func (p *goldenParser) walkObjectJSON(obj []byte, base int, dup func(key string, keyOff, firstOff int),
	fn func(key string, keyOff int, val []byte, valOff int)) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		p.add(base, "", "", "invalid JSON: "+err.Error())
		return
	}
	keys := make(map[string]int)
	for dec.More() {
		keyOff := gSkipSeparators(obj, int(dec.InputOffset()))
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			p.add(base+keyOff, "", "", "invalid JSON: expected an object key")
			return
		}
		valOff := gSkipSeparators(obj, int(dec.InputOffset()))
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			p.add(base+valOff, "", "", "invalid JSON: "+err.Error())
			return
		}
		val = bytes.TrimLeft(val, " \t\r\n")
		if first, ok := keys[key]; ok {
			dup(key, base+keyOff, first)
			continue
		}
		keys[key] = base + keyOff
		fn(key, base+keyOff, val, base+valOff)
	}
}

// walkArrayJSON is walkArray with encoding/json.
func (p *goldenParser) walkArrayJSON(arr []byte, base int, fn func(elem []byte, off int)) {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if _, err := dec.Token(); err != nil {
		p.add(base, "", "", "invalid JSON: "+err.Error())
		return
	}
	for dec.More() {
		off := gSkipSeparators(arr, int(dec.InputOffset()))
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			p.add(base+off, "", "", "invalid JSON: "+err.Error())
			return
		}
		fn(bytes.TrimLeft(elem, " \t\r\n"), base+off)
	}
}

// Helpers on raw JSON values.

func gSkipSpace(b []byte, i int) int { return fxSkipSpace(b, i) }

// gSkipSeparators skips white space, commas and colons: from the end of one
// token to the start of the next (for walkObjectJSON and walkArrayJSON).
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

// gKindOf classifies a JSON value by its first byte: '{', '[', '"', 't',
// 'f', 'n', or '0' for a number (0 when empty).
func gKindOf(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	switch c := v[0]; c {
	case '{', '[', '"', 't', 'f', 'n':
		return c
	}
	return '0'
}

// gDescribe names a JSON value for a message: its text when it is a short
// scalar, else its kind.
func gDescribe(v []byte) string {
	switch gKindOf(v) {
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return gShorten(v)
}

// gShorten returns v, cut to about 40 bytes at a character boundary.
func gShorten(v []byte) string {
	const limit = 40
	if len(v) <= limit {
		return string(v)
	}
	i := limit
	for i > 0 && !utf8.RuneStart(v[i]) {
		i--
	}
	return string(v[:i]) + "…"
}

// gUnquote decodes the valid JSON string v with encoding/json.
func gUnquote(v []byte) string {
	var s string
	_ = json.Unmarshal(v, &s) // v is a valid JSON string
	return s
}

// gParseInt parses a JSON number and reports whether its value is an
// integer (1, 1.0 and 1e0 are; 1.5 and 1e400 are not).
func gParseInt(v []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, false
	}
	return f, true
}

func gEmptyMsg(s string) string { return "must not be " + gEmptyWord(s) }

// gEmptyWord says whether a string that trims to "" is empty or blank.
func gEmptyWord(s string) string {
	if s == "" {
		return "empty"
	}
	return "blank"
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

// gSuggest returns the name in known closest to key, ignoring letter case,
// when it is close enough to be a likely misspelling, else "".
func gSuggest(key string, known []string) string {
	if len(key) > 64 {
		return ""
	}
	lk := []rune(strings.ToLower(key))
	best, bestDist := "", math.MaxInt
	for _, k := range known {
		if gAbs(len(lk)-len(k)) > len(k)/3 {
			continue // too far apart to be within the bound
		}
		d := gEditDistance(lk, []rune(strings.ToLower(k)))
		if d <= len(k)/3 && d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// gEditDistance is the Levenshtein distance between a and b.
func gEditDistance(a, b []rune) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			next := min(row[j]+1, row[j-1]+1, diag+cost)
			diag, row[j] = row[j], next
		}
	}
	return row[len(b)]
}

func gAbs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
