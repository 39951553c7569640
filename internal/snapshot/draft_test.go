package snapshot

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/testkit/eq"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// A draft case (drafted from a query log, no expectation) is snapshotted
// like any case: its query is looked up and frozen as <caseId>.json.
func TestDraftsSnapshotted(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, serve(t, p), dir)
	opts.Cases = golden(t, `{"version": 1, "kbScope": "rag-eval", "cases": [
		{"caseId": "disk", "scenario": "chat", "query": "disk full", "expectedSources": ["disk-full"]},
		{"caseId": "q-33c5a18956", "scenario": "chat", "query": "vpn down", "draft": true, "count": 3}
	]}`)
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "summary.Written", sum.Written, 2)
	eq.Check(t, "calls for the draft's query", p.count("vpn down"), 1)
	f, err := contract.ParseFixture("q-33c5a18956.json", []byte(dirState(t, dir)["q-33c5a18956.json"].data))
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "fixture.CaseID", f.CaseID, "q-33c5a18956")
	eq.Check(t, "fixture.Query", f.Query, "vpn down")
}
