package metrics

import (
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// Qrels holds the relevance judgments of a TREC qrels file
// ("qid iter docno rel" lines), grouped by query.
type Qrels struct {
	name     string
	entries  []judgment // grouped by query, file order within a query
	queries  []span     // sorted by qid, byte order
	index    map[string]int
	positive int        // judgments with grade > 0 over every query (num_rel under -c)
	prefs    []prefLine // instead of entries, when read as preferences
}

type judgment struct {
	docno string
	group string // the second field: the judgment group under -R qrels_jg
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
	runID   string // the tag of the file's last data line
}

type result struct {
	docno string
	tag   string
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

// Judgments returns the judgments of query qid (nil when it has none, and
// for preferences read by ReadPrefs or ReadQrelsPrefs). A docno judged
// twice keeps its last grade.
func (q *Qrels) Judgments(qid string) Judgments {
	i, ok := q.index[qid]
	if !ok || q.prefs != nil {
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
	ents := r.entries[s.start:s.end]
	idx := make([]int32, len(ents))
	for i := range idx {
		idx[i] = int32(i)
	}
	var rk ranker
	rk.order(ents, idx)
	ranking := make([]string, len(ents))
	for i, e := range idx {
		ranking[i] = ents[e].docno
	}
	return ranking
}

// ReadQrels reads a TREC qrels file as trec_eval 9.0.8 does in
// get_qrels.c. Each line is "qid iter docno rel", fields separated by white
// space. rel is read as C's atol reads it, so "2.5" is 2 and "x" is 0. The
// iter field is ignored. '#' is an ordinary byte, as in trec_eval 9.0.8. A blank line, a
// line with other than 4 fields, a NUL byte, or a file without judgments is
// a *diag.Error naming the file and line. name is used in errors only.
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

// ReadRun reads a TREC run file as trec_eval 9.0.8 does in
// get_trec_results.c. Each line is "qid iter docno rank score tag", fields
// separated by white space, and fields after the sixth are ignored. score
// is read as C's atof reads it, as the longest numeric prefix, so "1e3x" is
// 1000 and "x" is 0. iter and rank are ignored. The tag of the file's last
// data line is the runid, and trec_eval checks no other tag. Blank lines
// are skipped. '#' is an ordinary byte, as in trec_eval 9.0.8. A line
// with fewer than 6 fields, a NUL byte, or a file without results is a
// *diag.Error naming the file and line. name is used in errors only.
//
// Duplicate docnos within a query are kept here and reported by Eval, as
// trec_eval reports them only for the queries it evaluates, and only among
// the documents -M keeps.
func ReadRun(r io.Reader, name string) (*Run, error) {
	text, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return parseRun(text, name)
}

// readAll reads r into one string. Fields are substrings of it, so parsing
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
	return &diag.Error{File: name, Line: 1 + strings.Count(text[:i], "\n"), Msg: "NUL byte"}
}

// parseLine parses one line of a file: the query id and entry of a data
// line, keep false for a line to skip (a blank line of a run), or an error.
type parseLine[E any] func(line string, lineNo int) (qid string, e E, keep bool, err *diag.Error)

// parsed is a file's entries grouped by query.
type parsed[E any] struct {
	entries []E    // grouped by query, file order within a query
	spans   []span // sorted by qid
	index   map[string]int
}

// parseFile parses text line by line with parse, in parallel chunks on
// large inputs, and groups the entries by query. The first error in file
// order wins.
func parseFile[E any](text, name string, parse parseLine[E]) (*parsed[E], error) {
	if err := checkNUL(text, name); err != nil {
		return nil, err
	}
	// Chunks end at line ends, each at least minChunk bytes long.
	n := max(1, min(2*runtime.GOMAXPROCS(0), len(text)/minChunk))
	bounds := make([]int, n+1)
	bounds[n] = len(text)
	for k := 1; k < n; k++ {
		b := max(k*len(text)/n, bounds[k-1])
		if i := strings.IndexByte(text[b:], '\n'); i >= 0 {
			b += i + 1
		} else {
			b = len(text)
		}
		bounds[k] = b
	}
	// Chunk k's lines are numbered from first[k] and its entries go to
	// entries[first[k]-1:], which has room for all its lines.
	newlines := make([]int, n)
	forEach(n, func(k int) { newlines[k] = strings.Count(text[bounds[k]:bounds[k+1]], "\n") })
	first := make([]int, n)
	total := 1
	for k := range n {
		first[k] = total
		total += newlines[k]
	}
	entries := make([]E, total)
	group := make([]int32, total)
	chunks := make([]chunk, n)
	forEach(n, func(k int) {
		c := &chunks[k]
		c.index = make(map[string]int32)
		base := first[k] - 1
		lineNo := first[k]
		t := text[bounds[k]:bounds[k+1]]
		for pos := 0; pos < len(t); lineNo++ {
			end := strings.IndexByte(t[pos:], '\n')
			if end < 0 {
				end = len(t)
			} else {
				end += pos
			}
			line := t[pos:end]
			pos = end + 1
			qid, e, keep, err := parse(line, lineNo)
			if err != nil {
				c.err = err
				return
			}
			if keep {
				entries[base+c.n] = e
				group[base+c.n] = c.add(qid)
				c.n++
			}
		}
	})

	// Merge: give each query a global id in order of first appearance,
	// close the gaps between chunks, and check whether every query's
	// entries are contiguous.
	index := make(map[string]int)
	var spans []span
	size := 0
	for k := range chunks {
		c := &chunks[k]
		if c.err != nil {
			return nil, c.err
		}
		global := make([]int32, len(c.qids))
		for l, qid := range c.qids {
			g, ok := index[qid]
			if !ok {
				g = len(spans)
				index[qid] = g
				spans = append(spans, span{qid: qid})
			}
			global[l] = int32(g)
		}
		base := first[k] - 1
		if base != size {
			copy(entries[size:], entries[base:base+c.n])
		}
		for i := range c.n {
			group[size+i] = global[group[base+i]]
		}
		size += c.n
	}
	entries, group = entries[:size], group[:size]
	if size == 0 {
		return nil, nil
	}
	contiguous := true
	closed := make([]bool, len(spans))
	cur := group[0]
	for _, g := range group {
		spans[g].end++ // count for now
		if g != cur {
			if closed[g] {
				contiguous = false
			}
			closed[cur] = true
			cur = g
		}
	}
	start := 0
	for i := range spans {
		c := spans[i].end
		spans[i].start, spans[i].end = start, start+c
		start += c
	}
	if !contiguous {
		next := make([]int, len(spans))
		for i, s := range spans {
			next[i] = s.start
		}
		grouped := make([]E, size)
		for i, g := range group {
			grouped[next[g]] = entries[i]
			next[g]++
		}
		entries = grouped
	}
	slices.SortFunc(spans, func(a, b span) int { return strings.Compare(a.qid, b.qid) })
	for i, s := range spans {
		index[s.qid] = i
	}
	return &parsed[E]{entries: entries, spans: spans, index: index}, nil
}

// minChunk is the smallest chunk parseFile parses on its own goroutine
// (a variable for tests).
var minChunk = 1 << 20

// chunk is the parsing state of one chunk of a file.
type chunk struct {
	n      int              // entries kept
	index  map[string]int32 // qid → local query id
	qids   []string         // local query id → qid
	cur    int32
	curQID string
	err    *diag.Error
}

// add returns the local id of qid, remembering the last one: lines of a
// query usually follow each other.
func (c *chunk) add(qid string) int32 {
	if len(c.qids) > 0 && qid == c.curQID {
		return c.cur
	}
	id, ok := c.index[qid]
	if !ok {
		id = int32(len(c.qids))
		c.index[qid] = id
		c.qids = append(c.qids, qid)
	}
	c.cur, c.curQID = id, qid
	return id
}

// forEach runs f(0), …, f(n-1) concurrently and waits for them.
func forEach(n int, f func(int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() { f(k) })
	}
	wg.Wait()
}

func parseQrels(text, name string) (*Qrels, error) {
	if len(text) == 0 {
		return nil, &diag.Error{File: name, Msg: "empty qrels file"}
	}
	p, err := parseFile(text, name, func(line string, lineNo int) (string, judgment, bool, *diag.Error) {
		var f [4]string
		switch n := splitFields(line, f[:]); {
		case n == 0:
			return "", judgment{}, false, &diag.Error{File: name, Line: lineNo, Msg: "blank line (a qrels line is: qid iter docno rel)"}
		case n != 4:
			return "", judgment{}, false, &diag.Error{File: name, Line: lineNo,
				Msg: fmt.Sprintf("want 4 fields (qid iter docno rel), found %s", countFields(n, 4))}
		}
		return f[0], judgment{docno: f[2], group: f[1], rel: int(atol(f[3])), line: lineNo}, true, nil
	})
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &diag.Error{File: name, Msg: "no judgments"}
	}
	q := &Qrels{name: name, entries: p.entries, queries: p.spans, index: p.index}
	for i := range q.entries {
		if q.entries[i].rel > 0 {
			q.positive++
		}
	}
	return q, nil
}

