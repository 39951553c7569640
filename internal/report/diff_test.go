package report

import (
	"bytes"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

func f6(v float64) *contract.Float6 { x := contract.Float6(v); return &x }

func mkCase(id string, status judge.Status, hit *string, rank *int, attempt string, sources ...string) judge.CaseResult {
	c := judge.CaseResult{CaseID: id, Status: status, HitLevel: hit, FirstExpectedRank: rank, SelectedAttempt: &attempt}
	for i, s := range sources {
		c.TopCandidates = append(c.TopCandidates, judge.Candidate{Rank: i + 1, Source: s})
	}
	return c
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
		if d.Verdict != VerdictRegression || d.Counts != (Counts{Added: 1, Removed: 1, Unchanged: 1}) {
			t.Fatalf("verdict %s counts %+v", d.Verdict, d.Counts)
		}
		if len(d.Regressions) != 2 {
			t.Errorf("regressions %q", d.Regressions)
		}
		if got := d.Summary["mrr"]; got.Delta == nil || *got.Delta != 0.25 {
			t.Errorf("mrr delta %+v", got)
		}
		if d.Cases[1].CaseID != "gone" || d.Cases[2].CaseID != "new" {
			t.Errorf("case order %+v", d.Cases)
		}
	})
	t.Run("better everywhere is ok", func(t *testing.T) {
		cur := &Report{Summary: judge.Summary{PassRate: f6(1), RecallAtK: f6(1)},
			Cases: []judge.CaseResult{mkCase("a", "pass", nil, nil, "F"), mkCase("gone", "pass", nil, nil, "F")}}
		d := Compare(base, cur, "b", "c")
		if d.Verdict != VerdictOK || d.Regressed() {
			t.Fatalf("verdict %s: %q", d.Verdict, d.Regressions)
		}
		if got := d.Summary["mrr"]; got.Current != nil || got.Delta != nil {
			t.Errorf("mrr became null: %+v", got)
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
	d := Compare(base, rep, "base.json", "cur.json")
	golden(t, "diff.json", render(t, func(b *bytes.Buffer) error { return d.WriteJSON(b) }))
	golden(t, "diff.md", render(t, func(b *bytes.Buffer) error { return d.WriteMarkdown(b) }))
}
