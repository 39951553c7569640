package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/metrics"
)

// parse builds a command with newCmd and a runF that keeps the options,
// executes it with args, and returns the options runF got (nil when it
// was not called) and the error. Nothing runs: flag parsing is tested
// apart from behaviour.
func parse[O any](t *testing.T, newCmd func(*cmdutil.Streams, func(*O) error) *cobra.Command, args ...string) (*O, error) {
	t.Helper()
	var got *O
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	cmd := newCmd(f, func(o *O) error { got = o; return nil })
	cmdutil.Setup(cmd, f)
	// Never nil: cobra reads os.Args for nil, which holds go test's flags.
	cmd.SetArgs(append([]string{}, args...))
	return got, cmd.Execute()
}

func args(s string) []string { return strings.Fields(s) }

// field is one value a test checks: its name in the messages, what it is
// and what it should be.
type field struct {
	name      string
	got, want any
}

// checkFields reports each field whose value is not the one wanted.
func checkFields(t *testing.T, fields ...field) {
	t.Helper()
	for _, f := range fields {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s = %#v, want %#v", f.name, f.got, f.want)
		}
	}
}

// checkStruct reports each field of got that differs from the same field
// of want, by name. It compares the whole structs, so that a field added
// later is checked too.
func checkStruct[T any](t *testing.T, got, want T) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	named := false
	for i := range g.NumField() {
		// Printed, as unexported fields have no interface value to compare.
		gs, ws := fmt.Sprintf("%#v", g.Field(i)), fmt.Sprintf("%#v", w.Field(i))
		if gs != ws {
			t.Errorf("%s = %s, want %s", g.Type().Field(i).Name, gs, ws)
			named = true
		}
	}
	if !named {
		t.Errorf("%#v, want %#v (they differ below what is printed)", got, want)
	}
}

func TestNewCmdJudge(t *testing.T) {
	type want struct {
		Dir, Cases, Fixtures, JSON, MD, JUnit, CompareTo, DiffJSON, DiffMD string
		K                                                                  int
		KSet, Quiet                                                        bool
	}
	for _, tt := range []struct {
		args string
		want want // after defaults()
	}{
		{"", want{Dir: "eval/rag-retrieval", Cases: "eval/rag-retrieval/cases/golden-cases.json", Fixtures: "eval/rag-retrieval/fixtures",
			JSON: "eval/rag-retrieval/reports/baseline.json", MD: "eval/rag-retrieval/reports/baseline.md"}},
		{"--dir d --compare-to b.json", want{Dir: "d", Cases: "d/cases/golden-cases.json", Fixtures: "d/fixtures",
			JSON: "d/reports/current.json", MD: "d/reports/current.md", CompareTo: "b.json",
			DiffJSON: "d/reports/baseline-diff.json", DiffMD: "d/reports/baseline-diff.md"}},
		{"--dir d --cases c --fixtures f --k 3 -q --junit j --json-report x --markdown-report y --compare-to b --diff-json-report dj --diff-markdown-report dm",
			want{Dir: "d", Cases: "c", Fixtures: "f", K: 3, KSet: true, Quiet: true, JUnit: "j", JSON: "x", MD: "y", CompareTo: "b", DiffJSON: "dj", DiffMD: "dm"}},
		// --k 0 parses. judgeRun refuses it, in checkK.
		{"--k 0 --quiet", want{Dir: "eval/rag-retrieval", Cases: "eval/rag-retrieval/cases/golden-cases.json", Fixtures: "eval/rag-retrieval/fixtures",
			JSON: "eval/rag-retrieval/reports/baseline.json", MD: "eval/rag-retrieval/reports/baseline.md", KSet: true, Quiet: true}},
	} {
		t.Run(tt.args, func(t *testing.T) {
			o, err := parse(t, newCmdJudge, args(tt.args)...)
			if err != nil {
				t.Fatal(err)
			}
			o.defaults()
			got := want{Dir: o.Dir, Cases: o.Cases, Fixtures: o.Fixtures, JSON: o.JSONReport, MD: o.MarkdownReport, JUnit: o.JUnit,
				CompareTo: o.CompareTo, DiffJSON: o.DiffJSON, DiffMD: o.DiffMarkdown, K: o.K, KSet: o.kSet(), Quiet: o.Quiet}
			tt.want.Cases, tt.want.Fixtures = filepath.FromSlash(tt.want.Cases), filepath.FromSlash(tt.want.Fixtures)
			for _, p := range []*string{&tt.want.JSON, &tt.want.MD, &tt.want.DiffJSON, &tt.want.DiffMD} {
				*p = filepath.FromSlash(*p)
			}
			checkStruct(t, got, tt.want)
			if err := o.checkK(); (err != nil) != (o.kSet() && o.K < 1) {
				t.Errorf("checkK: %v", err)
			}
		})
	}
}

