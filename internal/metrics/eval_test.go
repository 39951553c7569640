package metrics

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// The hand-computed example of the tests below.
//
// q1 judgments: a=2 b=0 c=1 d=3 (d not retrieved).
// q1 run: b 0.9, a 0.5, e 0.5 (e unjudged), c 0.1. a and e tie: docno
// descending puts e first, so the ranking is b e a c (relevance 0 - 2 1).
// q2: judged x=1, retrieved z only. q3: judged, not in the run.
// q4: in the run, not judged (ignored).
const exQrels = `q1 0 a 2
q1 0 b 0
q1 0 c 1
q1 0 d 3
q2 0 x 1
q3 0 y 1
`

const exRun = `q1 Q0 a 1 0.5 t
q1 Q0 b 2 0.9 t
q1 Q0 e 3 0.5 t
q1 Q0 c 4 0.1 t
q2 Q0 z 1 1.0 t
q4 Q0 a 1 1 t
`

var allMeasures = []string{"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec",
	"recip_rank", "P.1,3,5,10", "recall.3,10", "ndcg_cut.3,10", "success.1,3"}

func evalString(t *testing.T, opts Options, qrels, run string) (*Result, error) {
	t.Helper()
	q, err := ReadQrels(strings.NewReader(qrels), "qrels.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReadRun(strings.NewReader(run), "run.txt")
	if err != nil {
		t.Fatal(err)
	}
	return Eval(opts, q, r)
}

// value returns the value named name of query qid ("all" for the summary).
func value(t *testing.T, res *Result, qid, name string) float64 {
	t.Helper()
	for c, col := range res.Columns {
		if col.Name != name {
			continue
		}
		if qid == "all" {
			return res.All[c]
		}
		for _, q := range res.Queries {
			if q.QID == qid {
				return q.Values[c]
			}
		}
		t.Fatalf("no query %q", qid)
	}
	t.Fatalf("no column %q", name)
	return 0
}

func TestEvalHandComputed(t *testing.T) {
	log2 := math.Log2
	idealQ1 := 3 + 2/log2(3) + 1/log2(4)
	q1 := map[string]float64{
		"num_ret": 4, "num_rel": 3, "num_rel_ret": 2,
		"map":        (1.0/3 + 2.0/4) / 3,
		"Rprec":      1.0 / 3, // b e a: one relevant in the first R=3
		"recip_rank": 1.0 / 3,
		"P_1":        0, "P_3": 1.0 / 3, "P_5": 2.0 / 5, "P_10": 2.0 / 10,
		"recall_3": 1.0 / 3, "recall_10": 2.0 / 3,
		"ndcg_cut_3":  (2 / log2(4)) / idealQ1,
		"ndcg_cut_10": (2/log2(4) + 1/log2(5)) / idealQ1,
		"success_1":   0, "success_3": 1,
	}
	q2 := map[string]float64{"num_ret": 1, "num_rel": 1} // everything else 0

	tests := []struct {
		name     string
		opts     Options
		queries  []string
		all      map[string]float64
		override map[string]map[string]float64
	}{
		{
			name:    "default",
			opts:    DefaultOptions(allMeasures...),
			queries: []string{"q1", "q2"},
			all: map[string]float64{"num_q": 2, "num_ret": 5, "num_rel": 4, "num_rel_ret": 2,
				"map": q1["map"] / 2, "P_5": q1["P_5"] / 2, "ndcg_cut_10": q1["ndcg_cut_10"] / 2},
		},
		{
			// -c: q3 counts as zero; num_rel for all counts every
			// judgment with grade > 0 (a c d x y).
			name:    "complete",
			opts:    Options{Measures: allMeasures, Complete: true, RelLevel: 1, MaxRetrieved: -1},
			queries: []string{"q1", "q2"},
			all: map[string]float64{"num_q": 3, "num_ret": 5, "num_rel": 5, "num_rel_ret": 2,
				"map": q1["map"] / 3, "recip_rank": q1["recip_rank"] / 3, "success_3": 1.0 / 3},
		},
		{
			// -l 2: relevant = a, d. ndcg ignores the level.
			name:    "level 2",
			opts:    Options{Measures: allMeasures, RelLevel: 2, MaxRetrieved: -1},
			queries: []string{"q1", "q2"},
			override: map[string]map[string]float64{
				"q1": {"num_rel": 2, "num_rel_ret": 1, "map": (1.0 / 3) / 2, "Rprec": 0,
					"P_5": 1.0 / 5, "P_10": 1.0 / 10, "recall_3": 1.0 / 2, "recall_10": 1.0 / 2},
				"q2": {"num_rel": 0},
			},
			all: map[string]float64{"num_rel": 2, "ndcg_cut_10": q1["ndcg_cut_10"] / 2},
		},
		{
			// -c -l 2: per-query num_rel follows -l, all's does not.
			name:    "complete level 2",
			opts:    Options{Measures: allMeasures, Complete: true, RelLevel: 2, MaxRetrieved: -1},
			queries: []string{"q1", "q2"},
			override: map[string]map[string]float64{
				"q1": {"num_rel": 2, "num_rel_ret": 1, "map": (1.0 / 3) / 2, "Rprec": 0,
					"P_5": 1.0 / 5, "P_10": 1.0 / 10, "recall_3": 1.0 / 2, "recall_10": 1.0 / 2},
				"q2": {"num_rel": 0},
			},
			all: map[string]float64{"num_q": 3, "num_rel": 5, "map": (1.0 / 3) / 2 / 3},
		},
		{
			// -M 3 keeps b e a: c is no longer retrieved.
			name:    "max 3",
			opts:    Options{Measures: allMeasures, RelLevel: 1, MaxRetrieved: 3},
			queries: []string{"q1", "q2"},
			override: map[string]map[string]float64{
				"q1": {"num_ret": 3, "num_rel_ret": 1, "map": (1.0 / 3) / 3, "P_5": 1.0 / 5,
					"P_10": 1.0 / 10, "recall_10": 1.0 / 3, "ndcg_cut_10": (2 / log2(4)) / idealQ1},
			},
			all: map[string]float64{"num_ret": 4},
		},
		{
			// -M 0 keeps nothing.
			name:     "max 0",
			opts:     Options{Measures: allMeasures, RelLevel: 1, MaxRetrieved: 0},
			queries:  []string{"q1", "q2"},
			override: map[string]map[string]float64{"q1": zeroExcept(q1, "num_rel"), "q2": {"num_ret": 0}},
			all:      map[string]float64{"num_ret": 0, "num_rel": 4, "map": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := evalString(t, tt.opts, exQrels, exRun)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range res.Queries {
				got = append(got, q.QID)
			}
			if strings.Join(got, " ") != strings.Join(tt.queries, " ") {
				t.Fatalf("queries %v, want %v", got, tt.queries)
			}
			for qid, base := range map[string]map[string]float64{"q1": q1, "q2": q2} {
				for _, col := range res.Columns {
					if col.SummaryOnly {
						continue
					}
					want := base[col.Name]
					if o, ok := tt.override[qid][col.Name]; ok {
						want = o
					}
					if got := value(t, res, qid, col.Name); !near(got, want) {
						t.Errorf("%s %s = %.17g, want %.17g", qid, col.Name, got, want)
					}
				}
			}
			for name, want := range tt.all {
				if got := value(t, res, "all", name); !near(got, want) {
					t.Errorf("all %s = %.17g, want %.17g", name, got, want)
				}
			}
		})
	}
}

func zeroExcept(m map[string]float64, keep string) map[string]float64 {
	z := map[string]float64{}
	for k := range m {
		z[k] = 0
	}
	z[keep] = m[keep]
	return z
}

func TestEvalTies(t *testing.T) {
	// Four documents with the same score: ranked by docno descending, so
	// the relevant "a" comes last whatever the rank column says.
	qrels := "q 0 a 1\n"
	run := "q Q0 a 1 2.5 t\nq Q0 b 2 2.5 t\nq Q0 c 3 2.50 t\nq Q0 d 4 25e-1 t\n"
	res, err := evalString(t, DefaultOptions("recip_rank"), qrels, run)
	if err != nil {
		t.Fatal(err)
	}
	if got := value(t, res, "q", "recip_rank"); got != 0.25 {
		t.Errorf("recip_rank = %v, want 0.25 (ties broken by docno descending)", got)
	}
	// Byte order, not numeric: "10" < "9".
	res, err = evalString(t, DefaultOptions("recip_rank"), "q 0 9 1\n", "q Q0 10 1 1 t\nq Q0 9 2 1 t\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := value(t, res, "q", "recip_rank"); got != 1 {
		t.Errorf("recip_rank = %v, want 1 (\"9\" > \"10\" bytewise)", got)
	}
	// Ranking exposes the same order.
	r, _ := ReadRun(strings.NewReader(run), "run")
	if got := strings.Join(r.Ranking("q"), " "); got != "d c b a" {
		t.Errorf("Ranking = %q, want %q", got, "d c b a")
	}
}

func TestEvalMeasureOrder(t *testing.T) {
	// Measures print in trec_eval's table order and cutoffs ascending,
	// whatever the command line order; the first cutoffs given win.
	res, err := evalString(t, DefaultOptions("success", "ndcg_cut.10,5", "P.20,5", "map", "P.3", "num_q"), exQrels, exRun)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range res.Columns {
		names = append(names, c.Name)
	}
	want := "num_q map P_5 P_20 ndcg_cut_5 ndcg_cut_10 success_1 success_5 success_10"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("columns %q, want %q", got, want)
	}
}

