package judge

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/metrics"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// This file is docs/checks.md in code: the table of checks, one function per
// check, then the hit level and the rank metrics.

// Check names, in the order checks run and are reported (docs/checks.md table).
const (
	CheckQuery           = "query"
	CheckExpectedDoc     = "expected_document"
	CheckKeywords        = "keywords"
	CheckBreadcrumbs     = "breadcrumbs"
	CheckEvidenceKeys    = "evidence_keys"
	CheckMinExpected     = "min_expected_blocks"
	CheckMustNot         = "must_not"
	CheckFound           = "found"
	CheckSelectedAttempt = "selected_attempt"
	CheckFallbackReason  = "fallback_reason"
	CheckEvidenceStatus  = "evidence_status"
	CheckContextSources  = "context_sources"
	CheckRerankTopSource = "rerank_top_source"
	CheckFirstRankMax    = "first_rank_max"
)

// check is one row of the table of docs/checks.md.
type check struct {
	name string
	// declared reports whether a case declares the check.
	declared func(*contract.Case) bool
	// reads is the fixture field the check needs, 0 when none it needs can
	// be absent. A declared check whose field is absent fails with
	// "fixture lacks <path>" without running.
	reads contract.Presence
	// needs is the capability, one of contract.Cap*, that a pipeline must
	// produce for the check to be judged. It is "" when the check needs
	// none. A declared check whose fixture's pipeline declares that it
	// lacks it is skipped: neither passed nor failed.
	needs string
	// run reports whether the check passes and, when it does not, says
	// why in a message a person can act on.
	run func(*judgement) (passed bool, message string)
}

// checks is the table of docs/checks.md: a case's declared checks run in this
// order, and its result lists them in this order.
var checks = []check{
	{CheckQuery, always, 0, "", checkQuery},
	{CheckExpectedDoc, (*contract.Case).UsesExpectedDocs, contract.HasEvidenceBlocks, "", checkExpectedDocument},
	{CheckKeywords, func(c *contract.Case) bool { return len(c.ExpectedKeywords) > 0 }, contract.HasEvidenceBlocks, "", checkKeywords},
	{CheckBreadcrumbs, func(c *contract.Case) bool { return len(c.ExpectedBreadcrumbs) > 0 }, contract.HasEvidenceBlocks, contract.CapBreadcrumb, checkBreadcrumbs},
	{CheckEvidenceKeys, func(c *contract.Case) bool { return len(c.ExpectedEvidenceKeys) > 0 }, contract.HasEvidenceBlocks, "", checkEvidenceKeys},
	{CheckMinExpected, func(c *contract.Case) bool { return c.MinExpectedBlocks != nil }, contract.HasEvidenceBlocks, "", checkMinExpectedBlocks},
	{CheckMustNot, func(c *contract.Case) bool { return len(c.MustNotSources) > 0 || len(c.MustNotDocIDs) > 0 }, contract.HasEvidenceBlocks, "", checkMustNot},
	{CheckFound, func(c *contract.Case) bool { return c.ExpectedFound != nil }, contract.HasFound, "", checkFound},
	{CheckSelectedAttempt, func(c *contract.Case) bool { return c.ExpectedSelectedAttempt != "" }, contract.HasSelectedAttempt, contract.CapTrace, checkSelectedAttempt},
	{CheckFallbackReason, (*contract.Case).UsesFallbackReason, contract.HasFallbackReason, contract.CapFallback, checkFallbackReason},
	{CheckEvidenceStatus, (*contract.Case).UsesEvidenceStatus, contract.HasEvidenceStatus, contract.CapEvidenceStatus, checkEvidenceStatus},
	{CheckContextSources, func(c *contract.Case) bool { return len(c.ExpectedContextSources) > 0 }, contract.HasContextSources, contract.CapContextPack, checkContextSources},
	{CheckRerankTopSource, func(c *contract.Case) bool { return c.ExpectedRerankTopSource != "" }, contract.HasRerankTopSource, contract.CapRerank, checkRerankTopSource},
	{CheckFirstRankMax, func(c *contract.Case) bool { return c.ExpectedFirstRankMax != nil }, contract.HasEvidenceBlocks, "", checkFirstRankMax},
}

// Needs returns the capability (contract.Cap*) the check called name needs
// a pipeline to produce, "" when it needs none (docs/checks.md).
func Needs(name string) string {
	for i := range checks {
		if checks[i].name == name {
			return checks[i].needs
		}
	}
	return ""
}

