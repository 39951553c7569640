package contract

import (
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/errors.want from TestParseGoldenAllErrors")

func gPtr[T any](v T) *T { return &v }

func TestParseGoldenValid(t *testing.T) {
	g, err := LoadGolden(filepath.Join("testdata", "golden", "valid.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := &GoldenFile{
		Version: 1,
		KBScope: "rag-eval",
		K:       5,
		Cases: []Case{
			{
				CaseID:                  "chat-mysql-pool",
				Scenario:                "chat",
				Tags:                    []string{"mysql", "pool"},
				Query:                   "连接池满了 too many connections 怎么办",
				Notes:                   "why this case exists",
				Count:                   12,
				ExpectedSources:         []string{"mysql-connection-pool"},
				ExpectedDocIDs:          []string{"rag-eval/mysql-connection-pool"},
				ExpectedBreadcrumbs:     []string{"Database > MySQL > Connection Pool"},
				ExpectedEvidenceKeys:    []string{"rag-eval/mysql-connection-pool#排查步骤 > 1. 查看当前连接数", "rag-eval/mysql-connection-pool#"},
				ExpectedKeywords:        []string{"max_connections", "连接池"},
				MinKeywordCoverage:      gPtr(0.5),
				Relevance:               map[string]int{"rag-eval/mysql-connection-pool": 2, "rag-eval/mysql-slow-query": 1, "rag-eval/disk-full": 0},
				MustNotSources:          []string{"overfilter-decoy"},
				MustNotDocIDs:           []string{"rag-eval/overfilter-decoy"},
				ExpectedFound:           gPtr(true),
				ExpectedSelectedAttempt: "FILTERED_VECTOR",
				ExpectedFallbackReason:  "filtered_vector_low_quality",
				ExpectedEvidenceStatus:  "sufficient",
				ExpectedContextSources:  []string{"mysql-connection-pool"},
				ExpectedRerankTopSource: "mysql-connection-pool",
				ExpectedFirstRankMax:    gPtr(3),
				MinExpectedBlocks:       gPtr(2),
				K:                       gPtr(4),
			},
			{
				CaseID:                  "fallback-decoy",
				Scenario:                "fallback",
				Query:                   "服务器磁盘满了，inode 也用尽了",
				ExpectedSources:         []string{"disk-full"},
				ExpectedSelectedAttempt: "UNFILTERED_VECTOR_RETRY",
				ExpectedFallbackReasons: []string{"filtered_vector_low_quality", "filtered_vector_no_evidence"},
			},
			{
				CaseID:                   "negative-unknown",
				Scenario:                 "negative",
				Query:                    "  how do I bake bread  ", // kept as written
				ExpectedFound:            gPtr(false),
				ExpectedEvidenceStatuses: []string{"weak", "none"},
			},
			{
				// A draft: its empty expectations declare nothing.
				CaseID: "q-0123456789", Scenario: "chat", Tags: []string{"from-log"},
				Query: "how do I rotate the logs", Notes: "drafted from a query log",
				Draft: true, Count: 3, K: gPtr(10),
			},
		},
	}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("ParseGolden(valid.json) =\n%s\nwant\n%s", gJSON(t, g), gJSON(t, want))
	}

	// Every field of Case is populated by the first case (but the plural
	// fallback reasons and evidence statuses, which exclude the singular, by
	// the second and third, and draft, which excludes expectations, by the
	// fourth), so the file exercises every field decoder.
	v := reflect.ValueOf(g.Cases[0])
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if name == "ExpectedFallbackReasons" || name == "ExpectedEvidenceStatuses" || name == "Draft" {
			continue
		}
		if v.Field(i).IsZero() {
			t.Errorf("valid.json case 1 leaves Case.%s unset", name)
		}
	}

	// Encoding the result and parsing it again gives the same file.
	again, err := ParseGolden("again.json", gJSON(t, g))
	if err != nil {
		t.Fatalf("re-parse of encoded valid.json: %v", err)
	}
	if !reflect.DeepEqual(again, want) {
		t.Fatalf("round trip =\n%s\nwant\n%s", gJSON(t, again), gJSON(t, want))
	}
}

func gJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseGoldenBareArray(t *testing.T) {
	g, err := LoadGolden(filepath.Join("testdata", "golden", "bare.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := &GoldenFile{
		Version: 1,
		Cases: []Case{
			{CaseID: "aiops-disk", Scenario: "aiops", Query: "alert: disk usage 95% on /var", ExpectedSources: []string{"disk-full"}},
			{CaseID: "chat.kafka_lag-2", Scenario: "chat", Query: "kafka consumer lag", ExpectedKeywords: []string{"lag"}, MinKeywordCoverage: gPtr(1.0)},
		},
	}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("ParseGolden(bare.json) =\n%s\nwant\n%s", gJSON(t, g), gJSON(t, want))
	}
}

