package contract

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract/internal/fixturescan"
	"github.com/ragbaseline/ragbaseline/internal/diag"
)

var updateFixtures = flag.Bool("update-fixtures", false, "rewrite testdata/fixtures/chat-encoded.json from TestEncodeFixtureGolden")

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDecodeFixtureTestdata decodes every testdata fixture, compares it with
// the reference decoder, and pins what the judge reads from each.
func TestDecodeFixtureTestdata(t *testing.T) {
	type blockWant struct {
		rank    int
		hasRank bool
		source  string
	}
	tests := []struct {
		file       string
		has        Presence
		blocks     []blockWant // nil: not checked
		check      func(t *testing.T, f *Fixture)
		sourcesNil bool
	}{
		{file: "chat-mysql-pool.json", has: HasJudged,
			blocks: []blockWant{{1, true, "mysql-connection-pool"}, {2, true, "mysql-slow-query"}, {3, true, "redis-memory"}},
			check: func(t *testing.T, f *Fixture) {
				lr := f.LookupResult
				want := Fixture{FixtureVersion: 1, CaseID: "chat-mysql-pool", Query: "连接池满了 too many connections 怎么办",
					RetrievedAt: "2026-11-29T12:00:00Z", SearchMode: "hybrid", KBScope: "rag-eval", Pipeline: &Pipeline{}, LookupResult: lr}
				if !reflect.DeepEqual(*f, want) {
					t.Errorf("top level: got %+v\nwant           %+v", *f, want)
				}
				field := func(name string, got, want any) {
					t.Helper()
					if got != want {
						t.Errorf("%s = %v, want %v", name, got, want)
					}
				}
				b := lr.EvidenceBlocks[0]
				field("block 0 docId", b.DocID, "rag-eval/mysql-connection-pool")
				field("block 0 breadcrumb", b.Breadcrumb, "Database > MySQL > Connection Pool > 排查步骤")
				field("block 0 category", b.Category, "database")
				if want := "<leak>，必要时调大 max_connections & 缩短"; !strings.Contains(b.Excerpt, want) {
					t.Errorf("block 0 excerpt %q, want it to contain %q", b.Excerpt, want)
				}
				field("block 0 qualityScore", b.QualityScore, Float6(0.81))
				field("block 0 HasQuality", b.HasQuality, true)
				field("block 0 relevanceLevel", b.RelevanceLevel, "high")
				field("block 0 scoreLabel", b.ScoreLabel, "RRF")
				field("block 0 evidenceKey", b.EvidenceKey, "rag-eval/mysql-connection-pool#2")
				// Fields the judge does not read are not decoded.
				field("block 0 title", b.Title, "")
				field("block 0 denseDistance", b.DenseDistance, Float6(0))
				field("contextPack.packedText", lr.ContextPack.PackedText, "")
				field("found", lr.Found, true)
				field("evidenceStatus", lr.EvidenceStatus, "sufficient")
				field("selectedAttempt", lr.RetrievalTrace.SelectedAttempt, AttemptFiltered)
				if r := lr.RetrievalTrace.FallbackReason; r != nil {
					t.Errorf("fallbackReason %q, want null", *r)
				}
				field("rerankTrace.topSource", lr.RerankTrace.TopSource, "mysql-connection-pool")
			}},
		{file: "chat-mysql-pool-dense.json", has: HasJudged,
			blocks: []blockWant{{1, true, "mysql-connection-pool"}, {2, true, "mysql-slow-query"}},
			check: func(t *testing.T, f *Fixture) {
				if f.SearchMode != "dense" {
					t.Errorf("searchMode %q, want dense", f.SearchMode)
				}
				if got := f.LookupResult.EvidenceBlocks[1].ScoreLabel; got != "cosine" {
					t.Errorf("block 1 scoreLabel %q, want cosine", got)
				}
			}},
		{file: "fallback-decoy.json", has: HasJudged,
			blocks: []blockWant{{1, true, "disk-full"}, {2, true, "overfilter-decoy"}},
			check: func(t *testing.T, f *Fixture) {
				rt := f.LookupResult.RetrievalTrace
				if rt.SelectedAttempt != AttemptUnfilteredRetry {
					t.Errorf("selectedAttempt %q, want %q", rt.SelectedAttempt, AttemptUnfilteredRetry)
				}
				if rt.FallbackReason == nil {
					t.Errorf("fallbackReason null, want %q", FallbackLowQuality)
				} else if *rt.FallbackReason != FallbackLowQuality {
					t.Errorf("fallbackReason %q, want %q", *rt.FallbackReason, FallbackLowQuality)
				}
			}},
		{file: "negative-not-found.json", has: HasJudged, blocks: []blockWant{},
			check: func(t *testing.T, f *Fixture) {
				lr := f.LookupResult
				if lr.Found {
					t.Error("found true, want false")
				}
				if lr.EvidenceStatus != EvidenceNone {
					t.Errorf("evidenceStatus %q, want %q", lr.EvidenceStatus, EvidenceNone)
				}
				if lr.EvidenceBlocks == nil {
					t.Error("evidenceBlocks nil, want []")
				}
				if lr.ContextPack.Sources == nil || len(lr.ContextPack.Sources) != 0 {
					t.Errorf("contextPack.sources %#v, want []", lr.ContextPack.Sources)
				}
				if r := lr.RetrievalTrace.FallbackReason; r == nil {
					t.Errorf("fallbackReason null, want %q", FallbackNoEvidence)
				} else if *r != FallbackNoEvidence {
					t.Errorf("fallbackReason %q, want %q", *r, FallbackNoEvidence)
				}
			}},
		{file: "aiops-nginx-502-no-rank.json", has: HasJudged,
			blocks: []blockWant{{0, false, "nginx-502"}, {0, false, "redis-memory"}},
			check: func(t *testing.T, f *Fixture) {
				b := f.LookupResult.EvidenceBlocks
				if b[0].DocID != "rag-eval/nginx-502" {
					t.Errorf("block 0 docId %q, want rag-eval/nginx-502", b[0].DocID)
				}
				if b[1].DocID != "" {
					t.Errorf("block 1 docId %q, want none", b[1].DocID)
				}
			}},
		{file: "chat-shuffled-ranks.json", has: HasJudged,
			blocks: []blockWant{{3, true, "mysql-slow-query"}, {1, true, "mysql-connection-pool"}, {0, false, "redis-memory"}, {2, true, "disk-full"}}},
		{file: "chat-unknown-fields.json", has: HasJudged,
			blocks: []blockWant{{1, true, "redis-memory"}},
			check: func(t *testing.T, f *Fixture) {
				if want := "Redis 内存告警 maxmemory"; f.Query != want {
					t.Errorf("query %q, want %q", f.Query, want)
				}
				if got := f.LookupResult.ContextPack.Sources[0]; got != "redis-memory" {
					t.Errorf("contextPack.sources[0] %q, want redis-memory", got)
				}
			}},
		{file: "chat-escapes.json", has: HasJudged,
			blocks: []blockWant{{1, true, "mysql-connection-pool"}},
			check: func(t *testing.T, f *Fixture) {
				if f.CaseID != "chat-escapes" {
					t.Errorf("caseId %q", f.CaseID)
				}
				if want := "连接池 \"quoted\" back\\slash a/b tab\there 😀 lone\uFFFDx <&>"; f.Query != want {
					t.Errorf("query\ngot  %q\nwant %q", f.Query, want)
				}
				b := f.LookupResult.EvidenceBlocks[0]
				if want := "line one\nline two\r\n\x00nul \b\f \uFFFDlow \uFFFDA été 😀 中文"; b.Excerpt != want {
					t.Errorf("excerpt\ngot  %q\nwant %q", b.Excerpt, want)
				}
				if want := "Database > MySQL › Connection Pool"; b.Breadcrumb != want {
					t.Errorf("breadcrumb %q, want %q", b.Breadcrumb, want)
				}
				if b.QualityScore != 0.81 {
					t.Errorf("qualityScore %v, want 0.81", b.QualityScore)
				}
				if got := f.LookupResult.ContextPack.Sources; !reflect.DeepEqual(got, []string{"mysql-connection-pool", "source-2"}) {
					t.Errorf("sources %q", got)
				}
			}},
		{file: "chat-wrong-types.json", has: HasEvidenceBlocks, sourcesNil: true,
			blocks: []blockWant{{0, false, "mysql-slow-query"}, {0, false, "disk-full"}, {0, false, "nginx-502"},
				{0, false, "redis-memory"}, {0, false, "too-big"}, {3, true, "three"}, {0, false, ""}},
			check: func(t *testing.T, f *Fixture) {
				b := f.LookupResult.EvidenceBlocks
				quality := []bool{false, false, true, true, false, false, false}
				for i := range b {
					if b[i].HasQuality != quality[i] {
						t.Errorf("block %d: HasQuality %v, want %v", i, b[i].HasQuality, quality[i])
					}
					if b[i].QualityScore != 0 {
						t.Errorf("block %d: qualityScore %v, want 0", i, b[i].QualityScore)
					}
				}
				// Wrong-typed strings decode empty.
				field := func(name string, got, want any) {
					t.Helper()
					if got != want {
						t.Errorf("%s = %v, want %v", name, got, want)
					}
				}
				field("block 0 docId", b[0].DocID, "")
				field("block 0 excerpt", b[0].Excerpt, "")
				field("searchMode", f.SearchMode, "")
				field("kbScope", f.KBScope, "")
				field("fixtureVersion", f.FixtureVersion, 1)
			}},
		{file: "chat-duplicate-keys.json", has: HasEvidenceBlocks | HasFallbackReason | HasRerankTopSource, sourcesNil: true,
			blocks: []blockWant{{1, true, "b"}},
			check: func(t *testing.T, f *Fixture) {
				lr := f.LookupResult
				if f.CaseID != "chat-duplicate-keys" {
					t.Errorf("caseId %q, want chat-duplicate-keys", f.CaseID)
				}
				if lr.Found {
					t.Error("found true, want false")
				}
				if r := lr.RetrievalTrace.FallbackReason; r != nil {
					t.Errorf("fallbackReason %q, want null", *r)
				}
				if lr.RerankTrace.TopSource != "b" {
					t.Errorf("rerankTrace.topSource %q, want b", lr.RerankTrace.TopSource)
				}
			}},
		{file: "minimal.json", has: 0, sourcesNil: true,
			check: func(t *testing.T, f *Fixture) {
				if f.FixtureVersion != 1 {
					t.Errorf("fixtureVersion %d, want 1", f.FixtureVersion)
				}
				if b := f.LookupResult.EvidenceBlocks; b != nil {
					t.Errorf("evidenceBlocks %+v, want nil", b)
				}
			}},
		{file: "chat-encoded.json", has: HasJudged},
	}
	paths, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*.json"))
	if len(paths) != len(tests) {
		t.Errorf("%d testdata fixtures, %d tests: test every fixture", len(paths), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readFixture(t, tt.file)
			f, err := DecodeFixture(data)
			if err != nil {
				t.Fatal(err)
			}
			want, err := refDecodeFixture(data)
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			if d := diffFixtures(f, want); d != "" {
				t.Errorf("differs from the reference\n%s", d)
			}
			lr := f.LookupResult
			if lr.Has != tt.has {
				t.Errorf("presence %09b, want %09b", lr.Has, tt.has)
			}
			if tt.sourcesNil != (lr.ContextPack.Sources == nil) {
				t.Errorf("sources %q", lr.ContextPack.Sources)
			}
			if tt.blocks != nil {
				var got []blockWant
				for _, b := range lr.EvidenceBlocks {
					got = append(got, blockWant{b.Rank, b.HasRank, b.Source})
				}
				if len(got) != len(tt.blocks) || len(got) > 0 && !reflect.DeepEqual(got, tt.blocks) {
					t.Errorf("blocks (rank, hasRank, source)\ngot  %v\nwant %v", got, tt.blocks)
				}
			}
			if tt.check != nil {
				tt.check(t, f)
			}
			checkRoundTrip(t, f)
		})
	}
}