// Unjudgeable is a check a pipeline cannot be judged on, and why: the
// reason a skipped check carries (SkipReason).
type Unjudgeable struct {
	Check, Reason string
}

// UnjudgeableChecks lists, in check order, every check that needs a part
// p declares it lacks, whether or not a golden case declares it. It is nil
// when p lacks nothing: a nil pipeline, one without a declaration (the
// builtin pipeline), or one that declares every part.
func UnjudgeableChecks(p *contract.Pipeline) []Unjudgeable {
	var out []Unjudgeable
	for i := range checks {
		if ch := &checks[i]; ch.needs != "" && p.Lacks(ch.needs) {
			out = append(out, Unjudgeable{Check: ch.name, Reason: SkipReason(ch.needs)})
		}
	}
	return out
}

// UnjudgeableList lists the checks p cannot be judged on, each with its
// reason, as the reports say it: "selected_attempt (pipeline declares no
// trace), rerank_top_source (pipeline declares no rerank)". It is "" when
// there are none.
func UnjudgeableList(p *contract.Pipeline) string {
	var parts []string
	for _, u := range UnjudgeableChecks(p) {
		parts = append(parts, u.Check+" ("+u.Reason+")")
	}
	return strings.Join(parts, ", ")
}

func always(*contract.Case) bool { return true }

// run runs ch: it is skipped when the fixture's pipeline declares that it
// lacks the capability ch needs, and fails when the fixture lacks the field
// it reads.
func (j *judgement) run(ch *check) (outcome, string) {
	if ch.needs != "" && j.f.Pipeline.Lacks(ch.needs) {
		return skipped, SkipReason(ch.needs)
	}
	if ch.reads != 0 && j.lr.Has&ch.reads == 0 {
		return failed, "fixture lacks " + ch.reads.FieldPath()
	}
	if ok, msg := ch.run(j); !ok {
		return failed, msg
	}
	return passed, ""
}

// SkipReason is the message of a check skipped because the pipeline
// declares that it does not produce capability.
func SkipReason(capability string) string {
	return "pipeline declares no " + capability
}

// outcome is what became of a declared check.
type outcome int

const (
	passed outcome = iota
	failed
	skipped
)

// checkQuery: the fixture's query is the golden query, byte for byte.
// Otherwise the fixture is stale.
func checkQuery(j *judgement) (bool, string) {
	if j.f.Query == j.c.Query {
		return true, ""
	}
	return false, fmt.Sprintf("stale fixture: its query is %q, the golden query is %q; regenerate it with rag-snapshot", j.f.Query, j.c.Query)
}

// checkExpectedDocument: some top-K block is expected (its docId is in
// expectedDocIds or its source in expectedSources).
func checkExpectedDocument(j *judgement) (bool, string) {
	if j.expectedInTop() {
		return true, ""
	}
	where := "no expected document in the blocks"
	if j.first > 0 {
		where = fmt.Sprintf("first expected document at position %d", j.first)
	}
	return false, fmt.Sprintf("expected %s in top %d; %s; top %d: %s", describeExpected(j.c), j.k, where, j.k, topSources(j.top))
}

// checkKeywords: the share of distinct keywords found in the top K is at
// least minKeywordCoverage (default 1).
func checkKeywords(j *judgement) (bool, string) {
	kw, need := &j.keywords, minCoverage(j.c)
	if kw.coverage() >= need {
		return true, ""
	}
	return false, fmt.Sprintf("found %d of %d keywords in the top %d excerpts (coverage %s, need %s); missing: %s",
		kw.found, kw.distinct, j.k, float6(kw.coverage()), float6(need), quoteList(kw.missing))
}

// breadcrumbPath is what a fixture whose blocks carry no breadcrumb lacks.
const breadcrumbPath = "lookupResult.evidenceBlocks[].breadcrumb"

