package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/judge"
)

func TestSummaryMarkdownGolden(t *testing.T) {
	rep := Build(sampleResult(t), "c.json", "x")
	golden(t, "summary.md", render(t, func(b *bytes.Buffer) error { return rep.WriteSummaryMarkdown(b, nil) }))

	base := Build(sampleResult(t), "c.json", "x")
	w := &base.Cases[2]
	w.Status, w.HitLevel, w.FirstExpectedRank, w.Checks, w.FailedChecks = judge.StatusPass, ptr("strong"), ptr(1), nil, []string{}
	w.TopCandidates = []judge.Candidate{{Rank: 1, Source: "disk", DocID: "kb/disk", Breadcrumb: "Host > Disk", QualityScore: f6(0.61)}}
	d := Compare(base, rep, "base.json", "cur.json")
	golden(t, "summary-diff.md", render(t, func(b *bytes.Buffer) error {
		return rep.WriteSummaryMarkdown(b, d, "reports/current.md", "reports/baseline-diff.md")
	}))
}

// TestSummaryMarkdownCap: however many regressions and failed checks, the
// summary stays under the limit, ends with the summary table, says what it
// left out, and is valid UTF-8. A small one is not cut.
func TestSummaryMarkdownCap(t *testing.T) {
	strong := ptr("strong")
	long := strings.Repeat("长消息 long message ", 200) // > summaryLineLimit
	base, cur := &Report{}, &Report{}
	for i := range 3000 {
		id := fmt.Sprintf("case-%04d", i)
		base.Cases = append(base.Cases, mkCase(id, "pass", strong, ptr(1), "F", "e"))
		c := mkCase(id, "fail", ptr("miss"), nil, "F", "x")
		c.Checks = []judge.Check{{Name: "expected_document", Message: &long}, {Name: "keywords", Message: ptr("missing pool")}}
		c.FailedChecks = []string{"expected_document", "keywords"}
		cur.Cases = append(cur.Cases, c)
	}
	cur.Summary.CaseCount, cur.Summary.FailCount = 3000, 3000
	d := Compare(base, cur, "base.json", "cur.json")
	var buf bytes.Buffer
	if err := cur.WriteSummaryMarkdown(&buf, d, "reports/current.md"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if len(out) > SummaryMarkdownLimit || utf8.RuneCountInString(out) >= 65536 {
		t.Fatalf("%d bytes, limit %d", len(out), SummaryMarkdownLimit)
	}
	if len(out) < SummaryMarkdownLimit-2*summaryLineLimit {
		t.Errorf("only %d bytes used of %d", len(out), SummaryMarkdownLimit)
	}
	if !utf8.ValidString(out) {
		t.Error("invalid UTF-8")
	}
	for _, want := range []string{"## rag-eval: REGRESSION\n", "### Regressions (3000)", "more lines left out: this summary is capped at 60000 bytes; see `reports/current.md`",
		"### Summary\n", "| passRate |", "Hit levels:"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q", want)
		}
	}
	if i, j := strings.Index(out, "left out"), strings.Index(out, "### Summary"); i > j {
		t.Error("the note is after the summary table")
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > summaryLineLimit {
			t.Fatalf("a line of %d bytes", len(line))
		}
	}

	var small bytes.Buffer
	if err := (&Report{Cases: cur.Cases[:2]}).WriteSummaryMarkdown(&small, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(small.String(), "left out") {
		t.Errorf("a small summary was cut:\n%s", small.String())
	}
}

func TestClip(t *testing.T) {
	for _, s := range []string{"abc", "连接池满了", strings.Repeat("é", 100)} {
		for n := 3; n < 40; n++ {
			c := clip(s, n)
			if len(c) > n && len(s) > n || !utf8.ValidString(c) {
				t.Errorf("clip(%q, %d) = %q", s, n, c)
			}
		}
	}
}

// TestSummaryMarkdownCapExact sweeps the reason length of regressed
// not_run cases, so that some length fills the budget to the byte (200
// cases with 346- or 445-byte reasons did, by one byte, when the blank line
// before the note was not counted): the summary never exceeds the limit.
func TestSummaryMarkdownCapExact(t *testing.T) {
	for l := 300; l < 460; l++ {
		reason := strings.Repeat("r", l)
		base, cur := &Report{}, &Report{}
		for i := range 200 {
			id := fmt.Sprintf("case-%04d", i)
			base.Cases = append(base.Cases, mkCase(id, "pass", ptr("strong"), ptr(1), "F", "e"))
			c := mkCase(id, "not_run", nil, nil, "F")
			c.Reason = &reason
			cur.Cases = append(cur.Cases, c)
		}
		cur.Summary.CaseCount, cur.Summary.NotRunCount = 200, 200
		var buf bytes.Buffer
		if err := cur.WriteSummaryMarkdown(&buf, Compare(base, cur, "b.json", "c.json"), "reports/current.md"); err != nil {
			t.Fatal(err)
		}
		if buf.Len() > SummaryMarkdownLimit {
			t.Fatalf("reasons of %d bytes: %d bytes, limit %d", l, buf.Len(), SummaryMarkdownLimit)
		}
	}
}
