package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// draftResult judges testdata/draftset: a passing and a failing case, a
// draft with a fixture and a draft without one, whose query is
// Markdown-hostile.
func draftResult(t *testing.T) *judge.Result { return judgeSet(t, "testdata/draftset") }

// Every format shows the drafts with their own status and count, apart
// from the pass rate and the failing cases: golden files.
func TestReportDraftGolden(t *testing.T) {
	rep := Build(draftResult(t), "testdata/draftset/golden-cases.json", "0123456789abcdef")
	s := rep.Summary
	if s.CaseCount != 4 || s.DraftCount != 2 || s.PassCount != 1 || s.FailCount != 1 {
		t.Fatalf("counts case %d draft %d pass %d fail %d, want 4 2 1 1", s.CaseCount, s.DraftCount, s.PassCount, s.FailCount)
	}
	if s.PassRate == nil || *s.PassRate != 0.5 {
		t.Fatalf("passRate %v, want 0.5", s.PassRate)
	}
	golden(t, "draft.json", render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) }))
	golden(t, "draft.md", render(t, func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }))
	golden(t, "draft.junit.xml", render(t, func(b *bytes.Buffer) error { return rep.WriteJUnit(b) }))
	golden(t, "draft.txt", render(t, func(b *bytes.Buffer) error { return rep.WriteText(b, false) }))
	golden(t, "draft-summary.md", render(t, func(b *bytes.Buffer) error { return rep.WriteSummaryMarkdown(b, nil) }))

	// The JSON report reads back with its drafts.
	back, err := ReadJSON(render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) }))
	if err != nil {
		t.Fatal(err)
	}
	if back.Summary.DraftCount != 2 || back.Cases[2].Status != judge.StatusDraft {
		t.Errorf("read back: draftCount %d, case 2 status %s; want 2, draft", back.Summary.DraftCount, back.Cases[2].Status)
	}
	if b := back.ByScenario["from-log"]; b.DraftCount != 1 || b.PassRate != nil {
		t.Errorf("read back: scenario from-log draftCount %d, passRate %v; want 1, null", b.DraftCount, b.PassRate)
	}
}

// A report without drafts has no trace of them: the JSON has no
// draftCount, the text line no draft count, the tables no drafts column.
func TestReportWithoutDraftsUnchanged(t *testing.T) {
	rep := Build(sampleResult(t), "testdata/evalset/golden-cases.json", "0123456789abcdef")
	for name, out := range map[string][]byte{
		"json":     render(t, func(b *bytes.Buffer) error { return rep.WriteJSON(b) }),
		"markdown": render(t, func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }),
		"junit":    render(t, func(b *bytes.Buffer) error { return rep.WriteJUnit(b) }),
		"text":     render(t, func(b *bytes.Buffer) error { return rep.WriteText(b, false) }),
		"summary":  render(t, func(b *bytes.Buffer) error { return rep.WriteSummaryMarkdown(b, nil) }),
	} {
		if bytes.Contains(bytes.ToLower(out), []byte("draft")) {
			t.Errorf("%s report of a set without drafts mentions drafts:\n%s", name, out)
		}
	}
}

// A set of drafts only passes, and every summary says nothing is gated.
func TestReportAllDrafts(t *testing.T) {
	res := draftResult(t)
	res.Cases = res.Cases[2:]
	rep := Build(res, "c.json", "x")
	if !rep.Summary.Passed() {
		t.Fatal("a run of drafts only does not pass")
	}
	text := string(render(t, func(b *bytes.Buffer) error { return rep.WriteText(b, false) }))
	summary := string(render(t, func(b *bytes.Buffer) error { return rep.WriteSummaryMarkdown(b, nil) }))
	for name, out := range map[string]string{"text": text, "summary": summary} {
		if !strings.Contains(out, allDrafts) {
			t.Errorf("%s lacks %q:\n%s", name, allDrafts, out)
		}
	}
	if want := "PASS  2 cases: 0 pass, 0 fail, 0 not run, 0 error, 2 drafts (pass rate —)\n"; !strings.HasPrefix(text, want) {
		t.Errorf("text starts\n%q\nwant\n%q", text, want)
	}
}

// In the baseline diff a draft is never regressed or improved: a draft
// whose candidates moved is changed, a draft become a judged case is
// changed, whatever its status. A judged case become a draft left the
// gate: a regression.
func TestDiffDrafts(t *testing.T) {
	base := Build(draftResult(t), "c.json", "x")
	readBack := func(r *Report) *Report {
		t.Helper()
		back, err := ReadJSON(render(t, func(b *bytes.Buffer) error { return r.WriteJSON(b) }))
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	b := readBack(base)
	cur := readBack(base)
	// The first draft's candidates moved; the second is now a failing
	// judged case; the passing case is now a draft.
	cur.Cases[2].TopCandidates = cur.Cases[2].TopCandidates[1:]
	cur.Cases[3].Status, cur.Cases[3].Reason = judge.StatusFail, nil
	hit := judge.HitMiss
	cur.Cases[3].HitLevel = &hit
	cur.Cases[0].Status = judge.StatusDraft
	cur.Cases[0].HitLevel, cur.Cases[0].Metrics = nil, nil

	d := Compare(b, cur, "baseline.json", "current.json")
	changes := map[string]string{}
	for _, c := range d.Cases {
		changes[c.CaseID] = c.Change
	}
	want := map[string]string{"pool": ChangeRegressed, "redis": ChangeUnchanged, "q-5d41402abc": ChangeChanged, "q-7d793037a0": ChangeChanged}
	for id, w := range want {
		if changes[id] != w {
			t.Errorf("%s: change %s, want %s", id, changes[id], w)
		}
	}
	wantReg := "case pool regressed: status pass → draft: the case is no longer judged"
	if len(d.Regressions) != 1 || d.Regressions[0] != wantReg {
		t.Errorf("regressions %q, want [%q]", d.Regressions, wantReg)
	}
	golden(t, "draft-diff.md", render(t, func(b *bytes.Buffer) error { return d.WriteMarkdown(b) }))

	// Drafts alone moving: no regression.
	cur = readBack(base)
	cur.Cases[2].TopCandidates = nil
	weak := contract.EvidenceWeak
	cur.Cases[3].EvidenceStatus = &weak
	if d := Compare(b, cur, "baseline.json", "current.json"); d.Regressed() || d.Counts.Changed != 2 {
		t.Errorf("drafts moving: verdict %s, changed %d; want ok, 2", d.Verdict, d.Counts.Changed)
	}
}

// A snapshot without a requested search mode, as a production side's,
// says none.
func TestSnapshotLineWithoutSearchMode(t *testing.T) {
	p := &contract.Pipeline{Name: "production", Capabilities: []string{}}
	if got, want := SnapshotLine(&Snapshot{KBScope: "kb", Pipeline: p}), "kbScope kb, production pipeline, declares none of the optional parts"; got != want {
		t.Errorf("SnapshotLine = %q, want %q", got, want)
	}
	p.SearchMode = contract.ModeOther
	if got, want := SnapshotLine(&Snapshot{KBScope: "kb", Pipeline: p}), "other (as the pipeline declares), kbScope kb, production pipeline, declares none of the optional parts"; got != want {
		t.Errorf("SnapshotLine = %q, want %q", got, want)
	}
}