// What the parser refuses, before anything runs.
func TestParseErrors(t *testing.T) {
	judge := func(a string) error { _, err := parse(t, newCmdJudge, args(a)...); return err }
	compare := func(a string) error { _, err := parse(t, newCmdCompare, args(a)...); return err }
	export := func(a string) error { _, err := parse(t, newCmdExportTrec, args(a)...); return err }
	trec := func(a string) error { _, err := parse(t, newCmdTrec, args(a)...); return err }
	for _, tt := range []struct {
		cmd  string // what was parsed, for the messages
		err  error
		want string
	}{
		{"rag-eval extra", judge("extra"), `unknown command "extra" for "rag-eval"`},
		{"rag-eval --k x", judge("--k x"), `invalid argument "x" for "--k" flag: strconv.ParseInt: parsing "x": invalid syntax`},
		{"rag-eval --bogus", judge("--bogus"), "unknown flag: --bogus"},
		{"rag-eval compare --left", compare("--left"), "flag needs an argument: --left"},
		{"rag-eval export-trec --run r", export("--run r"), `required flag(s) "qrels" not set`},
		{"rag-eval trec -m map qrels", trec("-m map qrels"), "accepts 2 arg(s), received 1"},
	} {
		if tt.err == nil {
			t.Errorf("%s: no error, want %q", tt.cmd, tt.want)
			continue
		}
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: error %q, want %q", tt.cmd, got, tt.want)
		}
		if got := tool.ExitCode(tt.err); got != cmdutil.ExitUsage {
			t.Errorf("%s: exit %d, want %d", tt.cmd, got, cmdutil.ExitUsage)
		}
	}
}

func TestNewCmdCompare(t *testing.T) {
	o, err := parse(t, newCmdCompare)
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t,
		field{"defaults: Dir", o.Dir, cmdutil.DefaultEvalDir},
		field{"defaults: LeftName", o.LeftName, "hybrid"},
		field{"defaults: RightName", o.RightName, "dense"},
		field{"defaults: Left", o.Left, ""},
		field{"defaults: Right", o.Right, ""},
		field{"defaults: kSet()", o.kSet(), false},
	)
	o, err = parse(t, newCmdCompare, args("--left l --right r --left-name a --right-name b --k 2 -q --json-report j --markdown-report m --cases c")...)
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t,
		field{"Left", o.Left, "l"},
		field{"Right", o.Right, "r"},
		field{"LeftName", o.LeftName, "a"},
		field{"RightName", o.RightName, "b"},
		field{"K", o.K, 2},
		field{"Quiet", o.Quiet, true},
		field{"JSONReport", o.JSONReport, "j"},
		field{"MarkdownReport", o.MarkdownReport, "m"},
		field{"Cases", o.Cases, "c"},
		field{"twoSide", o.twoSide, true},
	)
	o, err = parse(t, newCmdCompare, args("--side a=x --side b=y=z --side c=w --baseline b")...)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := o.sideSpecs()
	if err != nil {
		t.Errorf("sideSpecs: %v", err)
	}
	checkFields(t,
		field{"sideSpecs()", specs, []sideSpec{{"a", "x"}, {"b", "y=z"}, {"c", "w"}}},
		field{"twoSide", o.twoSide, false},
		field{"Baseline", o.Baseline, "b"},
	)
}

