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
	// num reports a metric's number that is null or not want.
	num := func(name string, got *contract.Float6, want float64) {
		t.Helper()
		if got == nil {
			t.Errorf("%s null, want %v", name, want)
		} else if float64(*got) != want {
			t.Errorf("%s %v, want %v", name, *got, want)
		}
	}
	for _, m := range r.Pairs[0].Metrics {
		num(m.Name+": delta", m.Delta, 0)
		num(m.Name+": pValue", m.PValue, 1)
		if m.CI95 == nil {
			t.Errorf("%s: ci95 null, want [0, 0]", m.Name)
		} else if *m.CI95 != [2]contract.Float6{0, 0} {
			t.Errorf("%s: ci95 %v, want [0, 0]", m.Name, *m.CI95)
		}
		if m.Pairs != 20 {
			t.Errorf("%s: %d pairs, want 20", m.Name, m.Pairs)
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
	// num reports a metric's number that is null or not want.
	num := func(name string, got *contract.Float6, want float64) {
		t.Helper()
		if got == nil {
			t.Errorf("%s null, want %v", name, want)
		} else if float64(*got) != want {
			t.Errorf("%s %v, want %v", name, *got, want)
		}
	}
	num("recallAtK a", m.A, 0.9)
	num("recallAtK b", m.B, 0.5)
	num("recallAtK delta", m.Delta, 0.4)
	if m.Pairs != 40 {
		t.Errorf("recallAtK over %d pairs, want 40", m.Pairs)
	}
	if t.Failed() {
		t.FailNow()
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
	if !bytes.Equal(md1.Bytes(), md2.Bytes()) {
		t.Fatalf("markdown not deterministic:\n%s\nthen\n%s", md1.String(), md2.String())
	}
	if want := "| recall@K | 0.9 | 0.5 | **+0.4** |"; !bytes.Contains(md1.Bytes(), []byte(want)) {
		t.Fatalf("markdown lacks the recall row %s:\n%s", want, md1.String())
	}
}

func TestUnavailableSideKeepsTheOther(t *testing.T) {
	g := golden(10)
	left := result(g, "l", func(i int) bool { return i < 7 })
	r := Build(in, []Side{Side{Name: "current", Fixtures: "l", Result: left}, Side{Name: "sidecar", Fixtures: "s", Reason: "sidecar unreachable: connection refused"}}, -1, 1)
	right := r.Sides[1]
	if right.Status != Unavailable {
		t.Fatalf("right side status %s, want %s", right.Status, Unavailable)
	}
	if want := "sidecar unreachable: connection refused"; right.Reason == nil {
		t.Fatalf("right side reason null, want %q", want)
	} else if *right.Reason != want {
		t.Fatalf("right side reason %q, want %q", *right.Reason, want)
	}
	if right.Summary != nil {
		t.Fatalf("right side summary %+v, want null", *right.Summary)
	}
	left0 := r.Sides[0]
	if left0.Status != Available {
		t.Fatalf("left side status %s, want %s", left0.Status, Available)
	}
	if left0.Summary == nil || left0.Summary.PassCount != 7 {
		t.Fatalf("left side summary %+v, want passCount 7", left0.Summary)
	}
	if left0.Reason != nil {
		t.Fatalf("left side reason %q, want null", *left0.Reason)
	}
	// No statistics with an unavailable side.
	for _, m := range r.Pairs[0].Metrics {
		for _, f := range []struct {
			name string
			v    *contract.Float6
		}{{"b", m.B}, {"delta", m.Delta}, {"pValue", m.PValue}} {
			if f.v != nil {
				t.Errorf("%s: %s %v, want null", m.Name, f.name, *f.v)
			}
		}
		if m.CI95 != nil {
			t.Errorf("%s: ci95 %v, want null", m.Name, *m.CI95)
		}
		if m.Pairs != 0 {
			t.Errorf("%s: %d pairs, want 0", m.Name, m.Pairs)
		}
	}
	if m := metricByName(r, MetricRecallAtK); m.A == nil || *m.A != 0.7 {
		t.Errorf("left recallAtK %v, want 0.7", m.A)
	}
	if len(r.Cases) != 10 {
		t.Fatalf("%d cases, want 10", len(r.Cases))
	}
	c0 := r.Cases[0]
	if c0.Sides[0] == nil {
		t.Fatal("case 0: no left side")
	}
	if c0.Sides[1] != nil {
		t.Fatalf("case 0: right side %+v, want null", *c0.Sides[1])
	}
	if n := len(c0.Sides[0].TopCandidates); n != 1 {
		t.Fatalf("case 0: left side with %d top candidates, want 1", n)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"status": "unavailable",`, "        },\n        null\n      ],"} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Fatalf("JSON lacks the unavailable side's %q:\n%s", want, b.String()[:min(b.Len(), 2000)])
		}
	}
}

func TestNotRunCasesArePairedOnlyForPassRate(t *testing.T) {
	g := golden(4)
	left := result(g, "l", func(int) bool { return true })
	right := result(g, "r", func(int) bool { return true })
	right.Cases[0] = judge.CaseResult{CaseID: g.Cases[0].CaseID, Case: &g.Cases[0], K: 5, Status: judge.StatusNotRun, Reason: ptr("no fixture"),
		TopCandidates: []judge.Candidate{}, Checks: []judge.Check{}, FailedChecks: []string{}}
	r := Build(in, []Side{Side{Name: "a", Result: left}, Side{Name: "b", Result: right}}, -1, 1)
	// num reports a metric's number that is null or not want.
	num := func(name string, got *contract.Float6, want float64) {
		t.Helper()
		if got == nil {
			t.Errorf("%s null, want %v", name, want)
		} else if float64(*got) != want {
			t.Errorf("%s %v, want %v", name, *got, want)
		}
	}
	mrr := metricByName(r, MetricMRR)
	if mrr.Pairs != 3 {
		t.Errorf("mrr over %d pairs, want 3", mrr.Pairs)
	}
	num("mrr delta", mrr.Delta, 0)
	pass := metricByName(r, MetricPassRate)
	if pass.Pairs != 4 {
		t.Errorf("passRate over %d pairs, want 4", pass.Pairs)
	}
	num("passRate delta", pass.Delta, 0.25)
	for _, want := range []string{DiffHitLevel, DiffSource} {
		if d := r.Cases[0].Differences[0]; !slices.Contains(d, want) {
			t.Errorf("not_run vs pass differences %v, want %s among them", d, want)
		}
	}
}

func TestScoreLabelOnlyIsCountedApart(t *testing.T) {
	g := golden(3)
	left := result(g, "l", func(int) bool { return true })
	right := result(g, "r", func(i int) bool { return i != 2 })
	right.Cases[0].TopCandidates[0].ScoreLabel = "COSINE"
	r := Build(in, []Side{Side{Name: "hybrid", Result: left}, Side{Name: "dense", Result: right}}, -1, 1)
	if d := r.Cases[0].Differences[0]; !slices.Equal(d, []string{DiffScoreLabel}) {
		t.Fatalf("case 0: differences %v, want only %s", d, DiffScoreLabel)
	}
	if r.Cases[0].Substantive(0) {
		t.Fatal("case 0: substantive, want a scoreLabel-only difference")
	}
	if sub, label := r.Differing(0); sub != 1 || label != 1 {
		t.Fatalf("Differing = %d, %d; want 1, 1", sub, label)
	}
	var md, txt bytes.Buffer
	r.WriteMarkdown(&md)
	r.WriteText(&txt)
	for _, want := range []string{"1 of 3 cases differ in content or order; 1 more differ only in scoreLabel.", "#### cca\n"} {
		if !bytes.Contains(md.Bytes(), []byte(want)) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if bytes.Contains(md.Bytes(), []byte("#### caa\n")) {
		t.Errorf("markdown lists caa, which differs only in scoreLabel:\n%s", md.String())
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
			t.Errorf("passRate of %s = %v, %v; want 0, true", s, v, ok)
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

// Two chunks of one section differ in the side-by-side blocks by their
// evidenceKey, or the start of their excerpt when they have none, escaped.
// The JSON carries neither, as before.
func TestBlocksToldApart(t *testing.T) {
	g := golden(1)
	left := result(g, "l", func(int) bool { return true })
	right := result(g, "r", func(int) bool { return false })
	c := left.Cases[0].TopCandidates[0]
	c.EvidenceKey = "kb/doc#B@1|<x>"
	second := c
	second.Rank, second.EvidenceKey = 2, "kb/doc#B@2"
	left.Cases[0].TopCandidates = []judge.Candidate{c, second}
	right.Cases[0].TopCandidates[0].ExcerptStart = "Raise max_connections first…"
	r := Build(in, []Side{{Name: "a", Result: left}, {Name: "b", Result: right}}, -1, 1)
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 1 | **doc**<br>**A &gt; B**<br>key kb/doc#B@1\\|&lt;x&gt;<br>**db** · RRF · **high** · — | **other**<br>**X**<br>“Raise max_connections first…”<br>**ops** · RRF · **low** · — |",
		"| 2 | **doc**<br>**A &gt; B**<br>key kb/doc#B@2<br>**db** · RRF · **high** · — | — |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %s:\n%s", want, md.String())
		}
	}
	for _, bad := range []string{"evidenceKey", "excerptStart", "kb/doc#B"} {
		if strings.Contains(js.String(), bad) {
			t.Errorf("JSON has %s:\n%s", bad, js.String())
		}
	}
}
