package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsCheckFiles: an output that is, as a file, one the run reads
// is refused whatever path names it: a hard link to the cases, to a run or
// to a fixture. So is an output in another fixture directory, one that
// holds a manifest, which this run does not read.
func TestOutputsCheckFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, d := range []string{"fixtures", "other", "reports"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{
		"cases.json": "[]", "a.run": "q Q0 d 1 1 t\n", "fixtures/c1.json": "{}", "fixtures/notes.txt": "",
		"other/c1.json": "{}", "other/_snapshot.json": "{}",
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"reports/cases.json": "cases.json", "reports/a.run": "a.run", "reports/c1.json": "fixtures/c1.json", "reports/notes.txt": "fixtures/notes.txt"} {
		if err := os.Link(target, link); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	if err := os.Symlink("../cases.json", "reports/link.json"); err != nil {
		t.Fatal(err)
	}
	render := func(string, io.Writer) error { return nil }
	ins := []input{{"--cases", "cases.json"}}
	for _, tt := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"a hard link to the cases", []string{"--json-report=reports/a.json", "--markdown-report=reports/cases.json"},
			"--markdown-report reports/cases.json is the same file as --cases"},
		{"a hard link to a run", []string{"--json-report=reports/a.run"},
			"--json-report reports/a.run is the same file as the run a.run"},
		{"a hard link to a fixture", []string{"--html-report=reports/c1.json"},
			"--html-report reports/c1.json is the same file as the fixture fixtures/c1.json"},
		{"a symbolic link to the cases", []string{"--json-report=reports/link.json"},
			"--json-report reports/link.json is the same file as --cases"},
		{"another fixture directory", []string{"--json-report=reports/new.json", "--junit=other/c1.json"},
			"--junit other/c1.json is inside other, a fixture directory (it holds _snapshot.json)"},
		{"a new file in another fixture directory", []string{"--junit=other/new.xml"},
			"--junit other/new.xml is inside other, a fixture directory (it holds _snapshot.json)"},
		// The judge reads no file of a fixture directory but its .json
		// files, and no other directory.
		{"a hard link to a file the run does not read", []string{"--markdown-report=reports/notes.txt", "--json-report=reports/new.json"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var outs outputs[string]
			for _, f := range tt.flags {
				flag, path, _ := strings.Cut(f, "=")
				outs.add(flag, path, render)
			}
			err := outs.check(ins, []string{"fixtures"}, []string{"a.run"})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("check: %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOutputsCheckCaseInsensitive: on a file system that ignores letter
// case, an output spelled otherwise than an input is still that input.
func TestOutputsCheckCaseInsensitive(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("fixtures", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("cases.json", []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("CASES.json"); err != nil {
		t.Skip("this file system tells letter case apart")
	}
	var outs outputs[string]
	outs.add("--json-report", "CASES.json", nil)
	if err := outs.check([]input{{"--cases", "cases.json"}}, []string{"fixtures"}, nil); err == nil || err.Error() != "--json-report CASES.json is the same file as --cases" {
		t.Errorf("check: %v", err)
	}
	outs = nil
	outs.add("--json-report", filepath.Join("FIXTURES", "r.json"), nil)
	want := "--json-report " + filepath.Join("FIXTURES", "r.json") + " is inside the fixture directory fixtures"
	if err := outs.check(nil, []string{"fixtures"}, nil); err == nil || err.Error() != want {
		t.Errorf("check: %v, want %s", err, want)
	}
}
