package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// write writes the starter set for kbScope into a new directory.
func write(t *testing.T, kbScope string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range Files(kbScope) {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The starter set is valid as written, and its cases can pass. The golden
// file parses strictly with the kb scope given. The documents pass
// rag-seed's validation for that scope. Every expected document,
// breadcrumb and keyword of a case is in the chunks of the corpus, so a
// retriever that finds the right chunks passes it.
func TestStarterIsValid(t *testing.T) {
	for _, scope := range []string{"payments", "Team.runbooks_v2", FallbackKBScope} {
		t.Run(scope, func(t *testing.T) {
			dir := write(t, scope)
			golden := filepath.Join(dir, "cases", "golden-cases.json")
			g, err := contract.LoadGolden(golden)
			if err != nil {
				t.Fatalf("the starter golden file does not parse:\n%v", err)
			}
			if g.KBScope != scope {
				t.Errorf("kbScope %q, want %q", g.KBScope, scope)
			}
			docs, err := corpus.LoadDir(filepath.Join(dir, "seed-docs"), scope)
			if err != nil {
				t.Fatalf("the starter documents do not pass rag-seed's validation:\n%v", err)
			}
			if len(docs) < 1 || len(docs) > 2 {
				t.Errorf("%d starter documents, want 1 or 2", len(docs))
			}
			chunks := map[string][]kb.Chunk{}
			for i := range docs {
				cs := corpus.Chunk(&docs[i], corpus.ChunkOptions{})
				chunks[docs[i].Source] = cs
			}
			var negative bool
			for _, c := range g.Cases {
				if c.Notes == "" {
					t.Errorf("case %s: no notes: a starter case says why it exists", c.CaseID)
				}
				if c.ExpectedFound != nil && !*c.ExpectedFound {
					negative = true
				}
				var text []string
				var crumbs []string
				for _, src := range c.ExpectedSources {
					cs, ok := chunks[src]
					if !ok {
						t.Errorf("case %s: expected source %q is no starter document", c.CaseID, src)
					}
					for _, ch := range cs {
						text = append(text, textnorm.Normalize(ch.Text))
						crumbs = append(crumbs, ch.Breadcrumb)
					}
				}
				for _, want := range c.ExpectedBreadcrumbs {
					found := false
					for _, got := range crumbs {
						found = found || textnorm.BreadcrumbMatches(want, got)
					}
					if !found {
						t.Errorf("case %s: expected breadcrumb %q matches no chunk of its documents (%q)", c.CaseID, want, crumbs)
					}
				}
				for _, kw := range c.ExpectedKeywords {
					if !strings.Contains(strings.Join(text, "\n"), textnorm.Normalize(kw)) {
						t.Errorf("case %s: expected keyword %q is in no chunk of its documents", c.CaseID, kw)
					}
				}
			}
			if !negative {
				t.Error("no off-topic case (expectedFound false): calibrate needs negatives")
			}
		})
	}
}

func TestGitignore(t *testing.T) {
	var ignore string
	for _, f := range Files("x") {
		if f.Path == ".gitignore" {
			ignore = string(f.Data)
		}
	}
	for _, want := range []string{"/reports/current.*", "/reports/baseline-diff.*", "/reports/compare.*", "/reports/junit*.xml"} {
		if !strings.Contains(ignore, "\n"+want+"\n") {
			t.Errorf(".gitignore lacks %s", want)
		}
	}
	for _, pattern := range []string{"/reports/baseline.", "/reports/*"} {
		if strings.Contains(ignore, "\n"+pattern) {
			t.Errorf(".gitignore ignores the accepted baseline, which is committed: a line starts %s", pattern)
		}
	}
}

func TestDefaultKBScope(t *testing.T) {
	for dir, want := range map[string]string{
		"eval/payments":                    "payments",
		"eval/Payments Runbooks":           "payments-runbooks",
		"eval/ops_v2.1":                    "ops_v2.1",
		"eval/--x--":                       "x",
		"eval/Ops (EU)/":                   "ops-eu",
		"eval/支付":                          FallbackKBScope,
		"eval/支付-runbooks":                 "runbooks",
		"eval/" + strings.Repeat("a", 300): strings.Repeat("a", 255),
	} {
		got := DefaultKBScope(dir)
		if got != want {
			t.Errorf("DefaultKBScope(%q) = %q, want %q", dir, got, want)
		}
		if err := kb.ValidKBScope(got); err != nil {
			t.Errorf("DefaultKBScope(%q) = %q: %v", dir, got, err)
		}
	}
	// "." is the current directory, named by its absolute path.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := DefaultKBScope("."), filepath.Base(wd); got != want {
		t.Errorf("DefaultKBScope(.) = %q, want %q", got, want)
	}
}
