package metrics

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// The tests below pin the places where a trec_eval measure's definition
// has a trap (the package documentation lists them). Each expected value is
// computed by hand from the definition.

// run lists docnos in rank order as a run file (scores descending).
func runOf(qid string, docnos ...string) string {
	var b strings.Builder
	for i, d := range docnos {
		b.WriteString(qid + " Q0 " + d + " " + strconv.Itoa(i+1) + " " + strconv.Itoa(1000-i) + " tag\n")
	}
	return b.String()
}

// bpref caps both counts at R: past R judged non-relevant documents, a
// relevant one scores 0 however many more non-relevant ones are above it.
func TestTrapBprefCap(t *testing.T) {
	qrels := "q 0 r1 1\nq 0 r2 1\nq 0 n1 0\nq 0 n2 0\nq 0 n3 0\nq 0 n4 0\nq 0 n5 0\n"
	// R = 2, N = 5. r1 below 1 non-relevant: 1 - min(1,2)/min(5,2) = 0.5;
	// r2 below 3: 1 - min(3,2)/2 = 0 (uncapped it would be 1 - 3/5).
	// The unjudged u counts for nothing.
	res, err := evalString(t, DefaultOptions("bpref"), qrels, runOf("q", "n1", "u", "r1", "n2", "n3", "r2"))
	if err != nil {
		t.Fatal(err)
	}
	if got := value(t, res, "q", "bpref"); !near(got, 0.25) {
		t.Errorf("bpref = %v, want (0.5 + 0)/2 = 0.25", got)
	}
}

// gm_map floors each query's AP at 0.00001 before the log, and under -c a
// judged query without results counts as that floor too.
func TestTrapGMMapFloor(t *testing.T) {
	qrels := "a 0 d 1\nb 0 d 1\nc 0 d 1\n"
	run := runOf("a", "d") + runOf("b", "x") // AP 1 and 0; c has no results
	res, err := evalString(t, DefaultOptions("gm_map", "map"), qrels, run)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := value(t, res, "all", "gm_map"), math.Sqrt(minGeoMean); !near(got, want) {
		t.Errorf("gm_map = %v, want exp((log 1 + log 0.00001)/2) = %v", got, want)
	}
	if got := value(t, res, "b", "gm_map"); got != math.Log(minGeoMean) {
		t.Errorf("per-query gm_map of an AP 0 query = %v, want log(0.00001)", got)
	}
	opts := DefaultOptions("gm_map")
	opts.Complete = true
	res, err = evalString(t, opts, qrels, run)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := value(t, res, "all", "gm_map"), math.Exp((2*math.Log(minGeoMean))/3); !near(got, want) {
		t.Errorf("-c gm_map = %v, want %v", got, want)
	}
}

// infAP: a negative grade means "pooled but not judged" (a sample of the
// pool was judged); such documents are assumed relevant in the proportion
// of the judged ones above, and documents outside the pool count as
// non-relevant.
func TestTrapInfAPSampling(t *testing.T) {
	qrels := "q 0 a 1\nq 0 b -1\nq 0 c 0\n"
	res, err := evalString(t, DefaultOptions("infAP", "map", "num_rel", "relstring"), qrels, runOf("q", "b", "a", "c", "x"))
	if err != nil {
		t.Fatal(err)
	}
	// a at rank 2: 1/2 + (1/2)·((0+0+1)/1)·((0+ε)/(0+0+2ε)) = 0.75; R = 1.
	if got := value(t, res, "q", "infAP"); !near(got, 0.75) {
		t.Errorf("infAP = %v, want 0.75", got)
	}
	if got := value(t, res, "q", "map"); !near(got, 0.5) {
		t.Errorf("map = %v, want 0.5 (the unjudged b is simply not relevant)", got)
	}
	if got := value(t, res, "q", "num_rel"); got != 1 {
		t.Errorf("num_rel = %v, want 1 (b's -1 is not a grade)", got)
	}
}

