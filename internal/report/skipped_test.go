package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// skippedResult judges testdata/skipset: fixtures of an http pipeline that
// declares only contextPack, with a case that passes on its run checks, one
// whose every check is skipped, one that fails beside skipped checks, and
// one whose declared part is absent ("fixture lacks").
func skippedResult(t *testing.T) *judge.Result { return judgeSet(t, "testdata/skipset") }

// judgeSet judges the test eval set in dir: its golden-cases.json against
// its fixtures.
func judgeSet(t *testing.T, dir string) *judge.Result {
	t.Helper()
	path := dir + "/golden-cases.json"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := contract.ParseGolden(path, data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := judge.Run(g, dir+"/fixtures", judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Every format shows the skipped checks: golden files.
func TestReportSkippedGolden(t *testing.T) {
	rep := Build(skippedResult(t), "testdata/skipset/golden-cases.json", "0123456789abcdef")
	rep.Inputs.Snapshot = SnapshotOf(skippedResult(t).Manifest)
	s := rep.Summary
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("passCount", s.PassCount, 1)
	check("skippedCount", s.SkippedCount, 1)
	check("failCount", s.FailCount, 2)
	check("SkippedCheckCount()", s.SkippedCheckCount(), 5)
	if t.Failed() {
		t.FailNow()
	}
	golden(t, "skipped.json", render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) }))
	golden(t, "skipped.md", render(t, func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }))
	golden(t, "skipped.junit.xml", render(t, func(b *bytes.Buffer) error { return rep.WriteJUnit(b) }))
	golden(t, "skipped.txt", render(t, func(b *bytes.Buffer) error { return rep.WriteText(b, false) }))
	golden(t, "skipped-summary.md", render(t, func(b *bytes.Buffer) error { return rep.WriteSummaryMarkdown(b, nil) }))

	// The JSON report reads back with its skipped checks.
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	check("read back: summary.skippedCount", back.Summary.SkippedCount, 1)
	if sc := back.Cases[1].SkippedChecks; len(sc) != 2 {
		t.Errorf("read back: case 1 skippedChecks %q, want 2", sc)
	}
	check("read back: case 1 check 1 skipped", back.Cases[1].Checks[1].Skipped, true)
}

// A check that passed in the baseline and is skipped now is a regression
// that names the check and the reason. The JUnit of the run marks it.
func TestDiffLostCheck(t *testing.T) {
	cur := Build(skippedResult(t), "c.json", "x")
	// The baseline: the same run when the pipeline still produced a trace
	// and breadcrumbs, and both checks passed.
	var buf bytes.Buffer
	if err := cur.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	base, err := ReadJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	c := &base.Cases[0]
	for i := range c.Checks {
		c.Checks[i] = judge.Check{Name: c.Checks[i].Name, Passed: true}
	}
	c.SkippedChecks = nil
	d := Compare(base, cur, "baseline.json", "current.json")
	if !d.Regressed() {
		t.Fatalf("verdict %s, want regression", d.Verdict)
	}
	want := "case pass-with-skips regressed: check breadcrumbs passed → skipped (pipeline declares no breadcrumb); check selected_attempt passed → skipped (pipeline declares no trace)"
	if len(d.Regressions) != 1 || d.Regressions[0] != want {
		t.Errorf("regressions %q\nwant %q", d.Regressions, want)
	}
	golden(t, "skipped-diff.md", render(t, func(b *bytes.Buffer) error { return d.WriteMarkdown(b) }))
	junit := render(t, func(b *bytes.Buffer) error { return cur.WriteJUnitDiff(b, d) })
	for _, want := range []string{`type="regression"`, "passed → skipped"} {
		if !bytes.Contains(junit, []byte(want)) {
			t.Errorf("junit lacks %s:\n%s", want, junit)
		}
	}
}

// A changed declaration is an input change the diff names.
func TestDiffDeclarationIsAnInput(t *testing.T) {
	res := skippedResult(t)
	cur := Build(res, "c.json", "x")
	cur.Inputs.Snapshot = SnapshotOf(res.Manifest)
	base := Build(res, "c.json", "x")
	p := *res.Manifest.Pipeline
	p.SearchMode, p.Capabilities = "", nil
	base.Inputs.Snapshot = &Snapshot{SearchMode: "hybrid", KBScope: "kb", Pipeline: &p}
	got := strings.Join(Compare(base, cur, "b", "c").InputLines(), "; ")
	if want := `declared capabilities null → ["contextPack"]; declared search mode null → bm25`; got != want {
		t.Errorf("input lines %q, want %q", got, want)
	}
}

// A pipeline that declares it lacks the trace, the fallback, the rerank
// trace, the evidence status and the scores: every format leaves out their
// rows and columns, and says once which checks it cannot be judged on. The
// same run without the declaration keeps them all.
func TestOmitsWhatThePipelineLacks(t *testing.T) {
	res := skippedResult(t)
	rep := Build(res, "testdata/skipset/golden-cases.json", "0123456789abcdef")
	rep.Inputs.Snapshot = SnapshotOf(res.Manifest)
	formats := func(rep *Report) map[string]string {
		out := map[string]string{}
		out["markdown"] = string(render(t, func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }))
		out["text"] = string(render(t, func(b *bytes.Buffer) error { return rep.WriteText(b, false) }))
		out["junit"] = string(render(t, func(b *bytes.Buffer) error { return rep.WriteJUnit(b) }))
		out["summary"] = string(render(t, func(b *bytes.Buffer) error { return rep.WriteSummaryMarkdown(b, nil) }))
		return out
	}
	const line = "Checks this pipeline cannot be judged on: breadcrumbs (pipeline declares no breadcrumb), selected_attempt (pipeline declares no trace), " +
		"fallback_reason (pipeline declares no fallback), evidence_status (pipeline declares no evidenceStatus), rerank_top_source (pipeline declares no rerank)."
	gone := []string{"fallback rate", "selected attempt", "evidence status", "relevance levels", "FILTERED_VECTOR", "requested"}
	for name, out := range formats(rep) {
		if n := strings.Count(out, line); n != 1 {
			t.Errorf("%s: the unjudgeable line %d times, want once:\n%s", name, n, out)
		}
		for _, bad := range gone {
			if strings.Contains(out, bad) {
				t.Errorf("%s: has %q:\n%s", name, bad, out)
			}
		}
	}

	// Undeclared: every part can be there, and nothing is said.
	p := *res.Manifest.Pipeline
	p.Capabilities = nil
	rep.Inputs.Snapshot.Pipeline = &p
	out := formats(rep)
	for name, o := range out {
		if strings.Contains(o, "cannot be judged") {
			t.Errorf("undeclared, %s: says what cannot be judged:\n%s", name, o)
		}
	}
	for _, want := range []string{"| fallback rate | 0 |", "| selected attempt |", "| evidence status |", "| relevance levels (top K) |", "nDCG@K | fallback rate |"} {
		if !strings.Contains(out["markdown"], want) {
			t.Errorf("undeclared, markdown: lacks %q", want)
		}
	}
	if !strings.Contains(out["text"], "  fallback rate 0\n") {
		t.Errorf("undeclared, text: lacks the fallback rate:\n%s", out["text"])
	}
}
