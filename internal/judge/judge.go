package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// JudgeFixture judges one case against its decoded fixture. kbScope is the
// golden file's kbScope, used for block identity when the fixture has none.
//
// The strings the result keeps are copies. The decoder writes a fixture's
// judged strings, excerpts included, into one buffer. A result that kept a
// slice of it would keep the whole buffer alive for the rest of the run,
// which on 10,000 fixtures costs about 60 MB more heap and 20% more time.
//
// A draft case is not judged (draftResult).
func JudgeFixture(c *contract.Case, k int, f *contract.Fixture, kbScope string) CaseResult {
	if f.CaseID != c.CaseID {
		return broken(c, k, fmt.Sprintf("fixture caseId %q does not match case %q", f.CaseID, c.CaseID))
	}
	if f.LookupResult == nil {
		return broken(c, k, "fixture has no lookupResult")
	}
	j := newJudgement(c, k, f, kbScope)
	if c.Draft {
		return j.draftResult()
	}
	res := newResult(c, k, StatusPass)
	j.fixtureFields(&res)
	for i := range checks {
		if ch := &checks[i]; ch.declared(c) {
			out, message := j.run(ch)
			res.add(ch.name, out, message)
		}
	}
	res.settle()
	level := hitLevel(j, res.Checks)
	res.HitLevel = &level
	if len(c.ExpectedKeywords) > 0 {
		cov := j.keywords.coverage()
		res.KeywordCoverage = &cov
	}
	if c.UsesExpectedDocs() {
		res.Ranking, res.Grades = documentRanking(c, j.blocks, j.exp)
		res.Metrics = rankMetrics(res.Ranking, res.Grades, k)
	}
	return res
}

// notRun and broken build the results of cases that could not be judged.
func notRun(c *contract.Case, k int, reason string) CaseResult {
	return unjudged(c, k, StatusNotRun, reason)
}

func broken(c *contract.Case, k int, reason string) CaseResult {
	return unjudged(c, k, StatusError, reason)
}

// unjudged is the result of a case without a fixture to judge. A draft
// keeps the status draft, with the reason: a missing fixture is how every
// draft starts, and no draft may fail a run.
func unjudged(c *contract.Case, k int, status Status, reason string) CaseResult {
	if c.Draft {
		status = StatusDraft
	}
	r := newResult(c, k, status)
	r.Reason = &reason
	return r
}

// newResult is the result of c with its identity and empty (not nil) lists.
func newResult(c *contract.Case, k int, status Status) CaseResult {
	tags := c.Tags
	if tags == nil {
		tags = []string{}
	}
	return CaseResult{
		CaseID: c.CaseID, Scenario: c.Scenario, Tags: tags, Query: c.Query, Status: status, K: k,
		TopCandidates: []Candidate{}, Checks: []Check{}, FailedChecks: []string{}, Case: c,
	}
}

// draftResult is the result of a draft: no check runs, and it has no hit
// level and no metrics. What the fixture holds is reported as it is, so
// that a reader sees what the pipeline retrieves for the query. A fixture
// made for another query text is stale, and Reason says so with the
// query check's message.
func (j *judgement) draftResult() CaseResult {
	res := newResult(j.c, j.k, StatusDraft)
	j.fixtureFields(&res)
	if ok, msg := checkQuery(j); !ok {
		res.Reason = &msg
	}
	return res
}

// add records a check's outcome. A failed check fails the case.
func (r *CaseResult) add(name string, out outcome, message string) {
	ch := Check{Name: name, Passed: out == passed, Skipped: out == skipped}
	switch out {
	case failed:
		ch.Message = &message
		r.Status = StatusFail
		r.FailedChecks = append(r.FailedChecks, name)
	case skipped:
		ch.Message = &message
		r.SkippedChecks = append(r.SkippedChecks, name)
	}
	r.Checks = append(r.Checks, ch)
}

// settle gives a case that did not fail, and whose every check but query
// was skipped, the status skipped: the fixture's query being the golden
// one says nothing of the retrieval, so the case is no pass.
func (r *CaseResult) settle() {
	if r.Status != StatusPass || len(r.SkippedChecks) == 0 {
		return
	}
	for _, ch := range r.Checks {
		if ch.Name != CheckQuery && !ch.Skipped {
			return
		}
	}
	r.Status = StatusSkipped
}