// relstring prints min(width, retrieved) characters (width 10 unless
// "relstring.N", which also renames it relstring_N), per query only: a
// grade above 9 is '>', unjudged '.', outside the pool '-'.
func TestTrapRelstringWidth(t *testing.T) {
	qrels := "q 0 a 12\nq 0 b -1\nq 0 c 0\nq 0 d 3\n"
	run := runOf("q", "a", "b", "x", "c", "d")
	for _, tt := range []struct {
		arg, name, want string
	}{
		{"relstring", "relstring", "'>.-03'"},
		{"relstring.3", "relstring_3", "'>.-'"},
		{"relstring.40", "relstring_40", "'>.-03'"},
		{"relstring.0", "relstring_0", "''"},
	} {
		res, err := evalString(t, DefaultOptions(tt.arg), qrels, run)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := WriteText(&out, res, TextOptions{PerQuery: true}); err != nil {
			t.Fatal(err)
		}
		want := appendName(nil, tt.name)
		want = append(want, "\tq\t"+tt.want+"\n"...)
		if out.String() != string(want) {
			t.Errorf("-m %s: %q, want %q (and no \"all\" line)", tt.arg, out.String(), want)
		}
	}
}

// iprec_at_recall and 11pt_avg turn a recall fraction x into
// (long)(x·R + 0.9) relevant documents, as trec_eval 9.0.8 does (later
// versions round to nearest): with R = 4, recall 0.30 is 2 documents, not 1.
func TestTrapIprecRounding(t *testing.T) {
	qrels := "q 0 r1 1\nq 0 r2 1\nq 0 r3 1\nq 0 r4 1\n"
	run := runOf("q", "r1", "n1", "n2", "n3", "r2", "r3", "r4")
	res, err := evalString(t, DefaultOptions("iprec_at_recall..3", "11pt_avg..3"), qrels, run)
	if err != nil {
		t.Fatal(err)
	}
	// 2 relevant documents: the best precision from rank 5 down is 4/7.
	if got := value(t, res, "q", "iprec_at_recall_0.30"); !near(got, 4.0/7) {
		t.Errorf("iprec_at_recall_0.30 = %v, want 4/7 (1 with rounding to nearest)", got)
	}
	if got := value(t, res, "q", "11pt_avg_.3"); !near(got, 4.0/7) {
		t.Errorf("11pt_avg_.3 = %v, want 4/7", got)
	}
}

// Rprec_mult at a cutoff beyond the ranking divides the relevant retrieved
// by the cutoff (missing documents are non-relevant); relative_P divides by
// min(k, R).
func TestTrapCutoffsBeyondRanking(t *testing.T) {
	qrels := "q 0 a 1\nq 0 b 1\n"
	res, err := evalString(t, DefaultOptions("Rprec_mult.2", "relative_P.1,5"), qrels, runOf("q", "a", "x"))
	if err != nil {
		t.Fatal(err)
	}
	if got := value(t, res, "q", "Rprec_mult_2.00"); !near(got, 0.25) {
		t.Errorf("Rprec_mult_2.00 = %v, want 1/(long)(2·2+0.9) = 0.25", got)
	}
	if got := value(t, res, "q", "relative_P_5"); !near(got, 0.5) {
		t.Errorf("relative_P_5 = %v, want 1/min(5,2)", got)
	}
}

