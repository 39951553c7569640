package metrics

import (
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// SyntaxError reports a malformed qrels or run file.
type SyntaxError struct {
	File string // name given to ReadQrels or ReadRun
	Line int    // 1-based line number; 0 when the error is about the whole file
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Qrels holds the relevance judgments of a TREC qrels file
// ("qid iter docno rel" lines), grouped by query.
type Qrels struct {
	name     string
	entries  []judgment // grouped by query, file order within a query
	queries  []span     // sorted by qid, byte order
	index    map[string]int
	positive int // judgments with grade > 0 over every query (num_rel under -c)
}

type judgment struct {
	docno string
	rel   int
	line  int
}

// span is one query's entries [start, end).
type span struct {
	qid        string
	start, end int
}

// Run holds the results of a TREC run file
// ("qid iter docno rank score tag" lines), grouped by query.
type Run struct {
	name    string
	entries []result // grouped by query, file order within a query
	queries []span   // sorted by qid, byte order
	index   map[string]int
}

type result struct {
	docno string
	sim   float64
	line  int
}

// Name returns the file name the qrels were read under.
func (q *Qrels) Name() string { return q.name }

// QueryIDs returns the judged query ids in byte order.
func (q *Qrels) QueryIDs() []string {
	ids := make([]string, len(q.queries))
	for i, s := range q.queries {
		ids[i] = s.qid
	}
	return ids
}

// Judgments returns the judgments of query qid (nil when it has none). A
// docno judged twice keeps its last grade.
func (q *Qrels) Judgments(qid string) Judgments {
	i, ok := q.index[qid]
	if !ok {
		return nil
	}
	s := q.queries[i]
	j := make(Judgments, s.end-s.start)
	for _, e := range q.entries[s.start:s.end] {
		j[e.docno] = e.rel
	}
	return j
}

// Name returns the file name the run was read under.
func (r *Run) Name() string { return r.name }

// QueryIDs returns the query ids of the run in byte order.
func (r *Run) QueryIDs() []string {
	ids := make([]string, len(r.queries))
	for i, s := range r.queries {
		ids[i] = s.qid
	}
	return ids
}

// Ranking returns the docnos retrieved for query qid in trec_eval's rank
// order: score descending, ties broken by docno in descending byte order
// (the rank column of the file is ignored). It is nil for an unknown qid.
func (r *Run) Ranking(qid string) []string {
	i, ok := r.index[qid]
	if !ok {
		return nil
	}
	s := r.queries[i]
	ents := slices.Clone(r.entries[s.start:s.end])
	sortResults(ents, make([]result, len(ents)))
	ranking := make([]string, len(ents))
	for i, e := range ents {
		ranking[i] = e.docno
	}
	return ranking
}

// ReadQrels reads a TREC qrels file as trec_eval 9.0.8 does (get_qrels.c):
// each line is "qid iter docno rel", fields separated by white space, rel
// read as C's atol reads it ("2.5" is 2, "x" is 0); the iter field is
// ignored. A line whose first byte is '#' is a comment. A blank line, a
// line with other than 4 fields, a NUL byte, or a file without judgments is
// a *SyntaxError naming the file and line. name is used in errors only.
//
// Duplicate docnos within a query are kept here and reported by Eval, as
// trec_eval reports them only for the queries it evaluates.
func ReadQrels(r io.Reader, name string) (*Qrels, error) {
	text, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return parseQrels(text, name)
}

// ReadRun reads a TREC run file as trec_eval 9.0.8 does
// (get_trec_results.c): each line is "qid iter docno rank score tag",
// fields separated by white space, fields after the sixth ignored; score is
// read as C's atof reads it (the longest numeric prefix, "1e3x" is 1000,
// "x" is 0); iter, rank and tag are ignored. Blank lines are skipped, and
// so is a line whose first non-blank byte is '#'. A line with fewer than 6
// fields, a NUL byte, or a file without results is a *SyntaxError naming the
// file and line. name is used in errors only.
//
// Duplicate docnos within a query are kept here and reported by Eval, as
// trec_eval reports them only for the queries it evaluates (and only among
// the documents -M keeps).
func ReadRun(r io.Reader, name string) (*Run, error) {
	text, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return parseRun(text, name)
}

// readAll reads r into one string; fields are substrings of it, so parsing
// allocates nothing per line.
func readAll(r io.Reader) (string, error) {
	var b strings.Builder
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			b.Grow(int(fi.Size()) + 1)
		}
	}
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		b.Write(buf[:n])
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
	}
}

var spaceTable = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\v\f\r") {
		t[c] = true
	}
	return t
}()

// splitFields stores up to len(out) white-space separated fields of line in
// out and returns how many fields line has, counting at most len(out)+1.
func splitFields(line string, out []string) int {
	n := 0
	i := 0
	for {
		for i < len(line) && spaceTable[line[i]] {
			i++
		}
		if i >= len(line) {
			return n
		}
		j := i
		for j < len(line) && !spaceTable[line[j]] {
			j++
		}
		if n == len(out) {
			return n + 1
		}
		out[n] = line[i:j]
		n++
		i = j
	}
}

