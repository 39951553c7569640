package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/testkit/goldenfile"
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// sampleResult judges the eval set in testdata/evalset, which covers pass,
// fail, not_run, error, n/a, a graded case and Markdown-hostile text.
func sampleResult(t *testing.T) *judge.Result {
	t.Helper()
	data, err := os.ReadFile("testdata/evalset/golden-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := contract.ParseGolden("testdata/evalset/golden-cases.json", data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := judge.Run(g, "testdata/evalset/fixtures", judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func render(t *testing.T, fn func(*bytes.Buffer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := fn(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReportGolden(t *testing.T) {
	rep := Build(sampleResult(t), "testdata/evalset/golden-cases.json", "0123456789abcdef")
	golden(t, "report.json", render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) }))
	golden(t, "report.md", render(t, func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }))
	golden(t, "report.junit.xml", render(t, func(b *bytes.Buffer) error { return rep.WriteJUnit(b) }))
	golden(t, "summary.txt", render(t, func(b *bytes.Buffer) error { return rep.WriteText(b, false) }))
}

func TestReportDeterministic(t *testing.T) {
	a := Build(sampleResult(t), "c.json", "x")
	b := Build(sampleResult(t), "c.json", "x")
	for name, fn := range map[string]func(*Report, *bytes.Buffer) error{
		"json":     func(r *Report, w *bytes.Buffer) error { return r.WriteJSON(w) },
		"markdown": func(r *Report, w *bytes.Buffer) error { return r.WriteMarkdown(w) },
		"junit":    func(r *Report, w *bytes.Buffer) error { return r.WriteJUnit(w) },
	} {
		x := render(t, func(w *bytes.Buffer) error { return fn(a, w) })
		y := render(t, func(w *bytes.Buffer) error { return fn(b, w) })
		if !bytes.Equal(x, y) {
			t.Errorf("%s: two renders of the same input differ", name)
		}
	}
}

// TestJSONKeys pins the key order of SPEC §9.3.
func TestJSONKeys(t *testing.T) {
	rep := Build(sampleResult(t), "c.json", "x")
	out := string(render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) }))
	order := []string{`"schemaVersion"`, `"tool"`, `"inputs"`, `"cases"`, `"casesSha256"`, `"fixtures"`, `"k"`,
		`"summary"`, `"caseCount"`, `"passCount"`, `"failCount"`, `"notRunCount"`, `"errorCount"`, `"passRate"`,
		`"hitLevels"`, `"strong"`, `"medium"`, `"weak"`, `"miss"`, `"n/a"`, `"recallAtK"`, `"avgFirstExpectedRank"`,
		`"mrr"`, `"ndcgAtK"`, `"docRecallAtK"`, `"precisionAtK"`, `"fallbackRate"`, `"evidenceStatus"`,
		`"selectedAttempt"`, `"relevanceLevels"`, `"searchModes"`, `"byScenario"`, `"byTag"`, `"warnings"`, `"cases": [`,
		`"caseId"`, `"scenario"`, `"tags"`, `"query"`, `"status"`, `"reason"`, `"k"`, `"hitLevel"`, `"firstExpectedRank"`,
		`"topCandidates"`, `"checks"`, `"failedChecks"`, `"selectedAttempt"`, `"fallbackReason"`, `"evidenceStatus"`,
		`"rerankTopSource"`, `"searchMode"`, `"metrics"`}
	pos := 0
	for _, key := range order {
		i := strings.Index(out[pos:], key)
		if i < 0 {
			t.Fatalf("key %s missing or out of order after offset %d", key, pos)
		}
		pos += i + len(key)
	}
	// Arrays are never null, however empty.
	empty := Build(&judge.Result{Golden: &contract.GoldenFile{}, Fixtures: "f"}, "c", "x")
	for _, r := range []*Report{rep, empty} {
		var doc any
		if err := json.Unmarshal(render(t, func(b *bytes.Buffer) error { return r.WriteJSON(b) }), &doc); err != nil {
			t.Fatal(err)
		}
		arrays := map[string]bool{"searchModes": true, "warnings": true, "cases": true, "tags": true,
			"topCandidates": true, "checks": true, "failedChecks": true}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, x := range v {
					if arrays[k] && x == nil {
						t.Errorf("%s.%s is null", path, k)
					}
					walk(path+"."+k, x)
				}
			case []any:
				for i, x := range v {
					walk(fmt.Sprintf("%s[%d]", path, i), x)
				}
			}
		}
		walk("$", doc)
	}
}

