package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// A case skipped on one side (its pipeline declares it lacks what the
// case's checks need) is no pair for the pass rate, and each side says
// what it skipped and why.
func TestSkippedCaseIsNoPassRatePair(t *testing.T) {
	g := golden(3)
	left := result(g, "l", func(int) bool { return true })
	right := result(g, "r", func(int) bool { return true })
	reason := judge.SkipReason("trace")
	sk := &right.Cases[0]
	sk.Status = judge.StatusSkipped
	sk.Checks = []judge.Check{{Name: judge.CheckQuery, Passed: true}, {Name: judge.CheckSelectedAttempt, Skipped: true, Message: &reason}}
	sk.SkippedChecks = []string{judge.CheckSelectedAttempt}
	r := Build(in, Side{Name: "builtin", Result: left}, Side{Name: "bm25", Result: right})
	if m := metricByName(r, MetricPassRate); m.Pairs != 2 || *m.Delta != 0 {
		t.Errorf("passRate: %+v, want 2 pairs and delta 0", m)
	}
	if r.Right.Summary.SkippedCount != 1 || r.Cases[0].Right.SkippedChecks[0] != judge.CheckSelectedAttempt {
		t.Errorf("right side %+v, case %+v", r.Right.Summary, r.Cases[0].Right)
	}
	var txt, md bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	want := "bm25: 1 case skipped; 1 check skipped (selected_attempt 1: pipeline declares no trace)"
	if !strings.Contains(txt.String(), want+"\n") || !strings.Contains(md.String(), want+".\n") {
		t.Errorf("no %q in\n%s\n%s", want, txt.String(), md.String())
	}
	if strings.Contains(txt.String(), "builtin: 0 case") {
		t.Errorf("a side without skips got a skipped line:\n%s", txt.String())
	}
}