const validTail = `"caseId":"a","query":"q","lookupResult":{}}`

// TestDecodeFixtureInvalid pins the invalid fixtures of SPEC §7 and the
// errors they produce.
func TestDecodeFixtureInvalid(t *testing.T) {
	deep := func(n int) string {
		return `{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "," + validTail
	}
	tests := []struct {
		name  string
		in    string
		line  int
		field string
		msg   string
	}{
		{"empty", "", 1, "", "empty file"},
		{"white space", " \n\t\r\n", 3, "", "empty file"},
		{"array", "[\n]", 1, "", "expected a fixture object, got an array"},
		{"string", `"caseId"`, 1, "", "expected a fixture object, got a string"},
		{"null", `null`, 1, "", "expected a fixture object, got null"},
		{"not JSON", "nothing", 1, "", "invalid JSON: invalid character 'o' in literal null (expecting 'u')"},
		{"trailing data", "{" + validTail + "\n{}", 2, "", "invalid JSON: invalid character '{' after top-level value"},
		{"two objects", "{" + validTail + "{" + validTail, 1, "", "invalid JSON: invalid character '{' after top-level value"},
		{"truncated", `{"caseId":"a","query":"q","lookupResult":{`, 1, "", "invalid JSON: unexpected end of input"},
		{"truncated string", `{"caseId":"a`, 1, "", "invalid JSON: unexpected end of input"},
		{"trailing comma", `{"x":[1,],` + validTail, 1, "", "invalid JSON: invalid character ']' looking for beginning of value"},
		{"trailing comma in object", `{` + validTail[:len(validTail)-1] + `,}`, 1, "", "invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"missing colon", `{"caseId" "a"}`, 1, "", "invalid JSON: invalid character '\"' after object key"},
		{"missing comma", "{\"caseId\":\"a\"\n\"query\":\"q\"}", 2, "", "invalid JSON: invalid character '\"' after object key:value pair"},
		{"leading zero", `{"x":01,` + validTail, 1, "", "invalid JSON: invalid character '1' after object key:value pair"},
		{"bad fraction", `{"x":1.e5,` + validTail, 1, "", "invalid JSON: invalid character 'e' after decimal point in numeric literal"},
		{"bad exponent", `{"x":1e+,` + validTail, 1, "", "invalid JSON: invalid character ',' in exponent of numeric literal"},
		{"plus sign", `{"x":+1,` + validTail, 1, "", "invalid JSON: invalid character '+' looking for beginning of value"},
		{"bad literal", `{"x":trUe,` + validTail, 1, "", "invalid JSON: invalid character 'U' in literal true (expecting 'u')"},
		{"newline in string", "{\"query\":\"a\nb\"," + validTail, 1, "", `invalid JSON: invalid character '\n' in string literal`},
		{"tab in string", "{\"query\":\"a\tb\"," + validTail, 1, "", `invalid JSON: invalid character '\t' in string literal`},
		{"bad escape", `{"query":"\x",` + validTail, 1, "", `invalid JSON: invalid character 'x' in string escape code`},
		{"single-quote escape", `{"query":"\'",` + validTail, 1, "", `invalid JSON: invalid character '\'' in string escape code`},
		{"short unicode escape", `{"query":"\u12",` + validTail, 1, "", `invalid JSON: invalid character '"' in \u hexadecimal character escape`},
		{"invalid UTF-8", "{\n\"query\":\"a\xffb\"," + validTail, 2, "", "not valid UTF-8"},
		{"UTF-8 surrogate", "{\"query\":\"\xed\xa0\x80\"," + validTail, 1, "", "not valid UTF-8"},
		{"overlong UTF-8", "{\"query\":\"\xc0\xaf\"," + validTail, 1, "", "not valid UTF-8"},
		{"truncated UTF-8", "{\"query\":\"\xe4\xb8\"," + validTail, 1, "", "not valid UTF-8"},
		{"invalid UTF-8 in skipped value", "{\"pipeline\":{\"name\":\"\xe4\"}," + validTail, 1, "", "not valid UTF-8"},
		{"UTF-8 outside strings", "{\"x\":\xe4\xb8\xad," + validTail, 1, "", "invalid JSON: invalid character '中' looking for beginning of value"},
		// One byte order mark is skipped (TestDecodeFixtureByteOrderMark), a second is not.
		{"two byte order marks", "\xef\xbb\xbf\xef\xbb\xbf{" + validTail, 1, "", "invalid JSON: invalid character '\\ufeff' looking for beginning of value"},
		{"byte order mark after white space", " \xef\xbb\xbf{" + validTail, 1, "", "invalid JSON: invalid character '\\ufeff' looking for beginning of value"},
		{"too deep", deep(fixturescan.MaxDepth), 1, "", "invalid JSON: exceeded max depth"},
		{"no caseId", `{"query":"q","lookupResult":{}}`, 0, "caseId", "missing required field"},
		{"caseId number", "{\n\"caseId\": 7,\"query\":\"q\",\"lookupResult\":{}}", 2, "caseId", "expected a string, got a number"},
		{"caseId null", `{"caseId":null,"query":"q","lookupResult":{}}`, 1, "caseId", "expected a string, got null"},
		{"caseId replaced by a number", `{"caseId":"a","caseId":1,"query":"q","lookupResult":{}}`, 1, "caseId", "expected a string, got a number"},
		{"no query", `{"caseId":"a","lookupResult":{}}`, 0, "query", "missing required field"},
		{"query array", `{"caseId":"a","query":["q"],"lookupResult":{}}`, 1, "query", "expected a string, got an array"},
		{"no lookupResult", `{"caseId":"a","query":"q"}`, 0, "lookupResult", "missing required field"},
		{"lookupResult null", `{"caseId":"a","query":"q","lookupResult":null}`, 1, "lookupResult", "expected an object, got null"},
		{"lookupResult array", `{"caseId":"a","query":"q","lookupResult":[{}]}`, 1, "lookupResult", "expected an object, got an array"},
		{"lookupResult replaced", `{"caseId":"a","query":"q","lookupResult":{},"lookupResult":"x"}`, 1, "lookupResult", "expected an object, got a string"},
		{"evidenceBlocks null", "{\"caseId\":\"a\",\"query\":\"q\",\"lookupResult\":{\n\"evidenceBlocks\":null}}", 2,
			"lookupResult.evidenceBlocks", "expected an array, got null"},
		{"evidenceBlocks object", `{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":{}}}`, 1,
			"lookupResult.evidenceBlocks", "expected an array, got an object"},
		{"evidenceBlocks element", "{\"caseId\":\"a\",\"query\":\"q\",\"lookupResult\":{\"evidenceBlocks\":[{},\n\"b\",null]}}", 2,
			"lookupResult.evidenceBlocks", "expected an array of objects, got a string at index 1"},
		{"evidenceBlocks null element", `{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":[null]}}`, 1,
			"lookupResult.evidenceBlocks", "expected an array of objects, got null at index 0"},
		{"syntax error wins", `{"caseId":1,"query":"q","lookupResult":{}} x`, 1, "", "invalid JSON: invalid character 'x' after top-level value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := DecodeFixture([]byte(tt.in))
			if err == nil {
				t.Fatalf("no error; decoded %+v", f)
			}
			if _, refErr := refDecodeFixture([]byte(tt.in)); refErr == nil {
				t.Errorf("the reference decoder accepts it")
			}
			var e *diag.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v, want *diag.Error", err, err)
			}
			if e.Line != tt.line || e.Where != where("", tt.field) || e.Msg != tt.msg {
				t.Errorf("got  line %d %s: %s\nwant line %d field %q: %s", e.Line, e.Where, e.Msg, tt.line, tt.field, tt.msg)
			}
		})
	}

	t.Run("max depth", func(t *testing.T) {
		data := []byte(deep(fixturescan.MaxDepth - 1)) // the object and 9999 arrays
		if _, err := DecodeFixture(data); err != nil {
			t.Error(err)
		}
		if _, err := refDecodeFixture(data); err != nil {
			t.Errorf("reference: %v", err)
		}
	})
	t.Run("file name", func(t *testing.T) {
		_, err := ParseFixture("fixtures/a.json", []byte("{\"caseId\":\"a\",\n\"query\":1,\"lookupResult\":{}}"))
		if want := `fixtures/a.json:2: field "query": expected a string, got a number`; err == nil || err.Error() != want {
			t.Errorf("got  %v\nwant %s", err, want)
		}
	})
}

// TestDecodeFixtureByteOrderMark: one leading UTF-8 byte order mark is
// skipped, as ParseGolden skips one in a golden-cases file, and an error
// after it keeps its line.
func TestDecodeFixtureByteOrderMark(t *testing.T) {
	f, err := ParseFixture("fixtures/a.json", []byte("\uFEFF{"+validTail))
	if err != nil {
		t.Fatalf("a fixture after a byte order mark: %v, want it decoded", err)
	}
	if f.CaseID != "a" || f.Query != "q" {
		t.Errorf("decoded caseId %q, query %q, want \"a\", \"q\"", f.CaseID, f.Query)
	}
	_, err = ParseFixture("fixtures/a.json", []byte("\uFEFF{\"caseId\":\"a\",\n\"query\":1,\"lookupResult\":{}}"))
	if want := `fixtures/a.json:2: field "query": expected a string, got a number`; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestDecodeFixtureVersion pins fixtureVersion handling.
func TestDecodeFixtureVersion(t *testing.T) {
	for _, v := range []string{"", `"fixtureVersion":1,`, `"fixtureVersion":1.0,`, `"fixtureVersion":10e-1,`} {
		f, err := DecodeFixture([]byte("{" + v + validTail))
		if err != nil {
			t.Errorf("%s: %v", v, err)
		} else if f.FixtureVersion != 1 {
			t.Errorf("%s: fixtureVersion %d, want 1", v, f.FixtureVersion)
		}
	}
	for _, tt := range []struct{ value, version string }{
		{"2", "2"}, {"0", "0"}, {"-1", "-1"}, {"1.5", "1.5"}, {`"1"`, `"1"`}, {"null", "null"}, {"true", "true"},
		{"[1]", "an array"}, {`{"v":1}`, "an object"}, {`"` + strings.Repeat("x", 60) + `"`, `"` + strings.Repeat("x", 39) + "…"},
	} {
		// The version is checked before everything else, here a missing caseId.
		_, err := DecodeFixture([]byte("{\n\"fixtureVersion\": " + tt.value + `,"lookupResult":{}}`))
		var ve *UnsupportedVersionError
		if !errors.As(err, &ve) || !errors.Is(err, ErrUnsupportedVersion) {
			t.Errorf("%s: error %T %v, want *UnsupportedVersionError", tt.value, err, err)
			continue
		}
		if ve.Line != 2 {
			t.Errorf("%s: line %d, want 2", tt.value, ve.Line)
		}
		if ve.Field != "fixtureVersion" {
			t.Errorf("%s: field %q, want fixtureVersion", tt.value, ve.Field)
		}
		if ve.Version != tt.version {
			t.Errorf("%s: version %q, want %q", tt.value, ve.Version, tt.version)
		}
		if !reflect.DeepEqual(ve.Supported, SupportedFixtureVersions) {
			t.Errorf("%s: supported %v, want %v", tt.value, ve.Supported, SupportedFixtureVersions)
		}
	}
	_, err := ParseFixture("f.json", []byte(`{"fixtureVersion":2,`+validTail))
	if want := `f.json:1: field "fixtureVersion": unsupported version 2 (supported: 1)`; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	// The last fixtureVersion wins.
	if _, err := DecodeFixture([]byte(`{"fixtureVersion":2,"fixtureVersion":1,` + validTail)); err != nil {
		t.Error(err)
	}
}

// TestDecodeFixturePresence pins the presence bits, one judged field at a
// time.
func TestDecodeFixturePresence(t *testing.T) {
	tests := []struct {
		lookup string // the members of lookupResult
		has    Presence
	}{
		{``, 0},
		{`"found":true`, HasFound},
		{`"found":false`, HasFound},
		{`"found":null`, 0},
		{`"found":"true"`, 0},
		{`"found":1`, 0},
		{`"evidenceStatus":"weak"`, HasEvidenceStatus},
		{`"evidenceStatus":""`, HasEvidenceStatus},
		{`"evidenceStatus":null`, 0},
		{`"evidenceBlocks":[]`, HasEvidenceBlocks},
		{`"contextPack":{"sources":[]}`, HasContextSources},
		{`"contextPack":{"sources":["a","b"]}`, HasContextSources},
		{`"contextPack":{"sources":["a",null]}`, 0},
		{`"contextPack":{"sources":[["a"]]}`, 0},
		{`"contextPack":{"sources":"a"}`, 0},
		{`"contextPack":{"sources":null}`, 0},
		{`"contextPack":["sources"]`, 0},
		{`"contextPack":{}`, 0},
		{`"retrievalTrace":{"selectedAttempt":"FILTERED_VECTOR"}`, HasSelectedAttempt},
		{`"retrievalTrace":{"selectedAttempt":null}`, 0},
		{`"retrievalTrace":{"fallbackReason":null}`, HasFallbackReason},
		{`"retrievalTrace":{"fallbackReason":"filtered_vector_no_evidence"}`, HasFallbackReason},
		{`"retrievalTrace":{"fallbackReason":false}`, 0},
		{`"retrievalTrace":{"fallbackReason":{}}`, 0},
		{`"retrievalTrace":null`, 0},
		{`"rerankTrace":{"topSource":"a"}`, HasRerankTopSource},
		{`"rerankTrace":{"topSource":1}`, 0},
		{`"rerankTrace":"a"`, 0},
		{`"found":true,"found":0`, 0},
		{`"found":0,"found":true`, HasFound},
		{`"retrievalTrace":{"fallbackReason":"x"},"retrievalTrace":{}`, 0},
		{`"contextPack":{"sources":["a"]},"contextPack":{"sources":[1]}`, 0},
		{`"Found":true,"FOUND":true`, 0},
		{`"f\u006fund":true`, HasFound},
	}
	for _, tt := range tests {
		data := []byte(`{"caseId":"a","query":"q","lookupResult":{` + tt.lookup + `}}`)
		f, err := DecodeFixture(data)
		if err != nil {
			t.Errorf("%s: %v", tt.lookup, err)
			continue
		}
		if f.LookupResult.Has != tt.has {
			t.Errorf("%s: presence %09b, want %09b", tt.lookup, f.LookupResult.Has, tt.has)
		}
		want, _ := refDecodeFixture(data)
		if d := diffFixtures(f, want); d != "" {
			t.Errorf("%s: differs from the reference\n%s", tt.lookup, d)
		}
	}

	blocks := []struct {
		block      string
		rank       int
		hasRank    bool
		quality    float64
		hasQuality bool
	}{
		{`{}`, 0, false, 0, false},
		{`{"rank":1,"qualityScore":0.5}`, 1, true, 0.5, true},
		{`{"rank":7.0,"qualityScore":0}`, 7, true, 0, true},
		{`{"rank":0.7e1,"qualityScore":-1.5}`, 7, true, -1.5, true},
		{`{"rank":700e-2,"qualityScore":1e-400}`, 7, true, 0, true},
		{`{"rank":7.5,"qualityScore":1e400}`, 0, false, 0, false},
		{`{"rank":0,"qualityScore":"0.5"}`, 0, false, 0, false},
		{`{"rank":-3,"qualityScore":null}`, 0, false, 0, false},
		{`{"rank":2147483647}`, 2147483647, true, 0, false},
		{`{"rank":2147483648}`, 0, false, 0, false},
		{`{"rank":99999999999999999999999}`, 0, false, 0, false},
		{`{"rank":1e999999999999}`, 0, false, 0, false},
		{`{"rank":1.00000000000000000000001}`, 0, false, 0, false},
		{`{"rank":"1"}`, 0, false, 0, false},
		{`{"rank":1,"rank":null}`, 0, false, 0, false},
	}
	for _, tt := range blocks {
		data := []byte(`{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":[` + tt.block + `]}}`)
		f, err := DecodeFixture(data)
		if err != nil {
			t.Errorf("%s: %v", tt.block, err)
			continue
		}
		b := f.LookupResult.EvidenceBlocks[0]
		if b.Rank != tt.rank || b.HasRank != tt.hasRank {
			t.Errorf("%s: rank %d, HasRank %v; want %d, %v", tt.block, b.Rank, b.HasRank, tt.rank, tt.hasRank)
		}
		if float64(b.QualityScore) != tt.quality || b.HasQuality != tt.hasQuality {
			t.Errorf("%s: qualityScore %v, HasQuality %v; want %v, %v", tt.block, b.QualityScore, b.HasQuality, tt.quality, tt.hasQuality)
		}
		want, _ := refDecodeFixture(data)
		if d := diffFixtures(f, want); d != "" {
			t.Errorf("%s: differs from the reference\n%s", tt.block, d)
		}
	}
}

// TestDecodeFixtureManyBlocks crosses the decoder's scratch arrays.
func TestDecodeFixtureManyBlocks(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 100} {
		data := benchFixture(t, n, 20, 50, 30)
		f, err := DecodeFixture(data)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := refDecodeFixture(data)
		if d := diffFixtures(f, want); d != "" {
			t.Errorf("%d blocks: differs from the reference\n%s", n, d)
		}
	}
	var b strings.Builder
	for i := range 40 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"s` + string(rune('a'+i%26)) + `"`)
	}
	data := []byte(`{"caseId":"a","query":"q","lookupResult":{"contextPack":{"sources":[` + b.String() + `]}}}`)
	f, err := DecodeFixture(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.LookupResult.ContextPack.Sources); n != 40 {
		t.Fatalf("%d sources, want 40", n)
	}
}

// TestDecodeFixtureDoesNotAlias checks that decoded strings survive the
// caller reusing its buffer.
func TestDecodeFixtureDoesNotAlias(t *testing.T) {
	data := readFixture(t, "chat-mysql-pool.json")
	f, err := DecodeFixture(data)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := refDecodeFixture(data)
	for i := range data {
		data[i] = 'x'
	}
	if d := diffFixtures(f, want); d != "" {
		t.Error(d)
	}
}

func encodeTestFixture() *Fixture {
	fb := FallbackLowQuality
	return &Fixture{
		CaseID: "chat-encoded", Query: "连接池满了 <too many> connections & 怎么办",
		RetrievedAt: "2026-11-29T12:00:00Z", SearchMode: "hybrid", KBScope: "rag-eval",
		Pipeline: &Pipeline{Name: "builtin", Version: "0.1.0", Store: "embedded", Embedder: "local-hash-v1", Dim: 512,
			Params: &PipelineParams{TopK: 5, CandidateK: 20, LowQuality: 0.2, Levels: Levels{High: 0.45, Medium: 0.25},
				Rerank: "none", ContextBudget: 3000}},
		LookupResult: &LookupResult{
			Found: true, EvidenceStatus: EvidenceSufficient,
			EvidenceBlocks: []EvidenceBlock{{
				Rank: 1, EvidenceKey: "rag-eval/disk-full#0", DocID: "rag-eval/disk-full", Source: "disk-full",
				Title: "Disk full", Breadcrumb: "Linux > Disk > 磁盘满", Category: "linux",
				Excerpt: "df -i 查看 inode\n\"quoted\" \\ <tag> & \u2028 \x01", QualityScore: 0.123456789,
				RelevanceLevel: LevelLow, DenseDistance: 0.6160000001, FusedScore: 1.0 / 30, ScoreLabel: "RRF",
			}},
			ContextPack: ContextPack{BlockCount: 1, UsedChars: 30, BudgetChars: 3000, PackedText: "[disk-full] df -i"},
			RetrievalTrace: RetrievalTrace{
				SearchMode: "hybrid", KBScope: "rag-eval",
				Attempts: []Attempt{
					{Name: AttemptFiltered, Filter: Filter{KBScope: "rag-eval", Categories: []string{"storage"}},
						Candidates: 1, BestQuality: 0.18, LowQuality: true, LatencyMs: 3},
					{Name: AttemptUnfilteredRetry, Filter: Filter{KBScope: "rag-eval"}, Candidates: 20, BestQuality: 0.123456789, LatencyMs: 5},
				},
				SelectedAttempt: AttemptUnfilteredRetry, FallbackReason: &fb,
			},
			RerankTrace: RerankTrace{Model: "none", TopSource: "disk-full"},
		},
	}
}

// TestEncodeFixtureGolden pins the encoding byte for byte. Run with
// -update-fixtures to rewrite the golden file after a deliberate change.
func TestEncodeFixtureGolden(t *testing.T) {
	f := encodeTestFixture()
	got, err := EncodeFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "fixtures", "chat-encoded.json")
	if *updateFixtures {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readFixture(t, "chat-encoded.json")
	if !bytes.Equal(got, want) {
		t.Errorf("EncodeFixture output differs from %s (rerun with -update-fixtures if intended)\ngot:\n%s", path, got)
	}
	again, _ := EncodeFixture(f)
	if !bytes.Equal(got, again) {
		t.Error("EncodeFixture is not deterministic")
	}
	for _, s := range []string{
		"{\n  \"fixtureVersion\": 1,\n  \"caseId\": \"chat-encoded\",\n",
		`"query": "连接池满了 <too many> connections & 怎么办"`,
		`"qualityScore": 0.123457,`, `"denseDistance": 0.616,`, `"fusedScore": 0.033333,`,
		`"sources": [],`, `"categories": [],`, `"inputOrder": [],`,
		`"fallbackReason": "filtered_vector_low_quality"`,
		`\"quoted\" \\ <tag> & \u2028 \u0001`,
		"\n  }\n}\n",
	} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("output lacks %q", s)
		}
	}
	// EncodeFixture does not modify its argument.
	if s := f.LookupResult.ContextPack.Sources; s != nil {
		t.Errorf("EncodeFixture modified its argument: contextPack.sources %#v, want nil", s)
	}
	if c := f.LookupResult.RetrievalTrace.L0Hints.Categories; c != nil {
		t.Errorf("EncodeFixture modified its argument: l0Hints.categories %#v, want nil", c)
	}
	if bytes.Contains(got, []byte("null")) {
		t.Error("output has a null")
	}
}

