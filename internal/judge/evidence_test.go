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
	if c.Trace == nil || len(c.Trace.Attempts) != len(f.LookupResult.RetrievalTrace.Attempts) || c.Trace.SelectedAttempt != f.LookupResult.RetrievalTrace.SelectedAttempt {
		t.Errorf("trace %+v, want the fixture's %+v", c.Trace, f.LookupResult.RetrievalTrace)
	}
	if plain.Trace != nil {
		t.Error("a trace kept without Options.Evidence")
	}
	a, _ := json.Marshal(c)
	b, _ := json.Marshal(plain)
	if string(a) != string(b) || strings.Contains(string(a), "excerpt") {
		t.Error("the evidence changed the JSON of a case")
	}
}
