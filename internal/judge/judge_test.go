package judge

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// blk builds a decoded block; rank 0 means "no rank".
func blk(rank int, source string, opts ...func(*contract.EvidenceBlock)) contract.EvidenceBlock {
	b := contract.EvidenceBlock{Rank: rank, HasRank: rank > 0, Source: source, Breadcrumb: "Root > " + source}
	for _, o := range opts {
		o(&b)
	}
	return b
}

func excerpt(s string) func(*contract.EvidenceBlock) {
	return func(b *contract.EvidenceBlock) { b.Excerpt = s }
}

func crumb(s string) func(*contract.EvidenceBlock) {
	return func(b *contract.EvidenceBlock) { b.Breadcrumb = s }
}

func docID(s string) func(*contract.EvidenceBlock) {
	return func(b *contract.EvidenceBlock) { b.DocID = s }
}

func key(s string) func(*contract.EvidenceBlock) {
	return func(b *contract.EvidenceBlock) { b.EvidenceKey = s }
}

func fixture(caseID, query string, blocks ...contract.EvidenceBlock) *contract.Fixture {
	return &contract.Fixture{
		CaseID: caseID, Query: query, KBScope: "kb", SearchMode: "hybrid",
		LookupResult: &contract.LookupResult{
			Found: len(blocks) > 0, EvidenceStatus: "sufficient", EvidenceBlocks: blocks,
			ContextPack:    contract.ContextPack{Sources: []string{"a"}},
			RetrievalTrace: contract.RetrievalTrace{SelectedAttempt: contract.AttemptFiltered},
			RerankTrace:    contract.RerankTrace{TopSource: "a"},
			Has:            contract.HasAll,
		},
	}
}

func ptr[T any](v T) *T { return &v }

// message is ch's message, "" when it has none.
func message(ch Check) string {
	if ch.Message == nil {
		return ""
	}
	return *ch.Message
}

