package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/compare"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report"
)

// joined is the text of segs.
func joined(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.Text)
	}
	return b.String()
}

// TestExcerptCut: an excerpt of up to maxExcerptChars characters is shown
// whole, a longer one cut there at a character boundary, with a note that
// counts characters, not bytes.
func TestExcerptCut(t *testing.T) {
	whole := strings.Repeat("a", maxExcerptChars)
	if segs, cut := excerpt(whole, nil); joined(segs) != whole || cut != "" {
		t.Errorf("%d characters: %d shown, cut %q, want all and no cut", maxExcerptChars, len(joined(segs)), cut)
	}
	long := strings.Repeat("连接池", 10000) // 30,000 characters of 3 bytes
	segs, cut := excerpt(long, nil)
	if got := joined(segs); got != long[:3*maxExcerptChars] {
		t.Errorf("30,000 characters: %d bytes shown, want the first %d characters", len(got), maxExcerptChars)
	}
	if want := "… (cut: the first 16,000 of 30,000 characters shown)"; cut != want {
		t.Errorf("cut %q, want %q", cut, want)
	}
	// A keyword is marked where the page shows it, and only there.
	text := strings.Repeat("x", maxExcerptChars-3) + "pool pool"
	segs, _ = excerpt(text, []string{"pool"})
	var marked []string
	for _, s := range segs {
		if s.Mark {
			marked = append(marked, s.Text)
		}
	}
	if joined(segs) != text[:maxExcerptChars] || len(marked) != 0 {
		t.Errorf("a keyword across the cut: marked %q, want none", marked)
	}
	segs, _ = excerpt("pool "+text, []string{"pool"})
	if len(segs) < 2 || !segs[0].Mark || segs[0].Text != "pool" {
		t.Errorf("a keyword before the cut is not marked: %+v", segs[:min(2, len(segs))])
	}
}

// TestThousands pins the separators of the note's counts.
func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 16000: "16,000", 10485760: "10,485,760", 1234567890: "1,234,567,890"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestPageCapsExcerpts: five excerpts of 10 MB make a page of well under a
// megabyte, with the note on each, on the judge's page and on the
// comparison's. Whole, they made a page of 157 MB.
func TestPageCapsExcerpts(t *testing.T) {
	huge := strings.Repeat("0123456789", 1<<20) // 10,485,760 characters
	note := "… (cut: the first 16,000 of 10,485,760 characters shown)"
	var cases []judge.CaseResult
	for i := range 5 {
		id := string(rune('a' + i))
		cases = append(cases, judge.CaseResult{
			CaseID: id, Scenario: "chat", Tags: []string{}, Query: "q", Status: judge.StatusFail, K: 5, HitLevel: sp(judge.HitMiss),
			TopCandidates: []judge.Candidate{{Rank: 1, Source: "s" + id, Excerpt: huge}},
			Checks:        []judge.Check{}, FailedChecks: []string{},
		})
	}
	res := &judge.Result{Golden: &contract.GoldenFile{}, Fixtures: "fixtures", Cases: cases}
	var page bytes.Buffer
	if err := Judge(&page, report.Build(res, "cases.json", "0123456789abcdef"), nil); err != nil {
		t.Fatal(err)
	}
	if page.Len() > 1<<20 {
		t.Errorf("the judge's page is %d bytes, want under 1 MiB", page.Len())
	}
	if n := strings.Count(page.String(), "<em>"+note+"</em>"); n != 5 {
		t.Errorf("the judge's page notes %d cut excerpts, want 5", n)
	}

	// The other side's blocks come from other sources, so that every case
	// differs and is shown.
	other := make([]judge.CaseResult, len(cases))
	for i, c := range cases {
		c.TopCandidates = []judge.Candidate{{Rank: 1, Source: "other", Excerpt: huge}}
		other[i] = c
	}
	sides := []compare.Side{
		{Name: "hybrid", Fixtures: "fixtures", Result: res},
		{Name: "dense", Fixtures: "fixtures-dense", Result: &judge.Result{Golden: res.Golden, Fixtures: "fixtures-dense", Cases: other}},
	}
	page.Reset()
	if err := Compare(&page, compare.Build(compare.Inputs{Cases: "cases.json", K: 5}, sides, -1, 0)); err != nil {
		t.Fatal(err)
	}
	if page.Len() > 1<<20 {
		t.Errorf("the comparison's page is %d bytes, want under 1 MiB", page.Len())
	}
	if n := strings.Count(page.String(), "<em>"+note+"</em>"); n != 10 {
		t.Errorf("the comparison's page notes %d cut excerpts, want 10", n)
	}
}

// FuzzExcerpt: the page shows exactly the first maxExcerptChars characters
// of any text, says it cut exactly when there were more, and never panics.
func FuzzExcerpt(f *testing.F) {
	f.Add("pool full", "pool", 3)
	f.Add("连接池", "池", maxExcerptChars)
	f.Add("\xff\xfe invalid", "ﬁ", maxExcerptChars-1)
	f.Fuzz(func(t *testing.T, text, keyword string, pad int) {
		if pad < 0 || pad > 2*maxExcerptChars {
			return
		}
		text = strings.Repeat("a", pad) + text
		segs, cut := excerpt(text, []string{keyword})
		shown := joined(segs)
		if !strings.HasPrefix(text, shown) {
			t.Fatalf("shows %q, not a prefix of the text", shown)
		}
		n := 0
		for range shown {
			n++
		}
		total := 0
		for range text {
			total++
		}
		if want := min(total, maxExcerptChars); n != want {
			t.Fatalf("shows %d characters of %d, want %d", n, total, want)
		}
		if (cut != "") != (total > maxExcerptChars) {
			t.Fatalf("%d characters: cut %q", total, cut)
		}
	})
}
