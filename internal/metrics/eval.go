package metrics

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// Options are trec_eval's options that change what is computed.
type Options struct {
	// Measures are the -m arguments: "map", "P", "P.5,10", "ndcg_cut.10", ….
	Measures []string
	// Complete is -c: average over every query of the qrels; qrels queries
	// absent from the run count as zero.
	Complete bool
	// RelLevel is -l: a document is relevant when its grade is >= RelLevel.
	// trec_eval's default is DefaultRelLevel (1); the zero value means
	// "grade >= 0".
	RelLevel int
	// MaxRetrieved is -M: evaluate only the first MaxRetrieved documents of
	// each query's ranking. Negative means no limit (trec_eval's default);
	// 0 keeps no document.
	MaxRetrieved int
}

// DefaultOptions returns trec_eval's defaults for the given measures:
// relevance level 1, no limit on retrieved documents, no -c.
func DefaultOptions(measures ...string) Options {
	return Options{Measures: measures, RelLevel: DefaultRelLevel, MaxRetrieved: -1}
}

// Column is one printed value of a Result.
type Column struct {
	Name        string // trec_eval's output name: "map", "P_5", "ndcg_cut_10"
	Integer     bool   // printed as an integer (num_*)
	SummaryOnly bool   // printed for "all" only (num_q)
}

// QueryResult holds the values of one evaluated query, one per column.
type QueryResult struct {
	QID    string
	Values []float64
}

// Result is the outcome of Eval.
type Result struct {
	// Columns are the printed values in trec_eval's order: measure table
	// order, cutoffs ascending.
	Columns []Column
	// Queries are the evaluated queries (in both the run and the qrels),
	// in byte order of qid.
	Queries []QueryResult
	// All holds the "all" values: sums for num_*, the number of queries for
	// num_q, means for the rest.
	All []float64
}

// ErrNoCommonQuery is returned by Eval when no query of the run is judged.
var ErrNoCommonQuery = errors.New("no query with both results and relevance judgments")

// Eval evaluates run against qrels as trec_eval 9.0.8 does, for the
// measures and options of opts. See the package documentation for the
// exact semantics. Its cost is linear in the number of queries (and
// n log n in the documents of a query).
//
// A docno repeated within an evaluated query, among the documents of the
// run that -M keeps or among the judgments, is a *SyntaxError naming both
// lines; the first such query in qid order is reported. A run without a
// judged query is ErrNoCommonQuery.
func Eval(opts Options, qrels *Qrels, run *Run) (*Result, error) {
	ms, err := parseMeasures(opts.Measures)
	if err != nil {
		return nil, err
	}
	cols, pub := columns(ms)

	// Queries of the run that have judgments, in qid order (both lists are
	// sorted: a merge, no lookups).
	type pair struct{ run, qrels span }
	var pairs []pair
	for i, j := 0, 0; i < len(run.queries) && j < len(qrels.queries); {
		switch a, b := run.queries[i].qid, qrels.queries[j].qid; {
		case a < b:
			i++
		case a > b:
			j++
		default:
			pairs = append(pairs, pair{run.queries[i], qrels.queries[j]})
			i++
			j++
		}
	}
	if len(pairs) == 0 {
		return nil, ErrNoCommonQuery
	}

	res := &Result{Columns: pub, Queries: make([]QueryResult, len(pairs))}
	values := make([]float64, len(pairs)*len(cols))
	for i, p := range pairs {
		res.Queries[i] = QueryResult{QID: p.run.qid, Values: values[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]}
	}

	// trec_eval only builds rankings for measures other than num_q; with
	// num_q alone, duplicates go unnoticed there too.
	needRanking := len(ms) > 1 || ms[0].kind != kNumQ

	// A WaitGroup, not errgroup: the package imports only the standard
	// library, and the error returned is the first in query order (the same
	// whatever the scheduling), not the first to happen.
	workers := min(runtime.GOMAXPROCS(0), (len(pairs)+255)/256)
	errs := make([]error, workers)
	errAt := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(pairs)/workers, (w+1)*len(pairs)/workers
		wg.Go(func() {
			var s scratch
			for i := lo; i < hi; i++ {
				p := pairs[i]
				var q *query
				if needRanking {
					var err error
					q, err = s.query(&opts, run, p.run, qrels, p.qrels)
					if err != nil {
						errs[w], errAt[w] = err, i
						return
					}
				}
				fill(res.Queries[i].Values, cols, q)
			}
		})
	}
	wg.Wait()
	first := -1
	for w, err := range errs {
		if err != nil && (first < 0 || errAt[w] < errAt[first]) {
			first = w
		}
	}
	if first >= 0 {
		return nil, errs[first]
	}

	// Sum in qid order, as trec_eval does, so means are bit for bit its own.
	res.All = make([]float64, len(cols))
	for _, q := range res.Queries {
		for c, v := range q.Values {
			res.All[c] += v
		}
	}
	numQ := len(pairs)
	if opts.Complete {
		numQ = len(qrels.queries)
	}
	for c, col := range cols {
		switch col.kind {
		case kNumQ:
			res.All[c] = float64(numQ)
		case kNumRel:
			if opts.Complete {
				// m_num_rel.c: under -c, judgments with grade > 0 in every
				// qrels query, whatever -l says.
				res.All[c] = float64(qrels.positive)
			}
		case kNumRet, kNumRelRet:
			// sums
		default:
			res.All[c] /= float64(numQ)
		}
	}
	return res, nil
}