func TestMarkdownEscapesCells(t *testing.T) {
	rep := &Report{Cases: []judge.CaseResult{{CaseID: "a|b", Scenario: "<script>", Status: "fail",
		FailedChecks: []string{"query"}, Tags: []string{}, Query: "x\ny | <b>",
		Checks: []judge.Check{{Name: "query", Message: ptr("line1\nline2 | <i>")}}}}}
	out := string(render(t, func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }))
	for _, want := range []string{`| a\|b | &lt;script&gt; | fail |`, "Query: x<br>y \\| &lt;b&gt;", "line1<br>line2 \\| &lt;i&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	for _, tag := range []string{"<script>", "<b>"} {
		if strings.Contains(out, tag) {
			t.Errorf("raw HTML %s leaked into markdown", tag)
		}
	}
}

func TestJUnitIsValidXML(t *testing.T) {
	rep := Build(sampleResult(t), "c.json", "x")
	out := render(t, func(b *bytes.Buffer) error { return rep.WriteJUnit(b) })
	var suite junitSuite
	if err := xml.Unmarshal(out, &suite); err != nil {
		t.Fatal(err)
	}
	var failures, errors int
	for _, c := range suite.Cases {
		if c.Failure != nil {
			failures++
		}
		if c.Error != nil {
			errors++
		}
	}
	s := rep.Summary
	if suite.Tests != s.CaseCount {
		t.Errorf("junit tests=%d, want the summary's caseCount %d", suite.Tests, s.CaseCount)
	}
	if failures != s.FailCount {
		t.Errorf("junit has %d failures, want the summary's failCount %d", failures, s.FailCount)
	}
	if want := s.NotRunCount + s.ErrorCount; errors != want {
		t.Errorf("junit has %d errors, want the summary's notRunCount + errorCount %d", errors, want)
	}
	if suite.Failures != failures {
		t.Errorf("junit failures=%d, want the %d failures it holds", suite.Failures, failures)
	}
	if suite.Errors != errors {
		t.Errorf("junit errors=%d, want the %d errors it holds", suite.Errors, errors)
	}
}

func TestReadJSONRoundTrip(t *testing.T) {
	rep := Build(sampleResult(t), "c.json", "x")
	data := render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) })
	back, err := ReadJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	again := render(t, func(b *bytes.Buffer) error { return back.WriteJSON(b) })
	if !bytes.Equal(data, again) {
		t.Errorf("report does not survive a JSON round trip:\n%s", goldenfile.LineDiff(string(data), string(again)))
	}
	if _, err := ReadJSON([]byte(`{"schemaVersion": 7}`)); err == nil || !strings.Contains(err.Error(), "schemaVersion 7") {
		t.Errorf("schema 7: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

// encodingJSON is what encoding/json writes for v with indent as prefix,
// less the scoreLabel of candidates, which the report's schema does not
// have.
func encodingJSON(t *testing.T, v any, indent string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return scoreLabelLine.ReplaceAllString(b.String(), "")
}

// scoreLabelLine is a candidate's scoreLabel member as encoding/json
// writes it. A JSON string is one line, and relevanceLevel follows.
var scoreLabelLine = regexp.MustCompile(`(?m)^ *"scoreLabel": ".*",\n`)

// blockLabelLine is a candidate's evidenceKey or excerptStart member as
// WriteJSON writes it, with the comma before it. encoding/json writes
// neither.
var blockLabelLine = regexp.MustCompile(`,\n *"(?:evidenceKey|excerptStart)": ".*"`)

// withoutBlockLabels is report JSON without its candidates' evidenceKey
// and excerptStart, as encoding/json would write it.
func withoutBlockLabels(b []byte) []byte { return blockLabelLine.ReplaceAll(b, nil) }

// TestWriteJSONMatchesEncodingJSON pins the report's encoder to what
// encoding/json writes for the whole report.
func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	full := Build(sampleResult(t), "c.json", "x")
	for i := range full.Cases {
		for j := range full.Cases[i].TopCandidates {
			full.Cases[i].TopCandidates[j].ScoreLabel = "RRF \"x\""
		}
	}
	skips := Build(skippedResult(t), "c.json", "x")
	for _, rep := range []*Report{full, skips, {Cases: []judge.CaseResult{}}, {}} {
		got := withoutBlockLabels(render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) }))
		want := []byte(encodingJSON(t, rep, ""))
		if !bytes.Equal(got, want) {
			t.Errorf("WriteJSON differs from encoding/json:\n%s", goldenfile.LineDiff(string(want), string(got)))
		}
	}
}

