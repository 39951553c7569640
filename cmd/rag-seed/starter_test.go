package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/golden/scaffold"
)

// TestStarterSet seeds the eval set rag-eval init writes (package
// scaffold) on the embedded store with the lexical embedder: its documents
// pass rag-seed's validation for the set's kb scope and load.
func TestStarterSet(t *testing.T) {
	dir := t.TempDir()
	for _, f := range scaffold.Files("starter") {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--docs", filepath.Join(dir, "seed-docs"), "--kb-scope", "starter",
		"--store", "embedded", "--embedder", "local", "--embed-dim", "512", "--data-dir", filepath.Join(dir, "data")}
	var out, errb strings.Builder
	if code := run(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "rag-seed: 2 added, 0 updated, 0 unchanged, 0 pruned documents"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("stdout %q, want it to start with %q", out.String(), want)
	}
}