// ndcg's gains default to the grade; "ndcg.1=3,2=9" sets them per level
// (and names the value ndcg_1=3,2=9); the ideal ranking stops at the first
// level with a gain <= 0, and a pair can give documents outside the pool
// (level -1) a gain.
func TestTrapNDCGGains(t *testing.T) {
	qrels := "q 0 a 1\nq 0 b 2\nq 0 c 0\n"
	run := runOf("q", "a", "x", "b")
	l2 := func(i int) float64 { return math.Log2(float64(i + 1)) }
	for _, tt := range []struct {
		arg, name string
		want      float64
	}{
		{"ndcg", "ndcg", (1/l2(1) + 2/l2(3)) / (2/l2(1) + 1/l2(2))},
		{"ndcg.1=3,2=9", "ndcg_1=3,2=9", (3/l2(1) + 9/l2(3)) / (9/l2(1) + 3/l2(2))},
		{"ndcg.2=0", "ndcg_2=0", (1 / l2(1)) / (1 / l2(1))},
		{"ndcg.-1=1", "ndcg_-1=1", (1/l2(1) + 1/l2(2) + 2/l2(3)) / (2/l2(1) + 1/l2(2))},
	} {
		res, err := evalString(t, DefaultOptions(tt.arg), qrels, run)
		if err != nil {
			t.Fatal(err)
		}
		if got := value(t, res, "q", tt.name); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("-m %s: %v, want %v", tt.arg, got, tt.want)
		}
	}
}

// set_F is 0, not NaN, when no relevant document is retrieved; utility's
// fourth coefficient needs the collection size (-N).
func TestTrapSetMeasures(t *testing.T) {
	qrels := "q 0 a 1\nq 0 b 0\n"
	opts := DefaultOptions("set_F", "utility.1,-1,-2,0.5")
	opts.NumDocs = 100
	res, err := evalString(t, opts, qrels, runOf("q", "b", "x"))
	if err != nil {
		t.Fatal(err)
	}
	if got := value(t, res, "q", "set_F"); got != 0 {
		t.Errorf("set_F = %v, want 0", got)
	}
	// relret 0, nonrelret 2, relnotret 1, the rest 100+0-2-1 = 97.
	if got := value(t, res, "q", "utility_1,-1,-2,0.5"); !near(got, -2-2+48.5) {
		t.Errorf("utility = %v, want 44.5", got)
	}
}