// TestAppendCaseMatchesEncodingJSON compares the hand-written case encoder
// with encoding/json on cases full of strings that need escaping.
func TestAppendCaseMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "Z", " ", "\"", "\\", "\n", "\t", "\x01", "\x7f", "<", ">", "&", "连", "é", "\u2028", "\u2029",
		"\xff", "\xe2\x80", "😀", "\\u003c", "/"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	opt := func() *string {
		if rng.IntN(3) == 0 {
			return nil
		}
		s := str()
		return &s
	}
	for range 2000 {
		c := judge.CaseResult{CaseID: str(), Scenario: str(), Query: str(), Status: judge.Status(str()), Reason: opt(), K: rng.IntN(10),
			HitLevel: opt(), SelectedAttempt: opt(), FallbackReason: opt(), EvidenceStatus: opt(), RerankTopSource: opt(), SearchMode: opt()}
		if rng.IntN(2) == 0 {
			c.FirstExpectedRank = ptr(rng.IntN(30))
		}
		for range rng.IntN(3) {
			c.Tags = append(c.Tags, str())
			c.FailedChecks = append(c.FailedChecks, str())
		}
		if rng.IntN(4) == 0 {
			c.Tags, c.FailedChecks = []string{}, []string{}
		}
		for j := range rng.IntN(3) {
			c.TopCandidates = append(c.TopCandidates, judge.Candidate{Rank: j + 1, Source: str(), DocID: str(), Breadcrumb: str(),
				Category: str(), ScoreLabel: str(), RelevanceLevel: str(), QualityScore: f6(rng.Float64()),
				EvidenceKey: str(), ExcerptStart: str()})
			c.Checks = append(c.Checks, judge.Check{Name: str(), Passed: rng.IntN(2) == 0, Message: opt()})
		}
		if rng.IntN(2) == 0 {
			c.Metrics = &judge.Metrics{ReciprocalRank: contract.Float6(rng.Float64()), NDCGAtK: 1, DocRecallAtK: 0, PrecisionAtK: 0.2}
		}
		want := encodingJSON(t, &c, "    ")
		e := encoder{depth: 2}
		e.appendCase(&c)
		if got := string(withoutBlockLabels(e.b)) + "\n"; got != want {
			t.Fatalf("appendCase differs from encoding/json:\n%s", goldenfile.LineDiff(want, got))
		}
		// evidenceKey and excerptStart, which encoding/json does not write,
		// decode to what encoding/json makes of the strings.
		var back struct {
			TopCandidates []struct{ EvidenceKey, ExcerptStart *string }
		}
		if err := json.Unmarshal(e.b, &back); err != nil {
			t.Fatalf("appendCase wrote invalid JSON: %v\n%s", err, e.b)
		}
		for j, cand := range c.TopCandidates {
			for _, f := range []struct {
				name string
				got  *string
				want string
			}{{"evidenceKey", back.TopCandidates[j].EvidenceKey, cand.EvidenceKey}, {"excerptStart", back.TopCandidates[j].ExcerptStart, cand.ExcerptStart}} {
				var want *string
				if f.want != "" {
					data, _ := json.Marshal(f.want)
					_ = json.Unmarshal(data, &want)
				}
				if (f.got == nil) != (want == nil) || f.got != nil && *f.got != *want {
					t.Fatalf("%s of %q reads back as %v, want %v", f.name, f.want, f.got, want)
				}
			}
		}
	}
}