// deref is *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func checkOf(t *testing.T, r CaseResult, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("check %s not run; checks: %+v", name, r.Checks)
	return Check{}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name   string
		c      contract.Case
		f      *contract.Fixture
		check  string
		pass   bool
		msgHas string
	}{
		{"query equal", contract.Case{Query: "q", ExpectedFound: ptr(true)}, fixture("c", "q", blk(1, "a")), CheckQuery, true, ""},
		{"query stale", contract.Case{Query: "q", ExpectedFound: ptr(true)}, fixture("c", "q ", blk(1, "a")), CheckQuery, false, "stale fixture"},
		{"expected in top k", contract.Case{Query: "q", ExpectedSources: []string{"e"}, K: ptr(2)},
			fixture("c", "q", blk(1, "a"), blk(2, "e")), CheckExpectedDoc, true, ""},
		{"expected beyond k", contract.Case{Query: "q", ExpectedSources: []string{"e"}, K: ptr(1)},
			fixture("c", "q", blk(1, "a"), blk(2, "e")), CheckExpectedDoc, false, "first expected document at position 2"},
		{"rank field wins over array order", contract.Case{Query: "q", ExpectedSources: []string{"e"}, K: ptr(1)},
			fixture("c", "q", blk(2, "a"), blk(1, "e")), CheckExpectedDoc, true, ""},
		{"unranked blocks come after ranked", contract.Case{Query: "q", ExpectedSources: []string{"e"}, K: ptr(1)},
			fixture("c", "q", blk(0, "e"), blk(1, "a")), CheckExpectedDoc, false, ""},
		{"expected by docId", contract.Case{Query: "q", ExpectedDocIDs: []string{"kb/e"}, K: ptr(1)},
			fixture("c", "q", blk(1, "e")), CheckExpectedDoc, true, ""},
		{"expected by explicit docId", contract.Case{Query: "q", ExpectedDocIDs: []string{"x#1"}, K: ptr(1)},
			fixture("c", "q", blk(1, "e", docID("x#1"))), CheckExpectedDoc, true, ""},
		{"expected trimmed", contract.Case{Query: "q", ExpectedSources: []string{" e "}},
			fixture("c", "q", blk(1, "e ")), CheckExpectedDoc, true, ""},
		{"keywords NFKC and case folded", contract.Case{Query: "q", ExpectedKeywords: []string{"MAX_Connections", "连接池"}},
			fixture("c", "q", blk(1, "a", excerpt("调大 ｍａｘ_connections，连接池"))), CheckKeywords, true, ""},
		{"keyword must be in a single top-k block", contract.Case{Query: "q", ExpectedKeywords: []string{"ab"}},
			fixture("c", "q", blk(1, "a", excerpt("xa")), blk(2, "b", excerpt("by"))), CheckKeywords, false, "found 0 of 1"},
		{"keyword outside top k", contract.Case{Query: "q", ExpectedKeywords: []string{"zz"}, K: ptr(1)},
			fixture("c", "q", blk(1, "a"), blk(2, "b", excerpt("zz"))), CheckKeywords, false, `missing: ["zz"]`},
		{"keyword coverage threshold", contract.Case{Query: "q", ExpectedKeywords: []string{"a1", "b2", "c3"}, MinKeywordCoverage: ptr(0.6)},
			fixture("c", "q", blk(1, "a", excerpt("a1 b2"))), CheckKeywords, true, ""},
		{"keyword coverage below threshold", contract.Case{Query: "q", ExpectedKeywords: []string{"a1", "b2", "c3"}, MinKeywordCoverage: ptr(0.7)},
			fixture("c", "q", blk(1, "a", excerpt("a1 b2"))), CheckKeywords, false, "found 2 of 3"},
		{"duplicate keywords count once", contract.Case{Query: "q", ExpectedKeywords: []string{"Pool", "pool", "x"}, MinKeywordCoverage: ptr(0.5)},
			fixture("c", "q", blk(1, "a", excerpt("pool"))), CheckKeywords, true, ""},
		{"breadcrumb exact", contract.Case{Query: "q", ExpectedBreadcrumbs: []string{"DB > MySQL"}},
			fixture("c", "q", blk(1, "a", crumb("db>mysql"))), CheckBreadcrumbs, true, ""},
		{"breadcrumb prefix at segment boundary", contract.Case{Query: "q", ExpectedBreadcrumbs: []string{"DB / MySQL"}},
			fixture("c", "q", blk(1, "a", crumb("DB › MySQL › Pool"))), CheckBreadcrumbs, true, ""},
		{"breadcrumb prefix mid-segment", contract.Case{Query: "q", ExpectedBreadcrumbs: []string{"DB > My"}},
			fixture("c", "q", blk(1, "a", crumb("DB > MySQL"))), CheckBreadcrumbs, false, "no top-5 block under breadcrumb"},
		{"every breadcrumb must match", contract.Case{Query: "q", ExpectedBreadcrumbs: []string{"A", "B"}},
			fixture("c", "q", blk(1, "a", crumb("A > x"))), CheckBreadcrumbs, false, `["B"]`},
		{"must_not whole list", contract.Case{Query: "q", MustNotSources: []string{"bad"}, K: ptr(1)},
			fixture("c", "q", blk(1, "a"), blk(9, "bad")), CheckMustNot, false, "kb/bad at position 2"},
		{"must_not by docId", contract.Case{Query: "q", MustNotDocIDs: []string{"kb/bad"}},
			fixture("c", "q", blk(1, "a")), CheckMustNot, true, ""},
		{"found", contract.Case{Query: "q", ExpectedFound: ptr(false)}, fixture("c", "q", blk(1, "a")), CheckFound, false, "expected found=false, got found=true"},
		{"selected attempt", contract.Case{Query: "q", ExpectedSelectedAttempt: contract.AttemptUnfilteredRetry},
			fixture("c", "q"), CheckSelectedAttempt, false, `expected "UNFILTERED_VECTOR_RETRY", got "FILTERED_VECTOR"`},
		{"fallback null is a value", contract.Case{Query: "q", ExpectedFallbackReason: contract.FallbackLowQuality},
			fixture("c", "q"), CheckFallbackReason, false, "got null"},
		{"evidence status", contract.Case{Query: "q", ExpectedEvidenceStatus: "sufficient"}, fixture("c", "q"), CheckEvidenceStatus, true, ""},
		{"context sources", contract.Case{Query: "q", ExpectedContextSources: []string{"a", "b"}},
			fixture("c", "q"), CheckContextSources, false, `context pack lacks ["b"]`},
		{"rerank top source", contract.Case{Query: "q", ExpectedRerankTopSource: "a"}, fixture("c", "q"), CheckRerankTopSource, true, ""},
		{"first rank max ok", contract.Case{Query: "q", ExpectedSources: []string{"e"}, ExpectedFirstRankMax: ptr(2)},
			fixture("c", "q", blk(1, "a"), blk(2, "e")), CheckFirstRankMax, true, ""},
		{"first rank max beyond", contract.Case{Query: "q", ExpectedSources: []string{"e"}, ExpectedFirstRankMax: ptr(1)},
			fixture("c", "q", blk(1, "a"), blk(2, "e")), CheckFirstRankMax, false, "got 2"},
		{"first rank max none", contract.Case{Query: "q", ExpectedSources: []string{"e"}, ExpectedFirstRankMax: ptr(3)},
			fixture("c", "q", blk(1, "a")), CheckFirstRankMax, false, "none was retrieved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.CaseID = "c"
			k := DefaultKFor(&tt.c)
			r := JudgeFixture(&tt.c, k, tt.f, "kb")
			ch := checkOf(t, r, tt.check)
			if ch.Passed != tt.pass {
				t.Fatalf("%s passed = %v, want %v (message %q)", tt.check, ch.Passed, tt.pass, message(ch))
			}
			if !strings.Contains(message(ch), tt.msgHas) {
				t.Errorf("message %q does not contain %q", message(ch), tt.msgHas)
			}
			if !tt.pass && r.Status == StatusPass {
				t.Errorf("status %s with the failed check %s, want another", r.Status, tt.check)
			}
		})
	}
}

