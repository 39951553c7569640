package htmlreport

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/calibrate"
	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/metrics"
	"github.com/ragbaseline/ragbaseline/internal/report"
)

// Hostile strings: a report must show them as text.
const (
	hostileID      = `<img src=x onerror=alert(1)>`
	hostileExcerpt = `before <img src=x onerror=alert(1)> middle </script><script>alert(2)</script> after`
	hostileTag     = `"><img src=x onerror=alert(3)>`
)

func sp(s string) *string { return &s }
func ip(i int) *int       { return &i }
func fp(f float64) *contract.Float6 {
	v := contract.Float6(f)
	return &v
}

// testCases are five judged cases: a pass with two blocks and a trace, a
// failure, a failure whose id, tag, query and excerpt are markup, a case
// not run and a case skipped (its one check skipped).
func testCases() []judge.CaseResult {
	fallback := contract.FallbackLowQuality
	return []judge.CaseResult{
		{
			CaseID: "ok-1", Scenario: "chat", Tags: []string{"smoke"}, Query: "How do refunds work?", Status: judge.StatusPass, K: 5,
			HitLevel: sp(judge.HitStrong), FirstExpectedRank: ip(1),
			TopCandidates: []judge.Candidate{
				{Rank: 1, Source: "billing/refunds.md", DocID: "kb/billing/refunds.md", Breadcrumb: "Billing > Refunds", RelevanceLevel: "high", QualityScore: fp(0.71),
					Excerpt: "A Refund is issued within 14 days. Refunds go to the original card."},
				{Rank: 2, Source: "billing/invoices.md", DocID: "kb/billing/invoices.md", Breadcrumb: "Billing > Invoices", RelevanceLevel: "medium", QualityScore: fp(0.42),
					Excerpt: "Invoices are sent monthly."},
			},
			Checks: []judge.Check{{Name: "expectedSources", Passed: true}}, FailedChecks: []string{},
			SelectedAttempt: sp(contract.AttemptFiltered), EvidenceStatus: sp(contract.EvidenceSufficient), SearchMode: sp("hybrid"),
			Metrics: &judge.Metrics{ReciprocalRank: 1, NDCGAtK: 1, DocRecallAtK: 1, PrecisionAtK: 0.2},
			Case:    &contract.Case{CaseID: "ok-1", ExpectedSources: []string{"billing/refunds.md"}, ExpectedKeywords: []string{"refund"}},
			Trace: &contract.RetrievalTrace{SelectedAttempt: contract.AttemptFiltered, Attempts: []contract.Attempt{
				{Name: contract.AttemptFiltered, Filter: contract.Filter{KBScope: "kb", Categories: []string{"billing"}}, Candidates: 8, BestQuality: 0.71, LatencyMs: 3},
			}},
		},
		{
			CaseID: "bad-2", Scenario: "chat", Tags: []string{"fallback"}, Query: "Where is the VPN guide?", Status: judge.StatusFail, K: 5,
			HitLevel: sp(judge.HitMiss), TopCandidates: []judge.Candidate{
				{Rank: 1, Source: "it/printers.md", DocID: "kb/it/printers.md", Breadcrumb: "IT > Printers", RelevanceLevel: "low", QualityScore: fp(0.2), Excerpt: "Printers on floor 2."},
			},
			Checks:       []judge.Check{{Name: "expectedSources", Passed: false, Message: sp("no block from it/vpn.md in the top 5")}},
			FailedChecks: []string{"expectedSources"}, SelectedAttempt: sp(contract.AttemptUnfilteredRetry), FallbackReason: &fallback,
			Metrics: &judge.Metrics{},
			Trace: &contract.RetrievalTrace{SelectedAttempt: contract.AttemptUnfilteredRetry, FallbackReason: &fallback, Attempts: []contract.Attempt{
				{Name: contract.AttemptFiltered, Filter: contract.Filter{KBScope: "kb", Categories: []string{"it"}}, Candidates: 2, BestQuality: 0.1, LowQuality: true},
				{Name: contract.AttemptUnfilteredRetry, Filter: contract.Filter{KBScope: "kb"}, Candidates: 8, BestQuality: 0.2},
			}},
		},
		{
			CaseID: hostileID, Scenario: "</script><script>alert(4)</script>", Tags: []string{hostileTag}, Query: hostileExcerpt, Status: judge.StatusFail, K: 5,
			HitLevel: sp(judge.HitWeak), FirstExpectedRank: ip(2), TopCandidates: []judge.Candidate{
				{Rank: 1, Source: hostileID, DocID: "kb/x", Breadcrumb: hostileTag, RelevanceLevel: "low", QualityScore: fp(0.3), Excerpt: hostileExcerpt},
			},
			Checks:       []judge.Check{{Name: "expectedKeywords", Passed: false, Message: sp(hostileExcerpt)}},
			FailedChecks: []string{"expectedKeywords"},
			Case:         &contract.Case{CaseID: hostileID, ExpectedKeywords: []string{"<script>"}},
		},
		{
			CaseID: "nr-4", Scenario: "aiops", Tags: []string{}, Query: "Restart the queue", Status: judge.StatusNotRun, K: 5,
			Reason: sp("no fixture at fixtures/nr-4.json"), TopCandidates: []judge.Candidate{}, Checks: []judge.Check{}, FailedChecks: []string{},
		},
		{
			CaseID: "skip-5", Scenario: "aiops", Tags: []string{}, Query: "Which attempt answered?", Status: judge.StatusSkipped, K: 5,
			TopCandidates: []judge.Candidate{},
			Checks: []judge.Check{{Name: "query", Passed: true},
				{Name: "selected_attempt", Skipped: true, Message: sp("pipeline declares no trace")}},
			FailedChecks: []string{}, SkippedChecks: []string{"selected_attempt"},
		},
	}
}

