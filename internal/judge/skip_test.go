package judge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// partial is fixture f as an external pipeline that declares caps (nil:
// nothing declared) and sent only what it has: no trace, no rerank, no
// context pack, no evidenceStatus, blocks without breadcrumbs.
func partial(f *contract.Fixture, caps []string) *contract.Fixture {
	lr := f.LookupResult
	lr.Partial = true
	lr.Has = contract.HasFound | contract.HasEvidenceBlocks
	for i := range lr.EvidenceBlocks {
		lr.EvidenceBlocks[i].Breadcrumb = ""
		lr.EvidenceBlocks[i].Has = contract.BlockHasSource | contract.BlockHasExcerpt
	}
	f.Pipeline = &contract.Pipeline{Name: "http", SearchMode: contract.ModeBM25, Capabilities: caps}
	return f
}

// Every capability-gated check: skipped with its reason when the pipeline
// declares it lacks the capability, failed as "fixture lacks" when the
// field is absent without such a declaration.
func TestSkippedVersusLacks(t *testing.T) {
	c := contract.Case{CaseID: "c", Query: "q", ExpectedSources: []string{"a"},
		ExpectedBreadcrumbs: []string{"Root > a"}, ExpectedSelectedAttempt: contract.AttemptFiltered,
		ExpectedFallbackReason: contract.FallbackNoEvidence, ExpectedEvidenceStatus: contract.EvidenceSufficient,
		ExpectedContextSources: []string{"a"}, ExpectedRerankTopSource: "a"}
	gated := map[string]string{
		CheckBreadcrumbs: contract.CapBreadcrumb, CheckSelectedAttempt: contract.CapTrace, CheckFallbackReason: contract.CapFallback,
		CheckEvidenceStatus: contract.CapEvidenceStatus, CheckContextSources: contract.CapContextPack, CheckRerankTopSource: contract.CapRerank,
	}
	lacks := map[string]string{
		CheckBreadcrumbs: "fixture lacks lookupResult.evidenceBlocks[].breadcrumb", CheckSelectedAttempt: "fixture lacks lookupResult.retrievalTrace.selectedAttempt",
		CheckFallbackReason: "fixture lacks lookupResult.retrievalTrace.fallbackReason", CheckEvidenceStatus: "fixture lacks lookupResult.evidenceStatus",
		CheckContextSources: "fixture lacks lookupResult.contextPack.sources", CheckRerankTopSource: "fixture lacks lookupResult.rerankTrace.topSource",
	}
	for name, capability := range gated {
		if Needs(name) != capability {
			t.Errorf("Needs(%s) = %q, want %q", name, Needs(name), capability)
		}
	}

	// Nothing declared: every absent field fails.
	r := JudgeFixture(&c, 5, partial(fixture("c", "q", blk(1, "a")), nil), "kb")
	if r.Status != StatusFail {
		t.Fatalf("undeclared: status %s, want %s", r.Status, StatusFail)
	}
	if len(r.SkippedChecks) != 0 {
		t.Fatalf("undeclared: skipped %v, want none", r.SkippedChecks)
	}
	for name, msg := range lacks {
		ch := checkOf(t, r, name)
		if ch.Passed || ch.Skipped {
			t.Errorf("undeclared %s: passed %v, skipped %v; want failed", name, ch.Passed, ch.Skipped)
		}
		if message(ch) != msg {
			t.Errorf("undeclared %s: message %q, want %q", name, message(ch), msg)
		}
	}

	// Declared none: every gated check is skipped, the others run, and the
	// case passes on them.
	r = JudgeFixture(&c, 5, partial(fixture("c", "q", blk(1, "a")), []string{}), "kb")
	if r.Status != StatusPass {
		t.Fatalf("declared none: status %s, want %s", r.Status, StatusPass)
	}
	if len(r.FailedChecks) != 0 {
		t.Fatalf("declared none: failed %v, want none", r.FailedChecks)
	}
	for name, capability := range gated {
		ch := checkOf(t, r, name)
		if ch.Passed || !ch.Skipped {
			t.Errorf("declared none %s: passed %v, skipped %v; want skipped", name, ch.Passed, ch.Skipped)
		}
		if want := "pipeline declares no " + capability; message(ch) != want {
			t.Errorf("declared none %s: message %q, want %q", name, message(ch), want)
		}
	}
	want := []string{CheckBreadcrumbs, CheckSelectedAttempt, CheckFallbackReason, CheckEvidenceStatus, CheckContextSources, CheckRerankTopSource}
	if !slices.Equal(r.SkippedChecks, want) {
		t.Errorf("skippedChecks %v, want %v", r.SkippedChecks, want)
	}
	// The skipped breadcrumbs check does not make the hit level medium.
	if deref(r.HitLevel) != HitStrong {
		t.Errorf("hit level %s, want strong", deref(r.HitLevel))
	}
	if deref(r.SearchMode) != "bm25" {
		t.Errorf("searchMode %q, want the declared bm25", deref(r.SearchMode))
	}

	// Declared trace only: the trace check runs (and fails: the field is
	// absent though declared), the rest is skipped.
	r = JudgeFixture(&c, 5, partial(fixture("c", "q", blk(1, "a")), []string{contract.CapTrace}), "kb")
	ch := checkOf(t, r, CheckSelectedAttempt)
	if ch.Skipped {
		t.Errorf("declared trace: %s skipped, want it run", CheckSelectedAttempt)
	}
	if want := lacks[CheckSelectedAttempt]; message(ch) != want {
		t.Errorf("declared trace: message %q, want %q", message(ch), want)
	}
	if r.Status != StatusFail {
		t.Errorf("declared trace: status %s, want %s", r.Status, StatusFail)
	}
	if want := []string{CheckSelectedAttempt}; !slices.Equal(r.FailedChecks, want) {
		t.Errorf("declared trace: failed %v, want %v", r.FailedChecks, want)
	}

	// A stale query still fails the case whatever is skipped.
	r = JudgeFixture(&c, 5, partial(fixture("c", "old q", blk(1, "a")), []string{}), "kb")
	if r.Status != StatusFail {
		t.Errorf("stale: status %s, want %s", r.Status, StatusFail)
	}
	if want := []string{CheckQuery}; !slices.Equal(r.FailedChecks, want) {
		t.Errorf("stale: failed %v, want %v", r.FailedChecks, want)
	}
}