// checkBreadcrumbs: every expected breadcrumb matches the breadcrumb of
// some top-K block. Blocks none of which has a breadcrumb field cannot be
// judged: the fixture lacks it.
func checkBreadcrumbs(j *judgement) (bool, string) {
	if len(j.missingBreadcrumbs) == 0 {
		return true, ""
	}
	if len(j.blocks) > 0 && !slices.ContainsFunc(j.blocks, func(b block) bool { return j.lr.BlockHas(b.b, contract.BlockHasBreadcrumb) }) {
		return false, "fixture lacks " + breadcrumbPath
	}
	got := make([]string, len(j.top))
	for i := range j.top {
		got[i] = j.top[i].b.Breadcrumb
	}
	return false, fmt.Sprintf("no top-%d block under breadcrumb %s; top %d breadcrumbs: %s", j.k, quoteList(j.missingBreadcrumbs), j.k, quoteList(got))
}

// evidenceKeyPath is what a fixture whose blocks carry no evidenceKey
// lacks.
const evidenceKeyPath = "lookupResult.evidenceBlocks[].evidenceKey"

// checkEvidenceKeys: every expected evidence key equals (trimmed, exact)
// the evidenceKey of some top-K block. A key that is missing is reported
// with its position when it is further down the block list, else as not
// retrieved. Blocks none of which has an evidenceKey cannot be judged: the
// fixture lacks the field.
func checkEvidenceKeys(j *judgement) (bool, string) {
	want := j.c.ExpectedEvidenceKeys
	pos := make(map[string]int, len(want)) // trimmed key → first position, 0 when not retrieved
	for _, w := range want {
		pos[strings.TrimSpace(w)] = 0
	}
	anyKey := false
	for i := range j.blocks {
		key := strings.TrimSpace(j.blocks[i].b.EvidenceKey)
		anyKey = anyKey || key != ""
		if p, ok := pos[key]; ok && p == 0 && key != "" {
			pos[key] = i + 1
		}
	}
	if len(j.blocks) > 0 && !anyKey {
		return false, "fixture lacks " + evidenceKeyPath
	}
	var missing []string
	reported := make(map[string]bool, len(want))
	for _, w := range want {
		key := strings.TrimSpace(w)
		if reported[key] {
			continue
		}
		reported[key] = true
		switch p := pos[key]; {
		case p > 0 && p <= j.k:
		case p > 0:
			missing = append(missing, fmt.Sprintf("%q at position %d", w, p))
		default:
			missing = append(missing, fmt.Sprintf("%q not retrieved", w))
		}
	}
	if len(missing) == 0 {
		return true, ""
	}
	got := make([]string, len(j.top))
	for i := range j.top {
		got[i] = j.top[i].b.EvidenceKey
	}
	return false, fmt.Sprintf("%d of %d evidence keys not in the top %d: %s; top %d keys: %s",
		len(missing), len(reported), j.k, strings.Join(missing, ", "), j.k, quoteList(got))
}

// checkMinExpectedBlocks: at least minExpectedBlocks of the top K blocks
// are expected (from an expected document).
func checkMinExpectedBlocks(j *judgement) (bool, string) {
	need := *j.c.MinExpectedBlocks
	var at []string
	for i := range j.top {
		if j.isExpected(&j.top[i]) {
			at = append(at, strconv.Itoa(i+1))
		}
	}
	if len(at) >= need {
		return true, ""
	}
	msg := fmt.Sprintf("expected at least %d of the top %d blocks from expected documents, got %d", need, j.k, len(at))
	switch len(at) {
	case 0:
	case 1:
		msg += " (position " + at[0] + ")"
	default:
		msg += " (positions " + strings.Join(at, ", ") + ")"
	}
	msg += fmt.Sprintf("; top %d: %s", j.k, topSources(j.top))
	if need > j.k {
		msg += fmt.Sprintf("; K %d is below minExpectedBlocks, so it cannot pass", j.k)
	}
	return false, msg
}

// checkMustNot: no block at all, top K or not, is from a forbidden source
// or docId.
func checkMustNot(j *judgement) (bool, string) {
	notS, notD := trimmedSet(j.c.MustNotSources), trimmedSet(j.c.MustNotDocIDs)
	var hits []string
	for i := range j.blocks {
		if b := &j.blocks[i]; inSet(notS, b.source) || inSet(notD, b.docID) {
			hits = append(hits, fmt.Sprintf("%s at position %d", b.docID, i+1))
		}
	}
	if len(hits) == 0 {
		return true, ""
	}
	return false, "forbidden document retrieved: " + strings.Join(hits, ", ")
}

// checkFound: lookupResult.found is expectedFound.
func checkFound(j *judgement) (bool, string) {
	want, got := *j.c.ExpectedFound, j.lr.Found
	return got == want, fmt.Sprintf("expected found=%t, got found=%t", want, got)
}

