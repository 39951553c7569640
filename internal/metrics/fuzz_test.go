package metrics

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// The fuzz targets check that the readers never panic, that every error is
// a *diag.Error naming a line of the input, and that whatever they accept
// evaluates to the same text twice, one line per value, with counts and
// ratios within their bounds (checkResult).

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
				qrels.WriteString(id + " 0 " + d + " " + string(rune('0'+(i+1)%4)) + "\n")
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
	var se *diag.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *diag.Error", err)
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
			var se *diag.Error
			if !errors.Is(err, ErrNoCommonQuery) && !errors.As(err, &se) {
				t.Fatalf("Eval: %v", err)
			}
			continue
		}
		var b strings.Builder
		if err := WriteText(&b, res, TextOptions{PerQuery: true}); err != nil {
			t.Fatal(err)
		}
		checkResult(t, opts, res, b.String())
		res2, err := Eval(opts, q, run)
		if err != nil {
			t.Fatalf("second Eval: %v", err)
		}
		var b2 strings.Builder
		if err := WriteText(&b2, res2, TextOptions{PerQuery: true}); err != nil {
			t.Fatal(err)
		}
		if b.String() != b2.String() {
			t.Fatalf("two Evals of the same input print different text:\n%s\n%s", b.String(), b2.String())
		}
	}
}

// checkResult checks what holds for any input: one printed line per value
// (per query, then "all"), and under a relevance level of 1 or more the
// counts and ratios that cannot exceed each other or 1.
func checkResult(t *testing.T, opts Options, res *Result, text string) {
	t.Helper()
	lines := 0
	for _, c := range res.Columns {
		if !c.SummaryOnly {
			lines += len(res.Queries)
		}
		if !c.QueryOnly {
			lines++
		}
	}
	if got := strings.Count(text, "\n"); got != lines {
		t.Fatalf("%d lines printed, want %d:\n%s", got, lines, text)
	}
	if opts.RelLevel < 1 {
		return // -l 0 or below: the unjudged markers count as relevant
	}
	unit := []string{"map", "Rprec", "recip_rank", "bpref", "set_P", "set_recall", "set_relative_P",
		"P_", "recall_", "ndcg_cut_", "success_", "map_cut_", "relative_P_"}
	for _, q := range res.Queries {
		v := map[string]float64{}
		for c, col := range res.Columns {
			v[col.Name] = q.Values[c]
			for _, u := range unit {
				if (col.Name == u || strings.HasSuffix(u, "_") && strings.HasPrefix(col.Name, u)) && !(q.Values[c] >= 0 && q.Values[c] <= 1) {
					t.Fatalf("query %s: %s = %v, outside [0, 1]", q.QID, col.Name, q.Values[c])
				}
			}
		}
		if rr, ok := v["num_rel_ret"]; ok && (rr > v["num_ret"] || rr > v["num_rel"]) {
			t.Fatalf("query %s: num_rel_ret %v > num_ret %v or num_rel %v", q.QID, rr, v["num_ret"], v["num_rel"])
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
				var se *diag.Error
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

// FuzzReadZScores: errors name a line of the input; an accepted file gives
// every query of the example run a z score for each (query, measure) it
// names, and MissingZScore for the others.
func FuzzReadZScores(f *testing.F) {
	for _, s := range []string{"q1 map 0.25 0.5\nq1 P_5 0 0\n", "", "\n", "q1 map 1\n", "q1 map 1 2\nq1 map 3 4\n",
		"q1 map nan inf\r\n", "q1 map 0x1p-2 1e-400\n", "q1 map 1 2\x00\n"} {
		f.Add(s)
	}
	qrels, err := ReadQrels(strings.NewReader(exQrels), "q")
	if err != nil {
		f.Fatal(err)
	}
	run, err := ReadRun(strings.NewReader(exRun), "r")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		z, err := ReadZScores(strings.NewReader(in), "z")
		if err != nil {
			checkSyntaxError(t, err, in)
			return
		}
		opts := DefaultOptions("map", "P.5")
		opts.ZScores = z
		res, err := Eval(opts, qrels, run)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range res.Queries {
			for c, col := range res.Columns {
				_, known := z.byQuery[q.QID][col.Name]
				if missing := q.Values[c] == MissingZScore; !known && !missing {
					t.Fatalf("query %s, %s: not in the file but %v", q.QID, col.Name, q.Values[c])
				}
			}
		}
		if err := WriteText(io.Discard, res, TextOptions{PerQuery: true}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzMeasures: ValidateMeasures, which the CLI calls before reading any
// file, accepts exactly the -m arguments Eval accepts, and the printed
// names are distinct.
func FuzzMeasures(f *testing.F) {
	for _, s := range []string{"map", "P.5,10", "P.0", "P.5,5", "ndcg.1=3,2=9", "ndcg.1", "ndcg.=", "utility.1,2",
		"utility.2,-1,0,0", "iprec_at_recall..1,nan", "11pt_avg..25,.5", "relstring.-3", "official.5", "Rprec_mult.1e400,-1",
		"set_F.x", "map.", "foo", "."} {
		f.Add(s, "P.5")
	}
	qrels, err := ReadQrels(strings.NewReader(exQrels), "q")
	if err != nil {
		f.Fatal(err)
	}
	run, err := ReadRun(strings.NewReader(exRun), "r")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, m1, m2 string) {
		ms := []string{m1, m2}
		verr := ValidateMeasures(ms)
		res, err := Eval(DefaultOptions(ms...), qrels, run)
		if verr != nil {
			if err == nil {
				t.Fatalf("ValidateMeasures(%q): %v, but Eval accepts them", ms, verr)
			}
			return
		}
		if err != nil {
			// Measures of another -R format are Eval's to reject.
			if !strings.Contains(err.Error(), "needs -R") {
				t.Fatalf("ValidateMeasures(%q) accepts them, but Eval: %v", ms, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range res.Columns {
			if seen[c.Name] {
				t.Fatalf("%q: column %q twice", ms, c.Name)
			}
			seen[c.Name] = true
		}
		if err := WriteText(io.Discard, res, TextOptions{PerQuery: true}); err != nil {
			t.Fatal(err)
		}
	})
}