// TestEncodeFixtureRoundTrip encodes fixtures and decodes them again.
func TestEncodeFixtureRoundTrip(t *testing.T) {
	f := encodeTestFixture()
	data, err := EncodeFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := DecodeFixture(data)
	if err != nil {
		t.Fatal(err)
	}
	if g.LookupResult.Has != HasJudged {
		t.Errorf("presence %09b, want all", g.LookupResult.Has)
	}
	b0 := g.LookupResult.EvidenceBlocks[0]
	if !b0.HasRank {
		t.Error("block 0: HasRank false, want true")
	}
	if !b0.HasQuality {
		t.Error("block 0: HasQuality false, want true")
	}
	if b0.QualityScore != 0.123457 {
		t.Errorf("block 0: qualityScore %v, want 0.123457, rounded to 6 places", b0.QualityScore)
	}
	// What the judge reads is unchanged, up to qualityScore rounding.
	want := *f
	want.Pipeline = &Pipeline{} // only its searchMode and capabilities are read, and it has neither
	want.FixtureVersion = FixtureVersion
	lr := LookupResult{Has: HasJudged, Partial: true, Found: f.LookupResult.Found, EvidenceStatus: f.LookupResult.EvidenceStatus,
		ContextPack:    ContextPack{Sources: []string{}},
		RetrievalTrace: RetrievalTrace{SelectedAttempt: f.LookupResult.RetrievalTrace.SelectedAttempt, FallbackReason: f.LookupResult.RetrievalTrace.FallbackReason},
		RerankTrace:    RerankTrace{TopSource: f.LookupResult.RerankTrace.TopSource},
	}
	b := f.LookupResult.EvidenceBlocks[0]
	lr.EvidenceBlocks = []EvidenceBlock{{Rank: b.Rank, EvidenceKey: b.EvidenceKey, DocID: b.DocID, Source: b.Source, Breadcrumb: b.Breadcrumb,
		Category: b.Category, Excerpt: b.Excerpt, QualityScore: b.QualityScore, RelevanceLevel: b.RelevanceLevel, ScoreLabel: b.ScoreLabel,
		HasRank: true, HasQuality: true, Has: BlockHasEvidenceKey | BlockHasDocID | BlockHasSource | BlockHasBreadcrumb |
			BlockHasCategory | BlockHasExcerpt | BlockHasRelevanceLevel | BlockHasScoreLabel}}
	want.LookupResult = &lr
	if d := diffFixtures(judgedValues(g), judgedValues(&want)); d != "" {
		t.Error(d)
	}

	// A zero version is written as FixtureVersion.
	f.FixtureVersion = 0
	f.RetrievedAt = ""
	data, err = EncodeFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("{\n  \"fixtureVersion\": 1,\n")) {
		t.Errorf("the encoding does not start with fixtureVersion 1:\n%s", data)
	}
	if !bytes.Contains(data, []byte(`"retrievedAt": "",`)) {
		t.Errorf("the encoding lacks an empty retrievedAt:\n%s", data)
	}
}

