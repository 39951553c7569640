package metrics_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/metrics"
)

func Example() {
	qrels := "301 0 a 2\n301 0 b 0\n301 0 c 1\n302 0 x 1\n"
	run := "301 Q0 b 1 0.9 run\n301 Q0 a 2 0.5 run\n301 Q0 c 3 0.5 run\n302 Q0 y 1 3 run\n302 Q0 x 2 2 run\n"
	q, err := metrics.ReadQrels(strings.NewReader(qrels), "qrels.txt")
	if err != nil {
		panic(err)
	}
	r, err := metrics.ReadRun(strings.NewReader(run), "run.txt")
	if err != nil {
		panic(err)
	}
	// rag-eval trec -q -m ndcg_cut.3 -m P.2,1 -m map qrels.txt run.txt: measures
	// print in trec_eval's order, cutoffs ascending.
	res, err := metrics.Eval(metrics.DefaultOptions("ndcg_cut.3", "P.2,1", "map"), q, r)
	if err != nil {
		panic(err)
	}
	metrics.WriteText(os.Stdout, res, metrics.TextOptions{PerQuery: true})
	// Output:
	// map                   	301	0.5833
	// P_1                   	301	0.0000
	// P_2                   	301	0.5000
	// ndcg_cut_3            	301	0.6199
	// map                   	302	0.5000
	// P_1                   	302	0.0000
	// P_2                   	302	0.5000
	// ndcg_cut_3            	302	0.6309
	// map                   	all	0.5417
	// P_1                   	all	0.0000
	// P_2                   	all	0.5000
	// ndcg_cut_3            	all	0.6254
}

func ExampleNDCGCutAt() {
	// The judge's ranking: first occurrence of each document, in block order.
	ranking := []string{"b", "c", "a"}
	j := metrics.Judgments{"a": 2, "b": 0, "c": 1}
	fmt.Printf("recip_rank %.4f\n", metrics.RecipRank(ranking, j, 1))
	fmt.Printf("P_2        %.4f\n", metrics.PrecisionAt(ranking, j, 1, 2))
	fmt.Printf("recall_2   %.4f\n", metrics.RecallAt(ranking, j, 1, 2))
	fmt.Printf("ndcg_cut_2 %.4f\n", metrics.NDCGCutAt(ranking, j, 2))
	// Output:
	// recip_rank 0.5000
	// P_2        0.5000
	// recall_2   0.5000
	// ndcg_cut_2 0.2398
}