// judgement is one case being judged against its fixture: what the checks,
// the hit level and the rank metrics read.
type judgement struct {
	c  *contract.Case
	k  int
	f  *contract.Fixture
	lr *contract.LookupResult
	// blocks are every block in block order, top the first K of them.
	blocks, top []block
	// exp is the case's expected-block rule.
	exp Expected
	// first is the 1-based position of the first expected block in blocks
	// (firstExpectedRank), 0 when no block is expected.
	first int
	// keywords is what the top K cover of the case's expected keywords, and
	// missingBreadcrumbs the expected breadcrumbs they do not cover. Each is
	// zero when the case declares none.
	keywords           keywordCoverage
	missingBreadcrumbs []string
}

// block is an evidence block prepared for judging.
type block struct {
	b        *contract.EvidenceBlock
	docID    string // effective, trimmed
	source   string // trimmed
	excerpt  string // normalised lazily
	normDone bool
}

func (b *block) normExcerpt() string {
	if !b.normDone {
		b.excerpt = textnorm.Normalize(b.b.Excerpt)
		b.normDone = true
	}
	return b.excerpt
}

func newJudgement(c *contract.Case, k int, f *contract.Fixture, kbScope string) *judgement {
	j := &judgement{c: c, k: k, f: f, lr: f.LookupResult}
	scope := f.KBScope
	if scope == "" {
		scope = kbScope
	}
	order := OrderBlocks(j.lr.EvidenceBlocks)
	j.blocks = make([]block, len(order))
	for i, o := range order {
		b := &j.lr.EvidenceBlocks[o]
		pb := block{b: b, source: strings.TrimSpace(b.Source), docID: strings.TrimSpace(b.DocID)}
		if pb.docID == "" && pb.source != "" {
			pb.docID = pb.source
			if scope != "" {
				pb.docID = scope + "/" + pb.source
			}
		}
		j.blocks[i] = pb
	}
	j.top = j.blocks[:min(k, len(j.blocks))]

	j.exp = ExpectedOf(c)
	for i := range j.blocks {
		if j.isExpected(&j.blocks[i]) {
			j.first = i + 1
			break
		}
	}
	if len(c.ExpectedKeywords) > 0 {
		j.keywords = coverKeywords(c.ExpectedKeywords, j.top)
	}
	if len(c.ExpectedBreadcrumbs) > 0 {
		j.missingBreadcrumbs = uncoveredBreadcrumbs(c.ExpectedBreadcrumbs, j.top)
	}
	return j
}

// isExpected reports whether b is from an expected document: its source is
// in expectedSources or its docId in expectedDocIds.
func (j *judgement) isExpected(b *block) bool { return j.exp.has(b.source, b.docID) }

// Expected is a golden case's expected-block rule (docs/checks.md): a block
// is expected when its source is one of the case's expectedSources or its
// effective docId one of its expectedDocIds, all compared trimmed. The
// judge applies it to find firstExpectedRank. The reports apply the same
// rule to candidates: the baseline diff to a baseline's, read back from
// JSON, and the HTML report to mark the expected blocks.
type Expected struct{ sources, docIDs map[string]struct{} }

// ExpectedOf is c's expected-block rule.
func ExpectedOf(c *contract.Case) Expected {
	return Expected{sources: trimmedSet(c.ExpectedSources), docIDs: trimmedSet(c.ExpectedDocIDs)}
}

// Has reports whether a block of this source and effective docId (a
// Candidate's Source and DocID) is expected.
func (e Expected) Has(source, docID string) bool {
	return e.has(strings.TrimSpace(source), strings.TrimSpace(docID))
}

// has is Has for a source and docId already trimmed.
func (e Expected) has(source, docID string) bool {
	return inSet(e.sources, source) || inSet(e.docIDs, docID)
}

// expectedInTop reports whether an expected block is in the top K.
func (j *judgement) expectedInTop() bool { return j.first > 0 && j.first <= j.k }