// TestEncodeFixtureErrors pins what EncodeFixture refuses.
func TestEncodeFixtureErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(f *Fixture)
		msg    string
	}{
		{"no caseId", func(f *Fixture) { f.CaseID = "" }, "encode fixture: fixture has no caseId"},
		{"no lookupResult", func(f *Fixture) { f.LookupResult = nil }, "encode fixture chat-encoded: fixture has no lookupResult"},
		{"version", func(f *Fixture) { f.FixtureVersion = 2 }, "encode fixture chat-encoded: unsupported fixtureVersion 2 (supported: [1])"},
		{"offset", func(f *Fixture) { f.RetrievedAt = "2026-11-29T12:00:00+08:00" }, `retrievedAt "2026-11-29T12:00:00+08:00" is not RFC 3339 UTC`},
		{"fraction", func(f *Fixture) { f.RetrievedAt = "2026-11-29T12:00:00.5Z" }, "is not RFC 3339 UTC"},
		{"lower-case z", func(f *Fixture) { f.RetrievedAt = "2026-11-29T12:00:00z" }, "is not RFC 3339 UTC"},
		{"space", func(f *Fixture) { f.RetrievedAt = "2026-11-29 12:00:00Z" }, "is not RFC 3339 UTC"},
		{"no seconds", func(f *Fixture) { f.RetrievedAt = "2026-11-29T12:00Z" }, "is not RFC 3339 UTC"},
		{"bad date", func(f *Fixture) { f.RetrievedAt = "2026-02-30T12:00:00Z" }, "is not RFC 3339 UTC"},
	}
	for _, tt := range tests {
		f := encodeTestFixture()
		tt.modify(f)
		if _, err := EncodeFixture(f); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.msg)
		}
	}
	if _, err := EncodeFixture(nil); err == nil {
		t.Error("nil fixture: no error")
	}
}
