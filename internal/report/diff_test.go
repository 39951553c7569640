package report

import (
	"bytes"
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

func f6(v float64) *contract.Float6 { x := contract.Float6(v); return &x }

func mkCase(id string, status judge.Status, hit *string, rank *int, attempt string, sources ...string) judge.CaseResult {
	c := judge.CaseResult{CaseID: id, Status: status, HitLevel: hit, FirstExpectedRank: rank, SelectedAttempt: &attempt}
	for i, s := range sources {
		c.TopCandidates = append(c.TopCandidates, judge.Candidate{Rank: i + 1, Source: s, DocID: "kb/" + s})
	}
	return c
}

// TestGrownListWithGoldenCase: with the golden case at hand (the current
// run's), every expected document must keep its document rank, not only
// the first.
func TestGrownListWithGoldenCase(t *testing.T) {
	strong := ptr("strong")
	base := mkCase("c", "pass", strong, ptr(2), "F", "x", "e", "f")
	base.TopCandidates = base.TopCandidates[:3]
	grown := mkCase("c", "pass", strong, ptr(3), "F", "x", "x", "e", "f", "z")
	moved := mkCase("c", "pass", strong, ptr(3), "F", "x", "x", "e", "z", "f")
	g := &contract.Case{ExpectedSources: []string{"e", " f "}}
	grown.Case, moved.Case = g, g
	cd := diffCase(&base, &grown)
	if cd.Change != ChangeChanged {
		t.Errorf("grown: change %s, want %s", cd.Change, ChangeChanged)
	}
	if cd.Explain == nil {
		t.Error("grown: no explanation")
	} else if want := "the block list grew from 3 to 5"; !strings.Contains(cd.Explain.Why[0], want) {
		t.Errorf("grown: why %q, want it to say %s", cd.Explain.Why[0], want)
	}
	// f went from document rank 3 to 4: regressed, although the first
	// expected document kept its rank.
	if cd := diffCase(&base, &moved); cd.Change != ChangeRegressed {
		t.Errorf("second expected document moved: %s", cd.Change)
	}
}

// TestRegressionExplained: a regressed case carries the rules it broke,
// its failed checks with their messages and its first blocks before and
// after. The regressions line says the rules.
func TestRegressionExplained(t *testing.T) {
	strong, miss := ptr("strong"), ptr("miss")
	base := mkCase("c", "pass", strong, ptr(1), "F", "e", "x")
	base.TopCandidates[0].QualityScore = f6(0.55)
	cur := mkCase("c", "fail", miss, nil, "F", "x", "y", "z", "w", "v", "u")
	cur.Checks = []judge.Check{{Name: "expected_document", Message: ptr("expected source \"e\" in top 5")}, {Name: "keywords", Passed: true}}
	cur.FailedChecks = []string{"expected_document"}
	d := Compare(&Report{Cases: []judge.CaseResult{base}}, &Report{Cases: []judge.CaseResult{cur}}, "b", "c")
	e := d.Cases[0].Explain
	if e == nil {
		t.Fatal("no explanation")
	}
	if want := []string{"status pass → fail", "hitLevel strong → miss", "firstExpectedRank 1 → null"}; !slices.Equal(e.Why, want) {
		t.Errorf("why %q, want %q", e.Why, want)
	}
	if len(e.FailedChecks) != 1 {
		t.Fatalf("failed checks %+v, want 1", e.FailedChecks)
	}
	if fc := e.FailedChecks[0]; fc.Name != "expected_document" {
		t.Errorf("failed check %q, want expected_document", fc.Name)
	}
	if m, want := e.FailedChecks[0].Message, `expected source "e" in top 5`; m == nil {
		t.Errorf("failed check message null, want %q", want)
	} else if *m != want {
		t.Errorf("failed check message %q, want %q", *m, want)
	}
	if len(e.Evidence.Baseline) != 2 {
		t.Fatalf("evidence baseline %+v, want 2 blocks", e.Evidence.Baseline)
	}
	if len(e.Evidence.Current) != EvidenceBlocks {
		t.Errorf("evidence current %+v, want %d blocks", e.Evidence.Current, EvidenceBlocks)
	}
	if b := e.Evidence.Baseline[0]; b.Source != "e" {
		t.Errorf("evidence baseline[0] source %q, want e", b.Source)
	}
	if q := e.Evidence.Baseline[0].QualityScore; q == nil {
		t.Error("evidence baseline[0] qualityScore null, want 0.55")
	} else if *q != 0.55 {
		t.Errorf("evidence baseline[0] qualityScore %v, want 0.55", *q)
	}
	if want := "case c regressed: status pass → fail; hitLevel strong → miss; firstExpectedRank 1 → null"; d.Regressions[0] != want {
		t.Errorf("regression line %q, want %q", d.Regressions[0], want)
	}
}

// TestDiffInputs: what the manifests recorded is compared when both
// reports carry it, and says nothing otherwise.
func TestDiffInputs(t *testing.T) {
	snap := func(chunk int, fusion string, seed bool) *Snapshot {
		s := &Snapshot{SearchMode: "hybrid", KBScope: "rag-eval",
			Pipeline: &contract.Pipeline{Name: "builtin", Embedder: "use", Dim: 512,
				Params: &contract.PipelineParams{TopK: 5, Fusion: fusion, Levels: contract.Levels{High: 0.55}}}}
		if seed {
			s.Seed = &contract.SeedRecord{ChunkSize: chunk, ChunkOverlap: 100, Documents: 40, CorpusSHA256: "aaaaaaaaaaaaaaaa"}
		}
		return s
	}
	rep := func(s *Snapshot) *Report { return &Report{Inputs: Inputs{CasesSHA256: "x", K: 5, Snapshot: s}} }
	d := Compare(rep(snap(800, "anchored", true)), rep(snap(120, "rrf", true)), "b", "c")
	if got, want := d.InputLines(), []string{"chunk size 800 → 120", "fusion anchored → rrf"}; !slices.Equal(got, want) {
		t.Errorf("input lines %q, want %q", got, want)
	}
	if d.Regressed() {
		t.Error("an input change alone is a regression")
	}
	for name, pair := range map[string][2]*Snapshot{
		"old baseline":       {nil, snap(120, "anchored", true)},
		"no manifest now":    {snap(800, "anchored", true), nil},
		"old manifest":       {snap(800, "anchored", false), snap(120, "anchored", true)},
		"no seed record now": {snap(800, "anchored", true), snap(120, "anchored", false)},
	} {
		if d := Compare(rep(pair[0]), rep(pair[1]), "b", "c"); len(d.Inputs) != 0 {
			t.Errorf("%s: inputs %+v", name, d.Inputs)
		}
	}
	b, c := rep(snap(800, "anchored", true)), rep(snap(800, "anchored", true))
	c.Inputs.Snapshot.Seed.CorpusSHA256, c.Inputs.Snapshot.Seed.Documents = "bbbbbbbbbbbbbbbb", 41
	c.Inputs.Snapshot.Pipeline.Embedder = "local"
	if got, want := Compare(b, c, "b", "c").InputLines(), []string{"documents 40 → 41", "corpus fingerprint aaaaaaaaaaaa → bbbbbbbbbbbb", "embedder use → local"}; !slices.Equal(got, want) {
		t.Errorf("input lines %q, want %q", got, want)
	}
}

func TestDiffCaseChanges(t *testing.T) {
	strong, medium, na := ptr("strong"), ptr("medium"), ptr("n/a")
	tests := []struct {
		name      string
		base, cur judge.CaseResult
		want      string
		fields    []string
	}{
		{"unchanged", mkCase("c", "pass", strong, ptr(1), "F", "a"), mkCase("c", "pass", strong, ptr(1), "F", "a"), ChangeUnchanged, nil},
		{"pass to fail", mkCase("c", "pass", strong, ptr(1), "F", "a"), mkCase("c", "fail", strong, ptr(1), "F", "a"), ChangeRegressed, []string{"status"}},
		{"fail to error", mkCase("c", "fail", strong, ptr(1), "F", "a"), mkCase("c", "error", nil, nil, "F"), ChangeRegressed, []string{"status", "hitLevel", "firstExpectedRank", "topSources"}},
		{"hit level lower", mkCase("c", "pass", strong, ptr(1), "F", "a"), mkCase("c", "pass", medium, ptr(1), "F", "a"), ChangeRegressed, []string{"hitLevel"}},
		{"rank worse", mkCase("c", "pass", strong, ptr(1), "F", "a"), mkCase("c", "pass", strong, ptr(2), "F", "b", "a"), ChangeRegressed, []string{"firstExpectedRank", "topSources"}},
		{"rank lost", mkCase("c", "pass", na, ptr(1), "F"), mkCase("c", "pass", na, nil, "F"), ChangeRegressed, []string{"firstExpectedRank"}},
		{"worse beats better", mkCase("c", "fail", medium, ptr(1), "F"), mkCase("c", "fail", strong, ptr(3), "F"), ChangeRegressed, []string{"hitLevel", "firstExpectedRank"}},
		{"improved", mkCase("c", "fail", medium, ptr(3), "F"), mkCase("c", "pass", strong, ptr(1), "F"), ChangeImproved, []string{"status", "hitLevel", "firstExpectedRank"}},
		{"attempt alone is changed", mkCase("c", "pass", strong, ptr(1), "F"), mkCase("c", "pass", strong, ptr(1), "U"), ChangeChanged, []string{"selectedAttempt"}},
		{"n/a to strong is changed", mkCase("c", "pass", na, ptr(1), "F"), mkCase("c", "pass", strong, ptr(1), "F"), ChangeChanged, []string{"hitLevel"}},
		// The block list grew (more chunks of the same documents): the first
		// expected block moves down, no document does.
		{"grown list is changed", mkCase("c", "pass", strong, ptr(2), "F", "x", "e"), mkCase("c", "pass", strong, ptr(3), "F", "x", "x", "e", "y"),
			ChangeChanged, []string{"firstExpectedRank", "topSources"}},
		{"grown list that also failed is regressed", mkCase("c", "pass", strong, ptr(2), "F", "x", "e"), mkCase("c", "fail", strong, ptr(3), "F", "x", "x", "e", "y"),
			ChangeRegressed, []string{"status", "firstExpectedRank", "topSources"}},
		{"grown list with another first document is regressed", mkCase("c", "pass", strong, ptr(2), "F", "x", "e"), mkCase("c", "pass", strong, ptr(3), "F", "y", "x", "e"),
			ChangeRegressed, []string{"firstExpectedRank", "topSources"}},
		{"grown list with the expected document moved is regressed", mkCase("c", "pass", strong, ptr(2), "F", "x", "e"), mkCase("c", "pass", strong, ptr(3), "F", "x", "y", "e"),
			ChangeRegressed, []string{"firstExpectedRank", "topSources"}},
		{"same length, rank worse is regressed", mkCase("c", "pass", strong, ptr(2), "F", "x", "e", "y"), mkCase("c", "pass", strong, ptr(3), "F", "x", "x", "e"),
			ChangeRegressed, []string{"firstExpectedRank", "topSources"}},
		{"grown list, expected block out of the top K is regressed", mkCase("c", "pass", strong, ptr(2), "F", "x", "e"), mkCase("c", "pass", strong, ptr(6), "F", "x", "x", "x", "x", "x"),
			ChangeRegressed, []string{"firstExpectedRank", "topSources"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cd := diffCase(&tt.base, &tt.cur)
			if cd.Change != tt.want {
				t.Errorf("change %s, want %s", cd.Change, tt.want)
			}
			var got []string
			for _, f := range cd.Fields {
				got = append(got, f.Field)
			}
			if len(got) != len(tt.fields) {
				t.Fatalf("fields %v, want %v", got, tt.fields)
			}
			for i := range got {
				if got[i] != tt.fields[i] {
					t.Fatalf("fields %v, want %v", got, tt.fields)
				}
			}
		})
	}
}

func TestDiffVerdict(t *testing.T) {
	base := &Report{Summary: judge.Summary{PassRate: f6(1), RecallAtK: f6(1), MRR: f6(0.5)},
		Cases: []judge.CaseResult{mkCase("a", "pass", nil, nil, "F"), mkCase("gone", "pass", nil, nil, "F")}}
	t.Run("removed case and lower pass rate", func(t *testing.T) {
		cur := &Report{Summary: judge.Summary{PassRate: f6(0.5), RecallAtK: f6(1), MRR: f6(0.75)},
			Cases: []judge.CaseResult{mkCase("a", "pass", nil, nil, "F"), mkCase("new", "fail", nil, nil, "F")}}
		d := Compare(base, cur, "b.json", "c.json")
		if d.Verdict != VerdictRegression {
			t.Fatalf("verdict %s, want %s", d.Verdict, VerdictRegression)
		}
		if want := (Counts{Added: 1, Removed: 1, Unchanged: 1}); d.Counts != want {
			t.Fatalf("counts %+v, want %+v", d.Counts, want)
		}
		if len(d.Regressions) != 2 {
			t.Errorf("regressions %q", d.Regressions)
		}
		// The metrics' lines first, then the cases'.
		if want := []string{"passRate dropped from 1 to 0.5", "case gone was removed"}; !slices.Equal(d.Regressions, want) {
			t.Errorf("regressions %q, want %q", d.Regressions, want)
		}
		if got := d.MetricRegressions(); !slices.Equal(got, d.Regressions[:1]) {
			t.Errorf("metric regressions %q", got)
		}
		if got := d.Cases[1].regression(); got != d.Regressions[1] {
			t.Errorf("removed case's line %q", got)
		}
		if got := d.Summary["mrr"]; got.Delta == nil {
			t.Error("mrr delta null, want 0.25")
		} else if *got.Delta != 0.25 {
			t.Errorf("mrr delta %v, want 0.25", *got.Delta)
		}
		var order []string
		for _, c := range d.Cases {
			order = append(order, c.CaseID)
		}
		if len(order) < 3 || order[1] != "gone" || order[2] != "new" {
			t.Errorf("case order %q, want gone second and new third", order)
		}
	})
	t.Run("better everywhere is ok", func(t *testing.T) {
		cur := &Report{Summary: judge.Summary{PassRate: f6(1), RecallAtK: f6(1)},
			Cases: []judge.CaseResult{mkCase("a", "pass", nil, nil, "F"), mkCase("gone", "pass", nil, nil, "F")}}
		d := Compare(base, cur, "b", "c")
		if d.Verdict != VerdictOK {
			t.Fatalf("verdict %s, want %s: %q", d.Verdict, VerdictOK, d.Regressions)
		}
		if d.Regressed() {
			t.Fatalf("Regressed() with regressions %q", d.Regressions)
		}
		// mrr became null.
		if got := d.Summary["mrr"]; got.Current != nil {
			t.Errorf("mrr current %v, want null", *got.Current)
		}
		if got := d.Summary["mrr"]; got.Delta != nil {
			t.Errorf("mrr delta %v, want null", *got.Delta)
		}
	})
	t.Run("recall at k dropping to null is a regression", func(t *testing.T) {
		cur := &Report{Summary: judge.Summary{PassRate: f6(1)}, Cases: base.Cases}
		if d := Compare(base, cur, "b", "c"); !d.Regressed() {
			t.Fatal("not a regression")
		}
	})
}

func TestDiffRenderersDeterministic(t *testing.T) {
	rep := Build(sampleResult(t), "c.json", "x")
	base := Build(sampleResult(t), "c.json", "x")
	base.Cases[0].Status = "fail"
	// weak (now fail, weak, first expected rank 2) passed in the baseline
	// with its expected document first.
	w := &base.Cases[2]
	w.Status, w.HitLevel, w.FirstExpectedRank, w.Checks, w.FailedChecks = judge.StatusPass, ptr("strong"), ptr(1), nil, []string{}
	w.TopCandidates = []judge.Candidate{{Rank: 1, Source: "disk", DocID: "kb/disk", Breadcrumb: "Host > Disk", QualityScore: f6(0.61)}}
	seed := func(chunk int) *Snapshot {
		return &Snapshot{SearchMode: "hybrid", KBScope: "kb", Pipeline: &contract.Pipeline{Name: "builtin", Embedder: "use", Dim: 512},
			Seed: &contract.SeedRecord{ChunkSize: chunk, ChunkOverlap: 100, Documents: 7, CorpusSHA256: strings.Repeat("ab", 32)}}
	}
	base.Inputs.Snapshot, rep.Inputs.Snapshot = seed(800), seed(120)
	d := Compare(base, rep, "base.json", "cur.json")
	golden(t, "diff.json", render(t, func(b *bytes.Buffer) error { return d.WriteJSON(b) }))
	golden(t, "diff.md", render(t, func(b *bytes.Buffer) error { return d.WriteMarkdown(b) }))
	golden(t, "diff.junit.xml", render(t, func(b *bytes.Buffer) error { return rep.WriteJUnitDiff(b, d) }))
}

// TestJUnitRegressions: with a diff, a regressed case is a failure with
// the rules and its failed checks, even when it passes. A removed case is a
// failing testcase. Without a diff the XML is WriteJUnit's.
func TestJUnitRegressions(t *testing.T) {
	strong := ptr("strong")
	base := &Report{Cases: []judge.CaseResult{
		mkCase("passing", "pass", strong, ptr(1), "F", "e"),
		mkCase("failing", "pass", strong, ptr(1), "F", "e"),
		mkCase("broken", "pass", strong, ptr(1), "F", "e"),
		mkCase("gone", "pass", strong, ptr(1), "F", "e"),
		mkCase("same", "fail", strong, ptr(1), "F", "e"),
	}}
	passing := mkCase("passing", "pass", strong, ptr(2), "F", "x", "e")
	failing := mkCase("failing", "fail", strong, ptr(1), "F", "e")
	failing.Checks = []judge.Check{{Name: "must_not", Message: ptr("source \"x\" at position 2")}}
	failing.FailedChecks = []string{"must_not"}
	broken := mkCase("broken", "error", nil, nil, "F")
	broken.Reason = ptr("invalid fixture")
	same := mkCase("same", "fail", strong, ptr(1), "F", "e")
	same.FailedChecks = []string{"keywords"}
	same.Checks = []judge.Check{{Name: "keywords", Message: ptr("missing")}}
	cur := &Report{Cases: []judge.CaseResult{passing, failing, broken, same}}
	d := Compare(base, cur, "b", "c")
	var buf bytes.Buffer
	if err := cur.WriteJUnitDiff(&buf, d); err != nil {
		t.Fatal(err)
	}
	var suite junitSuite
	if err := xml.Unmarshal(buf.Bytes(), &suite); err != nil {
		t.Fatal(err)
	}
	if suite.Tests != 5 {
		t.Errorf("tests %d, want 5", suite.Tests)
	}
	if suite.Failures != 4 {
		t.Errorf("failures %d, want 4", suite.Failures)
	}
	if suite.Errors != 1 {
		t.Errorf("errors %d, want 1", suite.Errors)
	}
	byName := map[string]junitCase{}
	for _, c := range suite.Cases {
		byName[c.Name] = c
	}
	// problem reports a case's failure or error that is missing or of
	// another type, and returns it.
	problem := func(name, kind string, p *junitProblem, wantType string) *junitProblem {
		t.Helper()
		if p == nil {
			t.Errorf("%s: no %s", name, kind)
			return &junitProblem{}
		}
		if wantType != "" && p.Type != wantType {
			t.Errorf("%s: %s type %q, want %q", name, kind, p.Type, wantType)
		}
		return p
	}
	if f := problem("passing", "failure", byName["passing"].Failure, "regression"); f.Message != "regressed: firstExpectedRank 1 → 2" {
		t.Errorf("passing: message %q, want %q", f.Message, "regressed: firstExpectedRank 1 → 2")
	}
	f := problem("failing", "failure", byName["failing"].Failure, "regression")
	if want := "regressed: status pass → fail; failed checks: must_not"; f.Message != want {
		t.Errorf("failing: message %q, want %q", f.Message, want)
	}
	if want := `must_not: source "x" at position 2`; !strings.Contains(f.Body, want) {
		t.Errorf("failing: body %q, want it to contain %q", f.Body, want)
	}
	e := problem("broken", "error", byName["broken"].Error, "")
	if want := "regressed: status pass → error"; !strings.HasPrefix(e.Message, want) {
		t.Errorf("broken: message %q, want it to start %q", e.Message, want)
	}
	if !strings.HasSuffix(e.Message, "invalid fixture") {
		t.Errorf("broken: message %q, want it to end invalid fixture", e.Message)
	}
	problem("same", "failure", byName["same"].Failure, "fail")
	if c := byName["gone"]; c.ClassName != "removed" {
		t.Errorf("gone: classname %q, want removed", c.ClassName)
	}
	problem("gone", "failure", byName["gone"].Failure, "regression")
	var plain, nilDiff bytes.Buffer
	_ = cur.WriteJUnit(&plain)
	_ = cur.WriteJUnitDiff(&nilDiff, nil)
	if !bytes.Equal(plain.Bytes(), nilDiff.Bytes()) {
		t.Error("WriteJUnitDiff without a diff differs from WriteJUnit")
	}
}

// TestSnapshotInputs: the manifest's values are in the report's inputs, in
// the JSON, read back by ReadJSON, and in a line of the Markdown. Without a
// manifest, or for an unavailable one, there is no snapshot key at all.
func TestSnapshotInputs(t *testing.T) {
	m := &contract.Manifest{Status: contract.StatusAvailable, SearchMode: "hybrid", KBScope: "rag-eval",
		Pipeline: &contract.Pipeline{Name: "builtin", Embedder: "use-multilingual-v3", Dim: 512, Params: &contract.PipelineParams{Fusion: "anchored"}},
		Seed:     &contract.SeedRecord{ChunkSize: 800, ChunkOverlap: 100, Documents: 40, CorpusSHA256: strings.Repeat("13", 32)}}
	rep := Build(sampleResult(t), "c.json", "x")
	rep.Inputs.Snapshot = SnapshotOf(m)
	js := render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) })
	back, err := ReadJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	if s := back.Inputs.Snapshot; s == nil {
		t.Error("read back: no snapshot")
	} else {
		if s.Seed == nil || *s.Seed != *m.Seed {
			t.Errorf("read back: seed %+v, want %+v", s.Seed, *m.Seed)
		}
		if s.Pipeline.Embedder != "use-multilingual-v3" {
			t.Errorf("read back: pipeline embedder %q, want use-multilingual-v3", s.Pipeline.Embedder)
		}
	}
	md := render(t, func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) })
	if want := "Snapshot: hybrid, kbScope rag-eval, builtin pipeline, embedder use-multilingual-v3 (512), fusion anchored; seeded with chunk size 800, overlap 100, 40 documents (corpus 131313131313).\n"; !bytes.Contains(md, []byte(want)) {
		t.Errorf("markdown lacks %q", want)
	}
	for _, m := range []*contract.Manifest{nil, {Status: contract.StatusUnavailable}} {
		rep.Inputs.Snapshot = SnapshotOf(m)
		if js := render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) }); bytes.Contains(js, []byte(`"snapshot"`)) {
			t.Errorf("%+v: a snapshot key", m)
		}
	}
}

