package metrics

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// Preference judgments: trec_eval's -R prefs and -R qrels_prefs. trec_eval
// reads them with get_prefs.c and get_qrels_prefs.c, and evaluates them
// with form_prefs_counts.c and the m_prefs_*.c measures.
//
// A preference line is "qid jg jsg docno rel_level". Within one judgment
// sub-group (jsg) of a judgment group (jg, one user), a document with a
// higher rel_level is preferred to every document with a lower one. A jg
// with a single jsg is a set of equivalence classes, where every pair of
// different levels is a preference. A jg with several jsgs is a partial
// order, closed transitively across its jsgs. rel_level > 0 is "relevant",
// and 0 or below "non-relevant", which the *_Rnonrel measures treat apart.
// qrels_prefs reads an ordinary qrels file as preferences: the second field
// is the jg, every line is in jsg "0", and the grade is the rel_level.

// prefLine is one preference judgment.
type prefLine struct {
	docno, jg, jsg string
	rel            float64
	line           int
}

// ReadPrefs reads a trec_eval preferences file (-R prefs): lines "qid jg
// jsg docno rel_level", rel_level read with atof. '#' is an ordinary
// byte, as in trec_eval 9.0.8. A blank line, a line with other than 5 fields, a
// NUL byte, or a file without preferences is a *diag.Error.
func ReadPrefs(r io.Reader, name string) (*Qrels, error) {
	return readPrefs(r, name, 5)
}

// ReadQrelsPrefs reads a qrels file as preferences (-R qrels_prefs): each
// line "qid jg docno rel" is the preference line "qid jg 0 docno rel", rel
// read with atof.
func ReadQrelsPrefs(r io.Reader, name string) (*Qrels, error) {
	return readPrefs(r, name, 4)
}

func readPrefs(r io.Reader, name string, nf int) (*Qrels, error) {
	text, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(text) == 0 {
		return nil, &diag.Error{File: name, Msg: "empty preferences file"}
	}
	want := "qid jg jsg docno rel_level"
	if nf == 4 {
		want = "qid jg docno rel"
	}
	p, err := parseFile(text, name, func(line string, lineNo int) (string, prefLine, bool, *diag.Error) {
		var f [5]string
		if n := splitFields(line, f[:nf]); n != nf {
			return "", prefLine{}, false, &diag.Error{File: name, Line: lineNo,
				Msg: fmt.Sprintf("want %d fields (%s), found %s", nf, want, countFields(n, nf))}
		}
		if nf == 4 {
			return f[0], prefLine{jg: f[1], jsg: "0", docno: f[2], rel: atof(f[3]), line: lineNo}, true, nil
		}
		return f[0], prefLine{jg: f[1], jsg: f[2], docno: f[3], rel: atof(f[4]), line: lineNo}, true, nil
	})
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &diag.Error{File: name, Msg: "no preferences"}
	}
	return &Qrels{name: name, prefs: p.entries, queries: p.spans, index: p.index}, nil
}

// prefsJG holds the counts of one judgment group.
type prefsJG struct {
	fulRet, possRet, fulImp, possImp, notOccur int
	rel, relRet, nonrel, nonrelRet             int
	// The *_Rnonrel measures' fulfilled and possible preferences.
	rnFul, rnPoss, rnRetFul, rnRetPoss int
}

// prefsQuery is the preference view of one query.
type prefsQuery struct {
	judged, judgedRet int // documents in the preferences; those retrieved
	jgs               []prefsJG
	counts            []uint16 // judged × judged: preferences for (i, j) over all jgs
}

// rankPrefs ranks the results of one query as form_prefs_counts.c does:
// score descending, ties by docno in ascending byte order (the other way
// round from the qrels measures), keeps MaxRetrieved and rejects a
// repeated docno.
func rankPrefs(opts *Options, run *Run, rs span) ([]string, error) {
	ents := run.entries[rs.start:rs.end]
	idx := make([]int, len(ents))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		x, y := &ents[a], &ents[b]
		switch {
		case x.sim > y.sim:
			return -1
		case x.sim < y.sim:
			return 1
		}
		return strings.Compare(x.docno, y.docno)
	})
	if opts.MaxRetrieved >= 0 && len(idx) > opts.MaxRetrieved {
		idx = idx[:opts.MaxRetrieved]
	}
	seen := make(map[string]int, len(idx))
	docs := make([]string, len(idx))
	for i, e := range idx {
		d := &ents[e]
		if j, dup := seen[d.docno]; dup {
			other := ents[idx[j]].line
			return nil, &diag.Error{File: run.name, Line: max(d.line, other),
				Msg: fmt.Sprintf("duplicate docno %q for query %q (also on line %d)", d.docno, rs.qid, min(d.line, other))}
		}
		seen[d.docno] = i
		docs[i] = d.docno
	}
	return docs, nil
}

