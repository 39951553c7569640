package calibrate

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/testkit/goldenfile"
)

const labelsDir = "testdata/labels"

func loadLabels(t *testing.T) (*contract.GoldenFile, Input) {
	t.Helper()
	g, err := contract.LoadGolden(filepath.Join(labelsDir, "golden-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := Load(g, filepath.Join(labelsDir, "fixtures"), 0)
	if err != nil {
		t.Fatal(err)
	}
	return g, in
}

// TestBlockLabels pins the label of every top-K block of the hand-made
// cases: graded relevance (grade 1 from the expected list and from the
// relevance map, grade 0, no grade), docId identity, off-topic cases and
// cases that label nothing.
func TestBlockLabels(t *testing.T) {
	_, in := loadLabels(t)
	R, N, U := Relevant, NonRelevant, Unlabelled
	want := map[string]struct {
		blocks []Label
		cas    Label
	}{
		// pool is expected, then pool without qualityScore, slow at grade 1,
		// timeouts at grade 0 and disk without grade. The sixth block is
		// beyond K.
		"graded": {[]Label{R, R, R, N, N}, R},
		// redis without docId is rag-eval/redis, expected. cache-v2 is
		// rag-eval/cache, grade 1. other/redis has no grade although its
		// source is redis. rag-eval/pool is grade 0.
		"docid":          {[]Label{R, R, N, N}, R},
		"offtopic":       {[]Label{N, N}, N},
		"offtopic-weak":  {[]Label{N}, N},
		"offtopic-empty": {[]Label{}, N},
		"keywords-only":  {[]Label{U}, U},
		"missed":         {[]Label{N}, U},
		"notrun":         {[]Label{}, U},
	}
	for i := range in.Result.Cases {
		r := &in.Result.Cases[i]
		w, ok := want[r.Case.CaseID]
		if !ok {
			t.Fatalf("unexpected case %s", r.Case.CaseID)
		}
		got := BlockLabels(r)
		if !slices.Equal(got, w.blocks) {
			t.Errorf("%s: block labels %v, want %v", r.Case.CaseID, got, w.blocks)
		}
		if got := CaseLabel(r, got); got != w.cas {
			t.Errorf("%s: case label %v, want %v", r.Case.CaseID, got, w.cas)
		}
	}
}

func TestBuildLabels(t *testing.T) {
	g, in := loadLabels(t)
	rep := Build("golden-cases.json", "0123456789abcdef", g.ReportK(0), []Input{in})
	m := rep.Modes[0]
	if m.Name != "hybrid" {
		t.Errorf("mode %q, want hybrid", m.Name)
	}
	if m.Status != "available" {
		t.Errorf("status %q, want available", m.Status)
	}
	if m.Reason != nil {
		t.Errorf("reason %q, want null", *m.Reason)
	}
	if m.Embedder == nil {
		t.Error("embedder null, want local-hash-v1")
	} else if *m.Embedder != "local-hash-v1" {
		t.Errorf("embedder %q, want local-hash-v1", *m.Embedder)
	}
	if c, want := m.Blocks.Counts, (Counts{Relevant: 5, NonRelevant: 8, Unlabelled: 1, MissingScore: 1}); c != want {
		t.Errorf("block counts %+v, want %+v", c, want)
	}
	// f6 reports a number that is null or not want.
	f6 := func(name string, got *contract.Float6, want float64) {
		t.Helper()
		if got == nil {
			t.Errorf("%s null, want %v", name, want)
		} else if float64(*got) != want {
			t.Errorf("%s %v, want %v", name, *got, want)
		}
	}
	// Relevant {0.4, 0.5, 0.6, 0.8}, non-relevant {0.1, 0.12, 0.14, 0.2,
	// 0.25, 0.3, 0.35, 0.45}: the best cut is between 0.35 and 0.4.
	if b := m.Blocks.Best; b == nil {
		t.Error("no best block threshold")
	} else {
		f6("best block threshold", b.Threshold, 0.375)
		f6("best block threshold: TPR", b.TPR, 1)
		f6("best block threshold: FPR", b.FPR, 0.125)
	}
	if c, want := m.Cases.Counts, (Counts{Relevant: 2, NonRelevant: 3, Unlabelled: 2}); c != want {
		t.Errorf("case counts %+v, want %+v", c, want)
	}
	// Cases: relevant {0.6, 0.8}, off-topic {0.05 (attempt), 0.12, 0.14}.
	if b := m.Cases.Best; b == nil {
		t.Error("no best case threshold")
	} else {
		f6("best case threshold", b.Threshold, 0.37)
		f6("best case threshold: TPR", b.TPR, 1)
		f6("best case threshold: FPR", b.FPR, 0)
	}
	var from []string
	for _, s := range m.Cases.Samples {
		f := "-"
		if s.ScoreFrom != nil {
			f = *s.ScoreFrom
		}
		from = append(from, s.CaseID+":"+s.Label+":"+f)
	}
	wantFrom := []string{"graded:relevant:blocks", "docid:relevant:blocks", "offtopic:nonRelevant:blocks",
		"offtopic-weak:nonRelevant:blocks", "offtopic-empty:nonRelevant:attempt", "keywords-only:unlabelled:blocks",
		"missed:unlabelled:blocks"}
	if !slices.Equal(from, wantFrom) {
		t.Errorf("case samples %v, want %v", from, wantFrom)
	}
	var levels []string
	for _, l := range m.Blocks.RelevanceLevels {
		levels = append(levels, l.Level)
	}
	if !slices.Equal(levels, []string{"high", "medium", "low", "very-low"}) {
		t.Errorf("relevance levels %v", levels)
	}
}

// TestReportGolden pins the rendered reports of the hand-made set plus an
// unavailable mode. Regenerate with go test -run ReportGolden -update.
func TestReportGolden(t *testing.T) {
	g, in := loadLabels(t)
	unavailable := Input{Fixtures: "fixtures-dense", Manifest: &contract.Manifest{
		Status: contract.StatusUnavailable, Reason: "pipeline unreachable | <no route>", SearchMode: "dense"}}
	rep := Build("golden-cases.json", "0123456789abcdef", g.ReportK(0), []Input{in, unavailable})
	for _, out := range []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"want.json", func(b *bytes.Buffer) error { return rep.WriteJSON(b) }},
		{"want.md", func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }},
		{"want.txt", func(b *bytes.Buffer) error { return rep.WriteText(b) }},
	} {
		var b bytes.Buffer
		if err := out.render(&b); err != nil {
			t.Fatal(err)
		}
		goldenfile.Check(t, filepath.Join(labelsDir, out.name), b.Bytes())
	}
}

