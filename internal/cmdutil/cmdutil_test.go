package cmdutil

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestExitCode(t *testing.T) {
	usage := Usagef("bad --k %d", 0)
	for _, tt := range []struct {
		name      string
		err       error
		eval, fwd ExitCode // rag-eval, whose unmarked errors are usage errors, and rag-seed or rag-snapshot, whose are failures
	}{
		{"nil", nil, ExitOK, ExitOK},
		{"plain", errors.New("milvus down"), ExitUsage, ExitFail},
		{"usage", usage, ExitUsage, ExitUsage},
		{"wrapped usage", fmt.Errorf("load: %w", usage), ExitUsage, ExitUsage},
		{"joined usage", errors.Join(errors.New("x"), usage), ExitUsage, ExitUsage},
		{"silent fail", Silent(ExitFail), ExitFail, ExitFail},
		{"silent regression", Silent(ExitRegression), ExitRegression, ExitRegression},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eval := Tool{Name: "rag-eval", Unmarked: ExitUsage}
			seed := Tool{Name: "rag-seed", Unmarked: ExitFail}
			if got := eval.ExitCode(tt.err); got != tt.eval {
				t.Errorf("rag-eval: exit %d, want %d", got, tt.eval)
			}
			if got := seed.ExitCode(tt.err); got != tt.fwd {
				t.Errorf("rag-seed: exit %d, want %d", got, tt.fwd)
			}
		})
	}
}

func TestPrintError(t *testing.T) {
	var b strings.Builder
	PrintError(&b, "rag-x", errors.New("problems:\na.md:1: one\nb.md:2: two\n"))
	if want := "rag-x: problems:\nrag-x: a.md:1: one\nrag-x: b.md:2: two\n"; b.String() != want {
		t.Errorf("PrintError wrote %q, want %q", b.String(), want)
	}
}

// testRoot is a command with an enum flag, an enum flag with its own
// check, and a run that returns err.
func testRoot(f *Streams, err error) *cobra.Command {
	var mode, fusion string
	cmd := &cobra.Command{
		Use:  "rag-x",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return err },
	}
	StringEnumVar(cmd.Flags(), &mode, "mode", "hybrid", []string{"hybrid", "dense"}, nil, "hybrid or dense")
	StringEnumVar(cmd.Flags(), &fusion, "fusion", "anchored", []string{"rrf", "anchored"}, func(v string) error {
		if v != "" && v != "rrf" && v != "anchored" {
			return fmt.Errorf("unknown fusion %q", v)
		}
		return nil
	}, "how to fuse")
	cmd.AddCommand(&cobra.Command{Use: "sub", RunE: func(*cobra.Command, []string) error { return err }})
	Setup(cmd, f)
	return cmd
}

