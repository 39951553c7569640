package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// A case skipped on one side (its pipeline declares it lacks what the
// case's checks need) is no pair for the pass rate in any pair of that
// side, and every side says what it skipped and why.
func TestSkippedCaseIsNoPassRatePair(t *testing.T) {
	g := golden(3)
	all := func(int) bool { return true }
	left, mid, right := result(g, "l", all), result(g, "m", all), result(g, "r", all)
	reason := judge.SkipReason("trace")
	for _, res := range []*judge.Result{mid, right} {
		sk := &res.Cases[0]
		sk.Status = judge.StatusSkipped
		sk.Checks = []judge.Check{{Name: judge.CheckQuery, Passed: true}, {Name: judge.CheckSelectedAttempt, Skipped: true, Message: &reason}}
		sk.SkippedChecks = []string{judge.CheckSelectedAttempt}
	}
	r := Build(in, []Side{{Name: "builtin", Result: left}, {Name: "opensearch", Result: mid}, {Name: "bm25", Result: right}}, -1, 1)
	// Pairs (builtin, opensearch), (builtin, bm25), (opensearch, bm25).
	for k, want := range []int{2, 2, 2} {
		for _, m := range r.Pairs[k].Metrics {
			if m.Name != MetricPassRate {
				continue
			}
			if m.Pairs != want {
				t.Errorf("pair %s–%s passRate over %d pairs, want %d", r.Pairs[k].A, r.Pairs[k].B, m.Pairs, want)
			}
			if m.Delta == nil || *m.Delta != 0 {
				t.Errorf("pair %s–%s passRate delta %v, want 0", r.Pairs[k].A, r.Pairs[k].B, deref(m.Delta))
			}
		}
	}
	if n := r.Sides[2].Summary.SkippedCount; n != 1 {
		t.Errorf("bm25 side: skippedCount %d, want 1", n)
	}
	if sc := r.Cases[0].Sides[2].SkippedChecks; len(sc) == 0 || sc[0] != judge.CheckSelectedAttempt {
		t.Errorf("case 0, bm25 side: skippedChecks %q, want %s first", sc, judge.CheckSelectedAttempt)
	}
	if sc := r.Cases[0].Sides[0].SkippedChecks; sc != nil {
		t.Errorf("case 0, builtin side: skippedChecks %q, want null", sc)
	}
	var txt, md, js bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"opensearch", "bm25"} {
		want := side + ": 1 case skipped; 1 check skipped (selected_attempt 1: pipeline declares no trace)"
		if !strings.Contains(txt.String(), want+"\n") {
			t.Errorf("no %q in the text:\n%s", want, txt.String())
		}
		if !strings.Contains(md.String(), want+".\n") {
			t.Errorf("no %q in the Markdown:\n%s", want, md.String())
		}
	}
	// A side without skips gets no skipped line.
	if strings.Contains(txt.String(), "builtin: 0 case") {
		t.Errorf("a skipped line for builtin in the text:\n%s", txt.String())
	}
	if strings.Contains(md.String(), "builtin: 0 case") {
		t.Errorf("a skipped line for builtin in the Markdown:\n%s", md.String())
	}
	if n := strings.Count(js.String(), `"skippedCount": 1`); n != 2 {
		t.Errorf("%d sides with skippedCount 1 in the JSON, want 2", n)
	}
}

// Sides whose pipelines declare no trace: the sides table has no fallback
// rate column and the cases no selected attempt when no side can have
// them, and each such side says once which checks it cannot be judged on.
// A side that declares nothing keeps both. The JSON is the same either way.
func TestOmitsWhatNoSideHas(t *testing.T) {
	g := golden(2)
	all := func(int) bool { return true }
	noTrace := &contract.Manifest{Status: contract.StatusAvailable, Pipeline: &contract.Pipeline{Name: "http", Capabilities: []string{contract.CapContextPack, contract.CapRerank}}}
	side := func(name string, m *contract.Manifest) Side {
		res := result(g, name, all)
		res.Manifest = m
		return Side{Name: name, Fixtures: name, Result: res}
	}
	render := func(sides ...Side) (md, txt, js string) {
		r := Build(in, sides, -1, 1)
		var m, x, j bytes.Buffer
		if err := r.WriteMarkdown(&m); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteText(&x); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&j); err != nil {
			t.Fatal(err)
		}
		return m.String(), x.String(), j.String()
	}
	md, txt, js := render(side("bm25", noTrace), side("es", noTrace))
	want := "cannot be judged on: breadcrumbs (pipeline declares no breadcrumb), selected_attempt (pipeline declares no trace), " +
		"fallback_reason (pipeline declares no fallback), evidence_status (pipeline declares no evidenceStatus)"
	for _, name := range []string{"bm25", "es"} {
		if n := strings.Count(md, name+" "+want+"."); n != 1 {
			t.Errorf("markdown: %s's unjudgeable line %d times, want once:\n%s", name, n, md)
		}
		if n := strings.Count(txt, name+" "+want+"\n"); n != 1 {
			t.Errorf("text: %s's unjudgeable line %d times, want once:\n%s", name, n, txt)
		}
	}
	for _, bad := range []string{"fallback rate", "FILTERED_VECTOR"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown has %q:\n%s", bad, md)
		}
	}
	_, _, builtinJS := render(side("bm25", nil), side("es", nil))
	if js != builtinJS {
		t.Errorf("the JSON depends on the declaration:\n%s\nwithout:\n%s", js, builtinJS)
	}

	md, _, _ = render(side("builtin", nil), side("bm25", noTrace))
	for _, want := range []string{"| fallback rate |", "FILTERED_VECTOR", "bm25 " + want + "."} {
		if !strings.Contains(md, want) {
			t.Errorf("builtin beside bm25: markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "builtin cannot be judged") {
		t.Errorf("builtin beside bm25: builtin says it cannot be judged:\n%s", md)
	}
}

// A draft has no value of any metric: it is not judged, so it is no pair
// of the pass rate either.
func TestDraftHasNoValue(t *testing.T) {
	d := judge.CaseResult{CaseID: "q-1", Status: judge.StatusDraft}
	for _, m := range Metrics {
		if v, ok := Value(m, &d); ok {
			t.Errorf("Value(%s, draft) = %v, true; want no value", m, v)
		}
	}
	if _, ok := Value(MetricPassRate, &judge.CaseResult{Status: judge.StatusNotRun}); !ok {
		t.Error("Value(passRate, not_run) has no value, want 0")
	}
}