// prefsOf builds the preference counts of one query. withCounts asks for
// the judged × judged counts the prefs_pair measures need.
func prefsOf(opts *Options, run *Run, rs span, qrels *Qrels, qs span, withCounts bool) (*prefsQuery, error) {
	ranking, err := rankPrefs(opts, run, rs)
	if err != nil {
		return nil, err
	}
	lines := qrels.prefs[qs.start:qs.end]
	// Document ids: the judged documents retrieved, in rank order, then the
	// judged documents not retrieved, in docno order.
	judged := make(map[string]int)
	for _, l := range lines {
		judged[l.docno] = -1
	}
	id := make(map[string]int, len(judged))
	n := 0
	for _, d := range ranking {
		if _, ok := judged[d]; ok {
			id[d] = n
			n++
		}
	}
	njr := n
	var rest []string
	for d := range judged {
		if _, ok := id[d]; !ok {
			rest = append(rest, d)
		}
	}
	slices.Sort(rest)
	for _, d := range rest {
		id[d] = n
		n++
	}
	items := make([]prefItem, len(lines))
	for i, l := range lines {
		items[i] = prefItem{jg: l.jg, jsg: l.jsg, rel: l.rel, id: id[l.docno], docno: l.docno, line: l.line}
	}
	slices.SortStableFunc(items, func(a, b prefItem) int {
		if c := strings.Compare(a.jg, b.jg); c != 0 {
			return c
		}
		if c := strings.Compare(a.jsg, b.jsg); c != 0 {
			return c
		}
		if a.rel != b.rel {
			if a.rel > b.rel {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.id, b.id)
	})

	pq := &prefsQuery{judged: n, judgedRet: njr}
	if withCounts {
		pq.counts = make([]uint16, n*n)
	}
	count := func(i, j int) {
		if pq.counts != nil {
			pq.counts[i*n+j]++
		}
	}
	// pool holds the ids of every equivalence class of the query's
	// single-jsg groups, one after the other, as trec_eval's rank pool does
	// (the Rnonrel measures read their non-relevant class from it).
	var pool []int
	type ecGroup struct {
		jg  int
		ecs [][2]int
	}
	var ecGroups []ecGroup
	for start := 0; start < len(items); {
		end := start
		subgroups := 0
		for end < len(items) && items[end].jg == items[start].jg {
			if end == start || items[end].jsg != items[end-1].jsg {
				subgroups++
			}
			end++
		}
		g := items[start:end]
		var jg prefsJG
		if subgroups <= 1 {
			// Equivalence classes by level, best first, ids ascending.
			type ec struct {
				rel        float64
				start, end int // in pool
			}
			var ecs []ec
			for i, it := range g {
				if i == 0 || it.rel != g[i-1].rel {
					ecs = append(ecs, ec{rel: it.rel, start: len(pool)})
				}
				pool = append(pool, it.id)
				ecs[len(ecs)-1].end = len(pool)
			}
			for e1, c1 := range ecs {
				ids1 := pool[c1.start:c1.end]
				ret := 0
				for ret < len(ids1) && ids1[ret] < njr {
					ret++
				}
				if c1.rel > 0 {
					jg.relRet += ret
					jg.rel += len(ids1)
				} else {
					jg.nonrelRet += ret
					jg.nonrel += len(ids1)
				}
				for _, c2 := range ecs[e1+1:] {
					for _, a := range ids1 {
						for _, b := range pool[c2.start:c2.end] {
							count(a, b)
							switch {
							case a == b:
								return nil, prefsError(prefsConflict(g, a, "has two levels"), qrels.name, qs.qid, g[0].jg)
							case a < b && b < njr:
								jg.fulRet++
							case a < b && a < njr:
								jg.fulImp++
							case a < b:
								jg.notOccur++
							case a < njr:
								jg.possRet++
							case b < njr:
								jg.possImp++
							default:
								jg.notOccur++
							}
						}
					}
				}
			}
			jg.possRet += jg.fulRet
			jg.possImp += jg.fulImp
			b := make([][2]int, len(ecs))
			for i, e := range ecs {
				b[i] = [2]int{e.start, e.end}
			}
			ecGroups = append(ecGroups, ecGroup{len(pq.jgs), b})
		} else {
			if err := prefsArray(&jg, g, n, njr, count); err != nil {
				return nil, prefsError(err, qrels.name, qs.qid, g[0].jg)
			}
		}
		pq.jgs = append(pq.jgs, jg)
		start = end
	}
	// The Rnonrel counts read the pool once every group is in it, as
	// trec_eval computes them after forming all groups.
	for _, e := range ecGroups {
		rnonrelEC(&pq.jgs[e.jg], pool, e.ecs, njr)
	}
	return pq, nil
}

// prefItem is one preference line with its document id.
type prefItem struct {
	jg, jsg string
	rel     float64
	id      int
	docno   string
	line    int
}

// prefsConflict is the error for document id judged at odds with itself in
// the lines g: it names the last of its lines and the one before.
func prefsConflict(g []prefItem, id int, what string) *diag.Error {
	var lines []int
	var docno string
	for _, it := range g {
		if it.id == id {
			lines = append(lines, it.line)
			docno = it.docno
		}
	}
	slices.Sort(lines)
	e := &diag.Error{Msg: fmt.Sprintf("docno %q %s", docno, what)}
	if n := len(lines); n >= 2 {
		e.Line = lines[n-1]
		e.Msg += fmt.Sprintf(" (also on line %d)", lines[n-2])
	}
	return e
}

// prefsError completes an error of judgment group jg of query qid with
// the preferences file's name.
func prefsError(e *diag.Error, file, qid, jg string) *diag.Error {
	e.File = file
	e.Msg = fmt.Sprintf("query %q, judgment group %q: %s", qid, jg, e.Msg)
	return e
}

// rnonrelEC computes the Rnonrel measures' counts of an equivalence-class
// group (m_prefs_avgjg_Rnonrel.c, m_prefs_avgjg_Rnonrel_ret.c): with R
// relevant and N non-relevant documents, N > R keeps only the first R
// documents of the last (lowest) class, N <= R adds R-N fulfilled
// preferences per relevant retrieved document.
func rnonrelEC(jg *prefsJG, pool []int, ecs [][2]int, njr int) {
	R, N := jg.rel, jg.nonrel
	if R >= N {
		jg.rnFul = jg.fulRet + jg.fulImp + jg.relRet*(R-N)
		jg.rnPoss = jg.possRet + jg.possImp + jg.notOccur + jg.rel*(R-N)
	} else {
		last := ecs[len(ecs)-1][0]
		newNonrel := pool[last:min(last+R, len(pool))]
		ful, poss := 0, 0
		for e1 := range ecs {
			ids1 := pool[ecs[e1][0]:ecs[e1][1]]
			for e2 := e1 + 1; e2 < len(ecs)-1; e2++ {
				for _, a := range ids1 {
					for _, b := range pool[ecs[e2][0]:ecs[e2][1]] {
						if a < b && a < njr {
							ful++
						} else {
							poss++
						}
					}
				}
			}
			for _, a := range ids1 {
				for _, b := range newNonrel {
					if a < b && a < njr {
						ful++
					} else {
						poss++
					}
				}
			}
		}
		jg.rnFul, jg.rnPoss = ful, poss+ful
	}
	R, N = jg.relRet, jg.nonrelRet
	if R >= N {
		jg.rnRetFul = jg.fulRet + jg.relRet*(R-N)
		jg.rnRetPoss = jg.possRet + jg.rel*(R-N)
		return
	}
	last := ecs[len(ecs)-1][0]
	newNonrel := pool[last:min(last+R, len(pool))]
	retPrefix := func(ids []int) []int {
		k := 0
		for k < len(ids) && ids[k] < njr {
			k++
		}
		return ids[:k]
	}
	ful, poss := 0, 0
	for e1 := range ecs {
		ids1 := retPrefix(pool[ecs[e1][0]:ecs[e1][1]])
		for e2 := e1 + 1; e2 < len(ecs)-1; e2++ {
			for _, a := range ids1 {
				for _, b := range retPrefix(pool[ecs[e2][0]:ecs[e2][1]]) {
					if a < b {
						ful++
					} else {
						poss++
					}
				}
			}
		}
		for _, a := range ids1 {
			for _, b := range retPrefix(newNonrel) {
				if a < b {
					ful++
				} else {
					poss++
				}
			}
		}
	}
	jg.rnRetFul, jg.rnRetPoss = ful, poss+ful
}

// prefsArray counts a judgment group with several sub-groups: each jsg
// prefers its higher levels to its lower ones, the preferences are closed
// transitively, and a pair preferred both ways is an error.
//
// The caller completes an error with prefsError.
func prefsArray(jg *prefsJG, g []prefItem, n, njr int, count func(i, j int)) *diag.Error {
	relOf := make([]float64, n)
	for i := range relOf {
		relOf[i] = -1
	}
	adj := make([][]int, n)
	for i, it := range g {
		if (relOf[it.id] > 0 && it.rel == 0) || (relOf[it.id] == 0 && it.rel > 0) {
			return prefsConflict(g[:i+1], it.id, "has both level 0 and a level above 0")
		}
		relOf[it.id] = it.rel
		j := i + 1
		for j < len(g) && g[j].jsg == it.jsg && g[j].rel == it.rel {
			j++
		}
		for ; j < len(g) && g[j].jsg == it.jsg; j++ {
			adj[it.id] = append(adj[it.id], g[j].id)
		}
	}
	// a[i][j]: j is reachable from i by one preference or more.
	a := make([]bool, n*n)
	stack := make([]int, 0, n)
	for i := range n {
		if len(adj[i]) == 0 {
			continue
		}
		stack = append(stack[:0], adj[i]...)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if a[i*n+v] {
				continue
			}
			a[i*n+v] = true
			stack = append(stack, adj[v]...)
		}
	}
	for i := range n {
		a[i*n+i] = false
	}
	for i := range n {
		for j := range n {
			if i != j && a[i*n+j] && a[j*n+i] {
				return &diag.Error{Msg: fmt.Sprintf("inconsistent preferences: docnos %q and %q are each preferred to the other (through the sub-groups)", docOf(g, i), docOf(g, j))}
			}
		}
	}
	for i := range n {
		switch {
		case relOf[i] > 0:
			jg.rel++
			if i < njr {
				jg.relRet++
			}
		case relOf[i] == 0:
			jg.nonrel++
			if i < njr {
				jg.nonrelRet++
			}
		}
	}
	for i := range n {
		for j := range n {
			if !a[i*n+j] {
				continue
			}
			count(i, j)
			switch {
			case i < njr && j < i:
				jg.possRet++
			case i < njr && j < njr:
				jg.fulRet++
			case i < njr:
				jg.fulImp++
			case j < njr:
				jg.possImp++
			default:
				jg.notOccur++
			}
		}
	}
	jg.possRet += jg.fulRet
	jg.possImp += jg.fulImp

	// Rnonrel: the non-relevant documents after the (R+1)th one (in id
	// order) are left out.
	cut := func(limit, R int) int {
		seen := 0
		for i := range limit {
			if relOf[i] == 0 {
				if seen++; seen == R+1 {
					return i
				}
			}
		}
		return limit
	}
	R, N := jg.rel, jg.nonrel
	if R >= N {
		jg.rnFul = jg.fulRet + jg.fulImp + jg.relRet*(R-N)
		jg.rnPoss = jg.possRet + jg.possImp + jg.notOccur + jg.rel*(R-N)
	} else {
		first := cut(n, jg.rel)
		out := func(i int) bool { return i >= first && relOf[i] == 0 }
		ful, poss := 0, 0
		for i := range n {
			if out(i) {
				continue
			}
			for j := range n {
				if out(j) || !a[i*n+j] {
					continue
				}
				switch {
				case i < njr && j < i:
					poss++
				case i < njr:
					ful++
				default:
					poss++
				}
			}
		}
		jg.rnFul, jg.rnPoss = ful, poss+ful
	}
	R, N = jg.relRet, jg.nonrelRet
	if R >= N {
		jg.rnRetFul = jg.fulRet + jg.relRet*(R-N)
		jg.rnRetPoss = jg.possRet + jg.rel*(R-N)
		return nil
	}
	first := cut(njr, jg.rel)
	out := func(i int) bool { return i >= first && relOf[i] == 0 }
	ful, poss := 0, 0
	for i := range njr {
		if out(i) {
			continue
		}
		for j := range njr {
			if j == i || out(j) || !a[i*n+j] {
				continue
			}
			if j < i {
				poss++
			} else {
				ful++
			}
		}
	}
	jg.rnRetFul, jg.rnRetPoss = ful, poss+ful
	return nil
}

