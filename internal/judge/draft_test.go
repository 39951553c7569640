package judge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// A draft is never judged: with a fixture it reports the candidates and
// the traced fields, with no check, hit level or metrics; without one, or
// with a broken or stale one, the reason says why, and the status stays
// draft.
func TestDraftNotJudged(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("seen.json", `{"caseId":"seen","query":"how to rotate logs","searchMode":"hybrid","lookupResult":{"found":true,"evidenceStatus":"weak",
		"evidenceBlocks":[{"rank":1,"source":"logrotate","excerpt":"x","qualityScore":0.4,"relevanceLevel":"medium"}],
		"retrievalTrace":{"selectedAttempt":"FILTERED_VECTOR","fallbackReason":null}}}`)
	write("stale.json", `{"caseId":"stale","query":"an older text","lookupResult":{"found":false,"evidenceBlocks":[]}}`)
	write("broken.json", `{"caseId":"broken"`)
	write("other.json", `{"caseId":"someone-else","query":"q","lookupResult":{"found":false,"evidenceBlocks":[]}}`)
	g := &contract.GoldenFile{KBScope: "kb", Cases: []contract.Case{
		{CaseID: "seen", Scenario: "chat", Query: "how to rotate logs", Draft: true, Count: 7},
		{CaseID: "stale", Scenario: "chat", Query: "q", Draft: true},
		{CaseID: "broken", Scenario: "chat", Query: "q", Draft: true},
		{CaseID: "other", Scenario: "chat", Query: "q", Draft: true},
		{CaseID: "missing", Scenario: "chat", Query: "q", Draft: true},
		{CaseID: "real", Scenario: "chat", Query: "q", ExpectedFound: ptr(true)},
	}}
	res, err := Run(g, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{
		"seen":    "",
		"stale":   `stale fixture: its query is "an older text", the golden query is "q"; regenerate it with rag-snapshot`,
		"broken":  "invalid fixture: ",
		"other":   `fixture caseId "someone-else" does not match case "other"`,
		"missing": "no fixture at " + filepath.Join(dir, "missing.json"),
	}
	for _, r := range res.Cases[:5] {
		if r.Status != StatusDraft {
			t.Errorf("%s: status %s, want draft", r.CaseID, r.Status)
		}
		if r.Status.Judged() {
			t.Errorf("%s: a draft counts as judged", r.CaseID)
		}
		if r.HitLevel != nil || r.Metrics != nil || len(r.Checks) != 0 || len(r.FailedChecks) != 0 {
			t.Errorf("%s: hitLevel %v, metrics %v, checks %v, failed %v; want none", r.CaseID, r.HitLevel, r.Metrics, r.Checks, r.FailedChecks)
		}
		want := reasons[r.CaseID]
		switch got := deref(r.Reason); {
		case want == "" && r.Reason != nil:
			t.Errorf("%s: reason %q, want null", r.CaseID, got)
		case want != "" && !strings.HasPrefix(got, want):
			t.Errorf("%s: reason %q, want it to start with %q", r.CaseID, got, want)
		}
	}
	seen := res.Cases[0]
	if len(seen.TopCandidates) != 1 || seen.TopCandidates[0].Source != "logrotate" {
		t.Errorf("seen: candidates %+v, want the fixture's block", seen.TopCandidates)
	}
	if deref(seen.EvidenceStatus) != "weak" || deref(seen.SelectedAttempt) != contract.AttemptFiltered || deref(seen.SearchMode) != "hybrid" {
		t.Errorf("seen: evidenceStatus %v, selectedAttempt %v, searchMode %v; want the fixture's", seen.EvidenceStatus, seen.SelectedAttempt, seen.SearchMode)
	}
	if r := res.Cases[5]; r.Status != StatusNotRun {
		t.Errorf("real: status %s, want not_run", r.Status)
	}
}

// Drafts count in caseCount and draftCount, in no other count, rate or
// histogram, and never fail the run; a run of drafts only passes.
func TestDraftSummary(t *testing.T) {
	pass := contract.Case{CaseID: "p", Scenario: "chat", Query: "q", ExpectedSources: []string{"a"}}
	fail := contract.Case{CaseID: "f", Scenario: "chat", Query: "q", ExpectedSources: []string{"b"}}
	draft := contract.Case{CaseID: "d", Scenario: "chat", Query: "q", Draft: true}
	f := func(id string) *contract.Fixture {
		fx := fixture(id, "q", blk(1, "a"))
		fx.LookupResult.EvidenceStatus = contract.EvidenceWeak
		return fx
	}
	rp, rf, rd := JudgeFixture(&pass, 5, f("p"), "kb"), JudgeFixture(&fail, 5, f("f"), "kb"), JudgeFixture(&draft, 5, f("d"), "kb")
	if rp.Status != StatusPass || rf.Status != StatusFail || rd.Status != StatusDraft {
		t.Fatalf("statuses %s %s %s, want pass fail draft", rp.Status, rf.Status, rd.Status)
	}

	s := Summarize([]*CaseResult{&rp, &rf, &rd})
	if s.CaseCount != 3 || s.DraftCount != 1 || s.PassCount != 1 || s.FailCount != 1 {
		t.Errorf("counts case %d draft %d pass %d fail %d, want 3 1 1 1", s.CaseCount, s.DraftCount, s.PassCount, s.FailCount)
	}
	if s.PassRate == nil || *s.PassRate != 0.5 {
		t.Errorf("passRate %v, want 0.5: the draft is not in the denominator", s.PassRate)
	}
	if got := s.HitLevels.Strong + s.HitLevels.Medium + s.HitLevels.Weak + s.HitLevels.Miss + s.HitLevels.NA; got != 2 {
		t.Errorf("hit levels sum to %d, want 2: the draft has none", got)
	}
	if n := s.EvidenceStatus[contract.EvidenceWeak]; n != 2 {
		t.Errorf("evidenceStatus weak %d, want 2: the draft's fixture is not counted", n)
	}

	// Without the failing case the run passes, and the draft is no reason
	// to fail it.
	s = Summarize([]*CaseResult{&rp, &rd})
	if !s.Passed() || s.NothingJudged() || s.AllDrafts() {
		t.Errorf("pass and draft: Passed %v, NothingJudged %v, AllDrafts %v; want true false false", s.Passed(), s.NothingJudged(), s.AllDrafts())
	}
	// A run of drafts only passes: nothing is gated.
	s = Summarize([]*CaseResult{&rd})
	if !s.Passed() || s.NothingJudged() || !s.AllDrafts() {
		t.Errorf("drafts only: Passed %v, NothingJudged %v, AllDrafts %v; want true false true", s.Passed(), s.NothingJudged(), s.AllDrafts())
	}
	if s.PassRate != nil || s.RecallAtK != nil || s.MRR != nil || s.FallbackRate != nil {
		t.Errorf("drafts only: passRate %v, recallAtK %v, mrr %v, fallbackRate %v; want null", s.PassRate, s.RecallAtK, s.MRR, s.FallbackRate)
	}
	// Skipped cases beside drafts judged nothing: no pass.
	skipped := CaseResult{CaseID: "s", Status: StatusSkipped, Tags: []string{}}
	s = Summarize([]*CaseResult{&skipped, &rd})
	if s.Passed() || !s.NothingJudged() {
		t.Errorf("skipped and draft: Passed %v, NothingJudged %v; want false true", s.Passed(), s.NothingJudged())
	}
}
