package report_test

import (
	"fmt"
	"os"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report"
)

// Judge the small eval set in testdata/evalset, build its report once and
// render it: here the text summary, then a baseline diff against itself.
func Example() {
	const cases = "testdata/evalset/golden-cases.json"
	data, err := os.ReadFile(cases)
	if err != nil {
		panic(err)
	}
	g, err := contract.ParseGolden(cases, data)
	if err != nil {
		panic(err)
	}
	res, err := judge.Run(g, "testdata/evalset/fixtures", judge.Options{})
	if err != nil {
		panic(err)
	}
	rep := report.Build(res, cases, "0123456789abcdef")
	rep.WriteText(os.Stdout, false)

	diff := report.Compare(rep, rep, "baseline.json", "current.json")
	fmt.Println("baseline:", diff.Verdict, diff.Counts)
	// Output:
	// FAIL  7 cases: 2 pass, 3 fail, 1 not run, 1 error (pass rate 0.285714)
	// hit levels: strong 2, medium 1, weak 1, miss 0, n/a 1
	// recall@3 0.75  mrr 0.875  ndcg@3 0.71493  keyword coverage 0.75  fallback rate 0.2
	//   fail medium: breadcrumbs
	//   fail weak: expected_document
	//   fail retry: fallback_reason
	//   not_run missing: no fixture at testdata/evalset/fixtures/missing.json
	//   error broken: invalid fixture: testdata/evalset/fixtures/broken.json:1: field "lookupResult.evidenceBlocks": expected an array, got an object
	// baseline: ok {0 0 0 0 0 7}
}
