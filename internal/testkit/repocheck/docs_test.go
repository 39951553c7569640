package repocheck

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// outside matches references to documents that exist outside the
// repository (the team's internal specification and its directory).
var outside = []*regexp.Regexp{
	regexp.MustCompile(`\bSPEC\b`),
	regexp.MustCompile(`(?i)\bthe spec\b`),
	regexp.MustCompile(`shared/`),
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// markdownFiles returns README.md files anywhere in the repository and
// everything under docs/.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.Name() == "README.md" || (strings.HasPrefix(rel, "docs"+string(filepath.Separator)) && strings.HasSuffix(p, ".md")) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNoReferenceOutsideTheRepository(t *testing.T) {
	root := repoRoot(t)
	check := func(where, text string) {
		for _, re := range outside {
			if loc := re.FindStringIndex(text); loc != nil {
				t.Errorf("%s: %q points outside the repository; point to docs/ instead", where, text[loc[0]:loc[1]])
			}
		}
	}
	for _, p := range markdownFiles(t, root) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			rel, _ := filepath.Rel(root, p)
			check(rel+":"+strconv.Itoa(i+1), line)
		}
	}
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					pos := fset.Position(c.Pos())
					rel, _ := filepath.Rel(root, pos.Filename)
					check(rel+":"+strconv.Itoa(pos.Line), c.Text)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestMarkdownLinksResolve(t *testing.T) {
	root := repoRoot(t)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(p string) map[string]bool {
		if a, ok := anchors[p]; ok {
			return a
		}
		a := headingAnchors(t, p)
		anchors[p] = a
		return a
	}
	for _, p := range markdownFiles(t, root) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		for _, m := range mdLink.FindAllStringSubmatch(stripCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := p
			if file != "" {
				dest = filepath.Join(filepath.Dir(p), filepath.FromSlash(file))
			}
			if r, err := filepath.Rel(root, dest); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				t.Errorf("%s: link %q leaves the repository", rel, target)
				continue
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link %q: %v", rel, target, err)
				continue
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
				t.Errorf("%s: link %q: no heading with anchor #%s", rel, target, frag)
			}
		}
	}
}

// stripCode removes fenced code blocks and inline code spans, where
// bracket-parenthesis sequences are not links.
func stripCode(s string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		parts := strings.Split(line, "`")
		for i := 0; i < len(parts); i += 2 {
			b.WriteString(parts[i])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown file: lower case, punctuation other than '-' and '_' dropped,
// spaces turned into '-'.
func headingAnchors(t *testing.T, p string) map[string]bool {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	fenced := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