func parseRun(text, name string) (*Run, error) {
	if len(text) == 0 {
		return nil, &diag.Error{File: name, Msg: "empty run file"}
	}
	p, err := parseFile(text, name, func(line string, lineNo int) (string, result, bool, *diag.Error) {
		i := 0
		for i < len(line) && spaceTable[line[i]] {
			i++
		}
		if i == len(line) {
			return "", result{}, false, nil // a blank line
		}
		var f [6]string
		if n := splitFields(line[i:], f[:]); n < 6 {
			return "", result{}, false, &diag.Error{File: name, Line: lineNo,
				Msg: fmt.Sprintf("want 6 fields (qid iter docno rank score tag), found %d", n)}
		}
		return f[0], result{docno: f[2], tag: f[5], sim: atof(f[4]), line: lineNo}, true, nil
	})
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &diag.Error{File: name, Msg: "no results"}
	}
	// get_trec_results.c keeps the tag of the last data line of the file
	// (in file order, whatever its query) as every query's runid.
	last := &p.entries[0]
	for i := range p.entries {
		if p.entries[i].line > last.line {
			last = &p.entries[i]
		}
	}
	return &Run{name: name, entries: p.entries, queries: p.spans, index: p.index, runID: last.tag}, nil
}

func countFields(n, max int) string {
	if n > max {
		return fmt.Sprintf("more than %d", max)
	}
	return fmt.Sprint(n)
}