// TestEmptyIsNull checks that nothing to measure gives nulls, never NaN,
// and arrays, never null.
func TestEmptyIsNull(t *testing.T) {
	rep := Build("c.json", "", 5, []Input{
		{Fixtures: "empty", Result: &judge.Result{}},
		{Fixtures: "gone", Manifest: &contract.Manifest{Status: contract.StatusUnavailable}},
	})
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(s, bad) {
			t.Errorf("JSON has %s:\n%s", bad, s)
		}
	}
	for _, want := range []string{`"best": null`, `"min": null`, `"samples": []`, `"blocks": null`, `"lowQuality": null`, `"reason": null`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
	m := rep.Modes[0]
	if m.Name != "empty" {
		t.Errorf("mode %q, want empty", m.Name)
	}
	if n := len(m.Blocks.Histogram); n != Bins {
		t.Errorf("empty mode: %d histogram bins, want %d", n, Bins)
	}
	if n := len(m.Blocks.AtShipped); n != 3 {
		t.Fatalf("empty mode: %d block thresholds at shipped, want 3", n)
	}
	if n := len(m.Cases.AtShipped); n != 2 {
		t.Errorf("empty mode: %d case thresholds at shipped, want 2", n)
	}
	// An unknown shipped threshold has no rates.
	if th := m.Blocks.AtShipped[0].Threshold; th != nil {
		t.Errorf("unknown shipped threshold: threshold %v, want null", *th)
	}
	if tpr := m.Blocks.AtShipped[0].TPR; tpr != nil {
		t.Errorf("unknown shipped threshold: TPR %v, want null", *tpr)
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "NaN") {
		t.Errorf("markdown has NaN:\n%s", md.String())
	}
	if !strings.Contains(md.String(), "No scores to show.") {
		t.Errorf("markdown lacks No scores to show.:\n%s", md.String())
	}
}

// TestTextOneLinePerMode checks that a manifest's mode name, status or
// reason with a newline (or another control character) cannot split the
// one-line-per-mode summary: such a value is written Go-quoted.
func TestTextOneLinePerMode(t *testing.T) {
	rep := Build("c.json", "", 5, []Input{
		{Fixtures: "a", Manifest: &contract.Manifest{Status: contract.StatusUnavailable,
			SearchMode: "dense\nfake: available", Reason: "milvus\r\nunreachable\tnow"}},
		{Fixtures: "b", Manifest: &contract.Manifest{SearchMode: "hy\u2028brid"}, Result: &judge.Result{}},
		{Fixtures: "c", Manifest: &contract.Manifest{Status: contract.StatusUnavailable,
			SearchMode: "plain", Reason: "no \"route\" | here"}},
	})
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		`"dense\nfake: available": unavailable: "milvus\r\nunreachable\tnow"`,
		`"hy\u2028brid": blocks best — (0 relevant, 0 non-relevant scores) vs shipped medium —, high —, minQuality —; cases best — (0 relevant, 0 non-relevant scores) vs shipped lowQuality —`,
		`plain: unavailable: no "route" | here`, // printable: as is
	}
	if !slices.Equal(lines, want) {
		t.Errorf("summary lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestSmallClasses: a class with fewer than MinClassSize scored members is
// named in the mode's one warning. Five of each is enough.
func TestSmallClasses(t *testing.T) {
	mode := func(rb, nb, rc, nc int) *Mode {
		return &Mode{Name: "hybrid",
			Blocks: &Blocks{Separation: Separation{Relevant: Dist{Count: rb}, NonRelevant: Dist{Count: nb}}},
			Cases:  &CaseLevel{Separation: Separation{Relevant: Dist{Count: rc}, NonRelevant: Dist{Count: nc}}}}
	}
	if got := smallClasses(mode(5, 9, 5, 5)); len(got) != 0 {
		t.Errorf("five of each: %q", got)
	}
	got := smallClasses(mode(5, 9, 4, 1))
	if want := "hybrid: fewer than 5 scored members in a class (4 answered cases, 1 off-topic cases): "; len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("got %q, want one warning starting %q", got, want)
	}
	if got, want := smallClasses(mode(0, 0, 0, 0)), "(0 relevant blocks, 0 non-relevant blocks, 0 answered cases, 0 off-topic cases)"; len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("empty classes: %q, want one warning with %q", got, want)
	}
	// An unavailable mode has no statistics and no warning.
	un := buildMode(&Input{Fixtures: "x", Manifest: &contract.Manifest{Status: contract.StatusUnavailable}})
	if un.Warnings == nil || len(un.Warnings) != 0 {
		t.Errorf("unavailable: warnings %#v, want []string{}", un.Warnings)
	}
}