// checkNUL reports a NUL byte: trec_eval requires files without them and
// misreads the rest of a file that has one.
func checkNUL(text, name string) error {
	i := strings.IndexByte(text, 0)
	if i < 0 {
		return nil
	}
	return &SyntaxError{File: name, Line: 1 + strings.Count(text[:i], "\n"), Msg: "NUL byte"}
}

// grouper assigns entries to queries, remembering whether every query's
// lines are contiguous in the file (the common case, which needs no copy).
type grouper struct {
	index      map[string]int
	spans      []span
	group      []int32 // group of each entry, in file order
	cur        int
	curQID     string
	contiguous bool
}

func newGrouper(sizeHint int) *grouper {
	return &grouper{index: make(map[string]int), cur: -1, contiguous: true,
		group: make([]int32, 0, sizeHint)}
}

func (g *grouper) add(qid string) {
	if g.cur < 0 || qid != g.curQID {
		i, ok := g.index[qid]
		if !ok {
			i = len(g.spans)
			g.index[qid] = i
			g.spans = append(g.spans, span{qid: qid})
		} else {
			g.contiguous = false
		}
		g.cur, g.curQID = i, qid
	}
	g.spans[g.cur].end++ // count for now
	g.group = append(g.group, int32(g.cur))
}

// finish turns counts into spans, returns the permutation that groups
// entries (nil when they already are) and sorts the spans by qid.
func (g *grouper) finish() (perm []int) {
	start := 0
	for i := range g.spans {
		n := g.spans[i].end
		g.spans[i].start, g.spans[i].end = start, start+n
		start += n
	}
	if !g.contiguous {
		next := make([]int, len(g.spans))
		for i, s := range g.spans {
			next[i] = s.start
		}
		perm = make([]int, len(g.group))
		for i, q := range g.group {
			perm[next[q]] = i
			next[q]++
		}
	}
	slices.SortFunc(g.spans, func(a, b span) int { return strings.Compare(a.qid, b.qid) })
	for i, s := range g.spans {
		g.index[s.qid] = i
	}
	return perm
}

func parseQrels(text, name string) (*Qrels, error) {
	if len(text) == 0 {
		return nil, &SyntaxError{File: name, Msg: "empty qrels file"}
	}
	if err := checkNUL(text, name); err != nil {
		return nil, err
	}
	hint := strings.Count(text, "\n") + 1
	entries := make([]judgment, 0, hint)
	g := newGrouper(hint)
	q := &Qrels{name: name}
	var f [4]string
	lineNo := 0
	for pos := 0; pos < len(text); {
		lineNo++
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		line := text[pos:end]
		pos = end + 1
		if len(line) > 0 && line[0] == '#' {
			continue
		}
		switch n := splitFields(line, f[:]); {
		case n == 0:
			return nil, &SyntaxError{File: name, Line: lineNo, Msg: "blank line (a qrels line is: qid iter docno rel)"}
		case n != 4:
			return nil, &SyntaxError{File: name, Line: lineNo,
				Msg: fmt.Sprintf("want 4 fields (qid iter docno rel), found %s", countFields(n, 4))}
		}
		rel := atol(f[3])
		if rel > 0 {
			q.positive++
		}
		entries = append(entries, judgment{docno: f[2], rel: int(rel), line: lineNo})
		g.add(f[0])
	}
	if len(entries) == 0 {
		return nil, &SyntaxError{File: name, Msg: "no judgments"}
	}
	if perm := g.finish(); perm != nil {
		entries = permute(entries, perm)
	}
	q.entries, q.queries, q.index = entries, g.spans, g.index
	return q, nil
}

func parseRun(text, name string) (*Run, error) {
	if len(text) == 0 {
		return nil, &SyntaxError{File: name, Msg: "empty run file"}
	}
	if err := checkNUL(text, name); err != nil {
		return nil, err
	}
	hint := strings.Count(text, "\n") + 1
	entries := make([]result, 0, hint)
	g := newGrouper(hint)
	var f [6]string
	lineNo := 0
	for pos := 0; pos < len(text); {
		lineNo++
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		line := text[pos:end]
		pos = end + 1
		i := 0
		for i < len(line) && spaceTable[line[i]] {
			i++
		}
		if i == len(line) || line[i] == '#' {
			continue // blank line or comment
		}
		if n := splitFields(line[i:], f[:]); n < 6 {
			return nil, &SyntaxError{File: name, Line: lineNo,
				Msg: fmt.Sprintf("want 6 fields (qid iter docno rank score tag), found %d", n)}
		}
		entries = append(entries, result{docno: f[2], sim: atof(f[4]), line: lineNo})
		g.add(f[0])
	}
	if len(entries) == 0 {
		return nil, &SyntaxError{File: name, Msg: "no results"}
	}
	if perm := g.finish(); perm != nil {
		entries = permute(entries, perm)
	}
	return &Run{name: name, entries: entries, queries: g.spans, index: g.index}, nil
}

func countFields(n, max int) string {
	if n > max {
		return fmt.Sprintf("more than %d", max)
	}
	return fmt.Sprint(n)
}

func permute[E any](in []E, perm []int) []E {
	out := make([]E, len(in))
	for i, p := range perm {
		out[i] = in[p]
	}
	return out
}
