package htmlreport

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report"
)

// BenchmarkJudge renders the judge page of 1,000 cases of 5 blocks with
// excerpts of about 600 characters and 2 keywords each (the bytes of the
// page per op are reported as MB/s).
func BenchmarkJudge(b *testing.B) {
	base := testCases()[0]
	excerpt := strings.Repeat("A Refund is issued within 14 days to the original card; ", 11)
	cases := make([]judge.CaseResult, 1000)
	for i := range cases {
		c := base
		c.CaseID = fmt.Sprintf("case-%04d", i)
		c.Case = &contract.Case{CaseID: c.CaseID, ExpectedKeywords: []string{"refund", "card"}}
		c.TopCandidates = make([]judge.Candidate, 5)
		for j := range c.TopCandidates {
			t := base.TopCandidates[0]
			t.Rank, t.Excerpt = j+1, excerpt
			c.TopCandidates[j] = t
		}
		cases[i] = c
	}
	rep := report.Build(&judge.Result{Golden: &contract.GoldenFile{}, Fixtures: "fixtures", Cases: cases}, "cases.json", "")
	var n countWriter
	if err := Judge(&n, rep, nil); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		if err := Judge(io.Discard, rep, nil); err != nil {
			b.Fatal(err)
		}
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
