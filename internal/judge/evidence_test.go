package judge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// Options.Evidence keeps each top candidate's excerpt and the retrieval
// trace; without it neither is kept, and neither is ever in the JSON.
func TestEvidence(t *testing.T) {
	dir := filepath.Join("..", "..", "eval", "rag-retrieval")
	data, err := os.ReadFile(filepath.Join(dir, "cases", "golden-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := contract.ParseGolden("golden-cases.json", data)
	if err != nil {
		t.Fatal(err)
	}
	fixtures := filepath.Join(dir, "fixtures")
	with, err := Run(g, fixtures, Options{Evidence: true})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Run(g, fixtures, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, plain := &with.Cases[0], &without.Cases[0]
	fdata, err := os.ReadFile(FixturePath(fixtures, c.CaseID))
	if err != nil {
		t.Fatal(err)
	}
	f, err := contract.ParseFixture("f", fdata)
	if err != nil {
		t.Fatal(err)
	}
	order := OrderBlocks(f.LookupResult.EvidenceBlocks)
	if len(c.TopCandidates) == 0 {
		t.Fatal("no candidates")
	}
	for i, cand := range c.TopCandidates {
		if want := f.LookupResult.EvidenceBlocks[order[i]].Excerpt; cand.Excerpt != want || want == "" {
			t.Errorf("candidate %d excerpt %q, want %q", i, cand.Excerpt, want)
		}
		if plain.TopCandidates[i].Excerpt != "" {
			t.Errorf("candidate %d kept its excerpt without Options.Evidence", i)
		}
	}
	// The trace is the fixture's.
	ft := f.LookupResult.RetrievalTrace
	if c.Trace == nil {
		t.Error("no trace with Options.Evidence")
	} else {
		if len(c.Trace.Attempts) != len(ft.Attempts) {
			t.Errorf("trace with %d attempts, want the fixture's %d", len(c.Trace.Attempts), len(ft.Attempts))
		}
		if c.Trace.SelectedAttempt != ft.SelectedAttempt {
			t.Errorf("trace selectedAttempt %q, want the fixture's %q", c.Trace.SelectedAttempt, ft.SelectedAttempt)
		}
	}
	if plain.Trace != nil {
		t.Error("a trace kept without Options.Evidence")
	}
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(plain)
	// The evidence does not change the JSON of a case.
	if string(a) != string(b) {
		t.Errorf("JSON with the evidence\n%s\nwithout\n%s", a, b)
	}
	if strings.Contains(string(a), "excerpt") {
		t.Errorf("JSON with the evidence holds an excerpt:\n%s", a)
	}
}
