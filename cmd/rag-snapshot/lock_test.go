package main

import (
	"strings"
	"testing"
)

// A data dir served by rag-snapshot serve cannot be seeded under it. The
// seed gets a clear error saying who probably holds it, where it used to
// panic, and serve keeps answering.
func TestSeedWhileServing(t *testing.T) {
	dataDir := t.TempDir()
	if _, err := seed("../../eval/rag-retrieval/seed-docs", dataDir); err != nil {
		t.Fatal(err)
	}
	base, _, stop := startServe(t, "--store", "embedded", "--data-dir", dataDir)
	_, err := seed("../../eval/rag-retrieval/seed-docs", dataDir)
	if err == nil || !strings.Contains(err.Error(), "in use by another process") || !strings.Contains(err.Error(), "probably a reader") {
		t.Fatalf("seed under serve: %v", err)
	}
	if status, msg := postLookup(t, base, "application/json", `{"query":"连接池满了","kbScope":"rag-eval"}`); status != 200 {
		t.Errorf("serve after the refused seed: %d %s", status, msg)
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exited %d", code)
	}
	if _, err := seed("../../eval/rag-retrieval/seed-docs", dataDir); err != nil {
		t.Errorf("seed after serve stopped: %v", err)
	}
}
