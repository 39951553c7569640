package draft

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/golden/querylog"
)

func TestNormalizeAndKey(t *testing.T) {
	for _, tt := range []struct{ in, norm, key string }{
		{"  How do I   reset my PASSWORD? ", "how do i reset my password?", "how do i reset my password"},
		{"how do i reset my password", "how do i reset my password", "how do i reset my password"},
		{"连接池满了，怎么办？", "连接池满了,怎么办?", "连接池满了怎么办"},
		{"连接池 满了 怎么办", "连接池 满了 怎么办", "连接池满了怎么办"},
		{"ＭｙＳＱＬ 连接池", "mysql 连接池", "mysql连接池"},
		{"mysql连接池", "mysql连接池", "mysql连接池"},
		{"too many connections — MySQL 8.0", "too many connections — mysql 8.0", "too many connections mysql 8 0"},
		{"c++ vs c", "c++ vs c", "c++ vs c"},
		{"c# vs c", "c# vs c", "c# vs c"},
		{"502 bad gateway", "502 bad gateway", "502 bad gateway"},
		{"disk\tfull\n", "disk full", "disk full"},
		{"???", "???", "???"},
		{"「ログ」の ローテーション", "「ログ」の ローテーション", "ログのローテーション"},
	} {
		if got := Normalize(tt.in); got != tt.norm {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.norm)
		}
		if got := Key(tt.in); got != tt.key {
			t.Errorf("Key(%q) = %q, want %q", tt.in, got, tt.key)
		}
	}
	// Different queries stay apart.
	for _, pair := range [][2]string{{"502 bad gateway", "504 bad gateway"}, {"连接池满了", "连接池慢了"}, {"c++", "c"}, {"login", "log in"}} {
		if Key(pair[0]) == Key(pair[1]) {
			t.Errorf("Key(%q) = Key(%q) = %q, want them apart", pair[0], pair[1], Key(pair[0]))
		}
	}
}

func TestScript(t *testing.T) {
	for in, want := range map[string]string{
		"连接池满了": ScriptCJK, "ログ": ScriptCJK, "디스크": ScriptCJK, "disk full": ScriptLatin, "mysql 连接池": ScriptMixed,
		"502 504 ?": ScriptOther, "диск": ScriptOther, "disk диск": ScriptMixed, "café": ScriptLatin, "连接池 500": ScriptCJK,
	} {
		if got := Script(in); got != want {
			t.Errorf("Script(%q) = %s, want %s", in, got, want)
		}
	}
}

// A case id is a function of the key alone: the same for every form of a
// query, in every log, a valid case id.
func TestCaseIDStable(t *testing.T) {
	id := CaseID(Key("How do I reset my password?"))
	if !strings.HasPrefix(id, IDPrefix) || len(id) != 12 || !contract.ValidCaseID(id) {
		t.Fatalf("CaseID = %q, want q- and 10 hex digits", id)
	}
	if got := CaseID(Key("how do i reset my password")); got != id {
		t.Errorf("another form: %q, want %q", got, id)
	}
	// Pinned, computed with sha256sum: the id must never change between
	// versions, since golden files and fixtures are named by it.
	for key, want := range map[string]string{"how do i reset my password": "q-95d486cad7", "连接池满了怎么办": "q-5829724451"} {
		if got := CaseID(key); got != want {
			t.Errorf("CaseID(%q) = %q, want %q", key, got, want)
		}
	}
	if got := CaseID(Key("连接池 满了，怎么办？")); got != "q-5829724451" {
		t.Errorf("CaseID of a near duplicate = %q, want q-5829724451", got)
	}
	a := draftLog(t, "reset password\n连接池满了\nvpn down\n", Options{})
	b := draftLog(t, "vpn down\nVPN down!\n连接池 满了\nreset password\nreset password\n", Options{})
	ids := func(r *Result) map[string]string {
		m := map[string]string{}
		for _, q := range r.Queries {
			m[q.Key] = q.CaseID
		}
		return m
	}
	if ia, ib := ids(a), ids(b); !reflect.DeepEqual(ia, ib) {
		t.Errorf("ids differ between two logs of the same queries:\n%v\n%v", ia, ib)
	}
}

