package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsCheck: each collision is refused with the message that names
// it, and the first rule that applies, in the documented order, wins.
func TestOutputsCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("fixtures", 0o755); err != nil {
		t.Fatal(err)
	}
	render := func(string, io.Writer) error { return nil }
	ins := []input{{"--cases", "cases.json"}, {"--compare-to", "base.json"}}
	for _, tt := range []struct {
		name  string
		flags []string // flag=path, declared in order
		ins   []input
		runs  []string
		want  string // "" for no error
	}{
		{"distinct", []string{"--json-report=a.json", "--markdown-report=a.md"}, ins, nil, ""},
		{"the cases", []string{"--json-report=a.json", "--markdown-report=cases.json"}, ins, nil,
			"--markdown-report cases.json is the same file as --cases"},
		{"the baseline", []string{"--json-report=./base.json"}, ins, nil,
			"--json-report ./base.json is the same file as --compare-to"},
		{"two inputs on one file: the later names it", []string{"--json-report=x"}, []input{{"--cases", "x"}, {"--compare-to", "x"}}, nil,
			"--json-report x is the same file as --compare-to"},
		{"an earlier output", []string{"--json-report=o", "--junit=sub/../o"}, ins, nil,
			"--junit sub/../o is the same file as --json-report"},
		{"inside a fixture directory", []string{"--html-report=fixtures/r.html"}, ins, nil,
			"--html-report fixtures/r.html is inside the fixture directory fixtures"},
		{"the fixture directory itself", []string{"--html-report=fixtures"}, ins, nil,
			"--html-report fixtures is inside the fixture directory fixtures"},
		{"beside a fixture directory", []string{"--html-report=fixtures-other/r.html", "--junit=fixtures.xml"}, ins, nil, ""},
		{"a run", []string{"--json-report=a.json", "--markdown-report=b.run"}, ins, []string{"a.run", "b.run"},
			"--markdown-report b.run is the same file as the run b.run"},
		{"a run is checked after every other rule", []string{"--json-report=a.run", "--markdown-report=cases.json"}, ins, []string{"a.run"},
			"--markdown-report cases.json is the same file as --cases"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var outs outputs[string]
			for _, f := range tt.flags {
				flag, path, _ := strings.Cut(f, "=")
				outs.add(flag, path, render)
			}
			err := outs.check(tt.ins, []string{"fixtures"}, tt.runs)
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

// TestOutputsAddSkipsEmpty: an output without a path is not declared.
func TestOutputsAddSkipsEmpty(t *testing.T) {
	var outs outputs[string]
	outs.add("--json-report", "a.json", nil)
	outs.add("--html-report", "", nil)
	outs.add("--junit", "j.xml", nil)
	var flags []string
	for _, o := range outs {
		flags = append(flags, o.flag)
	}
	if got, want := strings.Join(flags, " "), "--json-report --junit"; got != want {
		t.Errorf("declared %q, want %q", got, want)
	}
}

// TestOutputsWrite: every output is rendered from the one result and
// written whole. A rendering error writes no output at all.
func TestOutputsWrite(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "sub", "b.txt")
	var outs outputs[string]
	outs.add("--a", a, func(r string, w io.Writer) error { _, err := io.WriteString(w, "a:"+r); return err })
	outs.add("--b", b, func(r string, w io.Writer) error { _, err := io.WriteString(w, "b:"+r); return err })
	if err := outs.write("result"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{a: "a:result", b: "b:result"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s: %q (%v), want %q", path, got, err, want)
		}
	}

	c, d := filepath.Join(dir, "c.txt"), filepath.Join(dir, "d.txt")
	boom := errors.New("boom")
	outs = nil
	outs.add("--c", c, func(string, io.Writer) error { return nil })
	outs.add("--d", d, func(string, io.Writer) error { return boom })
	err := outs.write("result")
	if !errors.Is(err, boom) {
		t.Errorf("write: %v, want %v", err, boom)
	}
	if want := "render " + d + ": boom"; err == nil || err.Error() != want {
		t.Errorf("write: %v, want %q", err, want)
	}
	for _, p := range []string{c, d} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after a rendering error: %v, want it not written", p, err)
		}
	}
}

// TestOutputsWriteStopsAtFailedWrite: the outputs before a failed write
// are written, the ones after it are not.
func TestOutputsWriteStopsAtFailedWrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	first, bad, last := filepath.Join(dir, "first"), filepath.Join(file, "bad"), filepath.Join(dir, "last")
	var outs outputs[string]
	for _, p := range []string{first, bad, last} {
		outs.add("--"+filepath.Base(p), p, func(string, io.Writer) error { return nil })
	}
	err := outs.write("")
	if err == nil || !strings.HasPrefix(err.Error(), "write "+bad+": ") {
		t.Errorf("write: %v, want a write error on %s", err, bad)
	}
	if _, err := os.Stat(first); err != nil {
		t.Errorf("the output before the failed write: %v, want it written", err)
	}
	if _, err := os.Stat(last); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the output after the failed write: %v, want it not written", err)
	}
}