// fillPrefs computes the preference measures of one query.
func fillPrefs(v []float64, ms []measure, pq *prefsQuery) {
	var fulRet, possRet, fulImp, possImp, notOccur int
	for _, g := range pq.jgs {
		fulRet += g.fulRet
		possRet += g.possRet
		fulImp += g.fulImp
		possImp += g.possImp
		notOccur += g.notOccur
	}
	ratio := func(f, p int) float64 {
		if p == 0 {
			return 0
		}
		return float64(f) / float64(p)
	}
	avgjg := func(f func(g *prefsJG) (int, int), always bool) float64 {
		sum := 0.0
		for i := range pq.jgs {
			ful, poss := f(&pq.jgs[i])
			if poss != 0 || always {
				sum += float64(ful) / float64(poss)
			}
		}
		if sum > 0 {
			return sum / float64(len(pq.jgs))
		}
		return 0
	}
	// pair averages, over document pairs with a preference either way, the
	// share of preferences for the first document. The areas are 1 when
	// both are retrieved, 2 when one is, and 3 when neither is, counted and
	// scoring 0.
	pair := func(areas int) float64 {
		n, njr := pq.judged, pq.judgedRet
		c := pq.counts
		sum, pairs := 0.0, 0
		add := func(i, j int, score bool) {
			if a, b := c[i*n+j], c[j*n+i]; a != 0 || b != 0 {
				pairs++
				if score {
					sum += float64(a) / float64(int(a)+int(b))
				}
			}
		}
		for i := range njr {
			for j := i + 1; j < njr; j++ {
				add(i, j, true)
			}
		}
		if areas >= 2 {
			for i := range njr {
				for j := njr; j < n; j++ {
					add(i, j, true)
				}
			}
		}
		if areas >= 3 {
			for i := njr; i < n; i++ {
				for j := i + 1; j < n; j++ {
					add(i, j, false)
				}
			}
		}
		if pairs == 0 {
			return 0
		}
		return sum / float64(pairs)
	}
	for i := range ms {
		m := &ms[i]
		out := v[m.col : m.col+m.ncol]
		switch m.kind {
		case kNumQ:
			out[0] = 1
		case kPrefsNumPrefsPoss:
			out[0] = float64(possRet + possImp + notOccur)
		case kPrefsNumPrefsFul:
			out[0] = float64(fulRet + fulImp)
		case kPrefsNumPrefsFulRet:
			out[0] = float64(fulRet)
		case kPrefsSimp:
			out[0] = ratio(fulRet+fulImp, possRet+possImp+notOccur)
		case kPrefsPair:
			out[0] = pair(3)
		case kPrefsAvgjg:
			out[0] = avgjg(func(g *prefsJG) (int, int) { return g.fulRet + g.fulImp, g.possRet + g.possImp + g.notOccur }, false)
		case kPrefsAvgjgRnonrel:
			out[0] = avgjg(func(g *prefsJG) (int, int) { return g.rnFul, g.rnPoss }, true)
		case kPrefsSimpRet:
			out[0] = ratio(fulRet, possRet)
		case kPrefsPairRet:
			out[0] = pair(1)
		case kPrefsAvgjgRet:
			out[0] = avgjg(func(g *prefsJG) (int, int) { return g.fulRet, g.possRet }, false)
		case kPrefsAvgjgRnonrelRet:
			out[0] = avgjg(func(g *prefsJG) (int, int) { return g.rnRetFul, g.rnRetPoss }, true)
		case kPrefsSimpImp:
			out[0] = ratio(fulRet+fulImp, possRet+possImp)
		case kPrefsPairImp:
			out[0] = pair(2)
		case kPrefsAvgjgImp:
			out[0] = avgjg(func(g *prefsJG) (int, int) { return g.fulRet + g.fulImp, g.possRet + g.possImp }, false)
		}
	}
}

// docOf is the docno of document id in g.
func docOf(g []prefItem, id int) string {
	for _, it := range g {
		if it.id == id {
			return it.docno
		}
	}
	return ""
}