// checkSelectedAttempt: retrievalTrace.selectedAttempt is
// expectedSelectedAttempt.
func checkSelectedAttempt(j *judgement) (bool, string) {
	return same(j.c.ExpectedSelectedAttempt, j.lr.RetrievalTrace.SelectedAttempt)
}

// checkFallbackReason: retrievalTrace.fallbackReason is
// expectedFallbackReason, or one of expectedFallbackReasons. A null
// fallbackReason (no retry) is a value and matches none.
func checkFallbackReason(j *judgement) (bool, string) {
	want := j.c.ExpectedFallbackReasons
	if j.c.ExpectedFallbackReason != "" {
		want = []string{j.c.ExpectedFallbackReason}
	}
	got := j.lr.RetrievalTrace.FallbackReason
	if got == nil {
		return false, fmt.Sprintf("expected fallbackReason %s, got null (no retry was attempted)", oneOf(want))
	}
	g := strings.TrimSpace(*got)
	return slices.ContainsFunc(want, func(w string) bool { return strings.TrimSpace(w) == g }),
		fmt.Sprintf("expected fallbackReason %s, got %q", oneOf(want), *got)
}

// checkEvidenceStatus: evidenceStatus is expectedEvidenceStatus, or one of
// expectedEvidenceStatuses.
func checkEvidenceStatus(j *judgement) (bool, string) {
	if j.c.ExpectedEvidenceStatus != "" {
		return same(j.c.ExpectedEvidenceStatus, j.lr.EvidenceStatus)
	}
	want, got := j.c.ExpectedEvidenceStatuses, j.lr.EvidenceStatus
	g := strings.TrimSpace(got)
	return slices.ContainsFunc(want, func(w string) bool { return strings.TrimSpace(w) == g }),
		fmt.Sprintf("expected %s, got %q", oneOf(want), got)
}

// checkContextSources: each expected context source is in
// contextPack.sources.
func checkContextSources(j *judgement) (bool, string) {
	have := j.lr.ContextPack.Sources
	var missing []string
	for _, s := range j.c.ExpectedContextSources {
		if !slices.ContainsFunc(have, func(x string) bool { return strings.TrimSpace(x) == strings.TrimSpace(s) }) {
			missing = append(missing, s)
		}
	}
	return len(missing) == 0, fmt.Sprintf("context pack lacks %s; it has %s", quoteList(missing), quoteList(have))
}

// checkRerankTopSource: rerankTrace.topSource is expectedRerankTopSource.
func checkRerankTopSource(j *judgement) (bool, string) {
	return same(j.c.ExpectedRerankTopSource, j.lr.RerankTrace.TopSource)
}

// checkFirstRankMax: firstExpectedRank is not null and at most
// expectedFirstRankMax.
func checkFirstRankMax(j *judgement) (bool, string) {
	limit := *j.c.ExpectedFirstRankMax
	switch {
	case j.first == 0:
		return false, fmt.Sprintf("expected the first expected document at position ≤ %d, but none was retrieved", limit)
	case j.first > limit:
		return false, fmt.Sprintf("expected the first expected document at position ≤ %d, got %d", limit, j.first)
	}
	return true, ""
}

// same compares a traced value with the expected one, both trimmed.
func same(want, got string) (bool, string) {
	return strings.TrimSpace(got) == strings.TrimSpace(want), fmt.Sprintf("expected %q, got %q", want, got)
}

// hitLevel is the case's hit level (docs/checks.md), from checks, the
// case's checks:
//
//   - n/a when the case names no expected document;
//   - strong when an expected block is in the top K, and the case declares
//     no coverage or its keywords, breadcrumbs or evidence_keys check passed;
//   - medium when the block is there without that;
//   - weak when it is not there but a keyword was found;
//   - miss otherwise.
//
// The coverage checks are keywords, breadcrumbs and evidence keys.
// min_expected_blocks, like first_rank_max, does not enter the level. A
// coverage check that was skipped, because the pipeline declares no
// breadcrumb say, counts as not declared. A case whose every coverage
// check was skipped is thus strong on its expected block alone.
func hitLevel(j *judgement, checks []Check) string {
	c := j.c
	coverage := c.UsesCoverage() && slices.ContainsFunc(checks, func(ch Check) bool {
		return !ch.Skipped && (ch.Name == CheckKeywords || ch.Name == CheckBreadcrumbs || ch.Name == CheckEvidenceKeys)
	})
	switch {
	case !c.UsesExpectedDocs():
		return HitNA
	case j.expectedInTop() && (!coverage || passedCheck(checks, CheckKeywords) ||
		passedCheck(checks, CheckBreadcrumbs) || passedCheck(checks, CheckEvidenceKeys)):
		return HitStrong
	case j.expectedInTop():
		return HitMedium
	case j.keywords.found > 0:
		return HitWeak
	}
	return HitMiss
}