// DefaultKFor is the K a case gets with no --k and no file k.
func DefaultKFor(c *contract.Case) int {
	return (&contract.GoldenFile{}).ResolveK(c, 0)
}

func TestAbsentFixtureFields(t *testing.T) {
	f := fixture("c", "q", blk(1, "a"))
	f.LookupResult.Has = 0
	c := contract.Case{CaseID: "c", Query: "q", ExpectedSources: []string{"a"}, ExpectedFound: ptr(true),
		ExpectedSelectedAttempt: "x", ExpectedFallbackReasons: []string{"y"}, ExpectedEvidenceStatus: "none",
		ExpectedContextSources: []string{"a"}, ExpectedRerankTopSource: "a"}
	r := JudgeFixture(&c, 5, f, "kb")
	want := map[string]string{
		CheckExpectedDoc:     "fixture lacks lookupResult.evidenceBlocks",
		CheckFound:           "fixture lacks lookupResult.found",
		CheckSelectedAttempt: "fixture lacks lookupResult.retrievalTrace.selectedAttempt",
		CheckFallbackReason:  "fixture lacks lookupResult.retrievalTrace.fallbackReason",
		CheckEvidenceStatus:  "fixture lacks lookupResult.evidenceStatus",
		CheckContextSources:  "fixture lacks lookupResult.contextPack.sources",
		CheckRerankTopSource: "fixture lacks lookupResult.rerankTrace.topSource",
	}
	for name, msg := range want {
		if ch := checkOf(t, r, name); ch.Passed || message(ch) != msg {
			t.Errorf("%s: passed=%v message %q, want %q", name, ch.Passed, message(ch), msg)
		}
	}
	if r.Status != StatusFail {
		t.Errorf("status %s, want fail", r.Status)
	}
}

func TestChecksInTableOrder(t *testing.T) {
	c := contract.Case{CaseID: "c", Query: "q", ExpectedFirstRankMax: ptr(1), ExpectedRerankTopSource: "a",
		ExpectedContextSources: []string{"a"}, ExpectedEvidenceStatus: "sufficient", ExpectedFallbackReasons: []string{"x"},
		ExpectedSelectedAttempt: "FILTERED_VECTOR", ExpectedFound: ptr(true), MustNotSources: []string{"z"},
		ExpectedBreadcrumbs: []string{"Root"}, ExpectedKeywords: []string{"k"}, ExpectedSources: []string{"a"},
		MinExpectedBlocks: ptr(1), ExpectedEvidenceKeys: []string{"kb/a#"}}
	r := JudgeFixture(&c, 5, fixture("c", "q", blk(1, "a", key("kb/a#"))), "kb")
	var names []string
	for _, ch := range r.Checks {
		names = append(names, ch.Name)
	}
	want := []string{CheckQuery, CheckExpectedDoc, CheckKeywords, CheckBreadcrumbs, CheckEvidenceKeys, CheckMinExpected, CheckMustNot, CheckFound,
		CheckSelectedAttempt, CheckFallbackReason, CheckEvidenceStatus, CheckContextSources, CheckRerankTopSource, CheckFirstRankMax}
	if !slices.Equal(names, want) {
		t.Fatalf("checks %v\nwant   %v", names, want)
	}
	if got := r.FailedChecks; !slices.Equal(got, []string{CheckKeywords, CheckFallbackReason}) {
		t.Errorf("failed checks %v", got)
	}
}