// Two chunks of one section, the same source and breadcrumb, look alike
// but for their evidenceKey, or the start of their excerpt when they have
// none. The diff shows it on both sides, the baseline's read back from its
// JSON report, so that ranks 1 and 2 differ visibly. A baseline written
// before the keys were recorded shows none.
func TestDiffTellsChunksApart(t *testing.T) {
	miss := ptr("miss")
	chunk := func(rank int, key, start string) judge.Candidate {
		return judge.Candidate{Rank: rank, Source: "pool", DocID: "kb/pool", Breadcrumb: "DB > Pool > Setup", EvidenceKey: key, ExcerptStart: start}
	}
	base := mkCase("c", "pass", ptr("strong"), ptr(1), "F")
	base.TopCandidates = []judge.Candidate{chunk(1, "kb/pool#Setup@1", ""), chunk(2, "kb/pool#Setup@2", "")}
	cur := mkCase("c", "fail", miss, nil, "F")
	cur.TopCandidates = []judge.Candidate{chunk(1, "", "Raise max_connections first…"), chunk(2, "", "Then size the pool to…")}
	var buf bytes.Buffer
	if err := (&Report{SchemaVersion: SchemaVersion, Cases: []judge.CaseResult{base}}).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	d := Compare(back, &Report{Cases: []judge.CaseResult{cur}}, "b.json", "c.json")
	ev := d.Cases[0].Explain.Evidence
	var cells []string
	for i := range 2 {
		cells = append(cells, EvidenceCell(ev.Baseline, i), EvidenceCell(ev.Current, i))
	}
	want := []string{
		"pool · DB > Pool > Setup · key kb/pool#Setup@1", "pool · DB > Pool > Setup · “Raise max_connections first…”",
		"pool · DB > Pool > Setup · key kb/pool#Setup@2", "pool · DB > Pool > Setup · “Then size the pool to…”",
	}
	if !slices.Equal(cells, want) {
		t.Errorf("evidence cells %q\nwant %q", cells, want)
	}
	var md bytes.Buffer
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if want := "| 2 | pool · DB &gt; Pool &gt; Setup · key kb/pool#Setup@2 | pool · DB &gt; Pool &gt; Setup · “Then size the pool to…” |"; !strings.Contains(md.String(), want) {
		t.Errorf("markdown lacks %s:\n%s", want, md.String())
	}
	var sum bytes.Buffer
	if err := (&Report{Cases: []judge.CaseResult{cur}}).WriteSummaryMarkdown(&sum, d); err != nil {
		t.Fatal(err)
	}
	if want := "first block: pool · key kb/pool#Setup@1 → pool · “Raise max_connections first…”"; !strings.Contains(sum.String(), want) {
		t.Errorf("summary lacks %s:\n%s", want, sum.String())
	}

	// A baseline of an older rag-eval has neither key: its blocks show
	// without one.
	old := bytes.ReplaceAll(buf.Bytes(), []byte(`,
          "evidenceKey": "kb/pool#Setup@1"`), nil)
	if bytes.Equal(old, buf.Bytes()) {
		t.Fatal("the baseline JSON has no evidenceKey to remove")
	}
	back, err = ReadJSON(old)
	if err != nil {
		t.Fatal(err)
	}
	ev = Compare(back, &Report{Cases: []judge.CaseResult{cur}}, "b.json", "c.json").Cases[0].Explain.Evidence
	if got := EvidenceCell(ev.Baseline, 0); got != "pool · DB > Pool > Setup" {
		t.Errorf("old baseline: cell %q, want no key", got)
	}
}
