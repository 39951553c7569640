package compare

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// result builds a judged result over cases c0…cn-1. hit(i) says whether
// case i found its document first, strong at rank 1, or missed it.
func result(g *contract.GoldenFile, dir string, hit func(i int) bool) *judge.Result {
	r := &judge.Result{Golden: g, Fixtures: dir}
	attempt := "FILTERED_VECTOR"
	for i := range g.Cases {
		gc := &g.Cases[i]
		c := judge.CaseResult{CaseID: gc.CaseID, Scenario: gc.Scenario, Tags: []string{}, Query: gc.Query, Case: gc,
			K: 5, Status: judge.StatusPass, SelectedAttempt: &attempt, Checks: []judge.Check{}, FailedChecks: []string{}}
		src := gc.ExpectedSources[0]
		if hit(i) {
			c.HitLevel, c.FirstExpectedRank = ptr(judge.HitStrong), ptr(1)
			c.Metrics = &judge.Metrics{ReciprocalRank: 1, NDCGAtK: 1, DocRecallAtK: 1, PrecisionAtK: 0.2}
			c.TopCandidates = []judge.Candidate{{Rank: 1, Source: src, Breadcrumb: "A > B", Category: "db", ScoreLabel: "RRF", RelevanceLevel: "high"}}
		} else {
			c.Status, c.HitLevel = judge.StatusFail, ptr(judge.HitMiss)
			c.Checks = []judge.Check{{Name: judge.CheckExpectedDoc, Message: ptr("no")}}
			c.FailedChecks = []string{judge.CheckExpectedDoc}
			c.Metrics = &judge.Metrics{}
			c.TopCandidates = []judge.Candidate{{Rank: 1, Source: "other", Breadcrumb: "X", Category: "ops", ScoreLabel: "RRF", RelevanceLevel: "low"}}
		}
		r.Cases = append(r.Cases, c)
	}
	return r
}

func ptr[T any](v T) *T { return &v }

func golden(n int) *contract.GoldenFile {
	g := &contract.GoldenFile{Version: 1, KBScope: "rag-eval"}
	for i := range n {
		g.Cases = append(g.Cases, contract.Case{CaseID: "c" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Scenario: "chat", Query: "q", ExpectedSources: []string{"doc"}})
	}
	return g
}

var in = Inputs{Cases: "cases.json", CasesSHA256: "00", K: 5}

func metricByName(r *Report, name string) Metric {
	for _, m := range r.Pairs[0].Metrics {
		if m.Name == name {
			return m
		}
	}
	panic(name)
}

func TestIdenticalSides(t *testing.T) {
	g := golden(20)
	res := result(g, "f", func(i int) bool { return i%3 != 0 })
	r := Build(in, []Side{Side{Name: "hybrid", Fixtures: "f", Result: res}, Side{Name: "dense", Fixtures: "f", Result: res}}, -1, 1)
	if len(r.Pairs[0].Metrics) != len(Metrics) {
		t.Fatalf("%d metrics", len(r.Pairs[0].Metrics))
	}
	for _, m := range r.Pairs[0].Metrics {
		if m.Delta == nil || *m.Delta != 0 || m.PValue == nil || *m.PValue != 1 || m.CI95 == nil || m.CI95[0] != 0 || m.CI95[1] != 0 || m.Pairs != 20 {
			t.Errorf("%s: %+v, want delta 0, p 1, CI [0,0], 20 pairs", m.Name, m)
		}
	}
	for _, c := range r.Cases {
		if len(c.Differences[0]) != 0 {
			t.Errorf("%s: differences %v on identical sides", c.CaseID, c.Differences[0])
		}
	}
}

