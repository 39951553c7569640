package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// FuzzParseGolden checks that ParseGolden never panics, that what it accepts
// satisfies SPEC §8 and survives a round trip through encoding/json, and that
// what it rejects is explained.
func FuzzParseGolden(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds in testdata/golden: %v", err)
	}
	for _, path := range seeds {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"caseId":"a","scenario":"s","query":"q","relevance":{"a":0},"expectedDocIds":["a"]}]`))
	f.Add([]byte("\uFEFF{\"version\":1e0,\"k\":1.0,\"cases\":[{\"caseId\":\"A\",\"caseId\":\"a\"}]}"))
	// The chunk-level fields and the plural evidence statuses, valid and not.
	f.Add([]byte(`[{"caseId":"a","scenario":"s","query":"q","expectedEvidenceStatuses":["weak","none"]}]`))
	f.Add([]byte(`[{"caseId":"a","scenario":"s","query":"q","expectedEvidenceStatus":"none","expectedEvidenceStatuses":["weak"]}]`))
	f.Add([]byte(`[{"caseId":"a","scenario":"s","query":"q","expectedEvidenceKeys":["kb/a#A > B@2~3","kb/a#"]}]`))
	f.Add([]byte(`[{"caseId":"a","scenario":"s","query":"q","expectedSources":["a"],"minExpectedBlocks":2,"k":2}]`))
	f.Add([]byte(`[{"caseId":"a","scenario":"s","query":"q","expectedSources":["a"],"minExpectedBlocks":3,"k":2}]`))
	f.Add([]byte(`[{"caseId":"a","scenario":"s","query":"q","expectedEvidenceKeys":["kb/a#"],"minExpectedBlocks":1}]`))
	// Drafts, with and without what a draft may not declare.
	f.Add([]byte(`[{"caseId":"q-1","scenario":"s","query":"q","draft":true,"count":2,"tags":["t"],"k":3}]`))
	f.Add([]byte(`[{"caseId":"q-1","scenario":"s","query":"q","draft":true,"expectedSources":["a"],"relevance":{"a":1}}]`))
	f.Add([]byte(`[{"caseId":"q-1","scenario":"s","query":"q","draft":false,"count":0,"expectedFound":null}]`))

	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGolden("fuzz.json", data)
		if err != nil {
			if g != nil {
				t.Fatalf("ParseGolden returned both a file and an error: %v", err)
			}
			checkGoldenError(t, data, err)
			return
		}
		if g.Version != 1 {
			t.Fatalf("accepted version %d", g.Version)
		}
		if len(g.Cases) == 0 {
			t.Fatalf("accepted a file without cases")
		}
		if g.K < 0 {
			t.Fatalf("accepted file k %d", g.K)
		}
		ids := make(map[string]bool)
		for i := range g.Cases {
			c := &g.Cases[i]
			if !ValidCaseID(c.CaseID) {
				t.Fatalf("accepted caseId %q", c.CaseID)
			}
			if folded := strings.ToLower(c.CaseID); ids[folded] {
				t.Fatalf("accepted caseId %q twice", c.CaseID)
			} else {
				ids[folded] = true
			}
			if strings.TrimSpace(c.Query) == "" || strings.TrimSpace(c.Scenario) == "" {
				t.Fatalf("case %q: accepted query %q, scenario %q", c.CaseID, c.Query, c.Scenario)
			}
			if c.Draft && (c.DeclaresCheck() || c.Relevance != nil || c.MinKeywordCoverage != nil) {
				t.Fatalf("draft %q declares an expectation", c.CaseID)
			}
			if !c.Draft && !c.DeclaresCheck() {
				t.Fatalf("case %q declares no check", c.CaseID)
			}
			if c.Count < 0 {
				t.Fatalf("case %q: accepted count %d", c.CaseID, c.Count)
			}
			if c.K != nil && *c.K < 1 || c.ExpectedFirstRankMax != nil && *c.ExpectedFirstRankMax < 1 ||
				c.MinExpectedBlocks != nil && *c.MinExpectedBlocks < 1 {
				t.Fatalf("case %q: accepted k, expectedFirstRankMax or minExpectedBlocks below 1", c.CaseID)
			}
			if (c.ExpectedFirstRankMax != nil || c.MinExpectedBlocks != nil) && !c.UsesExpectedDocs() {
				t.Fatalf("case %q: accepted expectedFirstRankMax or minExpectedBlocks without expected documents", c.CaseID)
			}
			if c.MinExpectedBlocks != nil && c.K != nil && *c.MinExpectedBlocks > *c.K {
				t.Fatalf("case %q: accepted minExpectedBlocks %d above k %d", c.CaseID, *c.MinExpectedBlocks, *c.K)
			}
			if c.ExpectedFallbackReason != "" && len(c.ExpectedFallbackReasons) > 0 ||
				c.ExpectedEvidenceStatus != "" && len(c.ExpectedEvidenceStatuses) > 0 {
				t.Fatalf("case %q: accepted a singular expectation with its plural", c.CaseID)
			}
			if m := c.MinKeywordCoverage; m != nil && (*m < 0 || *m > 1 || len(c.ExpectedKeywords) == 0) {
				t.Fatalf("case %q: accepted minKeywordCoverage %v with %d keywords", c.CaseID, *m, len(c.ExpectedKeywords))
			}
			for k, grade := range c.Relevance {
				if grade < 0 {
					t.Fatalf("case %q: accepted grade %d for %q", c.CaseID, grade, k)
				}
			}
		}

		// What was accepted, encoded again, parses to the same file.
		enc, err := json.Marshal(g)
		if err != nil {
			t.Fatalf("encode accepted file: %v", err)
		}
		again, err := ParseGolden("again.json", enc)
		if err != nil {
			t.Fatalf("re-parse of accepted file failed: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(again, g) {
			t.Fatalf("round trip changed the file:\n%s\nthen\n%s", enc, gJSON(t, again))
		}
	})
}

// checkGoldenError checks that err is a non-empty diag.List of located
// problems or an *UnsupportedVersionError.
func checkGoldenError(t *testing.T, data []byte, err error) {
	t.Helper()
	lines := strings.Count(string(data), "\n") + 1
	var uv *UnsupportedVersionError
	if errors.As(err, &uv) {
		if uv.Version == "" {
			t.Fatalf("UnsupportedVersionError without the version: %#v", uv)
		}
		if uv.Line < 1 || uv.Line > lines {
			t.Fatalf("UnsupportedVersionError on line %d, want 1 to %d: %#v", uv.Line, lines, uv)
		}
		if len(uv.Supported) == 0 {
			t.Fatalf("UnsupportedVersionError without the supported versions: %#v", uv)
		}
		return
	}
	list, ok := err.(diag.List)
	if !ok {
		t.Fatalf("error is %T, want diag.List or *UnsupportedVersionError: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatalf("empty diag.List")
	}
	for i, e := range list {
		if e == nil {
			t.Fatalf("error %d is nil", i)
		}
		if e.Msg == "" {
			t.Fatalf("error %d has no message: %#v", i, e)
		}
		if e.File != "fuzz.json" {
			t.Fatalf("error %d names file %q, want fuzz.json: %#v", i, e.File, e)
		}
		if e.Line < 1 || e.Line > lines {
			t.Fatalf("error %d on line %d, want 1 to %d: %#v", i, e.Line, lines, e)
		}
		if i > 0 && e.Line < list[i-1].Line {
			t.Fatalf("errors out of line order: %v", err)
		}
	}
}

// FuzzParseGoldenReference checks ParseGolden against encoding/json, an
// independent JSON reader: ParseGolden reports invalid JSON (in encoding/json's
// words, never jsontext's) exactly when encoding/json's json.Valid rejects
// the UTF-8 file, and a file it accepts has no repeated key anywhere and
// holds exactly the values refParseGolden reads from it.
func FuzzParseGoldenReference(f *testing.F) {
	for _, seed := range goldenReferenceSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(checkGoldenReference)
}

// TestParseGoldenReference runs the check of FuzzParseGoldenReference on
// its seeds and on a larger file than the fuzzer makes.
func TestParseGoldenReference(t *testing.T) {
	for _, seed := range goldenReferenceSeeds(t) {
		checkGoldenReference(t, seed)
	}
	checkGoldenReference(t, goldenBench(t, 500))
}

func checkGoldenReference(t *testing.T, data []byte) {
	g, err := ParseGolden("fuzz.json", data)
	text := bytes.TrimPrefix(data, []byte("\uFEFF"))
	notJSON := utf8.Valid(text) && !json.Valid(text)
	var list diag.List
	syntaxMsg := errors.As(err, &list) && len(list) == 1 &&
		(strings.HasPrefix(list[0].Msg, "invalid JSON: ") || list[0].Msg == "empty file")
	if notJSON != syntaxMsg {
		t.Fatalf("input %q: json.Valid = %v, but ParseGolden gives %v", data, !notJSON, err)
	}
	if syntaxMsg && strings.Contains(list[0].Msg, "jsontext") {
		t.Fatalf("input %q: encoding/json accepts what jsontext rejects: %v", data, err)
	}
	if err != nil {
		return
	}
	if !jsontext.Value(text).IsValid(jsontext.AllowInvalidUTF8(true)) {
		t.Fatalf("input %q: accepted, but it has a repeated key", data)
	}
	want := refParseGolden(t, text)
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("input %q:\nParseGolden:\n%s\nreference:\n%s", data, gJSON(t, g), gJSON(t, want))
	}
}

// refParseGolden reads a golden file that ParseGolden accepted with
// encoding/json into map[string]any (numbers kept as text), applying the
// rules of ParseGolden's documentation for what declares nothing. It is
// slow and obviously right.
func refParseGolden(t *testing.T, data []byte) *GoldenFile {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("reference: %v", err)
	}
	integer := func(v any) *int {
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			t.Fatalf("reference: integer %s: %v", n, err)
		}
		i := int(f)
		return &i
	}
	str := func(v any) string { s, _ := v.(string); return s }
	list := func(v any) []string {
		var l []string
		for _, e := range v.([]any) {
			l = append(l, e.(string))
		}
		return l
	}
	g := &GoldenFile{Version: 1}
	var cases []any
	switch top := v.(type) {
	case []any:
		cases = top
	case map[string]any:
		if n := integer(top["version"]); n != nil {
			g.Version = *n
		}
		g.KBScope = str(top["kbScope"])
		if n := integer(top["k"]); n != nil {
			g.K = *n
		}
		cases = top["cases"].([]any)
	}
	for _, e := range cases {
		m := e.(map[string]any)
		c := Case{
			CaseID: str(m["caseId"]), Scenario: str(m["scenario"]), Query: str(m["query"]), Notes: str(m["notes"]),
			ExpectedSelectedAttempt: str(m["expectedSelectedAttempt"]),
			ExpectedFallbackReason:  str(m["expectedFallbackReason"]),
			ExpectedEvidenceStatus:  str(m["expectedEvidenceStatus"]),
			ExpectedRerankTopSource: str(m["expectedRerankTopSource"]),
			ExpectedFirstRankMax:    integer(m["expectedFirstRankMax"]),
			MinExpectedBlocks:       integer(m["minExpectedBlocks"]),
			K:                       integer(m["k"]),
		}
		if n := integer(m["count"]); n != nil {
			c.Count = *n
		}
		c.Draft, _ = m["draft"].(bool)
		for key, dst := range map[string]*[]string{
			"tags": &c.Tags, "expectedSources": &c.ExpectedSources, "expectedDocIds": &c.ExpectedDocIDs,
			"expectedBreadcrumbs": &c.ExpectedBreadcrumbs, "expectedKeywords": &c.ExpectedKeywords,
			"mustNotSources": &c.MustNotSources, "mustNotDocIds": &c.MustNotDocIDs,
			"expectedFallbackReasons": &c.ExpectedFallbackReasons, "expectedContextSources": &c.ExpectedContextSources,
			"expectedEvidenceStatuses": &c.ExpectedEvidenceStatuses, "expectedEvidenceKeys": &c.ExpectedEvidenceKeys,
		} {
			if l, ok := m[key].([]any); ok && len(l) > 0 {
				*dst = list(l)
			}
		}
		if n, ok := m["minKeywordCoverage"].(json.Number); ok {
			f, _ := strconv.ParseFloat(string(n), 64)
			c.MinKeywordCoverage = &f
		}
		if b, ok := m["expectedFound"].(bool); ok {
			c.ExpectedFound = &b
		}
		if r, ok := m["relevance"].(map[string]any); ok && len(r) > 0 {
			c.Relevance = make(map[string]int, len(r))
			for doc, grade := range r {
				c.Relevance[doc] = *integer(grade)
			}
		}
		g.Cases = append(g.Cases, c)
	}
	return g
}

// goldenReferenceSeeds returns the golden test files and inputs aimed at
// where two JSON readers can differ: escapes, white space, numbers, nesting
// depth, objects with many keys, syntax errors.
func goldenReferenceSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no seeds in testdata/golden: %v", err)
	}
	var seeds [][]byte
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, data)
	}

	const ok = `"caseId":"a","scenario":"s","query":"q","expectedFound":true`
	manyKeys := func(n int, value string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%s,`, i, value)
		}
		return b.String()
	}
	nested := func(depth int) string {
		return strings.Repeat("[", depth) + strings.Repeat("]", depth)
	}
	for _, s := range []string{
		// Escapes in keys and values; keys equal once unescaped.
		`[{"caseId":"a","scenario":"s\u0000\"\\\/\b\f\n\r\t","query":"\ud800\udc00\ud800x\udfff","expectedSources":["\u00e9\\","\"","\\\""]}]`,
		`[{"\u0063aseId":"a","caseId":"b","scenario":"s","query":"q","expectedFound":true}]`,
		`{"c\u0061ses":[{` + ok + `}],"\u0076ersion":1,"version":2}`,
		`[{` + ok + `,"relevance":{"\u0061":1,"a":2,"\ud800":1,"\ufffd":1,"\\":0,"\"":0}}]`,
		`[{` + ok + `,"caseI\u0064":"b","\u00e9":1,"expectedSource\u0073":["x\"y"]}]`,
		// White space of every kind, and none.
		" \t\r\n[ \t\r\n{ \t\r\n\"caseId\" \t\r\n: \t\r\n\"a\" \t\r\n, \"scenario\":\"s\",\"query\":\"q\",\"tags\" : [ \"x\" , \"y\" ] ,\"expectedFound\"\n:\ttrue\r\n}\n]\n\t ",
		"\uFEFF[{" + ok + "}]",
		// Numbers and literals where the file wants integers or fractions.
		`[{` + ok + `,"k":-0,"expectedFirstRankMax":1E+2,"expectedKeywords":["x"],"minKeywordCoverage":0.5e-0}]`,
		`[{` + ok + `,"k":1e400,"expectedFirstRankMax":-1.0,"minKeywordCoverage":1e-400,"relevance":{"a":0e5,"b":2.000,"c":false,"d":null,"e":[],"f":{}}}]`,
		`{"version":1.0e0,"k":3,"kbScope":null,"cases":[{` + ok + `,"notes":null,"tags":null,"expectedFound":null,"expectedFallbackReason":"r"}]}`,
		`[{` + ok + `,"expectedSources":["x"],"minExpectedBlocks":2.0e0,"k":2,"expectedEvidenceKeys":["kb/x#\u0041 > B~2"],"expectedEvidenceStatuses":["we\u0061k","none"]}]`,
		`[{` + ok + `,"minExpectedBlocks":-0,"expectedEvidenceKeys":null,"expectedEvidenceStatuses":[],"expectedEvidenceStatus":""}]`,
		`{"version":{"a":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]},"cases":[]}`,
		`{"version":"` + strings.Repeat("é", 30) + `","cases":[]}`,
		// Objects with many keys, repeated before and after the 16th.
		`[{` + ok + `,` + manyKeys(20, "1") + `"k3":2,"k18":3}]`,
		`[{` + ok + `,"relevance":{` + manyKeys(40, "1") + `"k0":2,"k39":0,"k20":1}}]`,
		`{` + manyKeys(17, `"x"`) + `"k16":1,"cases":[{` + ok + `}]}`,
		// Values of unknown fields, nested deep.
		`[{` + ok + `,"x":` + nested(9999) + `}]`,
		`[{` + ok + `,"x":` + nested(9998) + `}]`,
		`[{` + ok + `,"x":{"a":[{"b":[1,"]",{"c":"}"}]}]}}]`,
		nested(10000),
		nested(10001),
		// Not JSON, or more than one value.
		``, ` `, `[`, `{`, `"`, `[]]`, `{}}`, `[] []`, `[]x`, `1x`, `01`, `-`, `1.`, `1e`, `1e+`, `.5`, `+1`,
		`tru`, `nul`, `falsey`, `[tru]`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\nb\"", `[1,]`, `{"a":1,}`,
		`{"a"}`, `{"a":}`, `{a:1}`, `{"a" 1}`, `{"a":1 "b":2}`, `[1 2]`, `[{` + ok + `}`, `[{` + ok + `},]`,
		`[{` + ok + `}]` + "\x00", "[\"\xff\"]", `[{"caseId":"a" ,, "query":"q"}]`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}
