package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

// trecDir holds trec_eval's own test vectors, copied into the repository.
const trecDir = "../../internal/metrics/testdata/trec/"

func TestTrecReferenceVectors(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(trecDir, "expected.q.txt"))
	if err != nil {
		t.Fatalf("trec_eval test vectors missing: %v", err)
	}
	// The command of testdata/trec/README.md, with trec_eval's
	// attached-value spellings mixed in.
	args := []string{"trec", "-q", "-m", "num_q", "-mnum_ret", "-m", "num_rel", "-m", "num_rel_ret",
		"-m", "map", "-m", "recip_rank", "-m", "Rprec", "-m", "P.5,10,20", "-m", "recall.5,10,100",
		"-m", "ndcg_cut.5,10,20", "--measure", "success.1,5,10",
		filepath.Join(trecDir, "qrels.test"), filepath.Join(trecDir, "results.test")}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != cmdutil.ExitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	if !bytes.Equal(stdout.Bytes(), want) {
		t.Errorf("rag-eval trec output differs from trec_eval 9.0.8:\n%s", diff.Diff("expected.q.txt", want, "rag-eval trec", stdout.Bytes()))
	}
}

func TestTrecFlags(t *testing.T) {
	dir := t.TempDir()
	qrels := filepath.Join(dir, "qrels")
	runFile := filepath.Join(dir, "run")
	os.WriteFile(qrels, []byte("q1 0 a 2\nq1 0 b 1\nq2 0 c 1\n"), 0o644)
	os.WriteFile(runFile, []byte("q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\n"), 0o644)

	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{
			name: "level and max",
			args: []string{"-l2", "-M1", "-m", "P.1", "-m", "num_ret", qrels, runFile},
			want: "num_ret               \tall\t1\nP_1                   \tall\t0.0000\n",
		},
		{
			name: "complete",
			args: []string{"-c", "-m", "num_q", "-m", "num_rel", "-m", "recip_rank", qrels, runFile},
			want: "num_q                 \tall\t2\nnum_rel               \tall\t3\nrecip_rank            \tall\t0.5000\n",
		},
		{
			name:  "run from stdin",
			args:  []string{"-m", "map", qrels, "-"},
			stdin: "q1 Q0 a 1 2 t\n",
			want:  "map                   \tall\t0.5000\n",
		},
		{
			name: "nosummary, judged only, collection size",
			args: []string{"-n", "-q", "-J", "-N", "10", "-m", "num_ret", "-m", "utility.0,0,0,1", qrels, runFile},
			want: "num_ret               \tq1\t2\nutility_0,0,0,1       \tq1\t8.0000\n",
		},
		{
			name: "runid and num_q",
			args: []string{"-m", "runid", "-m", "num_q", qrels, runFile},
			want: "runid                 \tall\tt\nnum_q                 \tall\t1\n",
		},
		{
			name: "decimals",
			args: []string{"--decimals", "6", "-m", "ndcg_cut.2", qrels, runFile},
			want: "ndcg_cut_2            \tall\t0.859719\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &cmdutil.Streams{In: strings.NewReader(tt.stdin), Out: &out, ErrOut: io.Discard}
			cmd := newCmdTrec(f, nil)
			cmdutil.Setup(cmd, f)
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("output:\n%s\nwant:\n%s", out.String(), tt.want)
			}
		})
	}
}