// A case whose every check but query is skipped is no pass: it is skipped,
// and the summary counts it apart (not in the pass rate's denominator)
// with every skipped check and its reason.
func TestCaseAllSkipped(t *testing.T) {
	only := contract.Case{CaseID: "trace", Query: "q", ExpectedSelectedAttempt: contract.AttemptFiltered, Scenario: "s"}
	mixed := contract.Case{CaseID: "mixed", Query: "q", ExpectedFound: ptr(true), ExpectedRerankTopSource: "a", Scenario: "s"}
	f := func(id string) *contract.Fixture {
		return partial(fixture(id, "q", blk(1, "a")), []string{contract.CapFallback})
	}
	r1 := JudgeFixture(&only, 5, f("trace"), "kb")
	r2 := JudgeFixture(&mixed, 5, f("mixed"), "kb")
	if r1.Status != StatusSkipped || r2.Status != StatusPass {
		t.Fatalf("statuses %s %s, want skipped pass", r1.Status, r2.Status)
	}
	if !r1.Status.Judged() {
		t.Error("a skipped case's fixture was judged")
	}
	s := Summarize([]*CaseResult{&r1, &r2})
	if s.PassCount != 1 {
		t.Errorf("summary passCount %d, want 1", s.PassCount)
	}
	if s.SkippedCount != 1 {
		t.Errorf("summary skippedCount %d, want 1", s.SkippedCount)
	}
	if s.FailCount != 0 {
		t.Errorf("summary failCount %d, want 0", s.FailCount)
	}
	if s.PassRate == nil {
		t.Error("summary passRate null, want 1")
	} else if *s.PassRate != 1 {
		t.Errorf("summary passRate %v, want 1", *s.PassRate)
	}
	want := []SkippedChecks{
		{Check: CheckSelectedAttempt, Reason: "pipeline declares no trace", Count: 1},
		{Check: CheckRerankTopSource, Reason: "pipeline declares no rerank", Count: 1},
	}
	if !slices.Equal(s.SkippedChecks, want) {
		t.Errorf("skippedChecks %+v, want %+v", s.SkippedChecks, want)
	}
	if n := s.SkippedCheckCount(); n != 2 {
		t.Errorf("SkippedCheckCount() = %d, want 2", n)
	}
	if !slices.Equal(s.SearchModes, []string{"bm25"}) {
		t.Errorf("searchModes %v", s.SearchModes)
	}
}