func TestNewCmdTrecCompare(t *testing.T) {
	o, err := parse(t, newCmdTrecCompare, args("-c -l 2 -M 10 -m map -m P.5,10 --baseline bm25 --quiet --json-report j q r1 r2 r3")...)
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t,
		field{"complete", o.complete, true},
		field{"relLevel", o.relLevel, 2},
		field{"maxRetrieved", o.maxRetrieved, 10},
		field{"maxSet", o.maxSet, true},
		field{"measures", o.measures, []string{"map", "P.5,10"}},
		field{"baseline", o.baseline, "bm25"},
		field{"Quiet", o.Quiet, true},
		field{"JSONReport", o.JSONReport, "j"},
		field{"MarkdownReport", o.MarkdownReport, ""},
		field{"qrelsPath", o.qrelsPath, "q"},
		field{"runPaths", o.runPaths, []string{"r1", "r2", "r3"}},
	)
}

func TestRunNames(t *testing.T) {
	for _, c := range []struct{ paths, tags, want []string }{
		{[]string{"a/x.run", "b/y.run"}, []string{"bm25", "dense"}, []string{"bm25", "dense"}},
		{[]string{"a/x.run", "b/y.run"}, []string{"bm25", "bm25"}, []string{"x.run", "y.run"}},
		{[]string{"a/x.run", "b/y.run"}, []string{"bm25", ""}, []string{"x.run", "y.run"}},
		{[]string{"a/x.run", "b/x.run"}, []string{"t", "t"}, []string{"a/x.run", "b/x.run"}},
	} {
		if got := runNames(c.paths, c.tags); !reflect.DeepEqual(got, c.want) {
			t.Errorf("runNames(%v, %v) = %v, want %v", c.paths, c.tags, got, c.want)
		}
	}
}

func TestFirstTag(t *testing.T) {
	for in, want := range map[string]string{
		"q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1 bm25\n": "bm25",
		"\n  \nq1 Q0 d1 1 2.5 dense":               "dense",
		// '#' is an ordinary byte, as for trec_eval 9.0.8: a line
		// starting with it is the first line, here a malformed one.
		"\n# comment\n  \nq1 Q0 d1 1 2.5 dense": "",
		"# Q0 d1 1 2.5 hash\nq1 Q0 d1 1 2.5 t":  "hash",
		"q1 Q0 d1 1 2.5\n":                      "",
		"":                                      "",
	} {
		if got := firstTag(bufio.NewReaderSize(strings.NewReader(in), 64)); got != want {
			t.Errorf("firstTag(%q) = %q, want %q", in, got, want)
		}
	}
	long := "q1 Q0 d1 1 2.5 " + strings.Repeat("x", 100) + "\n"
	if got := firstTag(bufio.NewReaderSize(strings.NewReader(long), 64)); got != "" {
		t.Errorf("a first line longer than the peek gave tag %q", got)
	}
}

func TestNewCmdCalibrate(t *testing.T) {
	o, err := parse(t, newCmdCalibrate, args("--fixtures a --fixtures b,c -q")...)
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t,
		field{"Fixtures", o.Fixtures, []string{"a", "b,c"}},
		field{"Quiet", o.Quiet, true},
		field{"kSet()", o.kSet(), false},
	)
}

func TestNewCmdExportTrec(t *testing.T) {
	o, err := parse(t, newCmdExportTrec, args("--qrels q --run r --k 4 --fixtures f")...)
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t,
		field{"Qrels", o.Qrels, "q"},
		field{"Run", o.Run, "r"},
		field{"K", o.K, 4},
		field{"kSet()", o.kSet(), true},
		field{"Fixtures", o.Fixtures, "f"},
		field{"Dir", o.Dir, cmdutil.DefaultEvalDir},
	)
}

func TestNewCmdTrec(t *testing.T) {
	o, err := parse(t, newCmdTrec, args("-q -c -l2 -M 0 -m map -mP.5,10 --decimals 6 -J -N100 -Z z -n qrels -")...)
	if err != nil {
		t.Fatal(err)
	}
	want := trecOptions{qrelsPath: "qrels", runPath: "-", measures: []string{"map", "P.5,10"}, perQuery: true, complete: true,
		relLevel: 2, maxRetrieved: 0, maxSet: true, decimals: 6, decimalsSet: true, judgedOnly: true, numDocs: 100, zscoresPath: "z",
		relFormat: "qrels", resultsFormat: "trec_results", noSummary: true, IO: o.IO}
	checkStruct(t, *o, want)
	o, err = parse(t, newCmdTrec, args("-m map q r")...)
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t,
		field{"defaults: maxSet", o.maxSet, false},
		field{"defaults: relLevel", o.relLevel, metrics.DefaultRelLevel},
	)
}