// passedCheck reports whether the check called name ran and passed.
func passedCheck(checks []Check, name string) bool {
	i := slices.IndexFunc(checks, func(c Check) bool { return c.Name == name })
	return i >= 0 && checks[i].Passed
}

// rankMetrics computes a case's rank metrics on its document ranking,
// exactly as trec_eval does (recip_rank with no cutoff, ndcg_cut.k,
// recall.k, P.k).
func rankMetrics(ranking []string, grades metrics.Judgments, k int) *Metrics {
	return &Metrics{
		ReciprocalRank: contract.Float6(metrics.RecipRank(ranking, grades, 1)),
		NDCGAtK:        contract.Float6(metrics.NDCGCutAt(ranking, grades, k)),
		DocRecallAtK:   contract.Float6(metrics.RecallAt(ranking, grades, 1, k)),
		PrecisionAtK:   contract.Float6(metrics.PrecisionAt(ranking, grades, 1, k)),
	}
}

// documentRanking maps blocks to document identities, keeping first
// occurrences, and builds the case's graded judgments (docs/checks.md). The
// identity is the docId when the case uses expectedDocIds, else the
// source. exp is ExpectedOf(c).
func documentRanking(c *contract.Case, blocks []block, exp Expected) ([]string, metrics.Judgments) {
	byDocID := c.UsesDocIDIdentity()
	ranking := make([]string, 0, len(blocks))
	seen := make(map[string]struct{}, len(blocks))
	grades := metrics.Judgments{}
	for i := range blocks {
		id := blocks[i].source
		if byDocID {
			id = blocks[i].docID
			if inSet(exp.sources, blocks[i].source) && id != "" {
				grades[strings.Clone(id)] = 1 // kept: a copy, not the fixture's buffer
			}
		}
		if id == "" {
			continue
		}
		if _, dup := seen[id]; dup {
			continue
		}
		id = strings.Clone(id) // kept in the result: a copy, not the fixture's buffer
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

// keywordCoverage is what the top K cover of a case's expected keywords. A
// keyword is found when its normalised form is in the normalised excerpt
// of a single top-K block. Keywords equal once normalised count once.
type keywordCoverage struct {
	found, distinct int
	missing         []string
}

func coverKeywords(keywords []string, top []block) keywordCoverage {
	var kc keywordCoverage
	seen := map[string]bool{}
	for _, kw := range keywords {
		n := textnorm.Normalize(kw)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		kc.distinct++
		if anyExcerptHas(top, n) {
			kc.found++
		} else {
			kc.missing = append(kc.missing, kw)
		}
	}
	return kc
}

// anyExcerptHas reports whether the normalised excerpt of some block in
// top contains n.
func anyExcerptHas(top []block, n string) bool {
	for i := range top {
		if strings.Contains(top[i].normExcerpt(), n) {
			return true
		}
	}
	return false
}

// coverage is found / distinct, 1 when there is no keyword to find.
func (kc *keywordCoverage) coverage() float64 {
	if kc.distinct == 0 {
		return 1
	}
	return float64(kc.found) / float64(kc.distinct)
}

// minCoverage is the case's minKeywordCoverage, 1 when unset.
func minCoverage(c *contract.Case) float64 {
	if c.MinKeywordCoverage != nil {
		return *c.MinKeywordCoverage
	}
	return 1
}

// uncoveredBreadcrumbs returns the expected breadcrumbs that match no
// top-K block's: once normalised, a block breadcrumb matches when it is the
// expected one or starts with it followed by " > ".
func uncoveredBreadcrumbs(want []string, top []block) []string {
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

// float6 is v as the reports write numbers (contract.Float6).
func float6(v float64) string {
	return string(contract.AppendFloat6(nil, v))
}