func TestHitLevels(t *testing.T) {
	tests := []struct {
		name string
		c    contract.Case
		f    *contract.Fixture
		want string
	}{
		{"no expected docs", contract.Case{ExpectedFound: ptr(true)}, fixture("c", "q", blk(1, "a")), HitNA},
		{"strong without coverage", contract.Case{ExpectedSources: []string{"a"}}, fixture("c", "q", blk(1, "a")), HitStrong},
		{"strong by keywords", contract.Case{ExpectedSources: []string{"a"}, ExpectedKeywords: []string{"kw"}, ExpectedBreadcrumbs: []string{"Nope"}},
			fixture("c", "q", blk(1, "a", excerpt("KW"))), HitStrong},
		{"strong by breadcrumbs", contract.Case{ExpectedSources: []string{"a"}, ExpectedKeywords: []string{"kw"}, ExpectedBreadcrumbs: []string{"Root"}},
			fixture("c", "q", blk(1, "a")), HitStrong},
		{"medium: coverage declared, neither passes", contract.Case{ExpectedSources: []string{"a"}, ExpectedKeywords: []string{"kw"}},
			fixture("c", "q", blk(1, "a")), HitMedium},
		{"weak: keyword without expected doc", contract.Case{ExpectedSources: []string{"e"}, ExpectedKeywords: []string{"kw", "other"}},
			fixture("c", "q", blk(1, "a", excerpt("kw"))), HitWeak},
		{"miss", contract.Case{ExpectedSources: []string{"e"}, ExpectedKeywords: []string{"kw"}},
			fixture("c", "q", blk(1, "a")), HitMiss},
		{"miss: expected beyond k", contract.Case{ExpectedSources: []string{"e"}, K: ptr(1)},
			fixture("c", "q", blk(1, "a"), blk(2, "e")), HitMiss},
		{"miss: no blocks", contract.Case{ExpectedSources: []string{"e"}}, fixture("c", "q"), HitMiss},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.CaseID, tt.c.Query = "c", "q"
			r := JudgeFixture(&tt.c, DefaultKFor(&tt.c), tt.f, "kb")
			if deref(r.HitLevel) != tt.want {
				t.Errorf("hit level %q, want %q", deref(r.HitLevel), tt.want)
			}
			if (r.Metrics == nil) != (tt.want == HitNA) {
				t.Errorf("metrics %+v for hit level %s, want metrics exactly when the hit level is not %s", r.Metrics, deref(r.HitLevel), HitNA)
			}
		})
	}
}

func TestRankMetrics(t *testing.T) {
	near := func(t *testing.T, name string, got contract.Float6, want float64) {
		t.Helper()
		if math.Abs(float64(got)-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", name, got, want)
		}
	}
	t.Run("graded relevance with a grade-0 document", func(t *testing.T) {
		c := contract.Case{CaseID: "c", Query: "q", ExpectedSources: []string{"e"},
			Relevance: map[string]int{"g": 2, "z": 0}, K: ptr(3)}
		// blocks: z (judged non-relevant), e (twice: first occurrence kept), g, x
		r := JudgeFixture(&c, 3, fixture("c", "q", blk(1, "z"), blk(2, "e"), blk(3, "e"), blk(4, "g"), blk(5, "x")), "kb")
		if !slices.Equal(r.Ranking, []string{"z", "e", "g", "x"}) {
			t.Fatalf("ranking %v", r.Ranking)
		}
		m := r.Metrics
		near(t, "reciprocalRank", m.ReciprocalRank, 0.5)
		// DCG@3 = 0 + 1/log2(3) + 2/log2(4); ideal = 2/log2(2) + 1/log2(3)
		near(t, "ndcgAtK", m.NDCGAtK, (1/math.Log2(3)+2/math.Log2(4))/(2+1/math.Log2(3)))
		near(t, "docRecallAtK", m.DocRecallAtK, 1)
		near(t, "precisionAtK", m.PrecisionAtK, 2.0/3)
		if deref(r.FirstExpectedRank) != 2 {
			t.Errorf("firstExpectedRank %d, want 2 (graded g does not count)", deref(r.FirstExpectedRank))
		}
	})
	t.Run("reciprocal rank counts graded non-expected documents", func(t *testing.T) {
		c := contract.Case{CaseID: "c", Query: "q", ExpectedSources: []string{"e"}, Relevance: map[string]int{"g": 1}}
		r := JudgeFixture(&c, 5, fixture("c", "q", blk(1, "g"), blk(2, "e")), "kb")
		near(t, "reciprocalRank", r.Metrics.ReciprocalRank, 1)
		if deref(r.FirstExpectedRank) != 2 {
			t.Errorf("firstExpectedRank %d", deref(r.FirstExpectedRank))
		}
	})
	t.Run("docId identity grades blocks of expected sources", func(t *testing.T) {
		c := contract.Case{CaseID: "c", Query: "q", ExpectedDocIDs: []string{"kb/a"}, ExpectedSources: []string{"b"}, K: ptr(2)}
		r := JudgeFixture(&c, 2, fixture("c", "q", blk(1, "b", docID("b-v2")), blk(2, "a")), "kb")
		if !slices.Equal(r.Ranking, []string{"b-v2", "kb/a"}) {
			t.Fatalf("ranking %v", r.Ranking)
		}
		if r.Grades["b-v2"] != 1 || r.Grades["kb/a"] != 1 {
			t.Fatalf("grades %v, want b-v2 and kb/a graded 1", r.Grades)
		}
		near(t, "precisionAtK", r.Metrics.PrecisionAtK, 1)
	})
	t.Run("per-case k counts documents", func(t *testing.T) {
		c := contract.Case{CaseID: "c", Query: "q", ExpectedSources: []string{"e"}, K: ptr(2)}
		// Two blocks of "a" then e: e is the second document, but the third block.
		r := JudgeFixture(&c, 2, fixture("c", "q", blk(1, "a"), blk(2, "a"), blk(3, "e")), "kb")
		near(t, "docRecallAtK", r.Metrics.DocRecallAtK, 1)
		if deref(r.HitLevel) != HitMiss {
			t.Errorf("hit level %s: checks count K blocks, so e (block 3) is outside top 2", deref(r.HitLevel))
		}
	})
}

