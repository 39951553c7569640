package metrics

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// Options are trec_eval's options that change what is computed.
type Options struct {
	// Measures are the -m arguments: "map", "P", "P.5,10", "ndcg_cut.10",
	// measure sets such as "official" or "all_trec", ….
	Measures []string
	// Complete is -c: average over every query of the qrels. Qrels queries
	// absent from the run count as zero.
	Complete bool
	// RelLevel is -l: a document is relevant when its grade is >= RelLevel.
	// trec_eval's default is DefaultRelLevel, 1. The zero value means
	// "grade >= 0".
	RelLevel int
	// MaxRetrieved is -M: evaluate only the first MaxRetrieved documents of
	// each query's ranking. Negative means no limit, trec_eval's default.
	// 0 keeps no document.
	MaxRetrieved int
	// JudgedOnly is -J: drop the retrieved documents without a judgment
	// (or judged with a negative grade) before computing anything.
	JudgedOnly bool
	// NumDocs is -N, the number of documents in the collection, for
	// utility's fourth coefficient. trec_eval's default is 0.
	NumDocs int64
	// ZScores is -Z: when set, every per-query value becomes a z score
	// against the reference means and deviations (see ZScores).
	ZScores *ZScores
	// RelFormat is -R. "qrels" or "" reads the qrels' second field as
	// trec_eval does, not at all. "qrels_jg" reads it as a judgment group,
	// one user's judgments, and computes the *_avgjg measures, averaged
	// over the groups of a query.
	RelFormat string
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
	SummaryOnly bool   // printed for "all" only (num_q, gm_map, runid)
	QueryOnly   bool   // printed for the queries only (relstring)
	Text        bool   // a string value: Result.RunID, or QueryResult.Texts
	Quoted      bool   // a text value printed between single quotes (relstring)
}

// QueryResult holds the values of one evaluated query, one per column.
type QueryResult struct {
	QID    string
	Values []float64
	// Texts holds the values of Text columns (nil when there is none).
	Texts []string
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
	// num_q, geometric means for gm_*, means for the rest.
	All []float64
	// RunID is the runid value: the tag (sixth field) of the run file's
	// last data line, as in trec_eval, which checks no other line's tag.
	RunID string
	// ZScores reports that the values are z scores (-Z): trec_eval then
	// prefixes names with "Z" and prints every number with 4 decimals.
	ZScores bool
}

// ErrNoCommonQuery is returned by Eval when no query of the run is judged.
var ErrNoCommonQuery = errors.New("no query with both results and relevance judgments")

