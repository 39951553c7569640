package metrics

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/testkit/goldenfile"
)

// trecDir holds trec_eval's own test vectors, kept in the repository.
const trecDir = "testdata/trec/"

// TestTrecEvalVectors reproduces, byte for byte, trec_eval 9.0.8's output
// for the command in trecDir/README.md.
func TestTrecEvalVectors(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(trecDir, "README.md"))
	if err != nil {
		t.Fatalf("trec_eval test vectors missing: %v", err)
	}
	// The README's command: "trec_eval FLAGS… qrels.test results.test",
	// possibly continued over lines with a backslash.
	text := strings.ReplaceAll(string(readme), "\\\n", " ")
	i := strings.Index(text, "trec_eval -")
	j := strings.Index(text, "qrels.test results.test")
	if i < 0 || j < i {
		t.Fatalf("README.md no longer shows a trec_eval command:\n%s", readme)
	}
	args := strings.Fields(text[i+len("trec_eval") : j])
	var measures []string
	perQuery := false
	for k := 0; k < len(args); k++ {
		switch args[k] {
		case "-q":
			perQuery = true
		case "-m":
			k++
			measures = append(measures, args[k])
		default:
			t.Fatalf("README command has flag %q this test does not handle", args[k])
		}
	}

	qf, err := os.Open(filepath.Join(trecDir, "qrels.test"))
	if err != nil {
		t.Fatal(err)
	}
	defer qf.Close()
	rf, err := os.Open(filepath.Join(trecDir, "results.test"))
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	qrels, err := ReadQrels(qf, "qrels.test")
	if err != nil {
		t.Fatal(err)
	}
	run, err := ReadRun(rf, "results.test")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Eval(DefaultOptions(measures...), qrels, run)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteText(&got, res, TextOptions{PerQuery: perQuery}); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(trecDir, "expected.q.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("output differs from trec_eval 9.0.8:\n%s", goldenfile.LineDiff(string(want), got.String()))
	}
}
