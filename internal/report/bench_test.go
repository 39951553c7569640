package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// benchReport is a report of n cases shaped like the judge benchmark's
// (make bench-judge): K = 5, six checks, half of them failing one.
func benchReport(n int) *Report {
	rep := &Report{SchemaVersion: SchemaVersion, Tool: "rag-eval", Warnings: []string{}, Cases: make([]judge.CaseResult, n)}
	for i := range rep.Cases {
		c := judge.CaseResult{
			CaseID: fmt.Sprintf("case-%05d", i), Scenario: "chat", Tags: []string{"db", "pool"},
			Query: fmt.Sprintf("how do I size the connection pool of service %d?", i), Status: judge.StatusPass, K: 5,
			HitLevel: ptr(judge.HitStrong), FirstExpectedRank: ptr(1 + i%5), FailedChecks: []string{},
			SelectedAttempt: ptr("FILTERED_VECTOR"), EvidenceStatus: ptr("sufficient"), SearchMode: ptr("hybrid"),
			Metrics: &judge.Metrics{ReciprocalRank: 0.5, NDCGAtK: 0.630930, DocRecallAtK: 1, PrecisionAtK: 0.2},
		}
		for j := range 5 {
			c.TopCandidates = append(c.TopCandidates, judge.Candidate{
				Rank: j + 1, Source: fmt.Sprintf("docs/db/pool-%d.md", (i+j)%97), DocID: fmt.Sprintf("kb/docs/db/pool-%d.md", (i+j)%97),
				Breadcrumb: "Database > Connection pool > Sizing", Category: "database", ScoreLabel: "RRF",
				RelevanceLevel: "high", QualityScore: f6(0.734567),
			})
		}
		for _, name := range []string{judge.CheckQuery, judge.CheckExpectedDoc, judge.CheckKeywords, judge.CheckBreadcrumbs, judge.CheckMustNot, judge.CheckFound} {
			c.Checks = append(c.Checks, judge.Check{Name: name, Passed: true})
		}
		if i%2 == 1 {
			c.Status = judge.StatusFail
			c.Checks[2] = judge.Check{Name: judge.CheckKeywords, Message: ptr(`found 1 of 2 keywords in the top 5 excerpts (coverage 0.5, need 1); missing: ["max_connections"]`)}
			c.FailedChecks = []string{judge.CheckKeywords}
		}
		rep.Cases[i] = c
	}
	return rep
}

func BenchmarkWriteJSON10k(b *testing.B) {
	rep := benchReport(10000)
	var n countWriter
	if err := rep.WriteJSON(&n); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		if err := rep.WriteJSON(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

type countWriter int

func (w *countWriter) Write(p []byte) (int, error) { *w += countWriter(len(p)); return len(p), nil }
