// Package manual checks a binary's manual against the binary, as
// benchstat's doc test does. The manual is the package comment in the
// binary's doc.go, which go doc prints. Each binary's TestManual calls
// Check, and go test -update rewrites the manual from the binary.
//
// Check reads two things in the manual:
//
//   - A paragraph "Flags of X:", where X is a command path such as
//     "rag-eval compare", followed by a code block. The block must be X's
//     flags exactly as "X --help" lists them, and every command must have
//     one. cobra's own help and completion commands need none.
//   - A code block of examples, each a line "$ NAME args…" and the lines it
//     prints. The examples run in order, in one copy of a directory of the
//     binary's testdata, with args split at spaces and no shell. An example
//     that exits 0 shows its stdout and may write nothing to stderr. An
//     example that exits otherwise shows stdout and stderr as they were
//     written, then "[exit status N]".
//
// A comment cannot keep trailing spaces or an empty line in a code block.
// So trailing spaces do not count, and an example must print no empty
// line.
package manual

import (
	"bytes"
	"context"
	"fmt"
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

// Binary is a binary whose manual Check checks.
type Binary struct {
	// Tool and Version build the binary's command tree as its main does,
	// with Tool.Command.
	Tool    cmdutil.Tool
	Version string
	// Examples is the directory the examples run in, such as
	// "testdata/manual". Check copies it and runs every example in the
	// copy.
	Examples string
	// Setup, when set, runs in the copy before the first example.
	Setup func(t *testing.T)
	// Quiet, when set, matches whole lines of stderr, newline included,
	// that an example may write and the manual does not show.
	Quiet *regexp.Regexp
	// Varying, when set, matches what differs from run to run in an
	// example's output, such as an elapsed time. The manual may show
	// anything where it matches. -update keeps what the manual shows when
	// nothing else differs.
	Varying *regexp.Regexp
	// Update rewrites doc.go from the binary instead of reporting where
	// they differ. The test's -update flag sets it.
	Update bool
}

// Check checks the manual in doc.go, in the current directory, against b.
func Check(t *testing.T, b Binary) {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("doc.go has no package documentation")
	}
	var p comment.Parser
	doc := p.Parse(f.Doc.Text())

	help := checkFlags(t, b, doc)

	examples := parseExamples(doc, b.Tool.Name)
	if len(examples) == 0 {
		t.Fatal("the manual has no example")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), filepath.Base(b.Examples))
	if err := os.CopyFS(dir, os.DirFS(b.Examples)); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if b.Setup != nil {
		b.Setup(t)
	}
	// outputs[i] is what the manual should show for examples[i].
	outputs := make([]string, len(examples))
	for i, ex := range examples {
		outputs[i] = ex.output
		out, ok := b.runExample(t, ex.cmd)
		if !ok {
			continue
		}
		if strings.Contains("\n"+out, "\n\n") {
			t.Errorf("$ %s: the output has an empty line, which would end the example in the manual", ex.cmd)
		}
		if b.mask(out) == b.mask(ex.output) {
			out = ex.output
		}
		outputs[i] = out
		if out != ex.output && !b.Update {
			t.Errorf("$ %s: the manual shows\n%sit prints\n%s", ex.cmd, ex.output, out)
		}
	}

	if b.Update {
		t.Chdir(wd)
		if updated := rewrite(string(src), help, examples, outputs); updated != string(src) {
			if err := os.WriteFile("doc.go", []byte(updated), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Log("rewrote doc.go from the binary")
		}
	}
}

// checkFlags checks every "Flags of X:" of doc against "X --help" and
// returns the flags each command's help lists, by command path.
func checkFlags(t *testing.T, b Binary, doc *comment.Doc) map[string]string {
	t.Helper()
	manual := map[string]string{}
	for i, blk := range doc.Content {
		para, ok := blk.(*comment.Paragraph)
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
	root := b.Tool.Command(&cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, b.Version)
	for _, c := range append([]*cobra.Command{root}, root.Commands()...) {
		if n := c.Name(); c != root && (n == "help" || n == "completion") {
			continue // cobra's own, documented by cobra
		}
		path := c.CommandPath()
		help[path] = b.helpFlags(t, strings.Fields(path)[1:])
		got, ok := manual[path]
		switch {
		case !ok:
			t.Errorf("the manual lacks \"Flags of %s:\"", path)
		case got != help[path] && !b.Update:
			t.Errorf("Flags of %s: the manual says\n%s%s --help says\n%s", path, got, path, help[path])
		}
	}
	for path := range manual {
		if _, ok := help[path]; !ok {
			t.Errorf("the manual has \"Flags of %s:\" but there is no such command", path)
		}
	}
	return help
}

// run runs the binary in this process with args, as its main does but
// without Tool.PreRun, and returns its exit code.
func (b Binary) run(args []string, stdout, stderr io.Writer) cmdutil.ExitCode {
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr}
	return b.Tool.Run(context.Background(), b.Tool.Command(f, b.Version), args)
}