// fill computes the values of one query.
func fill(v []float64, cols []column, q *query) {
	for c, col := range cols {
		switch col.kind {
		case kNumQ:
			v[c] = 1
		case kNumRet:
			v[c] = float64(len(q.rels))
		case kNumRel:
			v[c] = float64(q.numRel)
		case kNumRelRet:
			v[c] = float64(q.numRelRet())
		case kMap:
			v[c] = q.avgPrec()
		case kRprec:
			v[c] = q.rPrec()
		case kRecipRank:
			v[c] = q.recipRank()
		case kP:
			v[c] = q.precision(col.cutoff)
		case kRecall:
			v[c] = q.recall(col.cutoff)
		case kNDCGCut:
			v[c] = q.ndcgCut(col.cutoff)
		case kSuccess:
			v[c] = q.success(col.cutoff)
		}
	}
}

// scratch is one worker's reusable memory.
type scratch struct {
	idx    []int32        // rank order, as indices into the query's results
	rank   ranker         // sorts idx
	judged map[string]int // docno → index into the query's judgments
	seen   map[string]int // docno → rank index, for duplicates
	q      query
}

// query builds the ranking of one query as form_res_rels.c does: sort by
// score and docno, keep MaxRetrieved documents, reject duplicate docnos,
// look up grades.
func (s *scratch) query(opts *Options, run *Run, rs span, qrels *Qrels, qs span) (*query, error) {
	if s.judged == nil {
		s.judged = make(map[string]int)
		s.seen = make(map[string]int)
	}
	ents := run.entries[rs.start:rs.end]
	n := len(ents)
	if cap(s.idx) < n {
		s.idx = make([]int32, n)
	}
	idx := s.idx[:n]
	for i := range idx {
		idx[i] = int32(i)
	}
	s.rank.order(ents, idx)
	if opts.MaxRetrieved >= 0 && n > opts.MaxRetrieved {
		idx = idx[:opts.MaxRetrieved]
	}

	clear(s.seen)
	for i, e := range idx {
		d := &ents[e]
		if j, dup := s.seen[d.docno]; dup {
			other := ents[idx[j]].line
			a, b := min(d.line, other), max(d.line, other)
			return nil, &SyntaxError{File: run.name, Line: b,
				Msg: fmt.Sprintf("duplicate docno %q for query %q (also on line %d)", d.docno, rs.qid, a)}
		}
		s.seen[d.docno] = i
	}

	q := &s.q
	q.level = opts.RelLevel
	q.numRel = 0
	q.ideal = q.ideal[:0]
	clear(s.judged)
	js := qrels.entries[qs.start:qs.end]
	for i := range js {
		e := &js[i]
		if j, dup := s.judged[e.docno]; dup {
			return nil, &SyntaxError{File: qrels.name, Line: e.line,
				Msg: fmt.Sprintf("duplicate docno %q for query %q (also on line %d)", e.docno, qs.qid, js[j].line)}
		}
		s.judged[e.docno] = i
		if e.rel >= 0 && e.rel >= q.level {
			q.numRel++
		}
		if e.rel > 0 {
			q.ideal = append(q.ideal, e.rel)
		}
	}
	sortDesc(q.ideal)

	q.rels = q.rels[:0]
	for _, e := range idx {
		j, ok := s.judged[ents[e].docno]
		switch {
		case !ok:
			q.rels = append(q.rels, relNonpool)
		case js[j].rel < 0:
			q.rels = append(q.rels, relUnjudged)
		default:
			q.rels = append(q.rels, js[j].rel)
		}
	}
	return q, nil
}