// testReports are the current report of testCases and its diff against a
// baseline in which bad-2 passed and a case since removed existed.
func testReports() (*report.Report, *report.Diff) {
	res := &judge.Result{Golden: &contract.GoldenFile{}, Fixtures: "fixtures", Cases: testCases()}
	cur := report.Build(res, "cases.json", "0123456789abcdef")
	base := report.Build(&judge.Result{Golden: &contract.GoldenFile{}, Fixtures: "fixtures", Cases: testCases()}, "cases.json", "0123456789abcdef")
	b := &base.Cases[1]
	b.Status, b.HitLevel, b.FirstExpectedRank, b.FailedChecks = judge.StatusPass, sp(judge.HitStrong), ip(1), []string{}
	base.Cases = append(base.Cases, judge.CaseResult{CaseID: "gone-5", Scenario: "chat", Status: judge.StatusPass, Tags: []string{}})
	return cur, report.Compare(base, cur, "baseline.json", "current.json")
}

// shippedSet is the shipped eval set's golden file.
func shippedSet(t testing.TB) (*contract.GoldenFile, string, string) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "eval", "rag-retrieval")
	path := filepath.Join(dir, "cases", "golden-cases.json")
	g, sum, err := cmdutil.LoadCases(path)
	if err != nil {
		t.Fatal(err)
	}
	return g, sum, dir
}

// shippedCalibration calibrates the shipped hybrid and dense fixtures.
func shippedCalibration(t testing.TB) *calibrate.Report {
	g, sum, dir := shippedSet(t)
	var ins []calibrate.Input
	for _, d := range []string{"fixtures", "fixtures-dense"} {
		in, err := calibrate.Load(g, filepath.Join(dir, d), 0)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	return calibrate.Build("cases.json", sum, g.ReportK(0), ins)
}

// shippedComparison compares the shipped hybrid, dense and local-hash-v1
// fixtures, every pair, with their evidence.
func shippedComparison(t testing.TB) *compare.Report {
	g, sum, dir := shippedSet(t)
	opts := judge.Options{Evidence: true}
	var sides []compare.Side
	for _, s := range []struct{ name, dir string }{{"hybrid", "fixtures"}, {"dense", "fixtures-dense"}, {"local-hash-v1", "fixtures-local"}} {
		side, err := compare.LoadSide(s.name, filepath.Join(dir, s.dir), g, opts)
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, side)
	}
	return compare.Build(compare.Inputs{Cases: "cases.json", CasesSHA256: sum, K: g.ReportK(0)}, sides, -1, 0)
}

// hostileRun is a run name (a TREC tag, which has no white space) that is
// markup.
const hostileRun = `<script>alert(5)</script>`

// testTrecReport compares three small TREC runs on map and P.2, every
// pair. The third run's name is markup.
func testTrecReport(t testing.TB) *compare.TrecReport {
	t.Helper()
	qrels, err := metrics.ReadQrels(strings.NewReader("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\nq2 0 d5 1\nq3 0 d6 1\nq3 0 d7 0\nq4 0 d8 1\n"), "qrels.txt")
	if err != nil {
		t.Fatal(err)
	}
	opts := metrics.DefaultOptions("map", "P.2")
	var runs []compare.TrecRun
	for _, r := range []struct{ name, text string }{
		{"bm25", "q1 Q0 d1 1 3 x\nq1 Q0 d2 2 2 x\nq1 Q0 d3 3 1 x\nq2 Q0 d9 1 2 x\nq2 Q0 d4 2 1 x\nq3 Q0 d6 1 1 x\nq4 Q0 d8 1 1 x\n"},
		{"dense", "q1 Q0 d3 1 3 x\nq1 Q0 d1 2 2 x\nq2 Q0 d4 1 2 x\nq2 Q0 d5 2 1 x\nq3 Q0 d7 1 2 x\nq3 Q0 d6 2 1 x\n"},
		{hostileRun, "q1 Q0 d2 1 3 x\nq2 Q0 d9 1 2 x\nq3 Q0 d7 1 2 x\nq4 Q0 d1 1 1 x\n"},
	} {
		run, err := metrics.ReadRun(strings.NewReader(r.text), r.name+".run")
		if err != nil {
			t.Fatal(err)
		}
		res, err := metrics.Eval(opts, qrels, run)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, compare.TrecRun{Name: r.name, Path: r.name + ".run", SHA256: "0123456789abcdef0123", Result: res})
	}
	rep, err := compare.BuildTrec(compare.TrecInputs{Qrels: "qrels.txt", QrelsSHA256: "fedcba9876543210", Measures: []string{"map", "P.2"}, RelLevel: 1}, qrels, runs, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
