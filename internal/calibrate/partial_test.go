package calibrate

import (
	"os"
	"path/filepath"
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