// Fields that are null, [], "" or {} declare nothing and stay zero values.
func TestParseGoldenNullsDeclareNothing(t *testing.T) {
	g, err := LoadGolden(filepath.Join("testdata", "golden", "nulls.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := &GoldenFile{
		Version: 1,
		Cases: []Case{
			{CaseID: "all-null", Scenario: "chat", Query: "q", ExpectedFound: gPtr(false)},
			{CaseID: "all-empty", Scenario: "chat", Query: "q", ExpectedFound: gPtr(true)},
		},
	}
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("ParseGolden(nulls.json) =\n%s\nwant\n%s", gJSON(t, g), gJSON(t, want))
	}
}

func TestParseGoldenAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Case
	}{
		{"integral float k", `[{"caseId":"a","scenario":"chat","query":"q","expectedSources":["x"],"k":1.0,"expectedFirstRankMax":1e1}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedSources: []string{"x"}, K: gPtr(1), ExpectedFirstRankMax: gPtr(10)}},
		{"coverage bounds", `[{"caseId":"a","scenario":"chat","query":"q","expectedKeywords":["x"],"minKeywordCoverage":0}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedKeywords: []string{"x"}, MinKeywordCoverage: gPtr(0.0)}},
		{"zero grade on non-expected doc", `[{"caseId":"a","scenario":"chat","query":"q","expectedSources":["x"],"relevance":{"y":0}}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedSources: []string{"x"}, Relevance: map[string]int{"y": 0}}},
		{"zero grade on a source key when the case uses docIds", `[{"caseId":"a","scenario":"chat","query":"q","expectedSources":["x"],"expectedDocIds":["kb/x"],"relevance":{"x":0}}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedSources: []string{"x"}, ExpectedDocIDs: []string{"kb/x"}, Relevance: map[string]int{"x": 0}}},
		{"one fallback field empty", `[{"caseId":"a","scenario":"chat","query":"q","expectedFallbackReason":"","expectedFallbackReasons":["r"]}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedFallbackReasons: []string{"r"}}},
		{"one evidence status field empty", `[{"caseId":"a","scenario":"chat","query":"q","expectedEvidenceStatus":"","expectedEvidenceStatuses":["weak","none"]}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedEvidenceStatuses: []string{"weak", "none"}}},
		{"plural evidence status with the singular null", `[{"caseId":"a","scenario":"chat","query":"q","expectedEvidenceStatuses":["none"],"expectedEvidenceStatus":null}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedEvidenceStatuses: []string{"none"}}},
		{"evidence keys alone declare a check", `[{"caseId":"a","scenario":"chat","query":"q","expectedEvidenceKeys":["kb/x#A > B~2","any string"]}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedEvidenceKeys: []string{"kb/x#A > B~2", "any string"}}},
		{"min expected blocks equal to the case k", `[{"caseId":"a","scenario":"chat","query":"q","expectedDocIds":["kb/x"],"minExpectedBlocks":3.0,"k":3}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedDocIDs: []string{"kb/x"}, MinExpectedBlocks: gPtr(3), K: gPtr(3)}},
		{"min expected blocks above the file k", `{"k":2,"cases":[{"caseId":"a","scenario":"chat","query":"q","expectedSources":["x"],"minExpectedBlocks":3}]}`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedSources: []string{"x"}, MinExpectedBlocks: gPtr(3)}},
		{"byte order mark", "\uFEFF" + `[{"caseId":"a","scenario":"chat","query":"q","expectedFound":true}]`,
			Case{CaseID: "a", Scenario: "chat", Query: "q", ExpectedFound: gPtr(true)}},
		{"caseId of every allowed character", `[{"caseId":"Az09._-","scenario":"chat","query":"q","expectedFound":true}]`,
			Case{CaseID: "Az09._-", Scenario: "chat", Query: "q", ExpectedFound: gPtr(true)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ParseGolden("golden.json", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Cases) != 1 || !reflect.DeepEqual(g.Cases[0], tt.want) {
				t.Fatalf("cases =\n%s\nwant\n%s", gJSON(t, g.Cases), gJSON(t, tt.want))
			}
		})
	}
}

// goldenText returns a golden file with one case per line, the first on line 4.
func goldenText(cases ...string) string {
	return "{\n  \"version\": 1,\n  \"cases\": [\n    " + strings.Join(cases, ",\n    ") + "\n  ]\n}\n"
}

// okCase is the start of a valid case with caseId c1 that declares a check.
const okCase = `"caseId": "c1", "scenario": "chat", "query": "q", "expectedSources": ["s"]`

func TestParseGoldenErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		// Not UTF-8, not JSON.
		{"not UTF-8", "[\n\"\xff\"]", []string{`golden.json:2: not valid UTF-8`}},
		{"not JSON", "{\n  \"cases\": [}\n", []string{`golden.json:2: invalid JSON: invalid character '}' looking for beginning of value`}},
		{"truncated", "{\n  \"cases\": [\n", []string{`golden.json:3: invalid JSON: unexpected end of input`}},
		{"empty file", " \n", []string{`golden.json:2: empty file`}},
		{"trailing data", "[]\n\n{}", []string{`golden.json:3: invalid JSON: unexpected data after the top-level value`}},
		{"scalar", "\n\"cases\"", []string{`golden.json:2: expected an object with "cases" or an array of cases, got "cases"`}},

		// File level.
		{"no cases", "{\n  \"cases\": []\n}", []string{`golden.json:2: field "cases": no cases`}},
		{"null cases", "{\n  \"cases\": null\n}", []string{`golden.json:2: field "cases": no cases`}},
		{"missing cases", "{\n  \"version\": 1\n}", []string{`golden.json:1: field "cases": missing required field`}},
		{"empty bare array", "[\n]", []string{`golden.json:1: no cases`}},
		{"cases not an array", "{\"cases\":\n{}}", []string{`golden.json:2: field "cases": expected an array of cases, got an object`}},
		{"case not an object", goldenText(`{`+okCase+`}`, `"c2"`), []string{`golden.json:5: expected a case object, got "c2"`}},
		{"unknown file key", "{\n\"case\": [],\n\"cases\": [{" + okCase + "}]}", []string{`golden.json:2: field "case": unknown field; did you mean "cases"?`}},
		{"case key at file level", "{\"query\": \"q\",\n\"cases\": [{" + okCase + "}]}", []string{`golden.json:1: field "query": unknown field; "query" belongs in a case inside "cases"`}},
		{"duplicate file key", "{\"k\": 3,\n\"k\": 4, \"cases\": [{" + okCase + "}]}", []string{`golden.json:2: field "k": duplicate key (first at line 1)`}},
		{"file k below 1", "{\"k\":\n0, \"cases\": [{" + okCase + "}]}", []string{`golden.json:2: field "k": must be at least 1, got 0`}},
		{"file k wrong type", "{\"k\": \"5\", \"cases\": [{" + okCase + "}]}", []string{`golden.json:1: field "k": expected an integer, got "5"`}},
		{"file kbScope wrong type", "{\"kbScope\": [\"a\"], \"cases\": [{" + okCase + "}]}", []string{`golden.json:1: field "kbScope": expected a string, got an array`}},
		{"blank kbScope", "{\"kbScope\": \" \", \"cases\": [{" + okCase + "}]}", []string{`golden.json:1: field "kbScope": must not be blank; use "" or leave the field out to declare nothing`}},

		// Unknown and repeated case fields.
		{"unknown field with suggestion", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "q", "expectedSource": ["s"]}`),
			[]string{`golden.json:4: case "c1": field "expectedSource": unknown field; did you mean "expectedSources"?`}},
		{"unknown field differing in case", goldenText(`{` + okCase + `, "expectedDocIDs": ["d"]}`),
			[]string{`golden.json:4: case "c1": field "expectedDocIDs": unknown field; did you mean "expectedDocIds"?`}},
		{"unknown field without suggestion", goldenText(`{` + okCase + `, "foo": 1}`),
			[]string{`golden.json:4: case "c1": field "foo": unknown field`}},
		{"file-level key in a case", goldenText(`{` + okCase + `, "kbScope": "x"}`),
			[]string{`golden.json:4: case "c1": field "kbScope": unknown field; "kbScope" can only be set at file level`}},
		{"duplicate case key", "[{" + okCase + ",\n\"query\": \"r\"}]",
			[]string{`golden.json:2: case "c1": field "query": duplicate key (first at line 1)`}},
		{"duplicate relevance key", "[{" + okCase + ", \"relevance\": {\"s\": 2,\n\"s\": 1}}]",
			[]string{`golden.json:2: case "c1": field "relevance": duplicate key "s" (first at line 1)`}},

		// Wrong types.
		{"k string", goldenText(`{` + okCase + `, "k": "5"}`), []string{`golden.json:4: case "c1": field "k": expected an integer, got "5"`}},
		{"k fraction", goldenText(`{` + okCase + `, "k": 1.5}`), []string{`golden.json:4: case "c1": field "k": expected an integer, got 1.5`}},
		{"tags string", goldenText(`{` + okCase + `, "tags": "x"}`), []string{`golden.json:4: case "c1": field "tags": expected an array of strings, got "x"`}},
		{"list element not a string", "[{" + okCase + ", \"mustNotSources\": [\"a\",\n 2]}]",
			[]string{`golden.json:2: case "c1": field "mustNotSources": expected an array of strings, got 2 at index 1`}},
		{"mistyped list is the only check", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "q", "expectedSources": [1]}`),
			[]string{`golden.json:4: case "c1": field "expectedSources": expected an array of strings, got 1 at index 0`}},
		{"expectedFound string", goldenText(`{` + okCase + `, "expectedFound": "yes"}`), []string{`golden.json:4: case "c1": field "expectedFound": expected a boolean, got "yes"`}},
		{"relevance fraction", goldenText(`{` + okCase + `, "relevance": {"a": 1.5}}`), []string{`golden.json:4: case "c1": field "relevance": grade for "a": expected an integer, got 1.5`}},
		{"relevance array", goldenText(`{` + okCase + `, "relevance": ["a"]}`), []string{`golden.json:4: case "c1": field "relevance": expected an object of document grades, got an array`}},
		{"relevance null grade", goldenText(`{` + okCase + `, "relevance": {"a": null}}`), []string{`golden.json:4: case "c1": field "relevance": grade for "a": expected an integer, got null`}},
		{"coverage string", goldenText(`{` + okCase + `, "expectedKeywords": ["x"], "minKeywordCoverage": "1"}`), []string{`golden.json:4: case "c1": field "minKeywordCoverage": expected a number, got "1"`}},
		{"single value not a string", goldenText(`{` + okCase + `, "expectedSelectedAttempt": 1}`), []string{`golden.json:4: case "c1": field "expectedSelectedAttempt": expected a string, got 1`}},
		{"notes not a string", goldenText(`{` + okCase + `, "notes": false}`), []string{`golden.json:4: case "c1": field "notes": expected a string, got false`}},
		{"caseId not a string", goldenText(`{"caseId": 5, "scenario": "chat", "query": "q", "expectedFound": true}`), []string{`golden.json:4: field "caseId": expected a string, got 5`}},
		{"query null", goldenText(`{"caseId": "c1", "scenario": "chat", "query": null, "expectedFound": true}`), []string{`golden.json:4: case "c1": field "query": expected a string, got null`}},
		{"long value shortened", goldenText(`{` + okCase + `, "expectedFound": "` + strings.Repeat("é", 30) + `"}`),
			[]string{`golden.json:4: case "c1": field "expectedFound": expected a boolean, got "` + strings.Repeat("é", 19) + `…`}},

		// Required fields.
		{"missing query", goldenText(`{"caseId": "c1", "scenario": "chat", "expectedFound": true}`), []string{`golden.json:4: case "c1": field "query": missing required field`}},
		{"missing scenario", goldenText(`{"caseId": "c1", "query": "q", "expectedFound": true}`), []string{`golden.json:4: case "c1": field "scenario": missing required field`}},
		{"missing caseId", goldenText(`{"scenario": "chat", "query": "q", "expectedFound": true}`), []string{`golden.json:4: field "caseId": missing required field`}},
		{"empty query", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "", "expectedFound": true}`), []string{`golden.json:4: case "c1": field "query": must not be empty`}},
		{"blank query", goldenText(`{"caseId": "c1", "scenario": "chat", "query": " \t", "expectedFound": true}`), []string{`golden.json:4: case "c1": field "query": must not be blank`}},
		{"empty scenario", goldenText(`{"caseId": "c1", "scenario": "", "query": "q", "expectedFound": true}`), []string{`golden.json:4: case "c1": field "scenario": must not be empty`}},

		// caseId.
		{"caseId path", goldenText(`{"caseId": "../x", "scenario": "chat", "query": "q", "expectedFound": true}`), []string{`golden.json:4: case "../x": field "caseId": must match [A-Za-z0-9][A-Za-z0-9._-]*`}},
		{"caseId empty", goldenText(`{"caseId": "", "scenario": "chat", "query": "q", "expectedFound": true}`), []string{`golden.json:4: field "caseId": must not be empty`}},
		{"caseId leading dash", goldenText(`{"caseId": "-a", "scenario": "chat", "query": "q", "expectedFound": true}`), []string{`golden.json:4: case "-a": field "caseId": must match [A-Za-z0-9][A-Za-z0-9._-]*`}},
		{"caseId space", goldenText(`{"caseId": "a b", "scenario": "chat", "query": "q", "expectedFound": true}`), []string{`golden.json:4: case "a b": field "caseId": must match [A-Za-z0-9][A-Za-z0-9._-]*`}},
		{"caseId too long", goldenText(`{"caseId": "` + strings.Repeat("a", 201) + `", "scenario": "chat", "query": "q", "expectedFound": true}`),
			[]string{`golden.json:4: case "` + strings.Repeat("a", 201) + `": field "caseId": longer than 200 bytes`}},
		{"duplicate caseId", goldenText(`{`+okCase+`}`, `{"scenario": "chat", "query": "r", "expectedFound": true,`+"\n"+`"caseId": "c1"}`),
			[]string{`golden.json:6: case "c1": field "caseId": duplicate caseId (first at line 4)`}},
		{"caseIds differing in letter case", goldenText(`{`+okCase+`}`, `{"caseId": "C1", "scenario": "chat", "query": "q", "expectedFound": true}`),
			[]string{`golden.json:5: case "C1": field "caseId": differs only in letter case from caseId "c1" at line 4`}},

		// Checks.
		{"no check", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "q", "tags": ["t"], "notes": "n", "relevance": {"s": 1}, "k": 3}`),
			[]string{`golden.json:4: case "c1": declares no check other than query`}},
		{"both fallback fields", "[{" + okCase + ", \"expectedFallbackReasons\": [\"a\"],\n\"expectedFallbackReason\": \"b\"}]",
			[]string{`golden.json:2: case "c1": field "expectedFallbackReason": both expectedFallbackReason and expectedFallbackReasons are set; use one`}},
		{"both evidence status fields", "[{" + okCase + ", \"expectedEvidenceStatus\": \"none\",\n\"expectedEvidenceStatuses\": [\"weak\", \"none\"]}]",
			[]string{`golden.json:2: case "c1": field "expectedEvidenceStatuses": both expectedEvidenceStatus and expectedEvidenceStatuses are set; use one`}},
		{"both evidence status fields, singular last", "[{" + okCase + ", \"expectedEvidenceStatuses\": [\"weak\"],\n\"expectedEvidenceStatus\": \"none\"}]",
			[]string{`golden.json:2: case "c1": field "expectedEvidenceStatus": both expectedEvidenceStatus and expectedEvidenceStatuses are set; use one`}},
		{"evidence statuses not a list", goldenText(`{` + okCase + `, "expectedEvidenceStatuses": "weak"}`),
			[]string{`golden.json:4: case "c1": field "expectedEvidenceStatuses": expected an array of strings, got "weak"`}},
		{"blank evidence status in the list", goldenText(`{` + okCase + `, "expectedEvidenceStatuses": ["weak", " "]}`),
			[]string{`golden.json:4: case "c1": field "expectedEvidenceStatuses": blank string at index 1`}},
		{"evidence status misspelt", goldenText(`{` + okCase + `, "expectedEvidenceStatusses": ["weak"]}`),
			[]string{`golden.json:4: case "c1": field "expectedEvidenceStatusses": unknown field; did you mean "expectedEvidenceStatuses"?`}},
		{"empty evidence key", "[{" + okCase + ", \"expectedEvidenceKeys\": [\"kb/s#A\",\n\"\"]}]",
			[]string{`golden.json:2: case "c1": field "expectedEvidenceKeys": empty string at index 1`}},
		{"evidence key not a string", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "q", "expectedEvidenceKeys": [{"key": "kb/s#A"}]}`),
			[]string{`golden.json:4: case "c1": field "expectedEvidenceKeys": expected an array of strings, got an object at index 0`}},
		{"evidence key misspelt", goldenText(`{` + okCase + `, "expectedEvidenceKey": ["kb/s#A"]}`),
			[]string{`golden.json:4: case "c1": field "expectedEvidenceKey": unknown field; did you mean "expectedEvidenceKeys"?`}},
		{"min expected blocks without expected documents", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "q", "expectedEvidenceKeys": ["kb/s#A"], "minExpectedBlocks": 2}`),
			[]string{`golden.json:4: case "c1": field "minExpectedBlocks": set without expectedSources or expectedDocIds`}},
		{"min expected blocks above the case k", "[{" + okCase + ", \"k\": 3,\n\"minExpectedBlocks\": 4}]",
			[]string{`golden.json:2: case "c1": field "minExpectedBlocks": must be at most the case's k (3), got 4`}},
		{"min expected blocks zero", goldenText(`{` + okCase + `, "minExpectedBlocks": 0}`),
			[]string{`golden.json:4: case "c1": field "minExpectedBlocks": must be at least 1, got 0`}},
		{"min expected blocks fraction", goldenText(`{` + okCase + `, "minExpectedBlocks": 1.5}`),
			[]string{`golden.json:4: case "c1": field "minExpectedBlocks": expected an integer, got 1.5`}},
		{"min expected blocks too large", goldenText(`{` + okCase + `, "minExpectedBlocks": 2147483648}`),
			[]string{`golden.json:4: case "c1": field "minExpectedBlocks": must be at most 2147483647, got 2147483648`}},
		{"min expected blocks string", goldenText(`{` + okCase + `, "minExpectedBlocks": "2"}`),
			[]string{`golden.json:4: case "c1": field "minExpectedBlocks": expected an integer, got "2"`}},
		{"min expected blocks misspelt", goldenText(`{` + okCase + `, "minExpectedBlock": 2}`),
			[]string{`golden.json:4: case "c1": field "minExpectedBlock": unknown field; did you mean "minExpectedBlocks"?`}},
		{"first rank max without expected documents", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "q", "expectedFound": true, "expectedFirstRankMax": 3}`), []string{`golden.json:4: case "c1": field "expectedFirstRankMax": set without expectedSources or expectedDocIds`}},
		{"coverage without keywords", goldenText(`{` + okCase + `, "minKeywordCoverage": 0.5}`), []string{`golden.json:4: case "c1": field "minKeywordCoverage": set without expectedKeywords`}},
		{"coverage with empty keywords", goldenText(`{` + okCase + `, "expectedKeywords": [], "minKeywordCoverage": 0.5}`), []string{`golden.json:4: case "c1": field "minKeywordCoverage": set without expectedKeywords`}},
		{"coverage above 1", goldenText(`{` + okCase + `, "expectedKeywords": ["x"], "minKeywordCoverage": 1.01}`), []string{`golden.json:4: case "c1": field "minKeywordCoverage": must be between 0 and 1, got 1.01`}},
		{"coverage negative", goldenText(`{` + okCase + `, "expectedKeywords": ["x"], "minKeywordCoverage": -0.1}`), []string{`golden.json:4: case "c1": field "minKeywordCoverage": must be between 0 and 1, got -0.1`}},
		{"k zero", goldenText(`{` + okCase + `, "k": 0}`), []string{`golden.json:4: case "c1": field "k": must be at least 1, got 0`}},
		{"k too large", goldenText(`{` + okCase + `, "k": 1e10}`), []string{`golden.json:4: case "c1": field "k": must be at most 2147483647, got 1e10`}},
		{"firstRankMax zero", goldenText(`{` + okCase + `, "expectedFirstRankMax": 0}`), []string{`golden.json:4: case "c1": field "expectedFirstRankMax": must be at least 1, got 0`}},
		{"firstRankMax fraction", goldenText(`{` + okCase + `, "expectedFirstRankMax": 1.5}`), []string{`golden.json:4: case "c1": field "expectedFirstRankMax": expected an integer, got 1.5`}},
		{"negative grade", goldenText(`{` + okCase + `, "relevance": {"x": -1}}`), []string{`golden.json:4: case "c1": field "relevance": grade for "x" is negative: -1`}},
		{"grade too large", goldenText(`{` + okCase + `, "relevance": {"x": 3000000000}}`), []string{`golden.json:4: case "c1": field "relevance": grade for "x" is above 2147483647: 3000000000`}},
		{"zero grade on expected source", "[{" + okCase + ", \"relevance\": {\"t\": 1,\n\"s \": 0}}]",
			[]string{`golden.json:2: case "c1": field "relevance": grade 0 for expected document "s "; expected documents are relevant (grade 1 or more)`}},
		{"zero grade on expected docId", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "q", "expectedSources": ["s"], "expectedDocIds": ["kb/s"], "relevance": {"kb/s": 0}}`),
			[]string{`golden.json:4: case "c1": field "relevance": grade 0 for expected document "kb/s"; expected documents are relevant (grade 1 or more)`}},
		{"empty relevance key", goldenText(`{` + okCase + `, "relevance": {"": 1}}`), []string{`golden.json:4: case "c1": field "relevance": empty document key`}},
		{"empty list element", "[{" + okCase + ", \"expectedKeywords\": [\"a\",\n\"\"]}]", []string{`golden.json:2: case "c1": field "expectedKeywords": empty string at index 1`}},
		{"blank list element", goldenText(`{"caseId": "c1", "scenario": "chat", "query": "q", "expectedSources": [" "]}`), []string{`golden.json:4: case "c1": field "expectedSources": blank string at index 0`}},
		{"blank single value", goldenText(`{` + okCase + `, "expectedEvidenceStatus": "  "}`), []string{`golden.json:4: case "c1": field "expectedEvidenceStatus": must not be blank; use "" or leave the field out to declare nothing`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ParseGolden("golden.json", []byte(tt.in))
			if err == nil {
				t.Fatalf("ParseGolden succeeded (%d cases), want errors:\n%s", len(g.Cases), strings.Join(tt.want, "\n"))
			}
			if g != nil {
				t.Errorf("ParseGolden returned a file with an error")
			}
			var list diag.List
			if !errors.As(err, &list) {
				t.Fatalf("error is %T, want diag.List: %v", err, err)
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("errors:\n%s\nwant:\n%s", err, strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestParseGoldenAllErrors checks that every problem in a file is reported,
// in line order, against testdata/golden/errors.want (go test -update-golden
// rewrites it).
func TestParseGoldenAllErrors(t *testing.T) {
	path := filepath.Join("testdata", "golden", "errors.json")
	_, err := LoadGolden(path)
	var list diag.List
	if !errors.As(err, &list) {
		t.Fatalf("LoadGolden(%s) = %v (%T), want diag.List", path, err, err)
	}
	for i, e := range list {
		if e.File != path || e.Line < 1 || e.Msg == "" {
			t.Errorf("error %d = %#v: want File %q, a line and a message", i, e, path)
		}
		if i > 0 && e.Line < list[i-1].Line {
			t.Errorf("error %d on line %d comes after line %d", i, e.Line, list[i-1].Line)
		}
	}
	got := filepath.ToSlash(err.Error()) + "\n"
	wantPath := filepath.Join("testdata", "golden", "errors.want")
	if *updateGolden {
		if err := os.WriteFile(wantPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("errors for %s:\n%s\nwant (%s):\n%s", path, got, wantPath, want)
	}
}

func TestParseGoldenUnsupportedVersion(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// Only the version is reported, though the case has problems too.
		{"version 2", "{\"cases\": [{\"caseId\": \"../x\", \"bogus\": 1}],\n\"version\": 2}", `golden.json:2: field "version": unsupported version 2 (supported: 1)`},
		{"version 0", `{"version": 0, "cases": []}`, `golden.json:1: field "version": unsupported version 0 (supported: 1)`},
		{"version string", `{"version": "1", "cases": []}`, `golden.json:1: field "version": unsupported version "1" (supported: 1)`},
		{"version fraction", `{"version": 1.5, "cases": []}`, `golden.json:1: field "version": unsupported version 1.5 (supported: 1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseGolden("golden.json", []byte(tt.in))
			var uv *UnsupportedVersionError
			if !errors.As(err, &uv) {
				t.Fatalf("error = %v (%T), want *UnsupportedVersionError", err, err)
			}
			if !errors.Is(err, ErrUnsupportedVersion) {
				t.Errorf("errors.Is(err, ErrUnsupportedVersion) = false")
			}
			if !reflect.DeepEqual(uv.Supported, SupportedGoldenVersions) {
				t.Errorf("Supported = %v, want %v", uv.Supported, SupportedGoldenVersions)
			}
			if err.Error() != tt.want {
				t.Fatalf("error = %s\nwant    %s", err, tt.want)
			}
		})
	}

	_, err := LoadGolden(filepath.Join("testdata", "golden", "version2.json"))
	if !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("LoadGolden(version2.json) = %v, want an unsupported version", err)
	}
}

func TestLoadGoldenMissingFile(t *testing.T) {
	_, err := LoadGolden(filepath.Join(t.TempDir(), "nope.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LoadGolden(missing) = %v, want fs.ErrNotExist", err)
	}
}

// TestErrorMessage pins how a problem names its case and field. The
// rendering of the location and of a list is diag's (diag.TestList).
func TestErrorMessage(t *testing.T) {
	tests := []struct {
		file          string
		line          int
		caseID, field string
		want          string
	}{
		{"g.json", 3, "a", "k", `g.json:3: case "a": field "k": bad`},
		{"g.json", 3, "", "", `g.json:3: bad`},
		{"g.json", 0, "", "k", `g.json: field "k": bad`},
		{"", 0, "a\n", "", `case "a\n": bad`},
		{"", 0, "", "", `bad`},
		{"", 12, "", "query", `line 12: field "query": bad`},
	}
	for _, tt := range tests {
		e := &diag.Error{File: tt.file, Line: tt.line, Where: where(tt.caseID, tt.field), Msg: "bad"}
		if got := e.Error(); got != tt.want {
			t.Errorf("Error() = %s, want %s", got, tt.want)
		}
	}
}

// Parsing stays linear: many cases, every one with problems; one case with
// many expected documents and many relevance grades.
func BenchmarkParseGolden(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[\n")
	for i := range 20000 {
		if i > 0 {
			sb.WriteString(",\n")
		}
		sb.WriteString(`{"caseId": "Case-` + strings.Repeat("x", i%7) + `", "scenario": "chat", "query": "q", "expectedSources": ["s"], "relevance": {"s": 0}}`)
	}
	sb.WriteString("\n]\n")
	b.Run("cases", func(b *testing.B) { benchParseGolden(b, []byte(sb.String()), false) })

	sb.Reset()
	sb.WriteString(`[{"caseId": "a", "scenario": "chat", "query": "q", "expectedSources": [`)
	for i := range 20000 {
		sb.WriteString(`"s` + strconv.Itoa(i) + `", `)
	}
	sb.WriteString(`"s"], "relevance": {`)
	for i := range 20000 {
		sb.WriteString(`"r` + strconv.Itoa(i) + `": 0, `)
	}
	sb.WriteString(`"s": 1}}]`)
	b.Run("relevance", func(b *testing.B) { benchParseGolden(b, []byte(sb.String()), true) })
}

func benchParseGolden(b *testing.B, data []byte, valid bool) {
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseGolden("bench.json", data); (err == nil) != valid {
			b.Fatalf("ParseGolden: %v", err)
		}
	}
}

// goldenBench returns a valid golden file of n cases shaped like the ones
// tools/benchgen writes (indented, mixed Chinese and English
// queries, an escaped '>' in every breadcrumb): about 500 bytes a case.
func goldenBench(tb testing.TB, n int) []byte {
	tb.Helper()
	words := strings.Fields(`连接池 max_connections 慢查询 slow_query_log 索引 主从延迟 binlog 磁盘 inode
df -h 内存 OOM kill JVM GC heap Full Redis maxmemory 淘汰 Kafka lag consumer rebalance 证书 TLS
openssl 网关 timeout 504 upstream Kubernetes pod CrashLoopBackOff 探针 readiness 告警 值班 升级
回滚 nginx 排查 步骤 确认 检查 日志 监控 指标 P99 latency the a of to check restart verify`)
	seed := uint32(1)
	next := func(n int) int { // a small deterministic LCG
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % n
	}
	scenarios := []string{"chat", "aiops", "fallback", "negative"}
	g := &GoldenFile{Version: 1, KBScope: "rag-eval", K: 5}
	for i := range n {
		var q strings.Builder
		for q.Len() < 40 {
			q.WriteString(words[next(len(words))])
			q.WriteByte(' ')
		}
		doc := "doc-" + strconv.Itoa(10+next(40))
		g.Cases = append(g.Cases, Case{
			CaseID:              "case-" + strconv.Itoa(100000+i),
			Scenario:            scenarios[i%len(scenarios)],
			Tags:                []string{"t" + strconv.Itoa(i%7)},
			Query:               q.String(),
			ExpectedSources:     []string{doc},
			ExpectedBreadcrumbs: []string{"Ops > " + doc},
			ExpectedKeywords:    []string{words[next(len(words))], "max_connections"},
			Relevance:           map[string]int{"doc-" + strconv.Itoa(10+next(40)): 2},
			MustNotSources:      []string{"decoy"},
			ExpectedFound:       gPtr(true),
		})
	}
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return append(data, '\n')
}

// BenchmarkParseGolden10k parses a valid 10,000-case file, the size of a
// large eval set.
func BenchmarkParseGolden10k(b *testing.B) {
	benchParseGolden(b, goldenBench(b, 10000), true)
}
