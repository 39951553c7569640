package judge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

// A top candidate carries its block's evidenceKey, or, when it has none,
// the start of its excerpt, so that reports tell two chunks of one
// section apart.
func TestCandidateKeyOrExcerptStart(t *testing.T) {
	key := func(k string) func(*contract.EvidenceBlock) {
		return func(b *contract.EvidenceBlock) { b.EvidenceKey = k }
	}
	f := fixture("c", "q",
		blk(1, "a", key("kb/a#Setup@1"), excerpt("first chunk")),
		blk(2, "a", excerpt("  second\nchunk of the same section, with more than eight words in it  ")),
		blk(3, "a"))
	r := JudgeFixture(&contract.Case{CaseID: "c", Query: "q", ExpectedSources: []string{"a"}}, 5, f, "kb")
	var got []string
	for _, c := range r.TopCandidates {
		got = append(got, c.EvidenceKey+"|"+c.ExcerptStart)
	}
	want := []string{"kb/a#Setup@1|", "|second chunk of the same section, with more…", "|"}
	if !slices.Equal(got, want) {
		t.Errorf("key|excerptStart %q, want %q", got, want)
	}
}

func TestExcerptStart(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"one two", "one two"},
		{"one two three four five six seven eight", "one two three four five six seven eight"},
		{"one two three four five six seven eight nine", "one two three four five six seven eight…"},
		{"# MySQL 连接池耗尽排查\n\n应用日志出现 `ERROR 1040 (HY000): Too many connections`",
			"# MySQL 连接池耗尽排查 应用日志出现 `ERROR 1040 (HY000): Too…"},
		{strings.Repeat("连", 70), strings.Repeat("连", 60) + "…"},
		{strings.Repeat("x", 60), strings.Repeat("x", 60)},
	} {
		if got := ExcerptStart(tc.in); got != tc.want {
			t.Errorf("ExcerptStart(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
