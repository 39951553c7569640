package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/metrics"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// Check names, in the order checks run and are reported (SPEC §9.1 table).
const (
	CheckQuery           = "query"
	CheckExpectedDoc     = "expected_document"
	CheckKeywords        = "keywords"
	CheckBreadcrumbs     = "breadcrumbs"
	CheckMustNot         = "must_not"
	CheckFound           = "found"
	CheckSelectedAttempt = "selected_attempt"
	CheckFallbackReason  = "fallback_reason"
	CheckEvidenceStatus  = "evidence_status"
	CheckContextSources  = "context_sources"
	CheckRerankTopSource = "rerank_top_source"
	CheckFirstRankMax    = "first_rank_max"
)

// notRun and broken build the results of cases that could not be judged.
func notRun(c *contract.Case, k int, reason string) CaseResult {
	return unjudged(c, k, StatusNotRun, reason)
}

func broken(c *contract.Case, k int, reason string) CaseResult {
	return unjudged(c, k, StatusError, reason)
}

func unjudged(c *contract.Case, k int, status Status, reason string) CaseResult {
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

// OrderBlocks returns the indexes of blocks in block order (SPEC §7): blocks
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

// JudgeFixture judges one case against its decoded fixture. kbScope is the
// golden file's kbScope, used for block identity when the fixture has none.
func JudgeFixture(c *contract.Case, k int, f *contract.Fixture, kbScope string) CaseResult {
	if f.CaseID != c.CaseID {
		return broken(c, k, fmt.Sprintf("fixture caseId %q does not match case %q", f.CaseID, c.CaseID))
	}
	if f.LookupResult == nil {
		return broken(c, k, "fixture has no lookupResult")
	}
	lr := f.LookupResult
	scope := f.KBScope
	if scope == "" {
		scope = kbScope
	}
	order := OrderBlocks(lr.EvidenceBlocks)
	blocks := make([]block, len(order))
	for i, j := range order {
		b := &lr.EvidenceBlocks[j]
		blocks[i] = block{b: b, source: strings.TrimSpace(b.Source), docID: strings.TrimSpace(b.DocID)}
		if blocks[i].docID == "" && blocks[i].source != "" {
			if scope != "" {
				blocks[i].docID = scope + "/" + blocks[i].source
			} else {
				blocks[i].docID = blocks[i].source
			}
		}
	}
	top := blocks[:min(k, len(blocks))]

	expSources := trimmedSet(c.ExpectedSources)
	expDocIDs := trimmedSet(c.ExpectedDocIDs)
	isExpected := func(b *block) bool {
		_, s := expSources[b.source]
		_, d := expDocIDs[b.docID]
		return (s && b.source != "") || (d && b.docID != "")
	}

	res := newResult(c, k, StatusPass)
	res.SearchMode = strPtr(f.SearchMode, f.SearchMode != "")
	res.SelectedAttempt = strPtr(lr.RetrievalTrace.SelectedAttempt, lr.Has&contract.HasSelectedAttempt != 0)
	res.EvidenceStatus = strPtr(lr.EvidenceStatus, lr.Has&contract.HasEvidenceStatus != 0)
	res.RerankTopSource = strPtr(lr.RerankTrace.TopSource, lr.Has&contract.HasRerankTopSource != 0)
	if lr.Has&contract.HasFallbackReason != 0 && lr.RetrievalTrace.FallbackReason != nil {
		res.FallbackReason = strPtr(*lr.RetrievalTrace.FallbackReason, true)
	}
	res.TopCandidates = make([]Candidate, len(top))
	for i := range top {
		b := top[i].b
		cand := Candidate{
			Rank: i + 1, Source: strings.Clone(b.Source), DocID: strings.Clone(top[i].docID),
			Breadcrumb: strings.Clone(b.Breadcrumb), Category: strings.Clone(b.Category),
			RelevanceLevel: strings.Clone(b.RelevanceLevel), ScoreLabel: strings.Clone(b.ScoreLabel),
		}
		if b.HasQuality {
			q := b.QualityScore
			cand.QualityScore = &q
		}
		res.TopCandidates[i] = cand
	}

	// firstExpectedRank over the whole list.
	first := 0
	for i := range blocks {
		if isExpected(&blocks[i]) {
			first = i + 1
			res.FirstExpectedRank = &first
			break
		}
	}
	expectedInTop := first > 0 && first <= k

	hasBlocks := lr.Has&contract.HasEvidenceBlocks != 0
	lacks := func(p contract.Presence) string { return "fixture lacks " + p.FieldPath() }
	add := func(name string, passed bool, msg string) {
		ch := Check{Name: name, Passed: passed}
		if !passed {
			res.Status = StatusFail
			ch.Message = &msg
			res.FailedChecks = append(res.FailedChecks, name)
		}
		res.Checks = append(res.Checks, ch)
	}
	needBlocks := func(name string, passed bool, msg func() string) {
		if !hasBlocks {
			add(name, false, lacks(contract.HasEvidenceBlocks))
			return
		}
		if passed {
			add(name, true, "")
		} else {
			add(name, false, msg())
		}
	}

	// query
	if f.Query == c.Query {
		add(CheckQuery, true, "")
	} else {
		add(CheckQuery, false, fmt.Sprintf("stale fixture: its query is %q, the golden query is %q; regenerate it with rag-snapshot", f.Query, c.Query))
	}

	// expected_document
	if c.UsesExpectedDocs() {
		needBlocks(CheckExpectedDoc, expectedInTop, func() string {
			where := "no expected document in the blocks"
			if first > 0 {
				where = fmt.Sprintf("first expected document at position %d", first)
			}
			return fmt.Sprintf("expected %s in top %d; %s; top %d: %s",
				describeExpected(c), k, where, k, topSources(top))
		})
	}

	// keywords
	var kwPassed bool
	var kwFound int
	if len(c.ExpectedKeywords) > 0 {
		found, missing, distinct := keywordCoverage(c.ExpectedKeywords, top)
		kwFound = found
		minCov := 1.0
		if c.MinKeywordCoverage != nil {
			minCov = *c.MinKeywordCoverage
		}
		cov := 1.0
		if distinct > 0 {
			cov = float64(found) / float64(distinct)
		}
		kwPassed = cov >= minCov
		needBlocks(CheckKeywords, kwPassed, func() string {
			return fmt.Sprintf("found %d of %d keywords in the top %d excerpts (coverage %s, need %s); missing: %s",
				found, distinct, k, fmtFloat(cov), fmtFloat(minCov), quoteList(missing))
		})
		kwPassed = kwPassed && hasBlocks
	}

	// breadcrumbs
	var bcPassed bool
	if len(c.ExpectedBreadcrumbs) > 0 {
		missing := breadcrumbsMissing(c.ExpectedBreadcrumbs, top)
		bcPassed = len(missing) == 0
		needBlocks(CheckBreadcrumbs, bcPassed, func() string {
			got := make([]string, len(top))
			for i := range top {
				got[i] = top[i].b.Breadcrumb
			}
			return fmt.Sprintf("no top-%d block under breadcrumb %s; top %d breadcrumbs: %s", k, quoteList(missing), k, quoteList(got))
		})
		bcPassed = bcPassed && hasBlocks
	}

	// must_not, over the whole list
	if len(c.MustNotSources) > 0 || len(c.MustNotDocIDs) > 0 {
		notS, notD := trimmedSet(c.MustNotSources), trimmedSet(c.MustNotDocIDs)
		var hits []string
		for i := range blocks {
			b := &blocks[i]
			_, s := notS[b.source]
			_, d := notD[b.docID]
			if (s && b.source != "") || (d && b.docID != "") {
				hits = append(hits, fmt.Sprintf("%s at position %d", b.docID, i+1))
			}
		}
		needBlocks(CheckMustNot, len(hits) == 0, func() string {
			return "forbidden document retrieved: " + strings.Join(hits, ", ")
		})
	}

	// found
	if c.ExpectedFound != nil {
		switch {
		case lr.Has&contract.HasFound == 0:
			add(CheckFound, false, lacks(contract.HasFound))
		default:
			add(CheckFound, lr.Found == *c.ExpectedFound, fmt.Sprintf("expected found=%t, got found=%t", *c.ExpectedFound, lr.Found))
		}
	}

	stringCheck := func(name string, want string, has contract.Presence, got *string) {
		switch {
		case got == nil:
			add(name, false, lacks(has))
		default:
			add(name, strings.TrimSpace(*got) == strings.TrimSpace(want), fmt.Sprintf("expected %q, got %q", want, *got))
		}
	}
	if c.ExpectedSelectedAttempt != "" {
		stringCheck(CheckSelectedAttempt, c.ExpectedSelectedAttempt, contract.HasSelectedAttempt, res.SelectedAttempt)
	}
	if c.UsesFallbackReason() {
		want := c.ExpectedFallbackReasons
		if c.ExpectedFallbackReason != "" {
			want = []string{c.ExpectedFallbackReason}
		}
		switch {
		case lr.Has&contract.HasFallbackReason == 0:
			add(CheckFallbackReason, false, lacks(contract.HasFallbackReason))
		case res.FallbackReason == nil:
			add(CheckFallbackReason, false, fmt.Sprintf("expected fallbackReason %s, got null (no retry was attempted)", oneOf(want)))
		default:
			got := strings.TrimSpace(*res.FallbackReason)
			add(CheckFallbackReason, slices.ContainsFunc(want, func(w string) bool { return strings.TrimSpace(w) == got }),
				fmt.Sprintf("expected fallbackReason %s, got %q", oneOf(want), *res.FallbackReason))
		}
	}
	if c.ExpectedEvidenceStatus != "" {
		stringCheck(CheckEvidenceStatus, c.ExpectedEvidenceStatus, contract.HasEvidenceStatus, res.EvidenceStatus)
	}
	if len(c.ExpectedContextSources) > 0 {
		if lr.Has&contract.HasContextSources == 0 {
			add(CheckContextSources, false, lacks(contract.HasContextSources))
		} else {
			var missing []string
			for _, s := range c.ExpectedContextSources {
				if !slices.ContainsFunc(lr.ContextPack.Sources, func(x string) bool { return strings.TrimSpace(x) == strings.TrimSpace(s) }) {
					missing = append(missing, s)
				}
			}
			add(CheckContextSources, len(missing) == 0, fmt.Sprintf("context pack lacks %s; it has %s", quoteList(missing), quoteList(lr.ContextPack.Sources)))
		}
	}
	if c.ExpectedRerankTopSource != "" {
		stringCheck(CheckRerankTopSource, c.ExpectedRerankTopSource, contract.HasRerankTopSource, res.RerankTopSource)
	}
	if c.ExpectedFirstRankMax != nil {
		max := *c.ExpectedFirstRankMax
		needBlocks(CheckFirstRankMax, first > 0 && first <= max, func() string {
			if first == 0 {
				return fmt.Sprintf("expected the first expected document at position ≤ %d, but none was retrieved", max)
			}
			return fmt.Sprintf("expected the first expected document at position ≤ %d, got %d", max, first)
		})
	}

	// Hit level.
	var level string
	switch {
	case !c.UsesExpectedDocs():
		level = HitNA
	case expectedInTop && (!c.UsesCoverage() || bcPassed || kwPassed):
		level = HitStrong
	case expectedInTop:
		level = HitMedium
	case kwFound > 0:
		level = HitWeak
	default:
		level = HitMiss
	}
	res.HitLevel = &level
	if c.UsesExpectedDocs() {
		res.Ranking, res.Grades = documentRanking(c, blocks)
		res.Metrics = &Metrics{
			ReciprocalRank: contract.Float6(metrics.RecipRank(res.Ranking, res.Grades, 1)),
			NDCGAtK:        contract.Float6(metrics.NDCGCutAt(res.Ranking, res.Grades, k)),
			DocRecallAtK:   contract.Float6(metrics.RecallAt(res.Ranking, res.Grades, 1, k)),
			PrecisionAtK:   contract.Float6(metrics.PrecisionAt(res.Ranking, res.Grades, 1, k)),
		}
	}
	return res
}

// documentRanking maps blocks to document identities (docId when the case
// uses expectedDocIds, else source), keeping first occurrences, and builds
// the case's graded judgments (SPEC §9.1).
func documentRanking(c *contract.Case, blocks []block) ([]string, metrics.Judgments) {
	byDocID := c.UsesDocIDIdentity()
	ranking := make([]string, 0, len(blocks))
	seen := make(map[string]struct{}, len(blocks))
	grades := metrics.Judgments{}
	expSources := trimmedSet(c.ExpectedSources)
	for i := range blocks {
		id := blocks[i].source
		if byDocID {
			id = blocks[i].docID
			if _, ok := expSources[blocks[i].source]; ok && blocks[i].source != "" && id != "" {
				grades[strings.Clone(id)] = 1
			}
		}
		if id == "" {
			continue
		}
		if _, dup := seen[id]; dup {
			continue
		}
		id = strings.Clone(id)
		seen[id] = struct{}{}
		ranking = append(ranking, id)
	}
	for _, s := range c.ExpectedSources {
		if !byDocID {
			grades[strings.TrimSpace(s)] = 1
		}
	}
	for _, d := range c.ExpectedDocIDs {
		grades[strings.TrimSpace(d)] = 1
	}
	for key, g := range c.Relevance {
		key = strings.TrimSpace(key)
		if g < 1 && grades[key] >= 1 {
			// An expected document stays relevant: a grade of 0 on it is
			// rejected by the golden parser where it can see it, and with
			// docId identity a block of an expected source is expected too.
			continue
		}
		grades[key] = g
	}
	return ranking, grades
}

// keywordCoverage counts the distinct normalised keywords found in the
// normalised excerpt of some single top-K block.
func keywordCoverage(keywords []string, top []block) (found int, missing []string, distinct int) {
	seen := map[string]bool{}
	for _, kw := range keywords {
		n := textnorm.Normalize(kw)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		distinct++
		ok := false
		for i := range top {
			if strings.Contains(top[i].normExcerpt(), n) {
				ok = true
				break
			}
		}
		if ok {
			found++
		} else {
			missing = append(missing, kw)
		}
	}
	return found, missing, distinct
}

func breadcrumbsMissing(want []string, top []block) []string {
	var missing []string
	got := make([]string, len(top))
	for i := range top {
		got[i] = textnorm.NormalizeBreadcrumb(top[i].b.Breadcrumb)
	}
	for _, w := range want {
		nw := textnorm.NormalizeBreadcrumb(w)
		if !slices.ContainsFunc(got, func(g string) bool { return textnorm.BreadcrumbMatches(nw, g) }) {
			missing = append(missing, w)
		}
	}
	return missing
}

func trimmedSet(xs []string) map[string]struct{} {
	m := make(map[string]struct{}, len(xs))
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			m[x] = struct{}{}
		}
	}
	return m
}

func strPtr(s string, ok bool) *string {
	if !ok {
		return nil
	}
	s = strings.Clone(s)
	return &s
}

func describeExpected(c *contract.Case) string {
	var parts []string
	if len(c.ExpectedSources) > 0 {
		parts = append(parts, "source "+oneOf(c.ExpectedSources))
	}
	if len(c.ExpectedDocIDs) > 0 {
		parts = append(parts, "docId "+oneOf(c.ExpectedDocIDs))
	}
	return strings.Join(parts, " or ")
}

func topSources(top []block) string {
	if len(top) == 0 {
		return "(no blocks)"
	}
	s := make([]string, len(top))
	for i := range top {
		s[i] = top[i].b.Source
	}
	return strings.Join(s, ", ")
}

func oneOf(xs []string) string {
	if len(xs) == 1 {
		return fmt.Sprintf("%q", xs[0])
	}
	return "one of " + quoteList(xs)
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func fmtFloat(v float64) string {
	return string(contract.AppendFloat6(nil, v))
}
