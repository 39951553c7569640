package judge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

func TestFirstMember(t *testing.T) {
	tests := []struct {
		doc, want string
	}{
		{`{"pipeline": {"name": "a"}, "x": 1}`, `{"name": "a"}`},
		{`{"a": "}\"{", "b": [1, {"pipeline": 2}], "pipeline" : [1,[2]] }`, `[1,[2]]`},
		{`{"c": 1, "pipeline": 12.5e3 }`, `12.5e3 `},
		{`{"c": true, "pipeline": null}`, `null`},
		{`{"pip\u0065line": "escaped key", "pipeline": "second"}`, `"escaped key"`},
		{`{"pipeline": "first", "pipeline": "second"}`, `"first"`},
		{`{"lookupResult": {"pipeline": {"name": "nested"}}}`, ``},
		{`{}`, ``},
		{` [ {"pipeline": 1} ]`, ``},
		{"{\n  \"a\": \"x\\\\\",\n  \"pipeline\": {\"s\": \"\\\"}\"}\n}", `{"s": "\"}"}`},
	}
	for _, tt := range tests {
		if !json.Valid([]byte(tt.doc)) {
			t.Fatalf("test document is not JSON: %s", tt.doc)
		}
		if got := string(firstMember([]byte(tt.doc), "pipeline")); got != tt.want {
			t.Errorf("firstMember(%s) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}

// writeSet writes a fixture directory: a manifest and one fixture per
// case, the excerpt saying which snapshot it belongs to.
func writeSet(t *testing.T, dir, version string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pipe := `{"name": "builtin", "version": "` + version + `", "store": "embedded", "embedder": "e", "dim": 4, "params": {"topK": 5}}`
	manifest := `{"manifestVersion": 1, "status": "available", "searchMode": "hybrid", "kbScope": "kb", "pipeline": ` + pipe + `, "failed": []}`
	if err := os.WriteFile(filepath.Join(dir, contract.ManifestName), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		f := fmt.Sprintf(`{"caseId": "c%d", "query": "q%d", "searchMode": "hybrid", "kbScope": "kb", "pipeline": %s,
 "lookupResult": {"found": true, "evidenceBlocks": [{"rank": 1, "source": "s", "excerpt": "snapshot %s"}]}}`, i, i, pipe, version)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%d.json", i)), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func goldenN(t *testing.T, n int) *contract.GoldenFile {
	t.Helper()
	var cases []string
	for i := range n {
		cases = append(cases, fmt.Sprintf(`{"caseId": "c%d", "scenario": "chat", "query": "q%d", "expectedKeywords": ["snapshot v2"]}`, i, i))
	}
	g, err := contract.ParseGolden("golden.json", []byte(`{"version": 1, "kbScope": "kb", "cases": [`+strings.Join(cases, ",")+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRunRereadsAReplacedDirectory: a fixture directory swapped for
// another one while Run reads it (as rag-snapshot swaps a new snapshot in)
// is read again, so the result is wholly the new snapshot, never a mix.
func TestRunRereadsAReplacedDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "fixtures")
	writeSet(t, dir, "v1", 6)
	writeSet(t, filepath.Join(root, "next"), "v2", 6)
	g := goldenN(t, 6)

	// Swap once, after the first read: the first reading (v1) is thrown
	// away.
	calls := 0
	afterRead = func() {
		calls++
		if calls == 1 {
			if err := os.Rename(dir, filepath.Join(root, "prev")); err != nil {
				t.Error(err)
			}
			if err := os.Rename(filepath.Join(root, "next"), dir); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(func() { afterRead = nil })
	res, err := Run(g, dir, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Errorf("read %d times, want 2", calls)
	}
	for _, c := range res.Cases {
		if c.Status != StatusPass {
			t.Errorf("%s: %s (a fixture of the replaced snapshot was kept)", c.Case.CaseID, c.Status)
		}
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %v", res.Warnings)
	}

	// Replaced at every reading: an error, not a result.
	afterRead = func() {
		tmp := filepath.Join(root, "tmp")
		os.Rename(dir, tmp)
		os.Rename(filepath.Join(root, "prev"), dir)
		os.Rename(tmp, filepath.Join(root, "prev"))
	}
	if _, err := Run(g, dir, Options{}); err == nil || !strings.Contains(err.Error(), "was replaced 5 times while it was read") {
		t.Errorf("err %v", err)
	}
}

// TestManifestCheck: a directory whose fixtures come from two snapshots
// gets one warning per kind of disagreement; one whose fixtures all match
// its manifest, or whose manifest says nothing or "unavailable", none.
func TestManifestCheck(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "fixtures")
	writeSet(t, dir, "v2", 8)
	g := goldenN(t, 8)
	res, err := Run(g, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Fatalf("consistent directory: warnings %v", res.Warnings)
	}
	// Result.Manifest is the directory's manifest.
	if res.Manifest == nil {
		t.Fatal("Result.Manifest = nil")
	}
	if res.Manifest.SearchMode != "hybrid" {
		t.Fatalf("Result.Manifest.SearchMode = %q, want hybrid", res.Manifest.SearchMode)
	}
	if res.Manifest.Pipeline == nil || res.Manifest.Pipeline.Version != "v2" {
		t.Fatalf("Result.Manifest.Pipeline = %+v, want version v2", res.Manifest.Pipeline)
	}

	// Seven fixtures of another snapshot (another pipeline version and
	// search mode), as a kill during one-by-one renames left them.
	old := filepath.Join(root, "old")
	writeSet(t, old, "v1", 8)
	for i := 1; i < 8; i++ {
		name := fmt.Sprintf("c%d.json", i)
		data, _ := os.ReadFile(filepath.Join(old, name))
		data = []byte(strings.Replace(string(data), `"searchMode": "hybrid"`, `"searchMode": "dense"`, 1))
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	res, err = Run(g, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`7 of 8 fixtures in ` + dir + ` disagree with its manifest on searchMode (manifest "hybrid", fixtures "dense"): c1, c2, c3, c4, c5, … (2 more); the directory mixes snapshots: run rag-snapshot again`,
		`7 of 8 fixtures in ` + dir + ` disagree with its manifest on pipeline (version): c1, c2, c3, c4, c5, … (2 more); the directory mixes snapshots: run rag-snapshot again`,
	}
	if got := fmt.Sprint(res.Warnings); got != fmt.Sprint(want) {
		t.Errorf("warnings\n%s\nwant\n%s", got, want)
	}
	// The judgement itself is not changed by the check.
	for i, want := range []Status{StatusPass, StatusFail} {
		if res.Cases[i].Status != want {
			t.Errorf("case %d: status %s, want %s", i, res.Cases[i].Status, want)
		}
	}

	// A pipeline that is not an object is "unreadable".
	os.WriteFile(filepath.Join(dir, "c1.json"), []byte(`{"caseId": "c1", "query": "q1", "pipeline": "builtin", "lookupResult": {}}`), 0o644)
	res, _ = Run(g, dir, Options{})
	if got := fmt.Sprint(res.Warnings); !strings.Contains(got, "on pipeline (version, unreadable): c1, c2") {
		t.Errorf("warnings %s", got)
	}

	// Nothing to check against.
	for _, m := range []string{`{"status": "available"}`, `{"status": "unavailable", "searchMode": "hybrid", "pipeline": {"name": "x"}}`} {
		os.WriteFile(filepath.Join(dir, contract.ManifestName), []byte(m), 0o644)
		if res, _ := Run(g, dir, Options{}); len(res.Warnings) != 0 {
			t.Errorf("manifest %s: warnings %v", m, res.Warnings)
		}
	}
	os.Remove(filepath.Join(dir, contract.ManifestName))
	res, _ = Run(g, dir, Options{})
	if len(res.Warnings) != 0 {
		t.Errorf("no manifest: warnings %v, want none", res.Warnings)
	}
	if res.Manifest != nil {
		t.Errorf("no manifest: Result.Manifest = %+v, want nil", *res.Manifest)
	}
}

// TestMissingDirMovedAside: a fixture directory an interrupted two-rename
// swap moved aside is an input error that says so.
func TestMissingDirMovedAside(t *testing.T) {
	root := t.TempDir()
	writeSet(t, filepath.Join(root, ".fixtures.staging-12-34.old"), "v1", 1)
	_, err := Run(goldenN(t, 1), filepath.Join(root, "fixtures"), Options{})
	if err == nil || !strings.Contains(err.Error(), "no such file or directory (an interrupted rag-snapshot was replacing it: run rag-snapshot again to finish, or move "+
		filepath.Join(root, ".fixtures.staging-12-34.old")+" back)") {
		t.Errorf("err %v", err)
	}
	_, err = Run(goldenN(t, 1), filepath.Join(root, "other"), Options{})
	if err == nil || strings.Contains(err.Error(), "interrupted") {
		t.Errorf("err %v", err)
	}
}
