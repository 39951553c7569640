package htmlreport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report"
)

// draftReport is the report of testCases with two drafts: one with a
// block, one without a fixture.
func draftReport(t testing.TB) []byte {
	t.Helper()
	cases := append(testCases(),
		judge.CaseResult{
			CaseID: "q-0123456789", Scenario: "chat", Tags: []string{"from-log"}, Query: "how do refunds work", Status: judge.StatusDraft, K: 5,
			TopCandidates: []judge.Candidate{{Rank: 1, Source: "billing/refunds.md", DocID: "kb/billing/refunds.md", Excerpt: "A Refund is issued within 14 days."}},
			Checks:        []judge.Check{}, FailedChecks: []string{},
		},
		judge.CaseResult{
			CaseID: "q-abcdef0123", Scenario: "chat", Tags: []string{}, Query: "vpn down", Status: judge.StatusDraft, K: 5,
			Reason: sp("no fixture at fixtures/q-abcdef0123.json"), TopCandidates: []judge.Candidate{}, Checks: []judge.Check{}, FailedChecks: []string{},
		})
	rep := report.Build(&judge.Result{Golden: &contract.GoldenFile{}, Fixtures: "fixtures", Cases: cases}, "cases.json", "0123456789abcdef")
	var b bytes.Buffer
	if err := Judge(&b, rep, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A draft has its own badge, filter option, figure, bar segment and group
// column; its reason is no failure. A page without drafts says nothing of
// them.
func TestJudgeDrafts(t *testing.T) {
	page := string(draftReport(t))
	for _, want := range []string{
		`<span class="badge s-draft">draft</span>`,
		`<option value="draft">draft</option>`,
		`<div class="l">drafts (not judged)</div>`,
		`<title>draft 2</title>`,
		`<th class="num">drafts</th>`,
		`<p class="muted"><b>Reason:</b> no fixture at fixtures/q-abcdef0123.json</p>`,
		`A draft: not judged, and in no rate or gate, until it is assessed.`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, `<p class="check-fail"><b>Reason:</b> no fixture at fixtures/q-abcdef0123.json`) {
		t.Error("a draft's reason is shown as a failure")
	}
	if want := `<div class="v">0.25</div><div class="l">pass rate</div>`; !strings.Contains(page, want) {
		t.Errorf("the page lacks %s: 1 pass of the 4 cases neither skipped nor drafts", want)
	}
	// The stylesheet names the badge's class on every page, and nothing
	// else may.
	css := ".s-draft{"
	for name, b := range renders(t) {
		if name != "judge" && name != "judge+diff" {
			continue
		}
		if n := strings.Count(strings.ToLower(string(b)), "draft"); n != strings.Count(string(b), css) {
			t.Errorf("%s: a page without drafts mentions drafts %d times besides the stylesheet", name, n-strings.Count(string(b), css))
		}
	}
}

// In the browser, the status filter shows the drafts alone.
func TestBrowserJudgeDrafts(t *testing.T) {
	tb := open(t, draftReport(t), false)
	tb.mustEval(fmt.Sprintf(`(() => { const s = document.querySelector("#filters [name=status]"); s.value = %s; s.dispatchEvent(new Event("change", {bubbles: true})); return true })()`, jsString("draft")), nil)
	var ids []string
	tb.mustEval(visibleCases, &ids)
	if want := []string{"q-0123456789", "q-abcdef0123"}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("status draft shows %q, want %q", ids, want)
	}
}
