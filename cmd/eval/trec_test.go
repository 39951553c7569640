package eval

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
)

// trecDir holds trec_eval's own test vectors, beside the repository.
const trecDir = "../../internal/metrics/testdata/trec/"

func TestTrecReferenceVectors(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(trecDir, "expected.q.txt"))
	if err != nil {
		t.Fatalf("trec_eval test vectors missing (shared/ must sit beside the repository): %v", err)
	}
	// The command of shared/testdata/trec/README.md, with trec_eval's
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
		t.Errorf("rag-eval trec output differs from trec_eval 9.0.8:\n%s", stdout.String())
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

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no measure", []string{qrels, dupRun}, "rag-eval: no measure requested"},
		{"unsupported measure", []string{"-m", "bpref", qrels, dupRun}, `rag-eval: measure "bpref": trec_eval measure not supported`},
		{"bad cutoff", []string{"-m", "P.0", qrels, dupRun}, "rag-eval: measure P.0: cutoffs must be positive"},
		{"negative -M", []string{"-M", "-1", "-m", "map", qrels, dupRun}, "rag-eval: -M -1: the number of documents must be >= 0"},
		{"missing file", []string{"-m", "map", filepath.Join(dir, "nope"), dupRun}, "rag-eval: read qrels: open "},
		{"duplicate docno", []string{"-m", "map", qrels, dupRun}, "rag-eval: trec: " + dupRun + `:2: duplicate docno "a" for query "q1" (also on line 1)`},
		{"no common query", []string{"-c", "-m", "map", qrels, otherRun}, "rag-eval: trec: no query with both results and relevance judgments"},
		{"one file", []string{"-m", "map", qrels}, "rag-eval: accepts 2 arg(s), received 1"},
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
