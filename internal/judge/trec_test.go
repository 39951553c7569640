package judge

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/metrics"
)

// TestExportTRECReproducesMetrics is the property behind export-trec: the
// TREC files it writes, evaluated by the trec_eval engine with -c, give
// every case's rank metrics and their means.
func TestExportTRECReproducesMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	docs := []string{"a", "b", "c", "d", "e", "f", "g", "x y", "p%q"}
	g := &contract.GoldenFile{}
	var fixtures []*contract.Fixture
	for i := range 400 {
		c := contract.Case{CaseID: fmt.Sprintf("c%03d", i), Scenario: "chat", Query: "q"}
		k := 1 + rng.IntN(6)
		c.K = &k
		switch rng.IntN(3) {
		case 0:
			c.ExpectedDocIDs = []string{"kb/" + docs[rng.IntN(len(docs))]}
			if rng.IntN(2) == 0 {
				c.ExpectedSources = []string{docs[rng.IntN(len(docs))]}
			}
		default:
			c.ExpectedSources = []string{docs[rng.IntN(len(docs))], docs[rng.IntN(len(docs))]}
		}
		if rng.IntN(2) == 0 {
			c.Relevance = map[string]int{}
			for range rng.IntN(3) {
				id := docs[rng.IntN(len(docs))]
				if c.UsesDocIDIdentity() {
					id = "kb/" + id
				}
				if id != "kb/"+firstOr(c.ExpectedDocIDs) && !contains(c.ExpectedSources, id) {
					c.Relevance[id] = rng.IntN(4)
				}
			}
		}
		g.Cases = append(g.Cases, c)
		f := fixture(c.CaseID, "q")
		for j := range rng.IntN(9) {
			b := blk(0, docs[rng.IntN(len(docs))])
			if rng.IntN(3) > 0 {
				b.Rank, b.HasRank = 1+rng.IntN(8), true
			}
			_ = j
			f.LookupResult.EvidenceBlocks = append(f.LookupResult.EvidenceBlocks, b)
		}
		fixtures = append(fixtures, f)
	}
	res := &Result{Golden: g}
	cutoffs := map[int]bool{}
	for i := range g.Cases {
		c := &g.Cases[i]
		res.Cases = append(res.Cases, JudgeFixture(c, *c.K, fixtures[i], "kb"))
		cutoffs[*c.K] = true
	}
	qrelsText, runText := ExportTREC(res)
	qrels, err := metrics.ReadQrels(bytes.NewReader(qrelsText), "qrels")
	if err != nil {
		t.Fatal(err)
	}
	run, err := metrics.ReadRun(bytes.NewReader(runText), "run")
	if err != nil {
		t.Fatal(err)
	}
	ks := ""
	for k := range 7 {
		if cutoffs[k] {
			ks += "," + strconv.Itoa(k)
		}
	}
	opts := metrics.DefaultOptions("recip_rank", "ndcg_cut."+ks[1:], "recall."+ks[1:], "P."+ks[1:])
	opts.Complete = true
	out, err := metrics.Eval(opts, qrels, run)
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, c := range out.Columns {
		col[c.Name] = i
	}
	byQID := map[string][]float64{}
	for _, q := range out.Queries {
		byQID[q.QID] = q.Values
	}
	judged := 0
	for _, cr := range res.Cases {
		if cr.Metrics == nil {
			continue
		}
		judged++
		v, ok := byQID[cr.Case.CaseID]
		if !ok {
			if len(cr.Ranking) == 0 && *cr.Metrics == (Metrics{}) {
				continue // -c: a query without a run scores zero
			}
			t.Fatalf("%s: not evaluated by the trec engine", cr.Case.CaseID)
		}
		k := strconv.Itoa(cr.K)
		for name, want := range map[string]contract.Float6{
			"recip_rank": cr.Metrics.ReciprocalRank, "ndcg_cut_" + k: cr.Metrics.NDCGAtK,
			"recall_" + k: cr.Metrics.DocRecallAtK, "P_" + k: cr.Metrics.PrecisionAtK,
		} {
			if got := v[col[name]]; math.Abs(got-float64(want)) > 1e-12 {
				t.Errorf("%s %s: trec %v, judge %v (ranking %v, grades %v)", cr.Case.CaseID, name, got, want, cr.Ranking, cr.Grades)
			}
		}
	}
	if judged < 300 {
		t.Fatalf("only %d cases with metrics; the generator is off", judged)
	}
	// Every measure of trec_eval reads the files: the grades are trec_eval
	// relevance levels (0 judged non-relevant, 1 and up relevant), and
	// nDCG over the whole ranking is ndcg_cut at a cutoff beyond it.
	for _, level := range []int{1, 2} {
		opts := metrics.DefaultOptions("all_trec")
		opts.Complete, opts.RelLevel = true, level
		all, err := metrics.Eval(opts, qrels, run)
		if err != nil {
			t.Fatalf("-m all_trec -l %d: %v", level, err)
		}
		c := map[string]int{}
		for i, col := range all.Columns {
			c[col.Name] = i
		}
		for _, q := range all.Queries {
			if a, b := q.Values[c["ndcg"]], q.Values[c["ndcg_cut_1000"]]; math.Abs(a-b) > 1e-12 {
				t.Errorf("%s: ndcg %v, ndcg_cut_1000 %v", q.QID, a, b)
			}
		}
	}
	for _, id := range qrels.QueryIDs() {
		for d, g := range qrels.Judgments(id) {
			if g < 0 {
				t.Errorf("%s %s: grade %d, want a trec_eval level >= 0", id, d, g)
			}
		}
	}

	// The mean over all cases equals the summary's MRR.
	all := make([]*CaseResult, len(res.Cases))
	for i := range res.Cases {
		all[i] = &res.Cases[i]
	}
	if s := Summarize(all); math.Abs(float64(*s.MRR)-out.All[col["recip_rank"]]) > 1e-12 {
		t.Errorf("mrr %v, trec all recip_rank %v", *s.MRR, out.All[col["recip_rank"]])
	}
}

func firstOr(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