func TestEvalMeasureErrors(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{"", "no measure requested"},
		{"dcg", `illegal measure "dcg"`},
		{"iprec_at_recall..1,.10", "duplicate cutoff 0.1"},
		{"utility.1,2,3", "utility takes 4 coefficients, found 3"},
		{"ndcg.1=2,3", "malformed pair parameters"},
		{"ndcg.1=2=3", "malformed pair parameters"},
		{"mapp", `illegal measure "mapp"`},
		{"P.", "empty parameter list"},
		{"P.0,5", "cutoffs must be positive"},
		{"P.x", "cutoffs must be positive"},
		{"recall.5,10,5", "duplicate cutoff 5"},
	} {
		var args []string
		if tt.args != "" {
			args = strings.Split(tt.args, " ")
		}
		err := ValidateMeasures(args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ValidateMeasures(%q) = %v, want %q", tt.args, err, tt.want)
		}
	}
	// Parameters of measures without cutoffs are ignored, as trec_eval does.
	if err := ValidateMeasures([]string{"map.5", "P.5.9", "all_trec", "official.5", "ndcg.1=3,2=9"}); err != nil {
		t.Errorf("ValidateMeasures: %v", err)
	}
}

func TestEvalDuplicates(t *testing.T) {
	tests := []struct {
		name, qrels, run string
		opts             Options
		want             string // "" for no error
	}{
		{
			name:  "run",
			qrels: "q 0 a 1\n",
			run:   "q Q0 a 1 1 t\nq Q0 b 2 1 t\nq Q0 a 3 0.5 t\n",
			opts:  DefaultOptions("map"),
			want:  `run.txt:3: duplicate docno "a" for query "q" (also on line 1)`,
		},
		{
			name:  "qrels",
			qrels: "q 0 a 1\nq 0 b 0\nq 0 a 0\n",
			run:   "q Q0 a 1 1 t\n",
			opts:  DefaultOptions("map"),
			want:  `qrels.txt:3: duplicate docno "a" for query "q" (also on line 1)`,
		},
		{
			// trec_eval checks only the documents -M keeps.
			name:  "run beyond -M",
			qrels: "q 0 a 1\n",
			run:   "q Q0 a 1 1 t\nq Q0 b 2 0.9 t\nq Q0 a 3 0.5 t\n",
			opts:  Options{Measures: []string{"map"}, RelLevel: 1, MaxRetrieved: 2},
		},
		{
			// ... and only evaluated queries.
			name:  "unjudged query",
			qrels: "q 0 a 1\nr 0 x 1\nr 0 x 1\n",
			run:   "q Q0 a 1 1 t\ns Q0 a 1 1 t\ns Q0 a 2 1 t\n",
			opts:  Options{Measures: []string{"map"}, RelLevel: 1, MaxRetrieved: -1},
		},
		{
			// The first duplicate in qid order is reported.
			name:  "first query",
			qrels: "q1 0 a 1\nq2 0 a 1\n",
			run:   "q2 Q0 b 1 1 t\nq2 Q0 b 2 1 t\nq1 Q0 c 1 1 t\nq1 Q0 c 2 1 t\n",
			opts:  DefaultOptions("map"),
			want:  `run.txt:4: duplicate docno "c" for query "q1" (also on line 3)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := evalString(t, tt.opts, tt.qrels, tt.run)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var se *diag.Error
			if !errors.As(err, &se) || err.Error() != tt.want {
				t.Fatalf("error %v, want *diag.Error %q", err, tt.want)
			}
		})
	}
}

func TestEvalNoCommonQuery(t *testing.T) {
	_, err := evalString(t, Options{Measures: []string{"map"}, Complete: true, RelLevel: 1, MaxRetrieved: -1},
		"q1 0 a 1\n", "q2 Q0 a 1 1 t\n")
	if !errors.Is(err, ErrNoCommonQuery) {
		t.Fatalf("error %v, want ErrNoCommonQuery (even with -c, as trec_eval 9.0.8)", err)
	}
}

func TestEvalUngroupedInput(t *testing.T) {
	// Lines of a query need not be contiguous.
	grouped, err := evalString(t, DefaultOptions(allMeasures...), exQrels, exRun)
	if err != nil {
		t.Fatal(err)
	}
	qrels := "q2 0 x 1\nq1 0 d 3\nq3 0 y 1\nq1 0 a 2\nq1 0 b 0\nq1 0 c 1\n"
	run := "q1 Q0 c 4 0.1 t\nq4 Q0 a 1 1 t\nq1 Q0 a 1 0.5 t\nq2 Q0 z 1 1.0 t\nq1 Q0 b 2 0.9 t\nq1 Q0 e 3 0.5 t\n"
	mixed, err := evalString(t, DefaultOptions(allMeasures...), qrels, run)
	if err != nil {
		t.Fatal(err)
	}
	var a, b strings.Builder
	WriteText(&a, grouped, TextOptions{PerQuery: true})
	WriteText(&b, mixed, TextOptions{PerQuery: true})
	if a.String() != b.String() {
		t.Errorf("ungrouped input evaluates differently:\n%s\nwant\n%s", b.String(), a.String())
	}
}

func TestEvalNaNScores(t *testing.T) {
	// NaN compares equal to everything; the order is glibc's merge sort's.
	// For [x 1, y nan, z 2]: merge([x], merge([y], [z])). y vs z: equal
	// scores, docno z > y first: [z y]. x vs z: 1 < 2, z first; x vs y:
	// "equal", docno y > x: y then x. Ranking z y x.
	run := "q Q0 x 1 1 t\nq Q0 y 2 nan t\nq Q0 z 3 2 t\n"
	r, err := ReadRun(strings.NewReader(run), "run")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Ranking("q"), " "); got != "z y x" {
		t.Errorf("Ranking = %q, want %q", got, "z y x")
	}
}

// runid is the tag of the run file's last data line, as get_trec_results.c
// keeps it, not the tag of the last evaluated query: here query b, last in
// qid order, says "B", a line of query a (last in the file, before two
// blank lines) says "A2", and query c (unjudged) says "C".
func TestRunIDIsLastLine(t *testing.T) {
	qrels := "a 0 d1 1\nb 0 d1 1\n"
	for _, tc := range []struct{ run, want string }{
		{"b Q0 d1 1 1 B\na Q0 d1 1 1 A1\na Q0 d2 2 0 A2\n \n\n", "A2"},
		{"a Q0 d1 1 1 A\nb Q0 d1 1 1 B\nc Q0 d1 1 1 C\n", "C"},
	} {
		res, err := evalString(t, DefaultOptions("runid"), qrels, tc.run)
		if err != nil {
			t.Fatal(err)
		}
		if res.RunID != tc.want {
			t.Errorf("run %q: runid %q, want %q", tc.run, res.RunID, tc.want)
		}
	}
}
