package draft

import (
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/golden/querylog"
)

// Options tune Draft.
type Options struct {
	// Scenario is the scenario of a query the log gives none, "" for
	// DefaultScenario.
	Scenario string
	// Sample is how many queries to draft, 0 for all.
	Sample int
	// Seed seeds the sample.
	Seed uint64
	// Existing is the golden file the drafts go to, nil for a new one. A
	// query whose key is that of one of its cases is not drafted again,
	// and no draft gets the id of one of its cases.
	Existing *contract.GoldenFile
}

// Result is the drafting of a log.
type Result struct {
	Log   *querylog.Log
	Stats Stats
	// Known are the queries that are cases of Options.Existing already,
	// in the order of Queries.
	Known []Known
	// Queries are the log's other queries, most frequent first (ties by
	// case id).
	Queries []Query
	// Drafts are the sampled Queries, in the same order: what is written.
	Drafts []Query
	// Strata are the strata of Queries with their sizes and how many of
	// each the sample picked.
	Strata []Stratum
	// Threshold is the count from which a query is frequent.
	Threshold int
}

// Known is a query of the log that is a case of the existing golden file.
type Known struct {
	Query Query
	// Case is that case.
	Case *contract.Case
}

// Draft merges the records of a log into queries (Normalize, Key), leaves
// out those already in opts.Existing and samples opts.Sample of the rest.
// The same log and options give the same result.
//
// The sample is stratified. The queries fall into strata: frequent or rare
// (FrequentThreshold), crossed with the script class (Script): cjk, latin,
// mixed, other. Every non-empty stratum gets one pick, and the other picks
// are shared in proportion to each stratum's size beyond that one, by
// largest remainder. With fewer picks than strata, the largest strata get
// one each. Within a frequent stratum the most frequent queries are
// picked, ties in the seeded order. Within a rare one the picks follow
// the seeded order: the SHA-256 of the seed and the query's key. So a seed
// gives the same sample on every machine, and another seed another sample
// of the rare queries.
func Draft(log *querylog.Log, opts Options) *Result {
	scenario := opts.Scenario
	if scenario == "" {
		scenario = DefaultScenario
	}
	var existing map[string]*contract.Case
	ids := map[string]bool{}
	if g := opts.Existing; g != nil {
		existing = make(map[string]*contract.Case, len(g.Cases))
		for i := range g.Cases {
			c := &g.Cases[i]
			if k := Key(c.Query); existing[k] == nil {
				existing[k] = c
			}
			ids[strings.ToLower(c.CaseID)] = true
		}
	}
	all, st := group(log, scenario, func(id string) bool { return ids[id] })
	r := &Result{Log: log, Stats: st, Queries: make([]Query, 0, len(all))}
	for _, q := range all {
		if c := existing[q.Key]; c != nil {
			r.Known = append(r.Known, Known{Query: q, Case: c})
			continue
		}
		r.Queries = append(r.Queries, q)
	}
	r.Threshold = FrequentThreshold(r.Queries)
	r.Drafts, r.Strata = sample(r.Queries, opts.Sample, opts.Seed)
	return r
}