func TestCaseIDMismatchIsError(t *testing.T) {
	c := contract.Case{CaseID: "c", Query: "q", ExpectedFound: ptr(true)}
	r := JudgeFixture(&c, 5, fixture("other", "q"), "kb")
	if r.Status != StatusError {
		t.Fatalf("status %s, want %s", r.Status, StatusError)
	}
	if !strings.Contains(deref(r.Reason), `"other"`) {
		t.Fatalf("reason %q, want it to name the fixture's caseId \"other\"", deref(r.Reason))
	}
}

func TestSummary(t *testing.T) {
	g := &contract.GoldenFile{Cases: []contract.Case{
		{CaseID: "a", Scenario: "chat", Tags: []string{"t", "t"}, Query: "q", ExpectedSources: []string{"e"}},
		{CaseID: "b", Scenario: "chat", Query: "q", ExpectedSources: []string{"e"}},
		{CaseID: "c", Scenario: "neg", Query: "q", ExpectedFound: ptr(false)},
		{CaseID: "d", Scenario: "neg", Query: "q", ExpectedFound: ptr(false)},
	}}
	fa := fixture("a", "q", blk(1, "x"), blk(2, "e"))
	fb := fixture("b", "q", blk(1, "x"))
	fb.LookupResult.RetrievalTrace.SelectedAttempt = contract.AttemptUnfilteredRetry
	fb.LookupResult.EvidenceBlocks[0].RelevanceLevel = "odd"
	fc := fixture("c", "q")
	res := &Result{Golden: g, Cases: []CaseResult{
		JudgeFixture(&g.Cases[0], 5, fa, ""), JudgeFixture(&g.Cases[1], 5, fb, ""),
		JudgeFixture(&g.Cases[2], 5, fc, ""), notRun(&g.Cases[3], 5, "no fixture"),
	}}
	tot := res.Summarize()
	s := tot.Overall
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// num reports a summary number that is null or not want.
	num := func(name string, got *contract.Float6, want float64) {
		t.Helper()
		if got == nil {
			t.Errorf("%s null, want %v", name, want)
		} else if float64(*got) != want {
			t.Errorf("%s %v, want %v", name, *got, want)
		}
	}
	check("caseCount", s.CaseCount, 4)
	check("passCount", s.PassCount, 2)
	check("failCount", s.FailCount, 1)
	check("notRunCount", s.NotRunCount, 1)
	if t.Failed() {
		t.FailNow()
	}
	num("passRate", s.PassRate, 0.5)
	if want := (HitLevels{Strong: 1, Miss: 1, NA: 1}); s.HitLevels != want {
		t.Errorf("hit levels %+v, want %+v", s.HitLevels, want)
	}
	num("recallAtK", s.RecallAtK, 0.5)
	num("mrr", s.MRR, 0.25)
	num("avgFirstExpectedRank", s.AvgFirstExpectedRank, 2)
	num("fallbackRate", s.FallbackRate, 1.0/3)
	check("selectedAttempt["+contract.AttemptFiltered+"]", s.SelectedAttempt[contract.AttemptFiltered], 2)
	check("selectedAttempt["+contract.AttemptUnfiltered+"]", s.SelectedAttempt[contract.AttemptUnfiltered], 0)
	check("relevanceLevels[odd]", s.RelevanceLevels["odd"], 1)
	check("relevanceLevels[high]", s.RelevanceLevels["high"], 0)
	if len(tot.ByScenario) != 2 {
		t.Errorf("byScenario %+v, want 2 scenarios", tot.ByScenario)
	} else {
		check("byScenario[1].name", tot.ByScenario[1].Name, "neg")
		if r := tot.ByScenario[1].Summary.RecallAtK; r != nil {
			t.Errorf("byScenario[1].recallAtK %v, want null", *r)
		}
	}
	if len(tot.ByTag) != 1 {
		t.Errorf("byTag %+v, want 1 tag", tot.ByTag)
	} else {
		check("byTag[0].caseCount", tot.ByTag[0].Summary.CaseCount, 1)
	}
	empty := Summarize(nil)
	for name, v := range map[string]*contract.Float6{"passRate": empty.PassRate, "mrr": empty.MRR, "fallbackRate": empty.FallbackRate} {
		if v != nil {
			t.Errorf("empty summary: %s %v, want null", name, *v)
		}
	}
	if empty.SearchModes == nil {
		t.Error("empty summary: searchModes nil, want []")
	}
}

