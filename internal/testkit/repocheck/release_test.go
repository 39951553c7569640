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

	"go.yaml.in/yaml/v3"
)

const module = "github.com/ragbaseline/ragbaseline"

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// mainPackage reports whether dir (relative to root) holds a Go package
// main.
func mainPackage(root, dir string) bool {
	files, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
		if err == nil {
			return pf.Name.Name == "main"
		}
	}
	return false
}

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int
	cmd  string
	args []string
	raw  string
}

func parseDockerfile(t *testing.T, text string) []instruction {
	t.Helper()
	var out []instruction
	var cur strings.Builder
	start := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if more, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(more + " ")
			continue
		}
		cur.WriteString(trimmed)
		fields := strings.Fields(cur.String())
		out = append(out, instruction{line: start, cmd: strings.ToUpper(fields[0]), args: fields[1:], raw: cur.String()})
		cur.Reset()
	}
	return out
}

// dockerignoreAllows reports whether the build context keeps path: the
// .dockerignore is "*" then "!path" lines (and exclusions of test files).
func dockerignoreAllows(ignore []string, path string) bool {
	path = strings.TrimSuffix(strings.TrimPrefix(path, "./"), "/")
	allowed := false
	for _, p := range ignore {
		switch {
		case p == "*":
			allowed = false
		case strings.HasPrefix(p, "!"):
			if strings.TrimSuffix(p[1:], "/") == path {
				allowed = true
			}
		}
	}
	return allowed
}

// TestDockerfile checks what a docker build would need, without Docker.
func TestDockerfile(t *testing.T) {
	root := repoRoot(t)
	ins := parseDockerfile(t, read(t, filepath.Join(root, "Dockerfile")))
	var ignore []string
	for _, l := range strings.Split(read(t, filepath.Join(root, ".dockerignore")), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			ignore = append(ignore, l)
		}
	}

	args := map[string]string{}
	stages := map[string]bool{}
	var stageCount int
	var buildOut, user string
	var built []string
	for _, in := range ins {
		where := "Dockerfile:" + strconv.Itoa(in.line)
		switch in.cmd {
		case "ARG":
			name, val, _ := strings.Cut(in.args[0], "=")
			args[name] = val
		case "FROM":
			stageCount++
			user = ""
			if len(in.args) == 3 && strings.EqualFold(in.args[1], "AS") {
				stages[in.args[2]] = true
			}
			if !strings.Contains(in.args[0], ":") {
				t.Errorf("%s: image %s has no tag", where, in.args[0])
			}
		case "COPY":
			srcs := in.args[:len(in.args)-1]
			from := ""
			if len(srcs) > 0 && strings.HasPrefix(srcs[0], "--from=") {
				from = strings.TrimPrefix(srcs[0], "--from=")
				srcs = srcs[1:]
			}
			for _, src := range srcs {
				if from != "" {
					if !stages[from] {
						t.Errorf("%s: COPY --from=%s: no earlier stage of that name", where, from)
					}
					if src != buildOut {
						t.Errorf("%s: COPY --from=%s %s: the build stage writes the binaries to %q", where, from, src, buildOut)
					}
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(src))); err != nil {
					t.Errorf("%s: COPY %s: %v", where, src, err)
				}
				if !dockerignoreAllows(ignore, src) {
					t.Errorf("%s: COPY %s: .dockerignore leaves it out of the build context", where, src)
				}
			}
		case "RUN":
			if !strings.Contains(in.raw, "go build") {
				continue
			}
			for _, want := range []string{"CGO_ENABLED=0", "-trimpath"} {
				if !strings.Contains(in.raw, want) {
					t.Errorf("%s: go build without %s", where, want)
				}
			}
			if _, ok := args["VERSION"]; !ok {
				t.Errorf("%s: go build without an ARG VERSION before it", where)
			}
			if !strings.Contains(in.raw, "-X main.version=${VERSION}") {
				t.Errorf("%s: go build does not set main.version from ARG VERSION", where)
			}
			for i, a := range in.args {
				if a == "-o" && i+1 < len(in.args) {
					buildOut = in.args[i+1]
				}
				if strings.HasPrefix(a, "./cmd/") {
					built = append(built, strings.TrimPrefix(a, "./"))
					if !mainPackage(root, a) {
						t.Errorf("%s: go build %s: not a main package", where, a)
					}
				}
			}
		case "USER":
			user = in.args[0]
		}
	}
	if got := strings.Join(built, " "); got != "cmd/rag-eval cmd/rag-seed cmd/rag-snapshot" {
		t.Errorf("the image builds %q, want the three binaries", got)
	}
	if stageCount < 2 {
		t.Errorf("%d stages, want a build stage and a runtime stage", stageCount)
	}
	uid, _, _ := strings.Cut(user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("the image runs as %q: want a numeric user other than root", user)
	}

	// The builder's Go is the toolchain go.mod names.
	m := regexp.MustCompile(`(?m)^toolchain go(\S+)$`).FindStringSubmatch(read(t, filepath.Join(root, "go.mod")))
	if m == nil {
		t.Fatal("go.mod has no toolchain line")
	}
	if args["GO_VERSION"] != m[1] {
		t.Errorf("Dockerfile ARG GO_VERSION=%s, go.mod's toolchain is go%s", args["GO_VERSION"], m[1])
	}
}

