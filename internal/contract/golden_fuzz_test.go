package contract

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
			if !gValidCaseID(c.CaseID) || len(c.CaseID) > MaxCaseIDLen {
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
			if !c.DeclaresCheck() {
				t.Fatalf("case %q declares no check", c.CaseID)
			}
			if c.K != nil && *c.K < 1 || c.ExpectedFirstRankMax != nil && *c.ExpectedFirstRankMax < 1 {
				t.Fatalf("case %q: accepted k or expectedFirstRankMax below 1", c.CaseID)
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

// checkGoldenError checks that err is a non-empty ErrorList of located
// problems or an *UnsupportedVersionError.
func checkGoldenError(t *testing.T, data []byte, err error) {
	t.Helper()
	lines := strings.Count(string(data), "\n") + 1
	var uv *UnsupportedVersionError
	if errors.As(err, &uv) {
		if uv.Version == "" || uv.Line < 1 || uv.Line > lines || len(uv.Supported) == 0 {
			t.Fatalf("bad UnsupportedVersionError: %#v", uv)
		}
		return
	}
	list, ok := err.(ErrorList)
	if !ok {
		t.Fatalf("error is %T, want ErrorList or *UnsupportedVersionError: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatalf("empty ErrorList")
	}
	for i, e := range list {
		if e == nil || e.Msg == "" || e.File != "fuzz.json" || e.Line < 1 || e.Line > lines {
			t.Fatalf("error %d is not a located message: %#v (file has %d lines)", i, e, lines)
		}
		if i > 0 && e.Line < list[i-1].Line {
			t.Fatalf("errors out of line order: %v", err)
		}
	}
}