// TestChunkChecks pins the exact messages of evidence_keys,
// min_expected_blocks and the plural evidence_status.
func TestChunkChecks(t *testing.T) {
	guide := func(rank int, section string) contract.EvidenceBlock {
		return blk(rank, "guide", key("kb/guide#"+section))
	}
	other := func(rank int, source string) contract.EvidenceBlock {
		return blk(rank, source, key("kb/"+source+"#"))
	}
	tests := []struct {
		name  string
		c     contract.Case
		f     *contract.Fixture
		check string
		msg   string // "" when the check passes
	}{
		// evidence_keys
		{"keys in the top k", contract.Case{ExpectedEvidenceKeys: []string{"kb/guide#B", " kb/guide#A "}},
			fixture("c", "q", guide(1, "A"), other(2, "x"), guide(3, "B")), CheckEvidenceKeys, ""},
		{"key beyond k and key not retrieved", contract.Case{ExpectedEvidenceKeys: []string{"kb/guide#A", "kb/guide#B", "kb/guide#C"}, K: ptr(2)},
			fixture("c", "q", guide(1, "A"), other(2, "x"), guide(3, "B")), CheckEvidenceKeys,
			`2 of 3 evidence keys not in the top 2: "kb/guide#B" at position 3, "kb/guide#C" not retrieved; top 2 keys: ["kb/guide#A", "kb/x#"]`},
		{"keys are exact: no prefix, no letter case", contract.Case{ExpectedEvidenceKeys: []string{"kb/guide#A", "KB/guide#B"}},
			fixture("c", "q", guide(1, "A > sub"), guide(2, "B")), CheckEvidenceKeys,
			`2 of 2 evidence keys not in the top 5: "kb/guide#A" not retrieved, "KB/guide#B" not retrieved; top 5 keys: ["kb/guide#A > sub", "kb/guide#B"]`},
		{"a repeated key is reported once", contract.Case{ExpectedEvidenceKeys: []string{"kb/guide#C", "kb/guide#C "}},
			fixture("c", "q", guide(1, "A")), CheckEvidenceKeys,
			`1 of 1 evidence keys not in the top 5: "kb/guide#C" not retrieved; top 5 keys: ["kb/guide#A"]`},
		{"the first position of a key counts", contract.Case{ExpectedEvidenceKeys: []string{"kb/guide#A"}, K: ptr(1)},
			fixture("c", "q", other(1, "x"), guide(2, "A"), guide(3, "A")), CheckEvidenceKeys,
			`1 of 1 evidence keys not in the top 1: "kb/guide#A" at position 2; top 1 keys: ["kb/x#"]`},
		{"no blocks", contract.Case{ExpectedEvidenceKeys: []string{"kb/guide#A"}},
			fixture("c", "q"), CheckEvidenceKeys,
			`1 of 1 evidence keys not in the top 5: "kb/guide#A" not retrieved; top 5 keys: []`},
		{"blocks without evidence keys", contract.Case{ExpectedEvidenceKeys: []string{"kb/guide#A"}},
			fixture("c", "q", blk(1, "guide"), blk(2, "x", key(" "))), CheckEvidenceKeys,
			`fixture lacks lookupResult.evidenceBlocks[].evidenceKey`},
		{"some blocks without evidence keys", contract.Case{ExpectedEvidenceKeys: []string{"kb/guide#A"}},
			fixture("c", "q", blk(1, "guide"), guide(2, "A")), CheckEvidenceKeys, ""},

		// min_expected_blocks
		{"enough expected blocks", contract.Case{ExpectedSources: []string{"guide"}, MinExpectedBlocks: ptr(2), K: ptr(3)},
			fixture("c", "q", guide(1, "A"), other(2, "x"), guide(3, "B")), CheckMinExpected, ""},
		{"expected blocks beyond k do not count", contract.Case{ExpectedSources: []string{"guide"}, MinExpectedBlocks: ptr(2), K: ptr(2)},
			fixture("c", "q", guide(1, "A"), other(2, "x"), guide(3, "B")), CheckMinExpected,
			`expected at least 2 of the top 2 blocks from expected documents, got 1 (position 1); top 2: guide, x`},
		{"several positions", contract.Case{ExpectedSources: []string{"guide"}, MinExpectedBlocks: ptr(3)},
			fixture("c", "q", guide(1, "A"), other(2, "x"), guide(3, "B")), CheckMinExpected,
			`expected at least 3 of the top 5 blocks from expected documents, got 2 (positions 1, 3); top 5: guide, x, guide`},
		{"no expected block", contract.Case{ExpectedSources: []string{"guide"}, MinExpectedBlocks: ptr(1)},
			fixture("c", "q", other(1, "x")), CheckMinExpected,
			`expected at least 1 of the top 5 blocks from expected documents, got 0; top 5: x`},
		{"no blocks at all", contract.Case{ExpectedSources: []string{"guide"}, MinExpectedBlocks: ptr(1)},
			fixture("c", "q"), CheckMinExpected,
			`expected at least 1 of the top 5 blocks from expected documents, got 0; top 5: (no blocks)`},
		{"by docId, either list", contract.Case{ExpectedSources: []string{"x"}, ExpectedDocIDs: []string{"kb/guide"}, MinExpectedBlocks: ptr(3)},
			fixture("c", "q", guide(1, "A"), other(2, "x"), guide(3, "B"), other(4, "y")), CheckMinExpected, ""},
		{"more than K", contract.Case{ExpectedSources: []string{"guide"}, MinExpectedBlocks: ptr(3), K: ptr(2)},
			fixture("c", "q", guide(1, "A"), guide(2, "B"), guide(3, "C")), CheckMinExpected,
			`expected at least 3 of the top 2 blocks from expected documents, got 2 (positions 1, 2); top 2: guide, guide; K 2 is below minExpectedBlocks, so it cannot pass`},

		// evidence_status, plural
		{"one of the statuses", contract.Case{ExpectedEvidenceStatuses: []string{"weak", " sufficient "}},
			fixture("c", "q"), CheckEvidenceStatus, ""},
		{"none of the statuses", contract.Case{ExpectedEvidenceStatuses: []string{"weak", "none"}},
			fixture("c", "q"), CheckEvidenceStatus, `expected one of ["weak", "none"], got "sufficient"`},
		{"a list of one reads like the singular", contract.Case{ExpectedEvidenceStatuses: []string{"none"}},
			fixture("c", "q"), CheckEvidenceStatus, `expected "none", got "sufficient"`},
		{"the singular", contract.Case{ExpectedEvidenceStatus: "weak"},
			fixture("c", "q"), CheckEvidenceStatus, `expected "weak", got "sufficient"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.CaseID, tt.c.Query = "c", "q"
			r := JudgeFixture(&tt.c, DefaultKFor(&tt.c), tt.f, "kb")
			ch := checkOf(t, r, tt.check)
			if ch.Passed != (tt.msg == "") || message(ch) != tt.msg {
				t.Fatalf("%s: passed %v, message\n%s\nwant\n%s", tt.check, ch.Passed, message(ch), tt.msg)
			}
			if (r.Status == StatusPass) != (tt.msg == "") {
				t.Errorf("status %s", r.Status)
			}
		})
	}

	// Without evidenceBlocks, both block checks say so.
	f := fixture("c", "q", guide(1, "A"))
	f.LookupResult.Has = 0
	c := contract.Case{CaseID: "c", Query: "q", ExpectedSources: []string{"guide"}, ExpectedEvidenceKeys: []string{"kb/guide#A"},
		MinExpectedBlocks: ptr(1), ExpectedEvidenceStatuses: []string{"none"}}
	r := JudgeFixture(&c, 5, f, "kb")
	for name, msg := range map[string]string{
		CheckEvidenceKeys:   "fixture lacks lookupResult.evidenceBlocks",
		CheckMinExpected:    "fixture lacks lookupResult.evidenceBlocks",
		CheckEvidenceStatus: "fixture lacks lookupResult.evidenceStatus",
	} {
		if ch := checkOf(t, r, name); ch.Passed || message(ch) != msg {
			t.Errorf("%s: passed=%v message %q, want %q", name, ch.Passed, message(ch), msg)
		}
	}
}

// TestChunkChecksHitLevel: evidence keys are a coverage expectation like
// keywords and breadcrumbs; min_expected_blocks does not enter the level.
func TestChunkChecksHitLevel(t *testing.T) {
	tests := []struct {
		name string
		c    contract.Case
		f    *contract.Fixture
		want string
	}{
		{"strong by evidence keys alone", contract.Case{ExpectedSources: []string{"a"}, ExpectedEvidenceKeys: []string{"kb/a#A"}},
			fixture("c", "q", blk(1, "a", key("kb/a#A"))), HitStrong},
		{"strong by evidence keys, keywords missed", contract.Case{ExpectedSources: []string{"a"}, ExpectedEvidenceKeys: []string{"kb/a#A"}, ExpectedKeywords: []string{"kw"}},
			fixture("c", "q", blk(1, "a", key("kb/a#A"))), HitStrong},
		{"medium: evidence key missed", contract.Case{ExpectedSources: []string{"a"}, ExpectedEvidenceKeys: []string{"kb/a#B"}},
			fixture("c", "q", blk(1, "a", key("kb/a#A"))), HitMedium},
		{"strong by breadcrumbs, evidence key missed", contract.Case{ExpectedSources: []string{"a"}, ExpectedEvidenceKeys: []string{"kb/a#B"}, ExpectedBreadcrumbs: []string{"Root > a"}},
			fixture("c", "q", blk(1, "a", key("kb/a#A"))), HitStrong},
		{"miss: evidence key of an expected document beyond k", contract.Case{ExpectedSources: []string{"a"}, ExpectedEvidenceKeys: []string{"kb/a#A"}, K: ptr(1)},
			fixture("c", "q", blk(1, "x", key("kb/x#")), blk(2, "a", key("kb/a#A"))), HitMiss},
		{"strong with too few expected blocks", contract.Case{ExpectedSources: []string{"a"}, MinExpectedBlocks: ptr(2)},
			fixture("c", "q", blk(1, "a", key("kb/a#A")), blk(2, "x", key("kb/x#"))), HitStrong},
		{"n/a: evidence keys without expected documents", contract.Case{ExpectedEvidenceKeys: []string{"kb/a#A"}},
			fixture("c", "q", blk(1, "a", key("kb/a#A"))), HitNA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.CaseID, tt.c.Query = "c", "q"
			r := JudgeFixture(&tt.c, DefaultKFor(&tt.c), tt.f, "kb")
			if deref(r.HitLevel) != tt.want {
				t.Errorf("hit level %q, want %q (checks %+v)", deref(r.HitLevel), tt.want, r.Checks)
			}
		})
	}
}

func TestSummaryKeywordCoverage(t *testing.T) {
	g := &contract.GoldenFile{Cases: []contract.Case{
		{CaseID: "all", Query: "q", ExpectedKeywords: []string{"a1", "b2"}},
		{CaseID: "half", Query: "q", ExpectedKeywords: []string{"a1", "zz", "A1"}, MinKeywordCoverage: ptr(0.5)},
		{CaseID: "none-found", Query: "q", ExpectedKeywords: []string{"zz"}},
		{CaseID: "no-keywords", Query: "q", ExpectedFound: ptr(true)},
		{CaseID: "not-run", Query: "q", ExpectedKeywords: []string{"a1"}},
	}}
	f := func(id string) *contract.Fixture { return fixture(id, "q", blk(1, "a", excerpt("a1 b2"))) }
	res := &Result{Golden: g}
	for i := range g.Cases[:4] {
		res.Cases = append(res.Cases, JudgeFixture(&g.Cases[i], 5, f(g.Cases[i].CaseID), "kb"))
	}
	res.Cases = append(res.Cases, notRun(&g.Cases[4], 5, "no fixture"))
	for i, want := range []*float64{ptr(1.0), ptr(0.5), ptr(0.0), nil, nil} {
		if got := res.Cases[i].KeywordCoverage; (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("%s: keyword coverage %v, want %v", res.Cases[i].CaseID, deref(got), deref(want))
		}
	}
	// (1 + 0.5 + 0) / 3: the case without keywords and the one not run do not count.
	if s := res.Summarize().Overall; s.KeywordCoverage == nil || *s.KeywordCoverage != contract.Float6(0.5) {
		t.Errorf("summary keywordCoverage %v, want 0.5", s.KeywordCoverage)
	}
	if s := Summarize([]*CaseResult{&res.Cases[3]}); s.KeywordCoverage != nil {
		t.Errorf("keywordCoverage %v without keywords, want null", *s.KeywordCoverage)
	}
}

// TestExpectedOf: the expected-block rule the reports apply to candidates
// compares trimmed sources and docIds, and an empty one matches nothing.
func TestExpectedOf(t *testing.T) {
	e := ExpectedOf(&contract.Case{ExpectedSources: []string{" a.md ", ""}, ExpectedDocIDs: []string{"kb/b.md"}})
	for _, tc := range []struct {
		source, docID string
		want          bool
	}{
		{"a.md", "kb/a.md", true},
		{" a.md\t", "", true},
		{"b.md", " kb/b.md ", true},
		{"b.md", "kb/a.md", false},
		{"", "", false},
	} {
		if got := e.Has(tc.source, tc.docID); got != tc.want {
			t.Errorf("Has(%q, %q) = %v, want %v", tc.source, tc.docID, got, tc.want)
		}
	}
	if (Expected{}).Has("a.md", "kb/a.md") {
		t.Error("the zero rule expects a block")
	}
}
