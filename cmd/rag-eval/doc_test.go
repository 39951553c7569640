package main

import (
	"bytes"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

// TestManual checks the manual, the package documentation in doc.go,
// against the binary, as benchstat's doc test does:
//
//   - each "Flags of X:" paragraph is followed by X's flags exactly as
//     "X --help" lists them, and every command has one;
//   - each "$ rag-eval …" example, run in a copy of testdata/manual, exits
//     0, says nothing on stderr and prints the lines that follow it
//     (trailing spaces aside: a comment cannot keep them).
//
// go test -update rewrites both from the binary; review the diff.
func TestManual(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil || f.Doc == nil {
		t.Fatalf("doc.go has no package documentation: %v", err)
	}
	var p comment.Parser
	doc := p.Parse(f.Doc.Text())

	// The flag lists: "Flags of rag-eval compare:" and the code block after it.
	manual := map[string]string{}
	for i, b := range doc.Content {
		para, ok := b.(*comment.Paragraph)
		if !ok {
			continue
		}
		path, ok := strings.CutPrefix(plain(para), "Flags of ")
		if !ok {
			continue
		}
		path = strings.TrimSuffix(path, ":")
		if code, ok := codeAfter(doc.Content, i); ok {
			manual[path] = code
		} else {
			t.Errorf("Flags of %s: not followed by a code block", path)
		}
	}
	help := map[string]string{}
	root := tool.Command(&cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, version)
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if n := c.Name(); c != root && (n == "help" || n == "completion") {
			continue // cobra's own, documented by cobra
		}
		path := c.CommandPath()
		help[path] = helpFlags(t, strings.Fields(path)[1:])
		got, ok := manual[path]
		switch {
		case !ok:
			t.Errorf("the manual lacks \"Flags of %s:\"", path)
		case got != help[path] && !*update:
			t.Errorf("Flags of %s: the manual says\n%s%s --help says\n%s", path, got, path, help[path])
		}
	}
	for path := range manual {
		if _, ok := help[path]; !ok {
			t.Errorf("the manual has \"Flags of %s:\" but there is no such command", path)
		}
	}

	// The examples, in order, in one copy of the example eval set.
	var examples []example
	for _, b := range doc.Content {
		if code, ok := b.(*comment.Code); ok && strings.HasPrefix(code.Text, "$ rag-eval") {
			examples = append(examples, parseExamples(code.Text)...)
		}
	}
	if len(examples) == 0 {
		t.Fatal("the manual has no example")
	}
	dir := filepath.Join(t.TempDir(), "manual")
	if err := os.CopyFS(dir, os.DirFS("testdata/manual")); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	outputs := map[string]string{}
	for _, ex := range examples {
		var stdout, stderr bytes.Buffer
		code := run(strings.Fields(ex.cmd)[1:], &stdout, &stderr)
		// The example eval set is small: calibrate says so, and nothing
		// else may go to stderr.
		if code != cmdutil.ExitOK || smallSampleRE.ReplaceAllString(stderr.String(), "") != "" {
			t.Errorf("$ %s: exit %d, stderr %q", ex.cmd, code, stderr.String())
			continue
		}
		out := trimLines(stdout.String())
		if strings.Contains("\n"+out, "\n\n") {
			t.Errorf("$ %s: the output has an empty line, which would end the example in the manual", ex.cmd)
		}
		outputs[ex.cmd] = out
		if out != ex.output && !*update {
			t.Errorf("$ %s: the manual shows\n%sit prints\n%s", ex.cmd, ex.output, out)
		}
	}

	if *update {
		t.Chdir(wd)
		if updated := rewriteManual(string(src), help, outputs); updated != string(src) {
			if err := os.WriteFile("doc.go", []byte(updated), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Log("rewrote doc.go from the binary")
		}
	}
}

// example is "$ rag-eval …" in the manual and the output shown after it.
type example struct{ cmd, output string }

// parseExamples splits a code block into its "$ " commands and the lines
// after each. Empty lines separate examples (a comment's code block runs
// on over them); an output has none.
func parseExamples(text string) []example {
	var exs []example
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch cmd, ok := strings.CutPrefix(line, "$ "); {
		case ok:
			exs = append(exs, example{cmd: cmd})
		case line != "":
			exs[len(exs)-1].output += line + "\n"
		}
	}
	return exs
}

// plain is the text of a paragraph.
func plain(p *comment.Paragraph) string {
	var b strings.Builder
	for _, t := range p.Text {
		if s, ok := t.(comment.Plain); ok {
			b.WriteString(string(s))
		}
	}
	return b.String()
}

// codeAfter returns the text of the code block after blocks[i].
func codeAfter(blocks []comment.Block, i int) (string, bool) {
	if i+1 >= len(blocks) {
		return "", false
	}
	code, ok := blocks[i+1].(*comment.Code)
	if !ok {
		return "", false
	}
	return code.Text, true
}

// helpFlags returns the "Flags:" section of "rag-eval args… --help",
// without its common indentation, as a code block in a comment has it.
func helpFlags(t *testing.T, args []string) string {
	t.Helper()
	var stdout bytes.Buffer
	if code := run(append(args, "--help"), &stdout, io.Discard); code != cmdutil.ExitOK {
		t.Fatalf("%v --help: exit %d", args, code)
	}
	_, section, ok := strings.Cut(stdout.String(), "\nFlags:\n")
	if !ok {
		t.Fatalf("%v --help lists no flags:\n%s", args, stdout.String())
	}
	section, _, _ = strings.Cut(section, "\n\n")
	lines := strings.Split(strings.TrimRight(section, "\n"), "\n")
	indent := len(lines[0])
	for _, l := range lines {
		indent = min(indent, len(l)-len(strings.TrimLeft(l, " ")))
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(l[indent:], " ") + "\n")
	}
	return b.String()
}

// trimLines removes the trailing spaces of every line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// rewriteManual replaces, in doc.go's source, the code block after each
// "// Flags of X:" with flags[X] and the lines after each "//\t$ CMD" with
// outputs[CMD].
func rewriteManual(src string, flags, outputs map[string]string) string {
	lines := strings.Split(src, "\n")
	var out []string
	block := func(text string) {
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if l != "" {
				out = append(out, "//\t"+l)
			}
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		out = append(out, line)
		if path, ok := strings.CutPrefix(line, "// Flags of "); ok && i+1 < len(lines) && lines[i+1] == "//" {
			if text, ok := flags[strings.TrimSuffix(path, ":")]; ok {
				out = append(out, "//")
				i += 2
				for i < len(lines) && strings.HasPrefix(lines[i], "//\t") {
					i++
				}
				i--
				block(text)
			}
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "//\t$ "); ok {
			if text, ok := outputs[cmd]; ok {
				for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "//\t") && !strings.HasPrefix(lines[i+1], "//\t$ ") {
					i++
				}
				block(text)
			}
		}
	}
	return strings.Join(out, "\n")
}

// smallSampleRE matches calibrate's small-sample warning lines.
var smallSampleRE = regexp.MustCompile(`(?m)^rag-eval: warning: \w+: fewer than 5 scored members in a class .*\n`)