// FuzzFirstTag: any run file start gives a tag that is a whole field of its
// first data line, or "", without panicking.
func FuzzFirstTag(f *testing.F) {
	f.Add("q1 Q0 d1 1 2.5 bm25\n")
	f.Add("# c\n\nq1\tQ0 d1 1 2.5 t x y\r\n")
	f.Add("\n\n#\n")
	f.Fuzz(func(t *testing.T, in string) {
		tag := firstTag(bufio.NewReaderSize(strings.NewReader(in), 64))
		if tag == "" {
			return
		}
		if strings.ContainsAny(tag, " \t\n\r\v\f") || !strings.Contains(in, tag) {
			t.Fatalf("firstTag(%q) = %q", in, tag)
		}
	})
}

func TestNewCmdDraft(t *testing.T) {
	o, err := parse(t, newCmdDraft, args("--log q.jsonl --merge g.json --sample 40 --seed 7 --format jsonl --scenario ops --fixtures prod -q")...)
	if err != nil {
		t.Fatal(err)
	}
	o.IO = nil
	checkStruct(t, *o, draftOptions{Log: "q.jsonl", Merge: "g.json", Sample: 40, Seed: 7, Format: "jsonl", Scenario: "ops", Fixtures: "prod", Quiet: true})
	// The defaults.
	o, err = parse(t, newCmdDraft, args("--log q.txt --out g.json")...)
	if err != nil {
		t.Fatal(err)
	}
	o.IO = nil
	checkStruct(t, *o, draftOptions{Log: "q.txt", Out: "g.json", Format: "auto", Scenario: "chat", Seed: 1})
	for a, want := range map[string]string{
		"--out g.json":                 `required flag(s) "log" not set`,
		"--log q --out g --format xml": `--format must be auto, text, jsonl, csv or otlp, got "xml"`,
		"--log q --out g --seed -1":    `invalid argument "-1" for "--seed" flag: strconv.ParseUint: parsing "-1": invalid syntax`,
		"--log q --out g extra":        `unknown command "extra" for "draft"`,
	} {
		_, err := parse(t, newCmdDraft, args(a)...)
		if err == nil || err.Error() != want {
			t.Errorf("draft %s: error %v, want %q", a, err, want)
		} else if got := tool.ExitCode(err); got != cmdutil.ExitUsage {
			t.Errorf("draft %s: exit %d, want %d", a, got, cmdutil.ExitUsage)
		}
	}
}

// The checks draftRun makes of its flags before it reads anything: each a
// usage error (exit 2), nothing written.
func TestDraftRunFlagErrors(t *testing.T) {
	dir := t.TempDir()
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	for _, tt := range []struct {
		o    draftOptions
		want string
	}{
		{draftOptions{Log: "q", Out: "a", Merge: "b"}, "--out and --merge exclude each other: write a new golden file or add to one"},
		{draftOptions{Log: "q", Out: "a", Sample: -1, Scenario: "chat"}, "--sample must be at least 0, got -1"},
		{draftOptions{Log: "q", Out: "a", Scenario: " "}, "--scenario must not be blank"},
		{draftOptions{Log: "q", Merge: "b", KBScope: "x", Scenario: "chat"}, "--kb-scope sets the kbScope of a new file (--out); the file of --merge keeps its own"},
		{draftOptions{Log: "q", Out: "a", KBScope: "Bad Scope", Scenario: "chat"}, `--kb-scope "Bad Scope" `},
		{draftOptions{Log: filepath.Join(dir, "q"), Out: filepath.Join(dir, "q"), Scenario: "chat"}, "--out " + filepath.Join(dir, "q") + " is the same file as --log"},
		{draftOptions{Log: "q", Out: filepath.Join(dir, "prod", "g.json"), Fixtures: filepath.Join(dir, "prod"), Scenario: "chat"}, "--out " + filepath.Join(dir, "prod", "g.json") + " is inside the fixture directory " + filepath.Join(dir, "prod")},
	} {
		tt.o.IO = f
		err := draftRun(&tt.o)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.o, err, tt.want)
		} else if got := tool.ExitCode(err); got != cmdutil.ExitUsage {
			t.Errorf("%+v: exit %d, want %d", tt.o, got, cmdutil.ExitUsage)
		}
	}
}
