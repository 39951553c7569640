package metrics

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// The fuzz targets check that the readers never panic, that every error is
// a *SyntaxError naming a line of the input, and that whatever they accept
// evaluates without panicking.

func FuzzReadQrels(f *testing.F) {
	for _, s := range []string{exQrels, "", "\n", "# c\n", "1 0 a 1", "1 0 a 1\r\n2 0 b -1\n", "1 0 a\x00 1\n",
		"q 0 a 99999999999999999999\n", "q 0 a 1\nq 0 a 2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ReadQrels(strings.NewReader(in), "q")
		if err != nil {
			checkSyntaxError(t, err, in)
			return
		}
		n := 0
		for _, id := range q.QueryIDs() {
			n += len(q.Judgments(id))
		}
		if n == 0 || n > strings.Count(in, "\n")+1 {
			t.Fatalf("%d judgments from %d lines", n, strings.Count(in, "\n")+1)
		}
		run, err := ReadRun(strings.NewReader(exRun), "r")
		if err != nil {
			t.Fatal(err)
		}
		evalAll(t, q, run)
	})
}

func FuzzReadRun(f *testing.F) {
	for _, s := range []string{exRun, "", "\n", "  # c\n", "q Q0 a 1 1 t", "q Q0 a 1 nan t\nq Q0 b 1 -inf t\n",
		"q Q0 a 1 0x1p3 t x y\n", "q Q0 a 1 1e999 t\nq Q0 a 2 1 t\n", "q Q0 a 1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		run, err := ReadRun(strings.NewReader(in), "r")
		if err != nil {
			checkSyntaxError(t, err, in)
			return
		}
		n := 0
		for _, id := range run.QueryIDs() {
			n += len(run.Ranking(id))
		}
		if n == 0 || n > strings.Count(in, "\n")+1 {
			t.Fatalf("%d results from %d lines", n, strings.Count(in, "\n")+1)
		}
		// Judge every retrieved docno so that the fuzzer reaches the measures.
		var qrels strings.Builder
		for _, id := range run.QueryIDs() {
			for i, d := range run.Ranking(id) {
				qrels.WriteString(id + " 0 " + d + " " + string(rune('0'+i%4)) + "\n")
			}
		}
		q, err := ReadQrels(strings.NewReader(qrels.String()), "q")
		if err != nil {
			return // ids with bytes that split fields differently are fine to skip
		}
		evalAll(t, q, run)
	})
}

func checkSyntaxError(t *testing.T, err error, in string) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *SyntaxError", err)
	}
	if se.Line < 0 || se.Line > strings.Count(in, "\n")+1 {
		t.Fatalf("error %v: line out of range", err)
	}
}

func evalAll(t *testing.T, q *Qrels, run *Run) {
	t.Helper()
	params := []string{"all_trec", "relstring.3", "ndcg.1=2.5,0=-1,-1=0.3", "G.2=0.4,1=0.9", "Rndcg.3=-2", "ndcg_rel.1=0",
		"iprec_at_recall..33,1", "11pt_avg.1,.5,0", "Rprec_mult.0,3", "utility.1,2,3,4", "set_F.0"}
	for _, opts := range []Options{
		DefaultOptions(allMeasures...),
		{Measures: allMeasures, Complete: true, RelLevel: -1, MaxRetrieved: 2},
		DefaultOptions(params...),
		{Measures: params, Complete: true, RelLevel: 2, MaxRetrieved: 3, JudgedOnly: true, NumDocs: 10},
		{Measures: params, RelLevel: 0, MaxRetrieved: -1},
		{Measures: []string{"qrels_jg"}, RelLevel: 1, MaxRetrieved: -1, RelFormat: "qrels_jg"},
	} {
		res, err := Eval(opts, q, run)
		if err != nil {
			var se *SyntaxError
			if !errors.Is(err, ErrNoCommonQuery) && !errors.As(err, &se) {
				t.Fatalf("Eval: %v", err)
			}
			continue
		}
		var b strings.Builder
		if err := WriteText(&b, res, TextOptions{PerQuery: true}); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzReadPrefs(f *testing.F) {
	for _, s := range []string{"q u s a 1\nq u s b 0\n", "q u s1 a 2\nq u s1 b 1\nq u s2 b 1\nq u s2 c 0\n",
		"q u s a 1\nq u s a 0\n", "q u s1 a 1\nq u s1 b 0\nq u s2 b 1\nq u s2 a 0\n", "", "q u s a\n", "# c\nq u s a nan\n"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, qrelsPrefs bool) {
		read := ReadPrefs
		if qrelsPrefs {
			read = ReadQrelsPrefs
		}
		q, err := read(strings.NewReader(in), "p")
		if err != nil {
			checkSyntaxError(t, err, in)
			return
		}
		run, err := ReadRun(strings.NewReader("q Q0 a 1 3 t\nq Q0 c 2 2 t\nq Q0 x 3 2 t\n"), "r")
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{
			{Measures: []string{"all_prefs"}, RelLevel: 1, MaxRetrieved: -1, RelFormat: "prefs"},
			{Measures: []string{"all_prefs"}, RelLevel: 1, MaxRetrieved: 1, RelFormat: "qrels_prefs", Complete: true},
		} {
			res, err := Eval(opts, q, run)
			if err != nil {
				// No common query, or inconsistent preferences: an error
				// naming the preferences file.
				var se *SyntaxError
				if !errors.Is(err, ErrNoCommonQuery) && !(errors.As(err, &se) && se.File == "p") {
					t.Fatalf("Eval: %v", err)
				}
				continue
			}
			if err := WriteText(io.Discard, res, TextOptions{PerQuery: true}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