// -J drops unjudged documents before anything is computed.
func TestJudgedOnly(t *testing.T) {
	qrels := "q 0 a 1\nq 0 b 0\nq 0 c -1\n"
	opts := DefaultOptions("num_ret", "P.1", "num_nonrel_judged_ret")
	opts.JudgedOnly = true
	res, err := evalString(t, opts, qrels, runOf("q", "x", "c", "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if got := value(t, res, "q", "num_ret"); got != 2 {
		t.Errorf("num_ret = %v, want 2", got)
	}
	if got := value(t, res, "q", "P_1"); got != 1 {
		t.Errorf("P_1 = %v, want 1 (a moves to rank 1)", got)
	}
	if got := value(t, res, "q", "num_nonrel_judged_ret"); got != 1 {
		t.Errorf("num_nonrel_judged_ret = %v, want 1", got)
	}
}

// -Z: (value − mean)/stddev; a zero deviation gives 0 if the value is the
// mean and -1000000 otherwise, as does a measure or query missing from the
// file; the "all" line sums or averages the z scores.
func TestZScores(t *testing.T) {
	z, err := ReadZScores(strings.NewReader("q map 0.25 0.5\nq num_ret 2 0\nq P_1 0 0\n"), "z")
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions("runid", "num_q", "num_ret", "map", "P.1", "recip_rank")
	opts.ZScores = z
	res, err := evalString(t, opts, "q 0 a 1\nq 0 b 1\nr 0 a 1\n", runOf("q", "a", "x")+runOf("r", "a"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteText(&out, res, TextOptions{PerQuery: true}); err != nil {
		t.Fatal(err)
	}
	want := `Znum_ret               	q	0.0000
Zmap                   	q	0.5000
Zrecip_rank            	q	-1000000.0000
ZP_1                   	q	-1000000.0000
Znum_ret               	r	-1000000.0000
Zmap                   	r	-1000000.0000
Zrecip_rank            	r	-1000000.0000
ZP_1                   	r	-1000000.0000
runid                 	all	tag
Znum_q                 	all	2.0000
Znum_ret               	all	-1000000.0000
Zmap                   	all	-499999.7500
Zrecip_rank            	all	-1000000.0000
ZP_1                   	all	-1000000.0000
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	for _, bad := range []string{"q map 1\n", "q map 1 2\n\n", "q map 1 2\nq map 3 4\n", ""} {
		if _, err := ReadZScores(strings.NewReader(bad), "z"); err == nil {
			t.Errorf("ReadZScores(%q): no error", bad)
		}
	}
}

// -R qrels_jg: each judgment group judges on its own; the measures average
// over the groups.
func TestJudgmentGroups(t *testing.T) {
	qrels := "q u1 a 1\nq u1 b 0\nq u2 a 0\nq u2 b 1\n"
	opts := DefaultOptions("map_avgjg", "P_avgjg.1")
	opts.RelFormat = "qrels_jg"
	res, err := evalString(t, opts, qrels, runOf("q", "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if got := value(t, res, "q", "map_avgjg"); !near(got, 0.75) {
		t.Errorf("map_avgjg = %v, want (1 + 1/2)/2", got)
	}
	if got := value(t, res, "q", "P_avgjg_1"); !near(got, 0.5) {
		t.Errorf("P_avgjg_1 = %v, want (1 + 0)/2", got)
	}
	// Read as plain qrels, the two groups judge a twice.
	if _, err := evalString(t, DefaultOptions("map"), qrels, runOf("q", "a")); err == nil || !strings.Contains(err.Error(), "duplicate docno") {
		t.Errorf("qrels format: %v, want a duplicate docno", err)
	}
	opts.Measures = []string{"map"}
	if _, err := evalString(t, opts, qrels, runOf("q", "a")); err == nil || !strings.Contains(err.Error(), "needs -R qrels judgments") {
		t.Errorf("map under qrels_jg: %v", err)
	}
}

// Preferences break score ties by docno ascending (the qrels measures
// descending), and inconsistent preferences are errors, where trec_eval
// aborts.
func TestPrefs(t *testing.T) {
	prefs := func(text string) *Qrels {
		q, err := ReadPrefs(strings.NewReader(text), "prefs")
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	run, err := ReadRun(strings.NewReader("q Q0 b 1 1 t\nq Q0 a 2 1 t\n"), "run")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Measures: []string{"prefs_simp", "prefs_num_prefs_ful_ret"}, RelLevel: 1, MaxRetrieved: -1, RelFormat: "prefs"}
	res, err := Eval(opts, prefs("q u s a 2\nq u s b 1\n"), run)
	if err != nil {
		t.Fatal(err)
	}
	if got := value(t, res, "q", "prefs_simp"); got != 1 {
		t.Errorf("prefs_simp = %v, want 1 (a ranks first on the tie)", got)
	}
	for text, want := range map[string]string{
		"q u s1 a 2\nq u s1 b 1\nq u s2 b 2\nq u s2 a 1\n": `prefs: query "q", judgment group "u": inconsistent preferences: docnos "a" and "b" are each preferred to the other (through the sub-groups)`,
		"q u s1 a 1\nq u s1 b 0\nq u s2 b 1\nq u s2 a 0\n": `prefs:3: query "q", judgment group "u": docno "b" has both level 0 and a level above 0 (also on line 2)`,
		"q u s a 1\nq v s a 1\nq u s a 0\n":                `prefs:3: query "q", judgment group "u": docno "a" has two levels (also on line 1)`,
	} {
		_, err := Eval(opts, prefs(text), run)
		var se *diag.Error
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("%q: %v, want the *diag.Error %s", text, err, want)
		}
	}
	opts.RelFormat = "qrels"
	if _, err := Eval(opts, prefs("q u s a 1\n"), run); err == nil {
		t.Error("prefs measures on qrels: no error")
	}
}
