package contract

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// MaxCaseIDLen is the longest caseId accepted, in bytes, so that the fixture
// file name <caseId>.json fits in the 255-byte name limit of common file
// systems with room to spare.
const MaxCaseIDLen = 200

// gMaxInt is the largest k, expectedFirstRankMax, minExpectedBlocks,
// relevance grade or version accepted. Larger numbers are errors rather
// than silently overflowing.
const gMaxInt = math.MaxInt32

// LoadGolden reads the file at path with ReadSetFile and parses it with
// ParseGolden, using path as the file name in error messages. A read error
// is returned as is: an *fs.PathError, or a *RefusedError for a file that
// is not a regular file or is over the cap.
func LoadGolden(path string) (*GoldenFile, error) {
	data, err := ReadSetFile(path)
	if err != nil {
		return nil, err
	}
	return ParseGolden(path, data)
}

// ParseGolden decodes and validates a golden-cases file (docs/golden-cases.md).
// name is used in error messages.
//
// The file is UTF-8 JSON holding one value, and a leading byte order mark
// is skipped. The value is either an object with the keys "version", "kbScope", "k" and
// "cases", or a bare array of cases, which has version 1 and no file-level
// kbScope or k. A missing or null "version" means version 1.
//
// When the version is not in SupportedGoldenVersions the only error returned
// is an *UnsupportedVersionError, which is ErrUnsupportedVersion for
// errors.Is, before anything else is validated. Otherwise every problem in the file is returned
// at once as a diag.List sorted by line. Each *diag.Error names the line
// where the offending case or value starts, and its Where names the caseId
// and the field. For an element of a list or an entry of relevance, the
// line is that of the element or entry. When the file is not UTF-8 or not
// JSON, that one problem is the whole list.
//
// Problems (docs/golden-cases.md lists them for users):
//   - an unknown key, in the file object or in a case, with the closest known
//     name suggested;
//   - a key repeated in one object;
//   - a value of the wrong type. null is accepted for every optional field
//     and declares nothing, but not for caseId, scenario, query or cases;
//   - a missing caseId, scenario or query;
//   - an empty or blank query or scenario;
//   - a caseId that is not ValidCaseID, with a message for its characters
//     and one for its length;
//   - two caseIds equal or differing only in letter case, the message
//     naming the line of the first;
//   - a case that declares no check other than query (Case.DeclaresCheck),
//     not reported when a field of the case is unknown or mistyped, since
//     that is its likely cause. A draft ("draft": true) declares none by
//     design;
//   - an expectation declared on a draft. A draft may set caseId,
//     scenario, query, tags, notes, count and k only, each field reported
//     at its line;
//   - both expectedFallbackReason and expectedFallbackReasons;
//   - both expectedEvidenceStatus and expectedEvidenceStatuses;
//   - minKeywordCoverage without expectedKeywords, or outside [0, 1];
//   - expectedFirstRankMax or minExpectedBlocks without expectedSources or
//     expectedDocIds, since the first expected rank and the count of
//     expected blocks need expected documents;
//   - minExpectedBlocks above the case's own k, which no top K could pass;
//   - a k of the case or the file, an expectedFirstRankMax, a
//     minExpectedBlocks or a count that is not an integer, below 1 or above
//     2147483647. A number written with a fraction or exponent, such as 1.0
//     or 1e1, counts as an integer when its value is one;
//   - a relevance grade that is not an integer, negative, above
//     2147483647, or 0 on an expected document. Keys are compared trimmed
//     with expectedDocIds when the case uses them, else with
//     expectedSources;
//   - an empty or blank relevance key;
//   - an empty or blank string inside a list such as tags or
//     expectedSources;
//   - a single-value expectation or kbScope that is blank but not empty,
//     which the judge would trim to an empty expectation. "" itself
//     declares nothing;
//   - an empty cases list, or a null or missing "cases" key: "no cases".
//
// Values are stored as written, untrimmed. The judge trims when comparing.
// Fields that are absent, null, [] or "", and an empty relevance object,
// are left as zero values: nil slices, maps and pointers, "" strings.
// Expectation values are not checked against the attempt names, fallback
// reasons and evidence statuses the pipeline uses today. An unknown value
// makes its check fail visibly rather than disappear.
//
// ParseGolden never panics. Its time grows linearly with the size of data,
// and as n log n with the number of problems, which are sorted.
//
// The file is read in one pass of a jsontext.Decoder from
// go-json-experiment/json, which validates the JSON and gives the byte
// offset of every value. Keys are checked for repetition here, so that each
// problem names the first occurrence and every other problem is still
// found. Strings are decoded into fresh memory: data is not retained.
func ParseGolden(name string, data []byte) (*GoldenFile, error) {
	data = TrimBOM(data)
	p := &goldenParser{name: name, data: data}
	if off := gInvalidUTF8(data); off >= 0 {
		return nil, p.fatal(off, "not valid UTF-8")
	}
	// Raw invalid UTF-8 is rejected above. AllowInvalidUTF8 only lets an
	// escaped lone surrogate such as \ud800 through, read as U+FFFD, as
	// encoding/json reads it.
	p.dec = jsontext.NewDecoder(bytes.NewBuffer(data),
		jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

	g := &GoldenFile{Version: 1}
	topOff := p.offset()
	switch p.peek() {
	case 0: // not JSON: p.err is set
	case '[':
		g.Cases = p.cases(topOff, "")
	case '{':
		p.file(g, topOff)
	default:
		p.add(topOff, "", "", "expected an object with \"cases\" or an array of cases, got "+gDescribe(p.value()))
	}
	if p.err == nil && gSkipSpace(data, int(p.dec.InputOffset())) < len(data) {
		p.err = errTrailingData
	}
	switch {
	case p.err != nil:
		return nil, p.syntaxError()
	case p.version != nil:
		return nil, p.version
	case len(p.probs) > 0:
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
		"expectedEvidenceStatuses", "expectedEvidenceKeys", "minExpectedBlocks",
		"draft", "count",
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
	gkExpectedEvidenceStatuses
	gkExpectedEvidenceKeys
	gkMinExpectedBlocks
	gkDraft
	gkQueryCount
	gkCount
)

// draftKeys are the keys a draft case may declare something with: its
// identity, its labels, the count of its query and its K. Every other key
// is an expectation, which a draft does not have.
var draftKeys = [gkCount]bool{
	gkCaseID: true, gkScenario: true, gkTags: true, gkQuery: true, gkNotes: true,
	gkK: true, gkDraft: true, gkQueryCount: true,
}

var goldenCaseKeyIndex = func() map[string]int {
	m := make(map[string]int, len(goldenCaseKeys))
	for i, k := range goldenCaseKeys {
		m[k] = i
	}
	return m
}()

// goldenKeyNames maps every key of the format to itself.
var goldenKeyNames = func() map[string]string {
	m := make(map[string]string, len(goldenFileKeys)+len(goldenCaseKeys))
	for _, k := range slices.Concat(goldenFileKeys, goldenCaseKeys) {
		m[k] = k
	}
	return m
}()

// file decodes the top-level object, which starts at off, into g.
func (p *goldenParser) file(g *GoldenFile, off int) {
	hasCases := false
	p.object(func(key string, keyOff, firstOff int) {
		p.add(keyOff, "", key, "duplicate key (first at line "+strconv.Itoa(p.line(firstOff))+")")
	}, func(key string, keyOff, valOff int) {
		switch key {
		case "version":
			p.fileVersion(g, valOff)
		case "kbScope":
			g.KBScope, _ = p.optString(valOff, "kbScope")
		case "k":
			if k, ok := p.posInt(valOff, "k"); ok && k != nil {
				g.K = *k
			}
		case "cases":
			hasCases = true
			switch p.peek() {
			case 'n':
				p.value()
				p.add(valOff, "", "cases", "no cases")
			case '[':
				g.Cases = p.cases(valOff, "cases")
			default:
				p.add(valOff, "", "cases", "expected an array of cases, got "+gDescribe(p.value()))
			}
		default:
			p.value()
			msg := "unknown field"
			if _, ok := goldenCaseKeyIndex[key]; ok {
				msg += "; " + strconv.Quote(key) + " belongs in a case inside \"cases\""
			} else if s := gSuggest(key, goldenFileKeys); s != "" {
				msg += "; did you mean " + strconv.Quote(s) + "?"
			}
			p.add(keyOff, "", key, msg)
		}
	})
	if !hasCases {
		p.add(off, "", "cases", "missing required field")
	}
}

// fileVersion reads the "version" value at off. A version other than a
// supported one is recorded in p.version.
func (p *goldenParser) fileVersion(g *GoldenFile, off int) {
	raw := p.value()
	if p.err != nil || gKindOf(raw) == 'n' {
		return
	}
	v, ok := 0, false
	if gKindOf(raw) == '0' {
		if f, isInt := gParseInt(raw); isInt && f >= 0 && f <= gMaxInt {
			v, ok = int(f), slices.Contains(SupportedGoldenVersions, int(f))
		}
	}
	if !ok {
		p.version = &UnsupportedVersionError{
			File: p.name, Line: p.line(off), Field: "version",
			Version: diag.Clip(string(raw), quotedLen, diag.Bytes), Supported: slices.Clone(SupportedGoldenVersions),
		}
		return
	}
	g.Version = v
}

type gCaseIDLoc struct {
	id  string
	off int
}

// cases decodes the array of cases that comes next, which starts at off.
// field is the key the array is under ("" for a bare array).
func (p *goldenParser) cases(off int, field string) []Case {
	// Room for every case up front, one per "caseId" key in all but odd
	// files: growing a slice of large structs costs more than counting.
	size := bytes.Count(p.data, []byte(`"caseId"`))
	var cases []Case
	if size > 0 {
		cases = make([]Case, 0, size)
	}
	ids := make(map[string]gCaseIDLoc, size)
	n := 0
	p.array(func(elemOff int) {
		n++
		if p.peek() != '{' {
			p.add(elemOff, "", "", "expected a case object, got "+gDescribe(p.value()))
			return
		}
		c, idOff := p.decodeCase(elemOff)
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

// decodeCase decodes and validates the case object that comes next, which
// starts at off. It returns the offset of the caseId value, or -1 when the
// case has no string caseId.
func (p *goldenParser) decodeCase(off int) (c Case, idOff int) {
	start := len(p.probs)
	var (
		seen     [gkCount]int // value offset + 1, 0 when absent
		badType  bool         // some field is unknown or mistyped
		badList  [gkCount]bool
		zeroes   []gZeroGrade
		required = [...]int{gkCaseID, gkScenario, gkQuery}
	)
	idOff = -1
	p.object(func(key string, keyOff, firstOff int) {
		p.add(keyOff, "", key, "duplicate key (first at line "+strconv.Itoa(p.line(firstOff))+")")
	}, func(key string, keyOff, valOff int) {
		i, known := goldenCaseKeyIndex[key]
		if !known {
			p.value()
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
			if s, ok = p.reqString(valOff, key); ok && s != "" {
				c.CaseID, idOff = s, valOff
				p.checkCaseID(s, valOff)
			}
		case gkScenario:
			c.Scenario, ok = p.reqString(valOff, key)
		case gkQuery:
			c.Query, ok = p.reqString(valOff, key)
		case gkNotes:
			c.Notes, ok = p.anyString(valOff, key)
		case gkExpectedSelectedAttempt:
			c.ExpectedSelectedAttempt, ok = p.optString(valOff, key)
		case gkExpectedFallbackReason:
			c.ExpectedFallbackReason, ok = p.optString(valOff, key)
		case gkExpectedEvidenceStatus:
			c.ExpectedEvidenceStatus, ok = p.optString(valOff, key)
		case gkExpectedRerankTopSource:
			c.ExpectedRerankTopSource, ok = p.optString(valOff, key)
		case gkTags:
			c.Tags, ok = p.stringList(valOff, key)
		case gkExpectedSources:
			c.ExpectedSources, ok = p.stringList(valOff, key)
		case gkExpectedDocIDs:
			c.ExpectedDocIDs, ok = p.stringList(valOff, key)
		case gkExpectedBreadcrumbs:
			c.ExpectedBreadcrumbs, ok = p.stringList(valOff, key)
		case gkExpectedKeywords:
			c.ExpectedKeywords, ok = p.stringList(valOff, key)
		case gkMustNotSources:
			c.MustNotSources, ok = p.stringList(valOff, key)
		case gkMustNotDocIDs:
			c.MustNotDocIDs, ok = p.stringList(valOff, key)
		case gkExpectedFallbackReasons:
			c.ExpectedFallbackReasons, ok = p.stringList(valOff, key)
		case gkExpectedContextSources:
			c.ExpectedContextSources, ok = p.stringList(valOff, key)
		case gkExpectedEvidenceStatuses:
			c.ExpectedEvidenceStatuses, ok = p.stringList(valOff, key)
		case gkExpectedEvidenceKeys:
			c.ExpectedEvidenceKeys, ok = p.stringList(valOff, key)
		case gkMinKeywordCoverage:
			c.MinKeywordCoverage, ok = p.fraction(valOff, key)
		case gkRelevance:
			c.Relevance, zeroes, ok = p.relevance(valOff, key)
		case gkExpectedFound:
			c.ExpectedFound, ok = p.boolean(valOff, key)
		case gkExpectedFirstRankMax:
			c.ExpectedFirstRankMax, ok = p.posInt(valOff, key)
		case gkMinExpectedBlocks:
			c.MinExpectedBlocks, ok = p.posInt(valOff, key)
		case gkK:
			c.K, ok = p.posInt(valOff, key)
		case gkDraft:
			var b *bool
			b, ok = p.boolean(valOff, key)
			c.Draft = b != nil && *b
		case gkQueryCount:
			var n *int
			if n, ok = p.posInt(valOff, key); n != nil {
				c.Count = *n
			}
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
		p.both(&seen, gkExpectedFallbackReason, gkExpectedFallbackReasons)
	}
	if c.ExpectedEvidenceStatus != "" && len(c.ExpectedEvidenceStatuses) > 0 {
		p.both(&seen, gkExpectedEvidenceStatus, gkExpectedEvidenceStatuses)
	}
	if c.MinKeywordCoverage != nil && len(c.ExpectedKeywords) == 0 && !badList[gkExpectedKeywords] {
		p.add(seen[gkMinKeywordCoverage]-1, "", "minKeywordCoverage", "set without expectedKeywords")
	}
	if c.ExpectedFirstRankMax != nil && !c.UsesExpectedDocs() && !badList[gkExpectedSources] && !badList[gkExpectedDocIDs] {
		p.add(seen[gkExpectedFirstRankMax]-1, "", "expectedFirstRankMax", "set without expectedSources or expectedDocIds")
	}
	if c.MinExpectedBlocks != nil && !c.UsesExpectedDocs() && !badList[gkExpectedSources] && !badList[gkExpectedDocIDs] {
		p.add(seen[gkMinExpectedBlocks]-1, "", "minExpectedBlocks", "set without expectedSources or expectedDocIds")
	}
	if c.MinExpectedBlocks != nil && c.K != nil && *c.MinExpectedBlocks > *c.K {
		p.add(seen[gkMinExpectedBlocks]-1, "", "minExpectedBlocks", "must be at most the case's k ("+
			strconv.Itoa(*c.K)+"), got "+strconv.Itoa(*c.MinExpectedBlocks))
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
	if c.Draft {
		for i := range gkCount {
			if seen[i] != 0 && !draftKeys[i] && c.declares(i) {
				p.add(seen[i]-1, "", goldenCaseKeys[i], "a draft declares no expectation; remove \"draft\" to make it a judged case")
			}
		}
	} else if !badType && !c.DeclaresCheck() {
		p.add(off, "", "", "declares no check other than query")
	}

	for i := start; i < len(p.probs); i++ {
		p.probs[i].caseID = c.CaseID
	}
	return c, idOff
}

// declares reports whether c declares something with the field of index
// i: its value is not absent, null, [], "" or {}.
func (c *Case) declares(i int) bool {
	switch i {
	case gkExpectedSources:
		return len(c.ExpectedSources) > 0
	case gkExpectedDocIDs:
		return len(c.ExpectedDocIDs) > 0
	case gkExpectedBreadcrumbs:
		return len(c.ExpectedBreadcrumbs) > 0
	case gkExpectedKeywords:
		return len(c.ExpectedKeywords) > 0
	case gkMinKeywordCoverage:
		return c.MinKeywordCoverage != nil
	case gkRelevance:
		return len(c.Relevance) > 0
	case gkMustNotSources:
		return len(c.MustNotSources) > 0
	case gkMustNotDocIDs:
		return len(c.MustNotDocIDs) > 0
	case gkExpectedFound:
		return c.ExpectedFound != nil
	case gkExpectedSelectedAttempt:
		return c.ExpectedSelectedAttempt != ""
	case gkExpectedFallbackReason:
		return c.ExpectedFallbackReason != ""
	case gkExpectedFallbackReasons:
		return len(c.ExpectedFallbackReasons) > 0
	case gkExpectedEvidenceStatus:
		return c.ExpectedEvidenceStatus != ""
	case gkExpectedContextSources:
		return len(c.ExpectedContextSources) > 0
	case gkExpectedRerankTopSource:
		return c.ExpectedRerankTopSource != ""
	case gkExpectedFirstRankMax:
		return c.ExpectedFirstRankMax != nil
	case gkExpectedEvidenceStatuses:
		return len(c.ExpectedEvidenceStatuses) > 0
	case gkExpectedEvidenceKeys:
		return len(c.ExpectedEvidenceKeys) > 0
	case gkMinExpectedBlocks:
		return c.MinExpectedBlocks != nil
	}
	return true
}

// both reports that the singular field one and its plural many are both
// set, at the one that comes later in the case.
func (p *goldenParser) both(seen *[gkCount]int, one, many int) {
	later := many
	if seen[one] > seen[many] {
		later = one
	}
	p.add(seen[later]-1, "", goldenCaseKeys[later],
		"both "+goldenCaseKeys[one]+" and "+goldenCaseKeys[many]+" are set; use one")
}

func (p *goldenParser) checkCaseID(id string, off int) {
	switch {
	case !caseIDSlug(id):
		p.add(off, "", "caseId", "must match [A-Za-z0-9][A-Za-z0-9._-]*")
	case len(id) > MaxCaseIDLen:
		p.add(off, "", "caseId", "longer than "+strconv.Itoa(MaxCaseIDLen)+" bytes")
	}
}

// ValidCaseID reports whether id can be a caseId: it matches
// [A-Za-z0-9][A-Za-z0-9._-]* and is at most MaxCaseIDLen bytes long. A
// case's fixture is the file <caseId>.json, and the rule keeps that a safe
// file name. ParseGolden applies it, and so does package snapshot, whose
// cases need not come from ParseGolden.
func ValidCaseID(id string) bool {
	return len(id) <= MaxCaseIDLen && caseIDSlug(id)
}

// caseIDSlug reports whether id matches ^[A-Za-z0-9][A-Za-z0-9._-]*$.
func caseIDSlug(id string) bool {
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

// Value decoders. Each reads the value that comes next, which starts at
// off, records its own problems and reports whether the value had the
// right type (range problems do not make it mistyped).

// reqString decodes a required, non-blank string (null is not accepted).
func (p *goldenParser) reqString(off int, field string) (string, bool) {
	if p.peek() != '"' {
		p.add(off, "", field, "expected a string, got "+gDescribe(p.value()))
		return "", false
	}
	s := p.str()
	if strings.TrimSpace(s) == "" {
		p.add(off, "", field, gEmptyMsg(s))
	}
	return s, true
}

// anyString decodes an optional string with any content.
func (p *goldenParser) anyString(off int, field string) (string, bool) {
	switch p.peek() {
	case 'n':
		p.value()
		return "", true
	case '"':
		return p.str(), true
	}
	p.add(off, "", field, "expected a string, got "+gDescribe(p.value()))
	return "", false
}

// optString decodes an optional string that, when not "", is not blank.
func (p *goldenParser) optString(off int, field string) (string, bool) {
	s, ok := p.anyString(off, field)
	if s != "" && strings.TrimSpace(s) == "" {
		p.add(off, "", field, "must not be blank; use \"\" or leave the field out to declare nothing")
	}
	return s, ok
}

// stringList decodes an optional array of non-blank strings. [] is nil.
func (p *goldenParser) stringList(off int, field string) ([]string, bool) {
	switch p.peek() {
	case 'n':
		p.value()
		return nil, true
	case '[':
	default:
		p.add(off, "", field, "expected an array of strings, got "+gDescribe(p.value()))
		return nil, false
	}
	list := p.strs[:0]
	ok := true
	i := -1
	p.array(func(elemOff int) {
		i++
		if p.peek() != '"' {
			p.add(elemOff, "", field, "expected an array of strings, got "+gDescribe(p.value())+" at index "+strconv.Itoa(i))
			ok = false
			return
		}
		s := p.str()
		if strings.TrimSpace(s) == "" {
			p.add(elemOff, "", field, gEmptyWord(s)+" string at index "+strconv.Itoa(i))
		}
		list = append(list, s)
	})
	p.strs = list[:0]
	if !ok {
		return nil, false
	}
	if len(list) == 0 {
		return nil, true
	}
	return slices.Clone(list), true
}

// boolean decodes an optional boolean.
func (p *goldenParser) boolean(off int, field string) (*bool, bool) {
	val := p.value()
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
func (p *goldenParser) posInt(off int, field string) (*int, bool) {
	val := p.value()
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
func (p *goldenParser) fraction(off int, field string) (*float64, bool) {
	val := p.value()
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

// relevance decodes an optional object of document → integer grade. {} is
// nil. It also returns the keys graded 0, for the expected-document check.
func (p *goldenParser) relevance(off int, field string) (map[string]int, []gZeroGrade, bool) {
	switch p.peek() {
	case 'n':
		p.value()
		return nil, nil, true
	case '{':
	default:
		p.add(off, "", field, "expected an object of document grades, got "+gDescribe(p.value()))
		return nil, nil, false
	}
	var m map[string]int
	var zeroes []gZeroGrade
	ok := true
	p.object(func(key string, keyOff, firstOff int) {
		p.add(keyOff, "", field, "duplicate key "+strconv.Quote(key)+" (first at line "+strconv.Itoa(p.line(firstOff))+")")
	}, func(key string, keyOff, gradeOff int) {
		grade := p.value()
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
			m = make(map[string]int)
		}
		m[key] = int(f)
	})
	if !ok {
		return nil, nil, false
	}
	return m, zeroes, true
}

// Helpers on raw JSON values.

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
	return diag.Clip(string(v), quotedLen, diag.Bytes)
}

// gParseInt parses a JSON number and reports whether its value is an
// integer. 1, 1.0 and 1e0 are, 1.5 and 1e400 are not.
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
