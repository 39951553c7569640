package draft

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/golden/querylog"
)

// DefaultScenario is the scenario of a draft whose log gives none, unless
// Options.Scenario says otherwise.
const DefaultScenario = "chat"

// Query is one query of a log: the records whose queries have one key
// (Key), merged.
type Query struct {
	// CaseID is the id of its draft case (CaseID, longer when two queries
	// share the first digits).
	CaseID string
	// Query is the form it was asked in most often: the raw form, as
	// written, with the highest count, the bytewise smallest of those
	// tied.
	Query string
	// Key is the near-duplicate key every merged form has.
	Key string
	// Count is the sum of the counts of the merged records, at most
	// 2,147,483,647.
	Count int
	// Forms is how many distinct raw forms were merged.
	Forms int
	// Tags are the tags of every merged record, each once, sorted.
	Tags []string
	// Scenario is the scenario the log gives the query most often (the
	// bytewise smallest of those tied), else the default.
	Scenario string
	// Script is the script class of Query (Script).
	Script string
	// Records are the indexes, in the log, of the merged records.
	Records []int

	digest string // of Key
}

// Stats count what drafting a log merged.
type Stats struct {
	// Records is the number of records read, Occurrences the sum of their
	// counts.
	Records, Occurrences int
	// Exact is the number of distinct exact forms (Normalize), Queries the
	// number of distinct keys, that is of queries.
	Exact, Queries int
}

// group merges the records of log by key and returns the queries, most
// frequent first (ties by case id), with their ids, and what it merged.
// taken reports whether an id is already a case of the file the drafts
// go to, compared in lower case.
func group(log *querylog.Log, scenario string, taken func(id string) bool) ([]Query, Stats) {
	type acc struct {
		q     *Query
		forms map[string]int // raw form → count; nil while there is one form
		first string         // the one form while forms is nil
		// scenarios counts the scenarios the records give, tags holds their
		// tags. Both stay nil while there is none.
		scenarios map[string]int
		tags      map[string]bool
		count     int64
	}
	var st Stats
	byKey := map[string]*acc{}
	var order []*acc
	exact := map[string]bool{}
	for i, r := range log.Records {
		st.Records++
		st.Occurrences = satAdd(st.Occurrences, r.Count)
		exact[Normalize(r.Query)] = true
		k := Key(r.Query)
		a := byKey[k]
		if a == nil {
			a = &acc{q: &Query{Key: k}, first: r.Query}
			byKey[k] = a
			order = append(order, a)
		} else if a.forms == nil && r.Query != a.first {
			a.forms = map[string]int{a.first: int(min(a.count, math.MaxInt32))}
		}
		a.count += int64(r.Count)
		if a.forms != nil {
			a.forms[r.Query] = satAdd(a.forms[r.Query], r.Count)
		}
		if r.Scenario != "" {
			if a.scenarios == nil {
				a.scenarios = map[string]int{}
			}
			a.scenarios[r.Scenario] = satAdd(a.scenarios[r.Scenario], r.Count)
		}
		for _, t := range r.Tags {
			if a.tags == nil {
				a.tags = map[string]bool{}
			}
			a.tags[t] = true
		}
		a.q.Records = append(a.q.Records, i)
	}
	st.Exact, st.Queries = len(exact), len(order)
	qs := make([]Query, len(order))
	for i, a := range order {
		q := a.q
		q.Count = int(min(a.count, math.MaxInt32))
		q.Forms, q.Query = 1, a.first
		if a.forms != nil {
			q.Forms, q.Query = len(a.forms), mostFrequent(a.forms)
		}
		q.Scenario = mostFrequent(a.scenarios)
		if q.Scenario == "" {
			q.Scenario = scenario
		}
		for t := range a.tags {
			q.Tags = append(q.Tags, t)
		}
		slices.Sort(q.Tags)
		q.Script = Script(Normalize(q.Query))
		q.digest = digest(q.Key)
		qs[i] = *q
	}
	assignIDs(qs, taken)
	slices.SortFunc(qs, byCount)
	return qs, st
}

// byCount orders queries most frequent first, then by case id.
func byCount(a, b Query) int {
	if a.Count != b.Count {
		return b.Count - a.Count
	}
	return strings.Compare(a.CaseID, b.CaseID)
}

// mostFrequent is the key of m with the highest count, the bytewise
// smallest of those tied, "" for an empty m.
func mostFrequent(m map[string]int) string {
	best, n := "", -1
	for k, c := range m {
		if c > n || c == n && k < best {
			best, n = k, c
		}
	}
	return best
}

// satAdd adds without passing the largest count.
func satAdd(a, b int) int { return int(min(int64(a)+int64(b), math.MaxInt32)) }

// assignIDs gives every query its case id: IDPrefix and the first 10 hex
// digits of its digest, or 16, 24, 32 or 64 when another query's digest
// starts with the same digits or the id is taken. An id taken even at 64
// digits (by a hand-written case) gets "-2", "-3", … appended. The ids of
// queries that share no prefix do not depend on the others, so a query
// keeps its id as the log grows.
func assignIDs(qs []Query, taken func(id string) bool) {
	prefixes := make([]map[string]int, len(idLens))
	for j, n := range idLens {
		prefixes[j] = map[string]int{}
		for i := range qs {
			prefixes[j][qs[i].digest[:n]]++
		}
	}
	used := map[string]bool{}
	free := func(id string) bool { return !used[id] && (taken == nil || !taken(strings.ToLower(id))) }
	for i := range qs {
		q := &qs[i]
		for j, n := range idLens {
			if id := IDPrefix + q.digest[:n]; prefixes[j][q.digest[:n]] == 1 && free(id) {
				q.CaseID = id
				break
			}
		}
		for k := 2; q.CaseID == ""; k++ {
			if id := IDPrefix + q.digest + "-" + strconv.Itoa(k); free(id) {
				q.CaseID = id
			}
		}
		used[q.CaseID] = true
	}
}