// runExample runs the example cmd and returns what the manual must show
// for it. It reports false, having said why, when the example cannot be
// shown: it writes to stderr and exits 0.
func (b Binary) runExample(t *testing.T, cmd string) (string, bool) {
	t.Helper()
	args := strings.Fields(cmd)
	if args[0] != b.Tool.Name {
		t.Errorf("$ %s: not an example of %s", cmd, b.Tool.Name)
		return "", false
	}
	// all is what a terminal would show: both streams in the order they
	// were written.
	var stdout, stderr, all bytes.Buffer
	code := b.run(args[1:], io.MultiWriter(&stdout, &all), io.MultiWriter(&stderr, &all))
	if code == cmdutil.ExitOK {
		if rest := b.quiet(stderr.String()); rest != "" {
			t.Errorf("$ %s: exit 0, stderr %q", cmd, stderr.String())
			return "", false
		}
		return trimLines(stdout.String()), true
	}
	return trimLines(b.quiet(all.String())) + fmt.Sprintf("[exit status %d]\n", code), true
}

// quiet removes from s the lines that b.Quiet matches.
func (b Binary) quiet(s string) string {
	if b.Quiet == nil {
		return s
	}
	return b.Quiet.ReplaceAllString(s, "")
}

// mask replaces in s what b.Varying matches with "…".
func (b Binary) mask(s string) string {
	if b.Varying == nil {
		return s
	}
	return b.Varying.ReplaceAllString(s, "…")
}

// helpFlags returns the "Flags:" section of "NAME args… --help", without
// its common indentation, as a code block in a comment has it.
func (b Binary) helpFlags(t *testing.T, args []string) string {
	t.Helper()
	var stdout bytes.Buffer
	if code := b.run(append(args, "--help"), &stdout, io.Discard); code != cmdutil.ExitOK {
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
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(strings.TrimRight(l[indent:], " ") + "\n")
	}
	return sb.String()
}

// example is "$ NAME …" in the manual and the output shown after it.
type example struct{ cmd, output string }

// parseExamples returns the examples of the code blocks of doc that start
// with "$ name", in order.
func parseExamples(doc *comment.Doc, name string) []example {
	var exs []example
	for _, blk := range doc.Content {
		if code, ok := blk.(*comment.Code); ok && strings.HasPrefix(code.Text, "$ "+name) {
			exs = append(exs, splitExamples(code.Text)...)
		}
	}
	return exs
}

// splitExamples splits a code block into its "$ " commands and the lines
// after each. Empty lines separate examples, because a comment's code
// block runs on over them. So an output has none.
func splitExamples(text string) []example {
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
	var sb strings.Builder
	for _, t := range p.Text {
		if s, ok := t.(comment.Plain); ok {
			sb.WriteString(string(s))
		}
	}
	return sb.String()
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

// trimLines removes the trailing spaces of every line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// rewrite replaces, in doc.go's source, the code block after each
// "// Flags of X:" with flags[X], and the lines after the line
// "//\t$ CMD" of examples[i] with outputs[i].
func rewrite(src string, flags map[string]string, examples []example, outputs []string) string {
	lines := strings.Split(src, "\n")
	var out []string
	block := func(text string) {
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if l != "" {
				out = append(out, "//\t"+l)
			}
		}
	}
	next := 0 // the example whose line comes next
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
		if cmd, ok := strings.CutPrefix(line, "//\t$ "); ok && next < len(examples) && cmd == examples[next].cmd {
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "//\t") && !strings.HasPrefix(lines[i+1], "//\t$ ") {
				i++
			}
			block(outputs[next])
			next++
		}
	}
	return strings.Join(out, "\n")
}