// workflow is the part of a GitHub Actions workflow the test reads.
type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]struct {
		RunsOn         string `yaml:"runs-on"`
		TimeoutMinutes int    `yaml:"timeout-minutes"`
		Steps          []struct {
			Name string            `yaml:"name"`
			ID   string            `yaml:"id"`
			If   string            `yaml:"if"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestGitHubActionsExample: the CI recipe users copy parses, gates pull
// requests the way docs/ci.md says, and is the file docs/ci.md shows.
func TestGitHubActionsExample(t *testing.T) {
	root := repoRoot(t)
	text := read(t, filepath.Join(root, "docs", "examples", "github-actions.yml"))
	var w workflow
	dec := yaml.NewDecoder(strings.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("docs/examples/github-actions.yml: %v", err)
	}
	if _, ok := w.On["pull_request"]; !ok {
		t.Error("the workflow does not run on pull_request")
	}
	if got := w.Permissions["pull-requests"]; got != "write" {
		t.Errorf("permissions pull-requests: %q, want write for the comment", got)
	}
	if got := w.Permissions["checks"]; got != "write" {
		t.Errorf("permissions checks: %q, want write for the JUnit check", got)
	}
	for _, name := range []string{"SET", "RAGBASELINE_VERSION"} {
		if w.Env[name] == "" {
			t.Errorf("env %v: want %s", w.Env, name)
		}
	}
	var all strings.Builder
	var uses []string
	for _, job := range w.Jobs {
		for _, s := range job.Steps {
			all.WriteString(s.Run + "\n" + s.With["script"] + "\n" + s.With["report_paths"] + "\n")
			if s.Uses != "" {
				uses = append(uses, s.Uses)
				if name, ver, ok := strings.Cut(s.Uses, "@"); !ok || name == "" || ver == "" {
					t.Errorf("step %q: action %q is not pinned to a version", s.Name, s.Uses)
				}
			}
		}
	}
	for _, want := range []string{
		`go install "` + module + `/cmd/rag-eval@${RAGBASELINE_VERSION}"`,
		`rag-eval --dir "$SET" --compare-to "$SET/reports/baseline.json" --junit "$SET/reports/junit.xml"`,
		`cat "$SET/reports/baseline-diff.md" >> "$GITHUB_STEP_SUMMARY"`,
		`reports/baseline-diff.md`,
		`github.rest.issues.createComment`,
		`/reports/junit.xml`,
		`exit 3`,
	} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the workflow's steps lack %q", want)
		}
	}
	for _, want := range []string{"actions/checkout@", "actions/setup-go@", "actions/github-script@"} {
		found := false
		for _, u := range uses {
			found = found || strings.HasPrefix(u, want)
		}
		if !found {
			t.Errorf("the workflow uses no %s", want)
		}
	}

	// docs/ci.md shows the file as it is.
	ci := read(t, filepath.Join(root, "docs", "ci.md"))
	if !strings.Contains(ci, "```yaml\n"+text+"```\n") {
		t.Error("docs/ci.md does not show docs/examples/github-actions.yml as it is (a ```yaml block with the whole file)")
	}
}

var goInstall = regexp.MustCompile(`go install "?` + regexp.QuoteMeta(module) + `(/[A-Za-z0-9_./-]*)@`)

// TestGoInstallLines: every go install line of the documentation names
// main packages of this module (cmd/... names exactly the three binaries).
func TestGoInstallLines(t *testing.T) {
	root := repoRoot(t)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "dist" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.Name() == "README.md" || strings.HasPrefix(rel, "docs"+string(filepath.Separator)) || strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	var mains []string
	for _, e := range entries {
		if d := "cmd/" + e.Name(); e.IsDir() && mainPackage(root, d) {
			mains = append(mains, d)
		} else {
			t.Errorf("cmd/ holds %s, which is not a binary's main package: cmd/ holds the three binaries only", d)
		}
	}
	if got := strings.Join(mains, " "); got != "cmd/rag-eval cmd/rag-seed cmd/rag-snapshot" {
		t.Errorf("the main packages under cmd/ are %q: go install …/cmd/...@v would install other binaries than rag-eval, rag-seed, rag-snapshot", got)
	}
	seen := 0
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		for _, m := range goInstall.FindAllStringSubmatch(read(t, f), -1) {
			seen++
			pkg := strings.TrimPrefix(m[1], "/")
			if pkg == "cmd/..." {
				continue
			}
			if !mainPackage(root, pkg) {
				t.Errorf("%s: go install %s%s@…: not a main package of the repository", rel, module, m[1])
			}
		}
	}
	if seen == 0 {
		t.Error("no go install line in the documentation")
	}
}