func TestTrecErrors(t *testing.T) {
	dir := t.TempDir()
	qrels := filepath.Join(dir, "qrels")
	dupRun := filepath.Join(dir, "dup.run")
	otherRun := filepath.Join(dir, "other.run")
	os.WriteFile(qrels, []byte("q1 0 a 1\n"), 0o644)
	os.WriteFile(dupRun, []byte("q1 Q0 a 1 2 t\nq1 Q0 a 2 1 t\n"), 0o644)
	os.WriteFile(otherRun, []byte("q9 Q0 a 1 2 t\n"), 0o644)
	prefsFile := filepath.Join(dir, "prefs")
	os.WriteFile(prefsFile, []byte("q9 u s a 1\n"), 0o644)

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown measure", []string{"-m", "dcg", qrels, dupRun}, `rag-eval: illegal measure "dcg"`},
		{"bad pairs", []string{"-m", "ndcg.1=2,3", qrels, dupRun}, `rag-eval: measure ndcg.1=2,3: malformed pair parameters`},
		{"unknown format", []string{"-R", "trec_prefs", qrels, dupRun}, `rag-eval: -R trec_prefs: the formats are qrels, qrels_jg, prefs and qrels_prefs`},
		{"measure of another format", []string{"-R", "qrels_prefs", "-m", "map", qrels, dupRun}, `rag-eval: trec: measure map needs -R qrels judgments, not qrels_prefs (the measures for -R qrels_prefs are those of -m all_prefs)`},
		{"official with prefs", []string{"-R", "prefs", prefsFile, otherRun}, `rag-eval: trec: measure num_ret needs -R qrels judgments, not prefs (the measures for -R prefs are those of -m all_prefs)`},
		{"prefs fields", []string{"-R", "prefs", qrels, dupRun}, `rag-eval: read qrels: ` + qrels + `:1: want 5 fields (qid jg jsg docno rel_level), found 4`},
		{"results format", []string{"-T", "trec_top", qrels, dupRun}, `rag-eval: -T trec_top: the only results format is trec_results`},
		{"missing z file", []string{"-Z", filepath.Join(dir, "nope"), qrels, dupRun}, `rag-eval: read z scores: open `},
		{"bad cutoff", []string{"-m", "P.0", qrels, dupRun}, "rag-eval: measure P.0: cutoffs must be positive"},
		{"negative -M", []string{"-M", "-1", "-m", "map", qrels, dupRun}, "rag-eval: -M -1: the number of documents must be >= 0"},
		{"missing file", []string{"-m", "map", filepath.Join(dir, "nope"), dupRun}, "rag-eval: read qrels: open "},
		{"duplicate docno", []string{"-m", "map", qrels, dupRun}, "rag-eval: trec: " + dupRun + `:2: duplicate docno "a" for query "q1" (also on line 1)`},
		{"no common query", []string{"-c", "-m", "map", qrels, otherRun}, "rag-eval: trec: no query with both results and relevance judgments"},
		{"one file", []string{"-m", "map", qrels}, "rag-eval: accepts 2 arg(s), received 1"},
		{"zero decimals", []string{"--decimals", "0", "-m", "map", qrels, dupRun}, "rag-eval: --decimals 0: want 1 to 30"},
		{"debug level", []string{"-D", "1.q1", "-m", "map", qrels, dupRun}, "rag-eval: -D 1.q1: trec_eval's debug trace is not implemented"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"trec"}, tt.args...), &stdout, &stderr)
			if code != cmdutil.ExitUsage {
				t.Errorf("exit %d, want %d", code, cmdutil.ExitUsage)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
			if !strings.HasPrefix(stderr.String(), tt.want) {
				t.Errorf("stderr %q, want prefix %q", stderr.String(), tt.want)
			}
		})
	}
}

// -v prints the version without reading any file, as trec_eval -v does.
// With files it still only prints the version.
func TestTrecVersion(t *testing.T) {
	for _, args := range [][]string{{"trec", "-v"}, {"trec", "--version", "-m", "map", "nope", "nope"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d, stderr %s", args, code, stderr.String())
		}
		want := "rag-eval trec: trec_eval 9.0.8-compatible evaluator, rag-eval version " + version + "\n"
		if stdout.String() != want {
			t.Errorf("%v: stdout %q, want %q", args, stdout.String(), want)
		}
	}
}

// quicktestDir is trec_eval 9.0.8's own test directory. The README one
// level up lists the eleven invocations of trec_eval's "make quicktest".
const quicktestDir = trecDir + "quicktest"

// quicktestCases reads the invocations from the README's table: rows
// "| `ARGS` … | `OUTPUT` |".
func quicktestCases(t *testing.T) [][2]string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(trecDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+)`[^|]*\\| `(out\\.test[^`]*)` \\|$")
	var cases [][2]string
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		cases = append(cases, [2]string{m[1], m[2]})
	}
	if len(cases) != 11 {
		t.Fatalf("README.md lists %d quicktest invocations, want trec_eval's 11", len(cases))
	}
	return cases
}

// TestTrecQuicktest runs trec_eval 9.0.8's "make quicktest" against
// rag-eval trec: each invocation, run from inside the test directory as
// trec_eval's Makefile runs it, must print its expected file byte for byte.
func TestTrecQuicktest(t *testing.T) {
	cases := quicktestCases(t)
	dir, err := filepath.Abs(quicktestDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	passed := 0
	for _, c := range cases {
		args, wantFile := c[0], c[1]
		t.Run(wantFile, func(t *testing.T) {
			want, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"trec"}, strings.Fields(args)...), &stdout, &stderr)
			if code != cmdutil.ExitOK {
				t.Fatalf("rag-eval trec %s: exit %d, stderr %s", args, code, stderr.String())
			}
			if !bytes.Equal(stdout.Bytes(), want) {
				t.Fatalf("rag-eval trec %s differs from trec_eval 9.0.8's %s:\n%s", args, wantFile, diff.Diff(wantFile, want, "rag-eval trec", stdout.Bytes()))
			}
			passed++
		})
	}
	if passed != len(cases) {
		t.Errorf("%d of %d quicktest outputs identical", passed, len(cases))
	}
}