// Two keys whose digests share the first 10 hex digits get 16; an id a
// case of the file has is not given again.
func TestAssignIDsCollisions(t *testing.T) {
	qs := []Query{
		{Key: "a", digest: "0123456789aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		{Key: "b", digest: "0123456789bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
		{Key: "c", digest: "cccccccccc000000000000000000000000000000000000000000000000000000"},
		{Key: "d", digest: "dddddddddd000000000000000000000000000000000000000000000000000000"},
	}
	taken := map[string]bool{"q-cccccccccc": true}
	for _, n := range idLens {
		taken["q-"+qs[3].digest[:n]] = true
	}
	assignIDs(qs, func(id string) bool { return taken[id] })
	want := []string{"q-0123456789aaaaaa", "q-0123456789bbbbbb", "q-cccccccccc000000", "q-dddddddddd000000000000000000000000000000000000000000000000000000-2"}
	for i, q := range qs {
		if q.CaseID != want[i] {
			t.Errorf("query %s: id %q, want %q", q.Key, q.CaseID, want[i])
		}
		if !contract.ValidCaseID(q.CaseID) {
			t.Errorf("query %s: id %q is no valid case id", q.Key, q.CaseID)
		}
	}
}

func draftLog(t *testing.T, text string, opts Options) *Result {
	t.Helper()
	l, err := querylog.Read("log.txt", []byte(text), querylog.Text)
	if err != nil {
		t.Fatal(err)
	}
	return Draft(l, opts)
}

// Exact and near duplicates merge, their counts summed, the most frequent
// raw form kept, the scenario the most frequent one, the tags united.
func TestDraftMerges(t *testing.T) {
	data := `{"query": "How do I reset my password?", "count": 2, "tags": ["auth"], "scenario": "chat"}
{"query": "how do i reset my password", "count": 5, "tags": ["web"], "scenario": "support"}
{"query": "HOW DO I RESET MY PASSWORD", "count": 1, "scenario": "support"}
{"query": "连接池满了，怎么办？", "count": 3}
{"query": "连接池满了怎么办", "count": 3}
{"query": "vpn down"}
`
	l, err := querylog.Read("log.jsonl", []byte(data), querylog.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	r := Draft(l, Options{Scenario: "ops"})
	if want := (Stats{Records: 6, Occurrences: 15, Exact: 5, Queries: 3}); r.Stats != want {
		t.Errorf("stats %+v, want %+v", r.Stats, want)
	}
	var got []string
	for _, q := range r.Drafts {
		got = append(got, fmt.Sprintf("%s|%d|%d|%s|%v|%s", q.Query, q.Count, q.Forms, q.Scenario, q.Tags, q.Script))
	}
	want := []string{
		"how do i reset my password|8|3|support|[auth web]|latin",
		"连接池满了怎么办|6|2|ops|[]|cjk",
		"vpn down|1|1|ops|[]|latin",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("drafts\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, q := range r.Drafts {
		if q.CaseID != CaseID(q.Key) {
			t.Errorf("%s: id %s, want %s", q.Query, q.CaseID, CaseID(q.Key))
		}
	}
}

// manyQueries is a log of n queries in three scripts, of counts from 1 to
// about 50, with a few frequent ones.
func manyQueries(n int) *querylog.Log {
	l := &querylog.Log{Name: "many", Format: querylog.JSONL}
	for i := range n {
		var q string
		switch i % 5 {
		case 0, 1:
			q = fmt.Sprintf("how do I fix error %d", i)
		case 2, 3:
			q = fmt.Sprintf("错误%d怎么处理", i)
		default:
			q = fmt.Sprintf("mysql 错误 %d", i)
		}
		count := 1
		if i%7 == 0 {
			count = 2 + i%50
		}
		l.Records = append(l.Records, querylog.Record{Query: q, Count: count, Line: i + 1})
	}
	return l
}

// The same log and seed give the same drafts, another seed another sample
// of the rare ones; every stratum is represented, in proportion to its
// size within one.
func TestSampleDeterministicAndStratified(t *testing.T) {
	l := manyQueries(500)
	a, b := Draft(l, Options{Sample: 40, Seed: 7}), Draft(l, Options{Sample: 40, Seed: 7})
	if !bytes.Equal(NewFile(a.Drafts, ""), NewFile(b.Drafts, "")) {
		t.Fatal("the same log and seed give different files")
	}
	if len(a.Drafts) != 40 {
		t.Fatalf("%d drafts, want 40", len(a.Drafts))
	}
	c := Draft(l, Options{Sample: 40, Seed: 8})
	if bytes.Equal(NewFile(a.Drafts, ""), NewFile(c.Drafts, "")) {
		t.Error("seeds 7 and 8 give the same sample")
	}
	total := 0
	for _, s := range a.Strata {
		total += s.Size
	}
	if len(a.Strata) != 6 {
		t.Errorf("%d strata, want 6 (frequent and rare × cjk, latin, mixed): %+v", len(a.Strata), a.Strata)
	}
	picked := 0
	for _, s := range a.Strata {
		if s.Picked < 1 {
			t.Errorf("stratum %s not represented: %+v", s.Name(), s)
		}
		exact := 1 + float64(40-len(a.Strata))*float64(s.Size-1)/float64(total-len(a.Strata))
		if d := float64(s.Picked) - exact; d <= -1 || d >= 1 {
			t.Errorf("stratum %s: %d picked, want within 1 of %.2f", s.Name(), s.Picked, exact)
		}
		picked += s.Picked
	}
	if picked != 40 {
		t.Errorf("strata picked %d, want 40", picked)
	}
	// The picks are in the order of the queries, most frequent first, and
	// the frequent ones are the most frequent of their stratum.
	if !slices.IsSortedFunc(a.Drafts, byCount) {
		t.Error("drafts are not most frequent first")
	}
	for _, s := range a.Strata {
		if !s.Frequent {
			continue
		}
		var in, out []int
		for _, q := range a.Queries {
			if q.Script != s.Script || q.Count < a.Threshold {
				continue
			}
			if slices.ContainsFunc(a.Drafts, func(d Query) bool { return d.Key == q.Key }) {
				in = append(in, q.Count)
			} else {
				out = append(out, q.Count)
			}
		}
		if len(out) > 0 && slices.Min(in) < slices.Max(out) {
			t.Errorf("stratum %s: picked counts %v, left %v: want the most frequent", s.Name(), in, out)
		}
	}
}

// A stratification property over many sizes: with at least one pick per
// stratum, every non-empty stratum is represented and the picks add up.
func TestAllocate(t *testing.T) {
	for _, sizes := range [][]int{{1, 1, 1}, {100, 1, 1}, {5, 5}, {3, 7, 11, 2, 1, 40, 9, 1}, {1000, 1}} {
		strata := make([]Stratum, len(sizes))
		total := 0
		for i, n := range sizes {
			strata[i].Size = n
			total += n
		}
		for n := 1; n <= total+1; n++ {
			q := allocate(strata, n)
			sum := 0
			for i, v := range q {
				if v > sizes[i] || v < 0 {
					t.Fatalf("sizes %v, n %d: quota %v", sizes, n, q)
				}
				if n >= len(sizes) && v < 1 {
					t.Fatalf("sizes %v, n %d: stratum %d not represented: %v", sizes, n, i, q)
				}
				sum += v
			}
			if sum != min(n, total) {
				t.Fatalf("sizes %v, n %d: quotas %v add to %d", sizes, n, q, sum)
			}
		}
	}
	// Fewer picks than strata: the largest ones.
	if q := allocate([]Stratum{{Size: 2}, {Size: 9}, {Size: 9}, {Size: 1}}, 2); !slices.Equal(q, []int{0, 1, 1, 0}) {
		t.Errorf("2 picks of 4 strata: %v, want the two largest", q)
	}
}

func TestFrequentThreshold(t *testing.T) {
	mk := func(counts ...int) []Query {
		var qs []Query
		for _, c := range counts {
			qs = append(qs, Query{Count: c})
		}
		return qs
	}
	for _, tt := range []struct {
		counts []int
		want   int
	}{
		{[]int{1, 1, 1}, 2}, {[]int{9, 5, 1, 1, 1, 1, 1, 1, 1, 1}, 5}, {[]int{3}, 3}, {[]int{4, 4, 4, 4, 4, 4}, 4}, {nil, 2},
	} {
		if got := FrequentThreshold(mk(tt.counts...)); got != tt.want {
			t.Errorf("FrequentThreshold(%v) = %d, want %d", tt.counts, got, tt.want)
		}
	}
}

func TestNewFile(t *testing.T) {
	r := draftLog(t, "连接池满了\n连接池满了\nhow do I <fix> \"this\" & that\n", Options{})
	r.Drafts[1].Tags = []string{"a", "b"}
	got := string(NewFile(r.Drafts, "payments"))
	want := `{
  "version": 1,
  "kbScope": "payments",
  "cases": [
    {
      "caseId": "` + r.Drafts[0].CaseID + `",
      "scenario": "chat",
      "query": "连接池满了",
      "draft": true,
      "count": 2
    },
    {
      "caseId": "` + r.Drafts[1].CaseID + `",
      "scenario": "chat",
      "tags": ["a", "b"],
      "query": "how do I <fix> \"this\" & that",
      "draft": true,
      "count": 1
    }
  ]
}
`
	if got != want {
		t.Errorf("NewFile =\n%s\nwant\n%s", got, want)
	}
	g, err := contract.ParseGolden("new.json", []byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if c := g.Cases[1]; !c.Draft || c.Count != 1 || c.Query != `how do I <fix> "this" & that` || c.Scenario != "chat" {
		t.Errorf("parsed case %+v", c)
	}
}

// A merge keeps the file's bytes, adds only the queries it does not have
// (by key), in the layout of its first case, and parses.
func TestMerge(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"expanded", `{
	"version": 1,
	"cases": [
		{
			"caseId": "pw",
			"scenario": "chat",
			"query": "How do I reset my password?",
			"expectedSources": ["auth"]
		}
	]
}
`, `{
	"version": 1,
	"cases": [
		{
			"caseId": "pw",
			"scenario": "chat",
			"query": "How do I reset my password?",
			"expectedSources": ["auth"]
		},
		{
			"caseId": "ID",
			"scenario": "chat",
			"query": "vpn down",
			"draft": true,
			"count": 3
		}
	]
}
`},
		{"one line per case", "\uFEFF{\"cases\": [\n  {\"caseId\": \"pw\", \"scenario\": \"chat\", \"query\": \"How do I reset my password?\", \"expectedFound\": true}\n], \"k\": 3}",
			"\uFEFF{\"cases\": [\n  {\"caseId\": \"pw\", \"scenario\": \"chat\", \"query\": \"How do I reset my password?\", \"expectedFound\": true},\n  {\"caseId\": \"ID\", \"scenario\": \"chat\", \"query\": \"vpn down\", \"draft\": true, \"count\": 3}\n], \"k\": 3}"},
		{"compact bare array", `[{"caseId":"pw","scenario":"chat","query":"How do I reset my password?","expectedFound":true}]`,
			`[{"caseId":"pw","scenario":"chat","query":"How do I reset my password?","expectedFound":true}, {"caseId": "ID", "scenario": "chat", "query": "vpn down", "draft": true, "count": 3}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := contract.ParseGolden("golden.json", []byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			const log = "how do i reset my password\nvpn down\nvpn down\nVPN down\n"
			r := draftLog(t, log, Options{Existing: g})
			if len(r.Known) != 1 || r.Known[0].Case.CaseID != "pw" {
				t.Fatalf("known %+v, want the password query as case pw", r.Known)
			}
			if len(r.Drafts) != 1 {
				t.Fatalf("drafts %+v, want vpn down only", r.Drafts)
			}
			out, err := Merge("golden.json", []byte(tt.file), r.Drafts)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(tt.want, `"ID"`, `"`+r.Drafts[0].CaseID+`"`)
			if string(out) != want {
				t.Errorf("merged\n%s\nwant\n%s", out, want)
			}
			loc, err := locateCases([]byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(out, []byte(tt.file[:loc.lastEnd])) || !bytes.HasSuffix(out, []byte(tt.file[loc.lastEnd:])) {
				t.Error("the file's own bytes changed")
			}
			// Merging the same log again adds nothing: every query is there.
			g2, err := contract.ParseGolden("golden.json", out)
			if err != nil {
				t.Fatal(err)
			}
			r2 := draftLog(t, log, Options{Existing: g2})
			if len(r2.Drafts) != 0 || len(r2.Known) != 2 {
				t.Errorf("second merge: drafts %d, known %d; want 0, 2", len(r2.Drafts), len(r2.Known))
			}
			again, err := Merge("golden.json", out, r2.Drafts)
			if err != nil || !bytes.Equal(again, out) {
				t.Errorf("second merge changed the file (%v)", err)
			}
		})
	}
	if _, err := Merge("bad.json", []byte(`{"cases": []}`), nil); err == nil || !strings.Contains(err.Error(), "no cases") {
		t.Errorf("merge into an invalid file: %v", err)
	}
}

// A draft never gets the id of a case of the file, even one written by
// hand with an id a draft would derive.
func TestMergeAvoidsTakenIDs(t *testing.T) {
	id := CaseID(Key("vpn down"))
	file := `[{"caseId": "` + strings.ToUpper(id[:3]) + id[3:] + `", "scenario": "chat", "query": "something else", "expectedFound": true}]`
	g, err := contract.ParseGolden("g.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	r := draftLog(t, "vpn down\n", Options{Existing: g})
	if len(r.Drafts) != 1 || r.Drafts[0].CaseID == id || len(r.Drafts[0].CaseID) != len("q-")+16 {
		t.Fatalf("drafts %+v, want one with a 16-digit id", r.Drafts)
	}
	if _, err := Merge("g.json", []byte(file), r.Drafts); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkDraft drafts 100,000 records and writes them as a new file.
func BenchmarkDraft(b *testing.B) {
	l := manyQueries(100000)
	b.ReportAllocs()
	for b.Loop() {
		r := Draft(l, Options{Sample: 500})
		NewFile(r.Drafts, "")
	}
}