// fixtureFields fills in what res reports of the fixture as it was: the
// top-K candidates, firstExpectedRank and the traced fields.
func (j *judgement) fixtureFields(res *CaseResult) {
	lr := j.lr
	mode := j.f.SearchMode
	if p := j.f.Pipeline; p != nil && p.SearchMode != "" {
		mode = p.SearchMode // the pipeline's own, as declared
	}
	res.SearchMode = strPtr(mode, mode != "")
	res.SelectedAttempt = strPtr(lr.RetrievalTrace.SelectedAttempt, lr.Has&contract.HasSelectedAttempt != 0)
	res.EvidenceStatus = strPtr(lr.EvidenceStatus, lr.Has&contract.HasEvidenceStatus != 0)
	res.RerankTopSource = strPtr(lr.RerankTrace.TopSource, lr.Has&contract.HasRerankTopSource != 0)
	if lr.Has&contract.HasFallbackReason != 0 && lr.RetrievalTrace.FallbackReason != nil {
		res.FallbackReason = strPtr(*lr.RetrievalTrace.FallbackReason, true)
	}
	if j.first > 0 {
		first := j.first
		res.FirstExpectedRank = &first
	}
	res.TopCandidates = make([]Candidate, len(j.top))
	for i := range j.top {
		b := j.top[i].b
		cand := Candidate{
			Rank: i + 1, Source: strings.Clone(b.Source), DocID: strings.Clone(j.top[i].docID),
			Breadcrumb: strings.Clone(b.Breadcrumb), Category: strings.Clone(b.Category),
			RelevanceLevel: strings.Clone(b.RelevanceLevel), ScoreLabel: strings.Clone(b.ScoreLabel),
		}
		if b.HasQuality {
			q := b.QualityScore
			cand.QualityScore = &q
		}
		if cand.EvidenceKey = strings.Clone(b.EvidenceKey); cand.EvidenceKey == "" {
			cand.ExcerptStart = strings.Clone(ExcerptStart(b.Excerpt))
		}
		res.TopCandidates[i] = cand
	}
}

// OrderBlocks returns the indexes of blocks in block order (docs/fixtures.md): blocks
// with a rank sorted by rank (stable), then blocks without one in array order.
func OrderBlocks(blocks []contract.EvidenceBlock) []int {
	idx := make([]int, 0, len(blocks))
	for i := range blocks {
		if blocks[i].HasRank {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return blocks[a].Rank - blocks[b].Rank })
	for i := range blocks {
		if !blocks[i].HasRank {
			idx = append(idx, i)
		}
	}
	return idx
}

// trimmedSet is the set of xs, trimmed, without "".
func trimmedSet(xs []string) map[string]struct{} {
	m := make(map[string]struct{}, len(xs))
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			m[x] = struct{}{}
		}
	}
	return m
}

// inSet reports whether x, which is trimmed, is in set.
func inSet(set map[string]struct{}, x string) bool {
	_, ok := set[x]
	return ok && x != ""
}

// strPtr is a copy of s, or nil when !ok.
func strPtr(s string, ok bool) *string {
	if !ok {
		return nil
	}
	s = strings.Clone(s)
	return &s
}

// KeepEvidence adds to res, the judgement of f, what only the HTML report
// shows: each top candidate's excerpt and a copy of the retrieval trace.
// Both are copies, so res does not keep the decoder's buffer alive.
func KeepEvidence(res *CaseResult, f *contract.Fixture) {
	if f == nil || f.LookupResult == nil {
		return
	}
	lr := f.LookupResult
	order := OrderBlocks(lr.EvidenceBlocks)
	for i := range res.TopCandidates {
		if i < len(order) {
			res.TopCandidates[i].Excerpt = strings.Clone(lr.EvidenceBlocks[order[i]].Excerpt)
		}
	}
	rt := lr.RetrievalTrace
	t := &contract.RetrievalTrace{
		SearchMode: strings.Clone(rt.SearchMode), KBScope: strings.Clone(rt.KBScope),
		L0Hints: contract.L0Hints{
			Categories:     cloneStrings(rt.L0Hints.Categories),
			MatchedTerms:   cloneStrings(rt.L0Hints.MatchedTerms),
			MatchedSources: cloneStrings(rt.L0Hints.MatchedSources),
		},
		SelectedAttempt: strings.Clone(rt.SelectedAttempt),
		Attempts:        make([]contract.Attempt, len(rt.Attempts)),
	}
	if rt.FallbackReason != nil {
		r := strings.Clone(*rt.FallbackReason)
		t.FallbackReason = &r
	}
	for i, a := range rt.Attempts {
		a.Name = strings.Clone(a.Name)
		a.Filter.KBScope = strings.Clone(a.Filter.KBScope)
		a.Filter.Categories = cloneStrings(a.Filter.Categories)
		t.Attempts[i] = a
	}
	res.Trace = t
}

func cloneStrings(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}