// A hand-written fixture without a pipeline of its own is judged with the
// manifest's declaration; one with its own pipeline by that.
func TestRunUsesManifestCapabilities(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(contract.ManifestName, `{"manifestVersion":1,"tool":"rag-snapshot","status":"available","searchMode":"hybrid","kbScope":"kb",
		"pipeline":{"name":"http","version":"","store":"x","embedder":"","dim":0,"capabilities":["evidenceStatus"]}}`)
	write("a.json", `{"caseId":"a","query":"q","lookupResult":{"found":true,"evidenceBlocks":[]}}`)
	write("b.json", `{"caseId":"b","query":"q","pipeline":{"name":"http","version":"","store":"x","embedder":"","dim":0},"lookupResult":{"found":true,"evidenceBlocks":[]}}`)
	g := &contract.GoldenFile{KBScope: "kb", Cases: []contract.Case{
		{CaseID: "a", Query: "q", ExpectedSelectedAttempt: contract.AttemptFiltered},
		{CaseID: "b", Query: "q", ExpectedSelectedAttempt: contract.AttemptFiltered},
	}}
	res, err := Run(g, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := res.Cases[0], res.Cases[1]; a.Status != StatusSkipped || b.Status != StatusFail {
		t.Errorf("statuses %s (%v) %s (%v), want skipped fail", a.Status, a.Checks, b.Status, b.Checks)
	}
	// b's pipeline disagrees with the manifest's on capabilities: warned.
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), "pipeline (capabilities)") {
		t.Errorf("warnings %v", res.Warnings)
	}
}

// A manifest declaring a capability no check knows (a typo) is warned of:
// the part it meant counts as lacking, so its checks are skipped.
func TestUnknownCapabilityWarned(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(contract.ManifestName, `{"manifestVersion":1,"tool":"rag-snapshot","status":"available","searchMode":"hybrid","kbScope":"kb",
		"pipeline":{"name":"http","version":"","store":"x","embedder":"","dim":0,"capabilities":["evidenceStatus","Trace"]}}`)
	write("a.json", `{"caseId":"a","query":"q","lookupResult":{"found":true,"evidenceBlocks":[]}}`)
	g := &contract.GoldenFile{KBScope: "kb", Cases: []contract.Case{
		{CaseID: "a", Query: "q", ExpectedSelectedAttempt: contract.AttemptFiltered},
	}}
	res, err := Run(g, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Cases[0]; a.Status != StatusSkipped {
		t.Errorf("status %s (%v), want skipped", a.Status, a.Checks)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Error(), `declares an unknown capability "Trace"`) {
		t.Errorf("warnings %v, want one naming the unknown capability", res.Warnings)
	}
}

// The checks a pipeline cannot be judged on are every check that needs a
// part it declares it lacks, in check order, with the skip reason. A
// pipeline that declares nothing, or everything, lacks none.
func TestUnjudgeableChecks(t *testing.T) {
	got := UnjudgeableChecks(&contract.Pipeline{Name: "http", Capabilities: []string{contract.CapEvidenceStatus, contract.CapBreadcrumb, contract.CapFallback}})
	want := []Unjudgeable{
		{CheckSelectedAttempt, "pipeline declares no trace"},
		{CheckContextSources, "pipeline declares no contextPack"},
		{CheckRerankTopSource, "pipeline declares no rerank"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("unjudgeable %v, want %v", got, want)
	}
	for _, p := range []*contract.Pipeline{nil, {Name: "builtin"}, {Name: "http", Capabilities: contract.Capabilities}} {
		if got := UnjudgeableChecks(p); got != nil {
			t.Errorf("pipeline %+v: unjudgeable %v, want none", p, got)
		}
	}
}
