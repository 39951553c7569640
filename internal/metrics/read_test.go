package metrics

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

func TestAtof(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
	}{
		{"2.129133", 2.129133},
		{"  1.5", 1.5},
		{"-0.25", -0.25},
		{"+3", 3},
		{"1e3", 1000},
		{"1e3x", 1000},
		{"1e", 1},  // exponent without digits is not consumed
		{"1e+", 1}, // idem
		{"2.5.1", 2.5},
		{".5", 0.5},
		{"5.", 5},
		{"1,5", 1}, // the "C" locale's decimal point is '.'
		{"abc", 0},
		{"", 0},
		{"-", 0},
		{".", 0},
		{"0x10", 16},
		{"0x1.8p1", 3},
		{"0X.8", 0.5},
		{"0x1p-2x", 0.25},
		{"0xg", 0},
		{"1e400", math.Inf(1)},
		{"-1e400", math.Inf(-1)},
		{"1e-400", 0},
		{"4.9e-324", 5e-324},
		{"INF", math.Inf(1)},
		{"-Infinity", math.Inf(-1)},
		{"0.1", 0.1},
		{"123456789012345678901234567890", 1.2345678901234568e29},
	} {
		if got := atof(tt.in); got != tt.want {
			t.Errorf("atof(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if got := atof("nan"); !math.IsNaN(got) {
		t.Errorf("atof(nan) = %v", got)
	}
	if got := atof("-0x"); got != 0 || !math.Signbit(got) {
		t.Errorf("atof(-0x) = %v, want -0", got)
	}
}

func TestAtofFastPath(t *testing.T) {
	// The fast path must agree with strconv (correct rounding) everywhere.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b []byte
		if rng.IntN(4) == 0 {
			b = append(b, '-')
		}
		for range rng.IntN(12) {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		if rng.IntN(3) > 0 {
			b = append(b, '.')
			for range rng.IntN(14) {
				b = append(b, byte('0'+rng.IntN(10)))
			}
		}
		s := string(b)
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			want = 0 // "", "-", ".": no conversion
		}
		if got := atof(s); got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("atof(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestAtol(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"2", 2}, {"-1", -1}, {"+7", 7}, {"2.7", 2}, {"1e3", 1}, {"x", 0}, {"", 0},
		{"0x10", 0}, {"  12", 12},
		{"9223372036854775807", math.MaxInt64},
		{"9223372036854775808", math.MaxInt64},
		{"99999999999999999999999", math.MaxInt64},
		{"-9223372036854775808", math.MinInt64},
		{"-9223372036854775809", math.MinInt64},
	} {
		if got := atol(tt.in); got != tt.want {
			t.Errorf("atol(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestReadQrels(t *testing.T) {
	// '#' is an ordinary byte, as in trec_eval 9.0.8: the first line
	// judges query "#".
	in := "# 0 e 1\n301 0 a 2\r\n 301\t0 b   1.9  \n302 0 c -1\n301 0 d x\n"
	q, err := ReadQrels(strings.NewReader(in), "q")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(q.QueryIDs(), " "); got != "# 301 302" {
		t.Errorf("QueryIDs = %q", got)
	}
	if j := q.Judgments("#"); len(j) != 1 || j["e"] != 1 {
		t.Errorf("Judgments(#) = %v", j)
	}
	j := q.Judgments("301")
	if want := map[string]int{"a": 2, "b": 1, "d": 0}; !maps.Equal(j, want) {
		t.Errorf("Judgments(301) = %v, want %v", j, want)
	}
	if q.positive != 3 {
		t.Errorf("positive = %d, want 3", q.positive)
	}
	if q.Judgments("nope") != nil {
		t.Error("Judgments of an unknown query is not nil")
	}
}

func TestReadRun(t *testing.T) {
	// Blank lines are skipped. '#' is an ordinary byte, as in trec_eval
	// 9.0.8: the second line is a result of query "#".
	in := "\n  # Q0 z 1 3 run\nq2 Q0 a 1 1.5 run extra fields\n\t\nq1 Q0 b 9 7 run\r\nq10 Q0 c 1 -2 r"
	r, err := ReadRun(strings.NewReader(in), "r")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.QueryIDs(), " "); got != "# q1 q10 q2" {
		t.Errorf("QueryIDs = %q", got)
	}
	if got := r.Ranking("#"); len(got) != 1 || got[0] != "z" {
		t.Errorf("Ranking(#) = %q", got)
	}
	if got := r.Ranking("q2"); len(got) != 1 || got[0] != "a" {
		t.Errorf("Ranking(q2) = %q, want [a]", got)
	}
	if r.Ranking("nope") != nil {
		t.Error("Ranking of an unknown query is not nil")
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in string
		qrels    bool
		want     string
	}{
		{"qrels empty", "", true, "q.txt: empty qrels file"},
		// A comment line of trec_eval 10.0 is a malformed line of 9.0.8.
		{"qrels comment", "# x\n", true, "q.txt:1: want 4 fields (qid iter docno rel), found 2"},
		{"qrels comment after judgments", "1 0 a 1\n# judged by a person\n", true, "q.txt:2: want 4 fields (qid iter docno rel), found more than 4"},
		{"qrels blank line", "1 0 a 1\n\n1 0 b 1\n", true, "q.txt:2: blank line (a qrels line is: qid iter docno rel)"},
		{"qrels blank last line", "1 0 a 1\n \n", true, "q.txt:2: blank line (a qrels line is: qid iter docno rel)"},
		{"qrels 3 fields", "1 0 a 1\n1 0 b\n", true, "q.txt:2: want 4 fields (qid iter docno rel), found 3"},
		{"qrels 5 fields", "1 0 a 1 x\n", true, "q.txt:1: want 4 fields (qid iter docno rel), found more than 4"},
		{"qrels indented comment", " # a b c d e\n", true, "q.txt:1: want 4 fields (qid iter docno rel), found more than 4"},
		{"qrels NUL", "1 0 a 1\n1 0 b\x00 1\n", true, "q.txt:2: NUL byte"},
		{"run empty", "", false, "r.txt: empty run file"},
		{"run blank only", "\n \n", false, "r.txt: no results"},
		{"run comment", "\n \n# c\n", false, "r.txt:3: want 6 fields (qid iter docno rank score tag), found 2"},
		{"run indented comment", "q Q0 a 1 1 t\n  # comment\n", false, "r.txt:2: want 6 fields (qid iter docno rank score tag), found 2"},
		{"run 5 fields", "q Q0 a 1 1 t\nq Q0 b 2 1\n", false, "r.txt:2: want 6 fields (qid iter docno rank score tag), found 5"},
		{"run 1 field", "q\n", false, "r.txt:1: want 6 fields (qid iter docno rank score tag), found 1"},
		{"run NUL", "\x00", false, "r.txt:1: NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.qrels {
				_, err = ReadQrels(strings.NewReader(tt.in), "q.txt")
			} else {
				_, err = ReadRun(strings.NewReader(tt.in), "r.txt")
			}
			var se *diag.Error
			if !errors.As(err, &se) || err.Error() != tt.want {
				t.Fatalf("error %v, want *diag.Error %q", err, tt.want)
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadIOError(t *testing.T) {
	_, err := ReadRun(failingReader{}, "r.txt")
	if want := "read r.txt: disk on fire"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

func TestParseChunks(t *testing.T) {
	// Parsing in many small chunks gives what one chunk gives: entries,
	// line numbers, grouping of queries split across chunks, and the first
	// error in file order.
	var run, qb strings.Builder
	for i := range 300 {
		q := []string{"q1", "q2", "q10", "q2", "q3"}[i/60] // q2 comes back: not contiguous
		if i%17 == 0 {
			run.WriteString("\n \n") // blank lines, which a run may have
		}
		run.WriteString(q + " Q0 d" + strconv.Itoa(i) + " 1 " + strconv.Itoa(i%7) + ".5 t\n")
		qb.WriteString(q + " 0 d" + strconv.Itoa(i) + " " + strconv.Itoa(i%3) + "\n")
	}
	qrels := qb.String()

	one := func() (*Run, *Qrels) {
		r, err := ReadRun(strings.NewReader(run.String()), "r")
		if err != nil {
			t.Fatal(err)
		}
		q, err := ReadQrels(strings.NewReader(qrels), "q")
		if err != nil {
			t.Fatal(err)
		}
		return r, q
	}
	r1, q1 := one()
	defer func(m int) { minChunk = m }(minChunk)
	minChunk = 64
	r2, q2 := one()
	// diff is the first index at which two lists of n1 and n2 elements
	// differ, by same, or -1 when they do not.
	diff := func(n1, n2 int, same func(i int) bool) int {
		for i := range min(n1, n2) {
			if !same(i) {
				return i
			}
		}
		if n1 != n2 {
			return min(n1, n2)
		}
		return -1
	}
	if i := diff(len(r1.entries), len(r2.entries), func(i int) bool { return r1.entries[i] == r2.entries[i] }); i >= 0 {
		t.Errorf("chunked run: entries differ from %d on, of %d and %d", i, len(r1.entries), len(r2.entries))
	}
	if i := diff(len(r1.queries), len(r2.queries), func(i int) bool { return r1.queries[i] == r2.queries[i] }); i >= 0 {
		t.Errorf("chunked run: queries differ from %d on, of %d and %d", i, len(r1.queries), len(r2.queries))
	}
	if i := diff(len(q1.entries), len(q2.entries), func(i int) bool { return q1.entries[i] == q2.entries[i] }); i >= 0 {
		t.Errorf("chunked qrels: entries differ from %d on, of %d and %d", i, len(q1.entries), len(q2.entries))
	}
	if i := diff(len(q1.queries), len(q2.queries), func(i int) bool { return q1.queries[i] == q2.queries[i] }); i >= 0 {
		t.Errorf("chunked qrels: queries differ from %d on, of %d and %d", i, len(q1.queries), len(q2.queries))
	}
	if q1.positive != q2.positive {
		t.Errorf("chunked qrels: %d positive judgments, want %d as in one chunk", q2.positive, q1.positive)
	}
	if got := strings.Join(r2.QueryIDs(), " "); got != "q1 q10 q2 q3" {
		t.Errorf("QueryIDs = %q", got)
	}
	e := r2.entries[r2.queries[r2.index["q3"]].start]
	if e.docno != "d240" {
		t.Errorf("first q3 entry: docno %q, want d240", e.docno)
	}
	if want := 240 + 240/17 + 240/17 + 3; e.line != want {
		t.Errorf("first q3 entry: line %d, want %d", e.line, want)
	}

	bad := run.String() + "q Q0 a 1\n" + "q Q0 b\n"
	_, err := ReadRun(strings.NewReader(bad), "r")
	if want := fmt.Sprintf("r:%d: want 6 fields (qid iter docno rank score tag), found 4", strings.Count(run.String(), "\n")+1); err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