// Eval evaluates run against qrels as trec_eval 9.0.8 does, for the
// measures and options of opts. See the package documentation for the
// exact semantics. Its cost is linear in the number of queries, and
// n log n in the documents of a query.
//
// A docno repeated within an evaluated query, among the documents of the
// run that -M keeps or among the judgments, is a *diag.Error naming both
// lines. The first such query in qid order is reported. Preferences at odds
// with themselves are a *diag.Error naming the preferences file: a docno
// with two levels in a judgment group of one sub-group, a docno with level
// 0 and a level above 0, or preferences that contradict each other through
// the sub-groups. A run without a judged query is ErrNoCommonQuery.
func Eval(opts Options, qrels *Qrels, run *Run) (*Result, error) {
	ms, err := parseMeasures(opts.Measures)
	if err != nil {
		return nil, err
	}
	format := opts.RelFormat
	switch format {
	case "":
		format = "qrels"
	case "qrels", "qrels_jg":
		if qrels.prefs != nil {
			return nil, fmt.Errorf("rel_info format %q: the judgments were read as preferences", format)
		}
	case "prefs", "qrels_prefs":
		if qrels.prefs == nil {
			return nil, fmt.Errorf("rel_info format %q: read the judgments with ReadPrefs or ReadQrelsPrefs", format)
		}
		format = "prefs"
	default:
		return nil, fmt.Errorf("rel_info format %q: want qrels, qrels_jg, prefs or qrels_prefs", format)
	}
	for _, m := range ms {
		f := m.def().format
		if f == "" {
			f = "qrels"
		}
		if m.kind != kRunid && m.kind != kNumQ && f != format {
			given := opts.RelFormat
			if given == "" {
				given = "qrels"
			}
			set := map[string]string{"qrels": "all_trec", "prefs": "all_prefs", "qrels_jg": "qrels_jg"}[format]
			return nil, fmt.Errorf("measure %s needs -R %s judgments, not %s (the measures for -R %s are those of -m %s)", m.def().name, f, given, given, set)
		}
	}
	jg := format == "qrels_jg"
	prefs := format == "prefs"
	withCounts := slices.ContainsFunc(ms, func(m measure) bool {
		return m.kind == kPrefsPair || m.kind == kPrefsPairRet || m.kind == kPrefsPairImp
	})
	cols, pub := columns(ms)
	hasText := slices.ContainsFunc(pub, func(c Column) bool { return c.Text })

	// Queries of the run that have judgments, in qid order (both lists are
	// sorted: a merge, no lookups).
	type pair struct{ run, qrels span }
	var qpairs []pair
	for i, j := 0, 0; i < len(run.queries) && j < len(qrels.queries); {
		switch a, b := run.queries[i].qid, qrels.queries[j].qid; {
		case a < b:
			i++
		case a > b:
			j++
		default:
			qpairs = append(qpairs, pair{run.queries[i], qrels.queries[j]})
			i++
			j++
		}
	}
	if len(qpairs) == 0 {
		return nil, ErrNoCommonQuery
	}

	res := &Result{Columns: pub, Queries: make([]QueryResult, len(qpairs)), ZScores: opts.ZScores != nil}
	values := make([]float64, len(qpairs)*len(cols))
	var texts []string
	if hasText {
		texts = make([]string, len(qpairs)*len(cols))
	}
	for i, p := range qpairs {
		qr := QueryResult{QID: p.run.qid, Values: values[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]}
		if hasText {
			qr.Texts = texts[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
		}
		res.Queries[i] = qr
	}
	res.RunID = run.runID

	// trec_eval only builds rankings for measures other than num_q and
	// runid. With those alone, duplicates go unnoticed there too.
	needRanking := slices.ContainsFunc(ms, func(m measure) bool { return m.kind != kNumQ && m.kind != kRunid })

	// A WaitGroup, not errgroup: the package imports only the standard
	// library, and the error returned is the first in query order (the same
	// whatever the scheduling), not the first to happen.
	workers := min(runtime.GOMAXPROCS(0), (len(qpairs)+255)/256)
	errs := make([]error, workers)
	errAt := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(qpairs)/workers, (w+1)*len(qpairs)/workers
		wg.Go(func() {
			var s scratch
			for i := lo; i < hi; i++ {
				p := qpairs[i]
				qr := &res.Queries[i]
				var err error
				switch {
				case prefs:
					var pq *prefsQuery
					pq, err = prefsOf(&opts, run, p.run, qrels, p.qrels, withCounts)
					if err == nil {
						fillPrefs(qr.Values, ms, pq)
					}
				case jg:
					err = s.fillGroups(qr.Values, ms, &opts, run, p.run, qrels, p.qrels)
				case needRanking:
					var q *query
					q, err = s.query(&opts, run, p.run, qrels, p.qrels)
					if err == nil {
						s.fill(qr.Values, qr.Texts, ms, q, &opts)
					}
				default:
					s.fill(qr.Values, qr.Texts, ms, nil, &opts)
				}
				if err != nil {
					errs[w], errAt[w] = err, i
					return
				}
				if opts.ZScores != nil {
					opts.ZScores.convert(qr.QID, pub, qr.Values)
				}
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
	numQ := len(qpairs)
	if opts.Complete {
		numQ = len(qrels.queries)
	}
	for c, col := range cols {
		d := col.m.def()
		switch d.agg {
		case aggCount:
			res.All[c] = float64(numQ)
		case aggSum:
			if col.m.kind == kNumRel && opts.Complete {
				// m_num_rel.c: under -c, judgments with grade > 0 in every
				// qrels query, whatever -l says.
				res.All[c] = float64(qrels.positive)
			}
		case aggMean:
			res.All[c] /= float64(numQ)
		case aggGeo:
			// meas_avg.c: a query missing under -c counts as the floor.
			sum := res.All[c] + float64(numQ-len(qpairs))*math.Log(minGeoMean)
			res.All[c] = math.Exp(sum / float64(numQ))
		case aggNone:
			res.All[c] = 0
		}
	}
	return res, nil
}

// fill computes the values of one query.
func (s *scratch) fill(v []float64, texts []string, ms []measure, q *query, opts *Options) {
	s.gainsSet = false
	for i := range ms {
		m := &ms[i]
		out := v[m.col : m.col+m.ncol]
		switch m.kind {
		case kRunid:
		case kNumQ:
			out[0] = 1
		case kNumRet:
			out[0] = float64(len(q.rels))
		case kNumRel:
			out[0] = float64(q.numRel)
		case kNumRelRet:
			out[0] = float64(q.relRet)
		case kMap:
			out[0] = q.avgPrec()
		case kGMMap:
			out[0] = q.gmMap()
		case kRprec:
			out[0] = q.rPrec()
		case kBpref:
			out[0] = q.bpref()
		case kRecipRank:
			out[0] = q.recipRank()
		case kIprecAtRecall:
			s.cuts = recallCounts(m.reals, q.numRel, s.cuts)
			clear(out)
			q.interpolated(s.cuts, func(i int, p float64) { out[i] = p })
		case kP:
			for c, k := range m.cutoffs {
				out[c] = q.precision(k)
			}
		case kRelstring:
			texts[m.col] = q.relstring(m.reals[0])
		case kRecall:
			for c, k := range m.cutoffs {
				out[c] = q.recall(k)
			}
		case kInfAP:
			out[0] = q.infAP()
		case kGMBpref:
			out[0] = gmLog(q.bpref())
		case kRprecMult:
			for c, x := range m.reals {
				out[c] = q.rprecMult(x)
			}
		case kUtility:
			out[0] = q.utility(m.reals, opts.NumDocs)
		case k11ptAvg:
			s.cuts = recallCounts(m.reals, q.numRel, s.cuts)
			sum := 0.0
			q.interpolated(s.cuts, func(_ int, p float64) { sum += p })
			out[0] = sum / float64(len(m.reals))
		case kBinG:
			out[0] = q.binG()
		case kG:
			s.setGains(q, m.pairs)
			out[0] = q.gMeasure(&s.gains)
		case kNDCG:
			s.setGains(q, m.pairs)
			out[0] = q.ndcg(&s.gains)
		case kNDCGRel:
			s.setGains(q, m.pairs)
			out[0] = q.ndcgRel(&s.gains)
		case kRndcg:
			s.setGains(q, m.pairs)
			out[0] = q.rndcg(&s.gains)
		case kNDCGCut:
			for c, k := range m.cutoffs {
				out[c] = q.ndcgCut(k)
			}
		case kMapCut:
			clear(out)
			q.mapCut(m.cutoffs, out)
		case kRelativeP:
			for c, k := range m.cutoffs {
				out[c] = q.relativeP(k)
			}
		case kSuccess:
			for c, k := range m.cutoffs {
				out[c] = q.success(k)
			}
		case kSetP:
			out[0] = q.setP()
		case kSetRelativeP:
			out[0] = q.setRelativeP()
		case kSetRecall:
			out[0] = q.setRecall()
		case kSetMap:
			out[0] = q.setMap()
		case kSetF:
			out[0] = q.setF(m.reals[0])
		case kNumNonrelJudgedRet:
			out[0] = float64(q.numNonrelJudgedRet())
		}
	}
}

// fillGroups computes the values of one query under -R qrels_jg: each
// judgment group (the qrels' second field, in byte order) judges the
// ranking on its own, and the *_avgjg measures average over the groups.
func (s *scratch) fillGroups(v []float64, ms []measure, opts *Options, run *Run, rs span, qrels *Qrels, qs span) error {
	ents, idx, err := s.ranking(opts, run, rs)
	if err != nil {
		return err
	}
	js := append(s.groups[:0], qrels.entries[qs.start:qs.end]...)
	slices.SortStableFunc(js, func(a, b judgment) int { return strings.Compare(a.group, b.group) })
	s.groups = js
	clear(v)
	ngroups := 0
	for start := 0; start < len(js); {
		end := start + 1
		for end < len(js) && js[end].group == js[start].group {
			end++
		}
		q, err := s.judge(opts, ents, idx, qrels.name, qs.qid, js[start:end])
		if err != nil {
			return err
		}
		ngroups++
		for i := range ms {
			m := &ms[i]
			out := v[m.col : m.col+m.ncol]
			switch m.kind {
			case kMapAvgjg:
				out[0] += q.avgPrec()
			case kPAvgjg:
				for c, k := range m.cutoffs {
					out[c] += q.precision(k)
				}
			case kRprecMultAvgjg:
				for c, x := range m.reals {
					out[c] += q.rprecMult(x)
				}
			}
		}
		start = end
	}
	for i := range ms {
		m := &ms[i]
		switch m.kind {
		case kNumQ:
			v[m.col] = 1
		case kMapAvgjg, kPAvgjg, kRprecMultAvgjg:
			if ngroups > 1 {
				for c := m.col; c < m.col+m.ncol; c++ {
					v[c] /= float64(ngroups)
				}
			}
		}
	}
	return nil
}

// setGains fills s.gains for q and pairs, unless it already holds them.
func (s *scratch) setGains(q *query, pairs []gainPair) {
	if s.gainsSet && slices.Equal(s.gainsFor, pairs) {
		return
	}
	q.setGains(pairs, &s.gains)
	s.gainsSet, s.gainsFor = true, pairs
}

// scratch is one worker's reusable memory.
type scratch struct {
	idx    []int32  // rank order, as indices into the query's results
	rank   ranker   // sorts idx
	judged reuseMap // docno → index into the query's judgments
	seen   reuseMap // docno → rank index, for duplicates
	q      query
	grades []int   // judged grades >= 0 of the query
	cum    []int32 // query.cum
	cuts   []int64 // recall counts
	gains  gains
	// gainsSet reports that gains holds the query's gains for gainsFor
	// (G, ndcg, ndcg_rel and Rndcg usually share them).
	gainsSet bool
	gainsFor []gainPair
	groups   []judgment // a query's judgments by group (qrels_jg)
}

// query builds the ranking of one query as form_res_rels.c does: sort by
// score and docno, keep MaxRetrieved documents, reject duplicate docnos,
// look up grades.
func (s *scratch) query(opts *Options, run *Run, rs span, qrels *Qrels, qs span) (*query, error) {
	ents, idx, err := s.ranking(opts, run, rs)
	if err != nil {
		return nil, err
	}
	return s.judge(opts, ents, idx, qrels.name, qs.qid, qrels.entries[qs.start:qs.end])
}

// ranking sorts the results of one query into rank order, keeps
// MaxRetrieved of them and rejects a repeated docno among those kept.
func (s *scratch) ranking(opts *Options, run *Run, rs span) ([]result, []int32, error) {
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

	seen := s.seen.reset(len(idx))
	for i, e := range idx {
		d := &ents[e]
		if j, dup := seen[d.docno]; dup {
			other := ents[idx[j]].line
			a, b := min(d.line, other), max(d.line, other)
			return nil, nil, &diag.Error{File: run.name, Line: b,
				Msg: fmt.Sprintf("duplicate docno %q for query %q (also on line %d)", d.docno, rs.qid, a)}
		}
		seen[d.docno] = i
	}
	return ents, idx, nil
}

// judge looks up the grades of the ranked documents ents[idx] in the
// judgments js of query qid (from the qrels file qrelsName).
func (s *scratch) judge(opts *Options, ents []result, idx []int32, qrelsName, qid string, js []judgment) (*query, error) {
	q := &s.q
	q.level = opts.RelLevel
	q.numRel = 0
	q.ideal = q.ideal[:0]
	s.grades = s.grades[:0]
	judged := s.judged.reset(len(js))
	for i := range js {
		e := &js[i]
		if j, dup := judged[e.docno]; dup {
			return nil, &diag.Error{File: qrelsName, Line: e.line,
				Msg: fmt.Sprintf("duplicate docno %q for query %q (also on line %d)", e.docno, qid, js[j].line)}
		}
		judged[e.docno] = i
		if e.rel >= 0 && e.rel >= q.level {
			q.numRel++
		}
		if e.rel > 0 {
			q.ideal = append(q.ideal, e.rel)
		}
		if e.rel >= 0 {
			s.grades = append(s.grades, e.rel)
		}
	}
	sortDesc(q.ideal)

	q.rels = q.rels[:0]
	for _, e := range idx {
		j, ok := judged[ents[e].docno]
		switch {
		case !ok:
			q.rels = append(q.rels, relNonpool)
		case js[j].rel < 0:
			q.rels = append(q.rels, relUnjudged)
		default:
			q.rels = append(q.rels, js[j].rel)
		}
	}
	if opts.JudgedOnly {
		// form_res_rels.c: the judged documents keep their order.
		kept := q.rels[:0]
		for _, r := range q.rels {
			if r >= 0 {
				kept = append(kept, r)
			}
		}
		q.rels = kept
	}
	q.finish(s.grades, s.cum)
	s.cum = q.cum
	return q, nil
}

// reuseMap is a map kept from one query to the next. Clearing a Go map
// costs its largest size so far, so after a query with many more documents
// than the next it is made anew: one huge query among many small ones
// would otherwise make every later query pay for it.
type reuseMap struct {
	m    map[string]int
	peak int // the most entries m held
}

// reset returns the map empty, ready for about n entries.
func (r *reuseMap) reset(n int) map[string]int {
	if r.m == nil || r.peak > 4*n+1024 {
		r.m, r.peak = make(map[string]int, n), n
		return r.m
	}
	clear(r.m)
	r.peak = max(r.peak, n)
	return r.m
}