func TestShiftDetectedAndDeterministic(t *testing.T) {
	g := golden(40)
	left := result(g, "l", func(i int) bool { return i%10 != 0 }) // 36 of 40
	right := result(g, "r", func(i int) bool { return i%2 == 0 }) // 20 of 40
	build := func() []byte {
		var b bytes.Buffer
		if err := Build(in, []Side{Side{Name: "hybrid", Fixtures: "l", Result: left}, Side{Name: "dense", Fixtures: "r", Result: right}}, -1, 1).WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	r := Build(in, []Side{Side{Name: "hybrid", Fixtures: "l", Result: left}, Side{Name: "dense", Fixtures: "r", Result: right}}, -1, 1)
	m := metricByName(r, MetricRecallAtK)
	if *m.A != 0.9 || *m.B != 0.5 || *m.Delta != 0.4 || m.Pairs != 40 {
		t.Fatalf("recallAtK %+v: want 0.9 vs 0.5, delta 0.4 over 40 pairs", m)
	}
	if *m.PValue >= 0.05 || m.CI95[0] > *m.Delta || *m.Delta > m.CI95[1] || m.CI95[0] <= 0 {
		t.Fatalf("recallAtK p %v CI %v: want p < 0.05 and an interval above 0 containing 0.4", *m.PValue, *m.CI95)
	}
	if pr := metricByName(r, MetricPassRate); *pr.Delta != 0.4 {
		t.Errorf("passRate delta %v", *pr.Delta)
	}
	// Case 1 hits on the left, misses on the right.
	want := []string{DiffSource, DiffBreadcrumb, DiffCategory, DiffRank, DiffRelevanceLevel, DiffHitLevel}
	if got := r.Cases[1].Differences[0]; !slices.Equal(got, want) {
		t.Errorf("case 1 differences %v, want %v", got, want)
	}
	if got := r.Cases[2].Differences[0]; len(got) != 0 {
		t.Errorf("case 2 hits on both sides, differences %v", got)
	}
	if a, b := build(), build(); !bytes.Equal(a, b) {
		t.Fatal("two builds of the same comparison give different bytes")
	}
	var md1, md2 bytes.Buffer
	r.WriteMarkdown(&md1)
	Build(in, []Side{Side{Name: "hybrid", Fixtures: "l", Result: left}, Side{Name: "dense", Fixtures: "r", Result: right}}, -1, 1).WriteMarkdown(&md2)
	if !bytes.Equal(md1.Bytes(), md2.Bytes()) || !bytes.Contains(md1.Bytes(), []byte("| recall@K | 0.9 | 0.5 | **+0.4** |")) {
		t.Fatalf("markdown not deterministic or lacks the recall row:\n%s", md1.String())
	}
}

func TestUnavailableSideKeepsTheOther(t *testing.T) {
	g := golden(10)
	left := result(g, "l", func(i int) bool { return i < 7 })
	r := Build(in, []Side{Side{Name: "current", Fixtures: "l", Result: left}, Side{Name: "sidecar", Fixtures: "s", Reason: "sidecar unreachable: connection refused"}}, -1, 1)
	if r.Sides[1].Status != Unavailable || r.Sides[1].Reason == nil || *r.Sides[1].Reason != "sidecar unreachable: connection refused" || r.Sides[1].Summary != nil {
		t.Fatalf("right side %+v", r.Sides[1])
	}
	if r.Sides[0].Status != Available || r.Sides[0].Summary == nil || r.Sides[0].Summary.PassCount != 7 || r.Sides[0].Reason != nil {
		t.Fatalf("left side %+v", r.Sides[0])
	}
	for _, m := range r.Pairs[0].Metrics {
		if m.B != nil || m.Delta != nil || m.CI95 != nil || m.PValue != nil || m.Pairs != 0 {
			t.Errorf("%s: statistics with an unavailable side: %+v", m.Name, m)
		}
	}
	if m := metricByName(r, MetricRecallAtK); m.A == nil || *m.A != 0.7 {
		t.Errorf("left recallAtK %v, want 0.7", m.A)
	}
	if len(r.Cases) != 10 || r.Cases[0].Sides[0] == nil || r.Cases[0].Sides[1] != nil || len(r.Cases[0].Sides[0].TopCandidates) != 1 {
		t.Fatalf("cases: %+v", r.Cases[0])
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"status": "unavailable",`)) || !bytes.Contains(b.Bytes(), []byte("        },\n        null\n      ],")) {
		t.Fatalf("JSON lacks the unavailable side:\n%s", b.String()[:min(b.Len(), 2000)])
	}
}

func TestNotRunCasesArePairedOnlyForPassRate(t *testing.T) {
	g := golden(4)
	left := result(g, "l", func(int) bool { return true })
	right := result(g, "r", func(int) bool { return true })
	right.Cases[0] = judge.CaseResult{CaseID: g.Cases[0].CaseID, Case: &g.Cases[0], K: 5, Status: judge.StatusNotRun, Reason: ptr("no fixture"),
		TopCandidates: []judge.Candidate{}, Checks: []judge.Check{}, FailedChecks: []string{}}
	r := Build(in, []Side{Side{Name: "a", Result: left}, Side{Name: "b", Result: right}}, -1, 1)
	if m := metricByName(r, MetricMRR); m.Pairs != 3 || *m.Delta != 0 {
		t.Errorf("mrr: %+v, want 3 pairs and delta 0", m)
	}
	if m := metricByName(r, MetricPassRate); m.Pairs != 4 || *m.Delta != 0.25 {
		t.Errorf("passRate: %+v, want 4 pairs and delta 0.25", m)
	}
	if d := r.Cases[0].Differences[0]; !slices.Contains(d, DiffHitLevel) || !slices.Contains(d, DiffSource) {
		t.Errorf("not_run vs pass differences %v", d)
	}
}

func TestScoreLabelOnlyIsCountedApart(t *testing.T) {
	g := golden(3)
	left := result(g, "l", func(int) bool { return true })
	right := result(g, "r", func(i int) bool { return i != 2 })
	right.Cases[0].TopCandidates[0].ScoreLabel = "COSINE"
	r := Build(in, []Side{Side{Name: "hybrid", Result: left}, Side{Name: "dense", Result: right}}, -1, 1)
	if d := r.Cases[0].Differences[0]; !slices.Equal(d, []string{DiffScoreLabel}) || r.Cases[0].Substantive(0) {
		t.Fatalf("case 0: differences %v, substantive %v", d, r.Cases[0].Substantive(0))
	}
	if sub, label := r.Differing(0); sub != 1 || label != 1 {
		t.Fatalf("Differing = %d, %d; want 1, 1", sub, label)
	}
	var md, txt bytes.Buffer
	r.WriteMarkdown(&md)
	r.WriteText(&txt)
	if !bytes.Contains(md.Bytes(), []byte("1 of 3 cases differ in content or order; 1 more differ only in scoreLabel.")) ||
		bytes.Contains(md.Bytes(), []byte("#### caa\n")) || !bytes.Contains(md.Bytes(), []byte("#### cca\n")) {
		t.Errorf("markdown:\n%s", md.String())
	}
	if !bytes.Contains(txt.Bytes(), []byte("hybrid vs dense: 1 of 3 cases differ in content or order; 1 more differ only in scoreLabel.\n")) {
		t.Errorf("text:\n%s", txt.String())
	}
}

func TestValueOfEveryHitLevel(t *testing.T) {
	for _, c := range []struct {
		level string
		want  float64
		ok    bool
	}{{judge.HitStrong, 1, true}, {judge.HitMedium, 1, true}, {judge.HitWeak, 0, true}, {judge.HitMiss, 0, true}, {judge.HitNA, 0, false}, {"", 0, false}} {
		cr := judge.CaseResult{Status: judge.StatusFail, HitLevel: &c.level}
		if c.level == "" {
			cr.HitLevel = nil
		}
		if v, ok := Value(MetricRecallAtK, &cr); v != c.want || ok != c.ok {
			t.Errorf("recallAtK of %q = %v, %v; want %v, %v", c.level, v, ok, c.want, c.ok)
		}
	}
	for _, s := range []judge.Status{judge.StatusFail, judge.StatusNotRun, judge.StatusError} {
		if v, ok := Value(MetricPassRate, &judge.CaseResult{Status: s}); v != 0 || !ok {
			t.Errorf("passRate of %s = %v, %v", s, v, ok)
		}
	}
	if _, ok := Value(MetricMRR, &judge.CaseResult{Status: judge.StatusPass, HitLevel: ptr(judge.HitNA)}); ok {
		t.Error("an n/a case has an mrr value")
	}
}

func TestMarkdownEscapesUserText(t *testing.T) {
	g := golden(1)
	g.Cases[0].CaseID, g.Cases[0].Query = "id|<b>", "q|x\n<script>"
	left := result(g, "l|x", func(int) bool { return true })
	right := result(g, "r", func(int) bool { return false })
	left.Cases[0].TopCandidates[0].Source = "s|<i>"
	left.Cases[0].TopCandidates[0].Breadcrumb = "A > B|\nC"
	var b bytes.Buffer
	if err := Build(in, []Side{Side{Name: "h|<u>", Fixtures: "l|x", Result: left}, Side{Name: "d", Fixtures: "r", Result: right}}, -1, 1).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"<b>", "<script>", "<i>", "<u>", "s|", "B|", "id|", "h|", "l|x"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown contains raw %q:\n%s", bad, md)
		}
	}
	for _, want := range []string{`#### id\|&lt;b&gt;`, `Query: q\|x<br>&lt;script&gt;`, `**s\|&lt;i&gt;**`, "`l\\|x`", `h\|&lt;u&gt;`} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}