// Tool.Run prints an error once, prefixed, and nothing for a silent one.
// A flag that cannot be parsed is a usage error, and an enum flag's error
// is its own message.
func TestRun(t *testing.T) {
	for _, tt := range []struct {
		name       string
		args       []string
		err        error
		code       ExitCode
		stdout     string
		stderr     string
		stdoutPart bool // stdout only contains stdout, and stderr is not checked
	}{
		{name: "ok", code: ExitOK},
		{name: "fail", err: errors.New("milvus down"), code: ExitFail, stderr: "rag-x: milvus down\n"},
		{name: "usage", err: Usagef("two\nlines"), code: ExitUsage, stderr: "rag-x: two\nrag-x: lines\n"},
		{name: "silent", err: Silent(ExitRegression), code: ExitRegression},
		{name: "unknown flag", args: []string{"--bogus"}, code: ExitUsage, stderr: "rag-x: unknown flag: --bogus\n"},
		{name: "flag in a subcommand", args: []string{"sub", "--bogus"}, code: ExitUsage, stderr: "rag-x: unknown flag: --bogus\n"},
		{name: "missing value", args: []string{"--mode"}, code: ExitUsage, stderr: "rag-x: flag needs an argument: --mode\n"},
		{name: "enum", args: []string{"--mode", "sparse"}, code: ExitUsage, stderr: "rag-x: --mode must be hybrid or dense, got \"sparse\"\n"},
		{name: "enum is case-sensitive", args: []string{"--mode=Dense"}, code: ExitUsage, stderr: "rag-x: --mode must be hybrid or dense, got \"Dense\"\n"},
		{name: "enum checked before run", args: []string{"--mode", "sparse"}, err: errors.New("ran"), code: ExitUsage, stderr: "rag-x: --mode must be hybrid or dense, got \"sparse\"\n"},
		{name: "enum with a check", args: []string{"--fusion", "x"}, code: ExitUsage, stderr: "rag-x: --fusion: unknown fusion \"x\"\n"},
		{name: "the check decides", args: []string{"--fusion="}, code: ExitOK},
		{name: "help", args: []string{"--help"}, code: ExitOK, stdout: "      --mode string     hybrid or dense (default \"hybrid\")\n", stdoutPart: true},
		{name: "completion", args: []string{"__complete", "--mode", ""}, code: ExitOK, stdout: "hybrid\ndense\n:4\n", stdoutPart: true},
		{name: "completion with a check", args: []string{"__complete", "--fusion", ""}, code: ExitOK, stdout: "rrf\nanchored\n:4\n", stdoutPart: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			f := &Streams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}
			tool := Tool{Name: "rag-x", Unmarked: ExitFail}
			code := tool.Run(context.Background(), testRoot(f, tt.err), tt.args)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			switch {
			case tt.stdoutPart:
				if !strings.Contains(stdout.String(), tt.stdout) {
					t.Errorf("stdout %q lacks %q", stdout.String(), tt.stdout)
				}
			case stdout.String() != tt.stdout:
				t.Errorf("stdout %q, want %q", stdout.String(), tt.stdout)
			case stderr.String() != tt.stderr:
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
		})
	}
}

func TestOrList(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a b": "a or b", "a b c": "a, b or c"} {
		if got := orList(strings.Fields(in)); got != want {
			t.Errorf("orList(%q) = %q, want %q", in, got, want)
		}
	}
}

// Only a terminal is a terminal: not /dev/null, a pipe, a file or a
// buffer. /dev/null is a character device, which the old
// os.ModeCharDevice test took for a terminal.
func TestIsTerminal(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, w := range map[string]io.Writer{"/dev/null": devNull, "pipe": w, "file": file, "buffer": &bytes.Buffer{}} {
		if IsTerminal(w) {
			t.Errorf("%s is taken for a terminal", name)
		}
		f := &Streams{Out: w, ErrOut: w}
		if f.ColourOut() {
			t.Errorf("%s: colour", name)
		}
		if f.Progress("x") != nil {
			t.Errorf("%s: a progress bar", name)
		}
	}
}

func TestLoadCases(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	data := []byte(`{"version": 1, "cases": [{"caseId": "c1", "scenario": "chat", "query": "q", "expectedFound": true}]}`)
	os.WriteFile(good, data, 0o644)
	g, sum, err := LoadCases(good)
	if err != nil {
		t.Fatalf("LoadCases: %v", err)
	}
	if len(g.Cases) != 1 {
		t.Fatalf("LoadCases: %d cases, want 1", len(g.Cases))
	}
	if want := sha256.Sum256(data); sum != hex.EncodeToString(want[:]) {
		t.Errorf("sha256 %s, want %x", sum, want)
	}

	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"cases": [{"caseId": "x", "scenario": "s", "query": "q", "expectedSorces": ["a"]}]}`), 0o644)
	tool := Tool{Unmarked: ExitFail}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.json"): "load golden cases: open ",
		bad:                                "load golden cases:\n" + bad + ":1: ",
	} {
		_, _, err := LoadCases(path)
		if err == nil || !strings.HasPrefix(err.Error(), want) || tool.ExitCode(err) != ExitUsage {
			t.Errorf("LoadCases(%s): %v (exit %d), want a usage error starting %q", path, err, tool.ExitCode(err), want)
		}
	}
}

func TestEvalSetDefault(t *testing.T) {
	s := EvalSet{Dir: "set"}
	given := "mine.json"
	s.Default(&s.Cases, CasesFile)
	s.Default(&given, "other")
	if want := filepath.Join("set", "cases", "golden-cases.json"); s.Cases != want {
		t.Errorf("Cases %q, want %q", s.Cases, want)
	}
	if given != "mine.json" {
		t.Errorf("a given path became %q, want mine.json", given)
	}
}
