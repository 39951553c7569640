package draft

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/golden/querylog"
)

// FuzzDraft drafts any text log, whole and sampled, and checks what every
// drafting gives: one query per key, valid unique ids, counts that add up,
// a sample of the size asked, a new file and a merge that parse to those
// drafts, and the same bytes twice.
func FuzzDraft(f *testing.F) {
	f.Add("how do I reset my password?\nHow do I reset my password\n连接池满了，怎么办\n连接池 满了 怎么办\nvpn down\n", 2, uint64(1))
	f.Add("a\nb\nc\nd\ne\nf\ng\n", 3, uint64(9))
	f.Add("???\n!!!\n¿?\n", 1, uint64(0))
	f.Add("ﬁle\nfile\nFILE\n", 0, uint64(3))
	f.Fuzz(func(t *testing.T, text string, n int, seed uint64) {
		l, err := querylog.Read("log.txt", []byte(text), querylog.Text)
		if err != nil {
			return
		}
		base := `[{"caseId": "base", "scenario": "chat", "query": "how do i reset my password", "expectedFound": true}]`
		g, err := contract.ParseGolden("g.json", []byte(base))
		if err != nil {
			t.Fatal(err)
		}
		n = n % 50
		r := Draft(l, Options{Sample: n, Seed: seed, Existing: g})
		keys, ids := map[string]bool{}, map[string]bool{"base": true}
		sum := 0
		for _, q := range append(slicesOf(r.Known), r.Queries...) {
			if keys[q.Key] {
				t.Fatalf("key %q twice", q.Key)
			}
			keys[q.Key] = true
			sum += q.Count
		}
		if sum != r.Stats.Occurrences {
			t.Fatalf("counts add to %d, want %d", sum, r.Stats.Occurrences)
		}
		for _, q := range r.Queries {
			if !contract.ValidCaseID(q.CaseID) || ids[strings.ToLower(q.CaseID)] {
				t.Fatalf("id %q invalid or taken", q.CaseID)
			}
			ids[strings.ToLower(q.CaseID)] = true
			if Key(q.Query) != q.Key {
				t.Fatalf("query %q has key %q, grouped under %q", q.Query, Key(q.Query), q.Key)
			}
		}
		want := len(r.Queries)
		if n > 0 && n < want {
			want = n
		}
		if len(r.Drafts) != want {
			t.Fatalf("%d drafts, want %d", len(r.Drafts), want)
		}
		file := NewFile(r.Drafts, "")
		if len(r.Drafts) > 0 {
			ng, err := contract.ParseGolden("new.json", file)
			if err != nil {
				t.Fatalf("new file does not parse: %v\n%s", err, file)
			}
			for i, c := range ng.Cases {
				if d := r.Drafts[i]; c.CaseID != d.CaseID || c.Query != d.Query || !c.Draft || c.Count != d.Count {
					t.Fatalf("case %d parses as %+v, want %+v", i, c, d)
				}
			}
		}
		merged, err := Merge("g.json", []byte(base), r.Drafts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(merged, []byte(base[:len(base)-1])) {
			t.Fatalf("merge changed the file's bytes:\n%s", merged)
		}
		again := Draft(l, Options{Sample: n, Seed: seed, Existing: g})
		if !bytes.Equal(NewFile(again.Drafts, ""), file) {
			t.Fatal("two draftings differ")
		}
	})
}

func slicesOf(known []Known) []Query {
	out := make([]Query, len(known))
	for i, k := range known {
		out[i] = k.Query
	}
	return out
}
