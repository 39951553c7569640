package calibrate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// Fixtures of a pipeline that sends no qualityScore (declared or not):
// every block counts as missingScore, nothing enters the ROC, and there is
// no best threshold, never "threshold 0, TPR 1, FPR 1". The mode is named
// after the search mode the pipeline declares.
func TestBlocksWithoutScoreAreUnscored(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(contract.ManifestName, `{"manifestVersion":1,"tool":"rag-snapshot","status":"available","searchMode":"hybrid","kbScope":"kb",
		"pipeline":{"name":"http","version":"","store":"x","embedder":"","dim":0,"searchMode":"bm25","capabilities":[]}}`)
	g := &contract.GoldenFile{Version: 1, KBScope: "kb"}
	for i, id := range []string{"a", "b", "c"} {
		g.Cases = append(g.Cases, contract.Case{CaseID: id, Query: "q", ExpectedSources: []string{"doc-" + id}})
		write(id+".json", `{"caseId":"`+id+`","query":"q","lookupResult":{"found":true,"evidenceBlocks":[
			{"rank":1,"source":"doc-`+id+`"},{"rank":2,"source":"other-`+string(rune('0'+i))+`"}]}}`)
	}
	in, err := Load(g, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep := Build("c.json", "", 5, []Input{in})
	m := rep.Modes[0]
	if m.Name != "bm25" {
		t.Errorf("mode name %q, want the declared bm25", m.Name)
	}
	c := m.Blocks.Counts
	if c.MissingScore != 6 {
		t.Errorf("%d blocks without score, want 6", c.MissingScore)
	}
	if c.Relevant != 3 {
		t.Errorf("%d relevant blocks, want 3", c.Relevant)
	}
	if c.NonRelevant != 3 {
		t.Errorf("%d non-relevant blocks, want 3", c.NonRelevant)
	}
	// Nothing is scored.
	if m.Blocks.Best != nil {
		t.Error("a best block threshold, want null")
	}
	if n := m.Blocks.Relevant.Count; n != 0 {
		t.Errorf("%d relevant scores, want 0", n)
	}
	if want := "declares no qualityScore: its 6 blocks are counted as missingScore"; len(m.Warnings) != 2 || !strings.Contains(m.Warnings[1], want) {
		t.Errorf("warnings %q, want 2, the second saying %q", m.Warnings, want)
	}
}

// A pipeline that declares no trace has no attempt scores: calibrate takes
// no case score from a retrievalTrace its fixtures carry anyway (it would
// trust what the pipeline says it does not produce), and reads no fixture a
// second time looking for one. With trace declared, the same fixture's
// attempt score is used.
func TestNoTraceNoAttemptScore(t *testing.T) {
	for _, tc := range []struct {
		caps string
		want bool
	}{{`["evidenceStatus"]`, false}, {`["evidenceStatus","trace"]`, true}} {
		dir := t.TempDir()
		write := func(name, data string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(contract.ManifestName, `{"manifestVersion":1,"tool":"rag-snapshot","status":"available","searchMode":"hybrid","kbScope":"kb",
			"pipeline":{"name":"http","version":"","store":"x","embedder":"","dim":0,"capabilities":`+tc.caps+`}}`)
		write("a.json", `{"caseId":"a","query":"q","lookupResult":{"found":false,"evidenceBlocks":[],
			"retrievalTrace":{"selectedAttempt":"FILTERED_VECTOR","attempts":[{"name":"FILTERED_VECTOR","candidates":3,"bestQuality":0.12}]}}}`)
		g := &contract.GoldenFile{Version: 1, KBScope: "kb", Cases: []contract.Case{{CaseID: "a", Query: "q", ExpectedFound: new(bool)}}}
		in, err := Load(g, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := in.AttemptBest["a"]; got != tc.want {
			t.Errorf("capabilities %s: attempt score taken %v, want %v", tc.caps, got, tc.want)
		}
	}
}

// A pipeline without trace whose off-topic cases retrieve nothing, as an
// http or mapped pipeline that finds nothing returns: the two off-topic
// cases count as off-topic, correct rejections at every threshold, and the
// answerable case that retrieved nothing as a miss. Nothing says "0
// off-topic cases", and the reports say how many cases had no score.
func TestCasesThatRetrievedNothing(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(contract.ManifestName, `{"manifestVersion":1,"tool":"rag-snapshot","status":"available","searchMode":"hybrid","kbScope":"kb",
		"pipeline":{"name":"mapped","version":"","store":"x","embedder":"","dim":0,"params":{"lowQuality":0.3},
		"searchMode":"dense","capabilities":["qualityScore"]}}`)
	no := false
	g := &contract.GoldenFile{Version: 1, KBScope: "kb"}
	for _, id := range []string{"a1", "a2", "a3", "miss"} {
		g.Cases = append(g.Cases, contract.Case{CaseID: id, Query: "q", ExpectedSources: []string{"doc-" + id}})
	}
	for _, id := range []string{"off1", "off2"} {
		g.Cases = append(g.Cases, contract.Case{CaseID: id, Query: "q", ExpectedFound: &no})
	}
	for i, id := range []string{"a1", "a2", "a3"} {
		write(id+".json", `{"caseId":"`+id+`","query":"q","lookupResult":{"found":true,"evidenceBlocks":[
			{"rank":1,"source":"doc-`+id+`","qualityScore":0.`+string(rune('5'+i))+`}]}}`)
	}
	for _, id := range []string{"miss", "off1", "off2"} {
		write(id+".json", `{"caseId":"`+id+`","query":"q","lookupResult":{"found":false,"evidenceBlocks":[]}}`)
	}
	in, err := Load(g, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := Build("c.json", "", 5, []Input{in}).Modes[0]

	if c, want := m.Cases.Counts, (Counts{Relevant: 4, NonRelevant: 2, MissingScore: 3}); c != want {
		t.Errorf("case counts %+v, want %+v", c, want)
	}
	var from []string
	for _, s := range m.Cases.Samples {
		f := "-"
		if s.ScoreFrom != nil {
			f = *s.ScoreFrom
		}
		from = append(from, s.CaseID+":"+s.Label+":"+f)
	}
	wantFrom := []string{"a1:relevant:blocks", "a2:relevant:blocks", "a3:relevant:blocks",
		"miss:relevant:nothingRetrieved", "off1:nonRelevant:nothingRetrieved", "off2:nonRelevant:nothingRetrieved"}
	if !slices.Equal(from, wantFrom) {
		t.Errorf("case samples %v, want %v", from, wantFrom)
	}
	// At lowQuality 0.3 the three answered cases are kept, the miss is not,
	// and both off-topic cases are correctly rejected.
	low := m.Cases.AtShipped[0]
	if low.Name != NameLowQuality || low.TPR == nil || *low.TPR != 0.75 || low.FPR == nil || *low.FPR != 0 {
		t.Errorf("at lowQuality: %s TPR %v FPR %v, want lowQuality TPR 0.75 FPR 0", low.Name, f6s(low.TPR), f6s(low.FPR))
	}
	// No off-topic case has a score: nothing to place a threshold between.
	if m.Cases.Best != nil {
		t.Errorf("best case threshold %v, want null", f6s(m.Cases.Best.Threshold))
	}
	if len(m.Warnings) != 1 {
		t.Fatalf("warnings %q, want 1", m.Warnings)
	}
	if w := m.Warnings[0]; !strings.Contains(w, "3 scored of 4 answered cases, 0 scored of 2 off-topic cases") || strings.Contains(w, " 0 off-topic cases") {
		t.Errorf("warning %q, want it to say 3 scored of 4 answered cases, 0 scored of 2 off-topic cases", w)
	}

	rep := &Report{Modes: []Mode{m}}
	var md, txt strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Judged cases: 3 with a relevant block, 1 answerable that retrieved nothing, 2 off-topic, 0 neither; 3 without any score.",
		"rejected at every threshold: 2 off-topic (correct rejections), 1 answerable (misses).",
		"| off1 | off-topic | — | nothing retrieved: rejected at every threshold |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if want := "; without a score: 0 blocks, 3 cases\n"; !strings.HasSuffix(txt.String(), want) {
		t.Errorf("text %q, want it to end %q", txt.String(), want)
	}
}

func f6s(f *contract.Float6) string {
	if f == nil {
		return "null"
	}
	return strconv.FormatFloat(float64(*f), 'g', -1, 64)
}

// Scores outside [0, 1], which the contract does not allow but a
// hand-made or old fixture may hold, count as the nearest bound: every
// threshold written lies in [0, 1], never a -1e308 written out in 309
// digits, and a warning says how many scores were moved.
func TestScoresOutsideTheRange(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := &contract.GoldenFile{Version: 1, KBScope: "kb"}
	scores := []struct{ rel, non string }{{"42", "-1e308"}, {"0.9", "-3.5"}, {"0.7", "0.2"}}
	for i, s := range scores {
		id := string(rune('a' + i))
		g.Cases = append(g.Cases, contract.Case{CaseID: id, Query: "q", ExpectedSources: []string{"doc-" + id}})
		write(id+".json", `{"caseId":"`+id+`","query":"q","lookupResult":{"found":true,"evidenceBlocks":[
			{"rank":1,"source":"doc-`+id+`","qualityScore":`+s.rel+`},{"rank":2,"source":"other","qualityScore":`+s.non+`}]}}`)
	}
	off := contract.Case{CaseID: "off", Query: "q", ExpectedFound: new(bool)}
	g.Cases = append(g.Cases, off)
	write("off.json", `{"caseId":"off","query":"q","lookupResult":{"found":true,"evidenceBlocks":[{"rank":1,"source":"x","qualityScore":-1e308}]}}`)
	in, err := Load(g, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep := Build("c.json", "", 5, []Input{in})
	var b strings.Builder
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var check func(path string, v any)
	check = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				check(path+"."+k, e)
			}
		case []any:
			for i, e := range x {
				check(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case float64:
			if strings.HasSuffix(path, "threshold") && (x < 0 || x > 1) {
				t.Errorf("%s = %g, outside [0, 1]", path, x)
			}
		}
	}
	var doc any
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	check("", doc)
	if strings.Contains(b.String(), "00000000000000000000") {
		t.Errorf("the report writes a number of 20 digits or more:\n%s", b.String())
	}
	m := rep.Modes[0]
	if b := m.Blocks.Best; b == nil || contract.Round6(float64(*b.Threshold)) != 0.45 {
		t.Errorf("best block threshold %+v, want 0.45, between 0.2 and 0.7", b)
	}
	want := "4 qualityScores outside [0, 1], from -1e+308 to 42, were counted as the nearest bound"
	if !slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
		t.Errorf("warnings %q, want one saying %q", m.Warnings, want)
	}
}
