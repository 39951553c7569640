package judge

import (
	"sort"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// Summary aggregates case results (docs/checks.md). A ratio or mean with nothing
// to divide by is nil. Its JSON form is the report's summary.
type Summary struct {
	CaseCount   int `json:"caseCount"`
	PassCount   int `json:"passCount"`
	FailCount   int `json:"failCount"`
	NotRunCount int `json:"notRunCount"`
	ErrorCount  int `json:"errorCount"`
	// SkippedCount counts the cases of status skipped. The JSON omits it
	// when 0.
	SkippedCount int `json:"skippedCount,omitempty"`
	// DraftCount counts the cases of status draft. The JSON omits it when
	// 0.
	DraftCount int `json:"draftCount,omitempty"`

	// PassRate is passCount / (caseCount − skippedCount − draftCount): a
	// skipped case is counted apart, neither a pass nor a failure, and a
	// draft is not judged.
	PassRate *contract.Float6 `json:"passRate"`
	// HitLevels counts judged cases by hit level.
	HitLevels HitLevels `json:"hitLevels"`

	RecallAtK            *contract.Float6 `json:"recallAtK"`
	AvgFirstExpectedRank *contract.Float6 `json:"avgFirstExpectedRank"`
	MRR                  *contract.Float6 `json:"mrr"`
	NDCGAtK              *contract.Float6 `json:"ndcgAtK"`
	DocRecallAtK         *contract.Float6 `json:"docRecallAtK"`
	PrecisionAtK         *contract.Float6 `json:"precisionAtK"`
	// KeywordCoverage is the mean keyword coverage of the judged cases
	// that declare keywords.
	KeywordCoverage *contract.Float6 `json:"keywordCoverage"`
	FallbackRate    *contract.Float6 `json:"fallbackRate"`

	// Histograms over judged cases. Relevance levels count top-K blocks.
	EvidenceStatus  map[string]int `json:"evidenceStatus"`
	SelectedAttempt map[string]int `json:"selectedAttempt"`
	RelevanceLevels map[string]int `json:"relevanceLevels"`
	// SearchModes are the distinct searchModes seen, sorted: a pipeline's
	// own declared search mode when it declares one, else the fixture's.
	SearchModes []string `json:"searchModes"`
	// SkippedChecks counts the skipped checks of the judged cases by check
	// and reason, in the order of the checks. The JSON omits it when no
	// check was skipped.
	SkippedChecks []SkippedChecks `json:"skippedChecks,omitempty"`
}

// SkippedChecks is how many times a check was skipped for one reason.
type SkippedChecks struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

// Passed reports whether every case passed, was skipped or is a draft, and
// something was judged. No case may have failed, not run or errored. A
// run whose judged cases were all skipped judged nothing of the retrieval
// and is no pass (NothingJudged). A run of drafts only passes: drafts are
// never gated (AllDrafts). Passed is rag-eval's exit status 0.
func (s *Summary) Passed() bool {
	return s.PassCount+s.SkippedCount+s.DraftCount == s.CaseCount && !s.NothingJudged()
}

// NothingJudged reports whether every case but the drafts was skipped, and
// some was: the pipeline declares it lacks every part the golden cases
// check.
func (s *Summary) NothingJudged() bool {
	return s.SkippedCount > 0 && s.SkippedCount == s.CaseCount-s.DraftCount
}

// AllDrafts reports whether every case is a draft, so that nothing is
// gated yet.
func (s *Summary) AllDrafts() bool { return s.CaseCount > 0 && s.DraftCount == s.CaseCount }

// SkippedCheckCount is the number of skipped checks.
func (s *Summary) SkippedCheckCount() int {
	n := 0
	for _, sc := range s.SkippedChecks {
		n += sc.Count
	}
	return n
}

// HitLevels counts cases per hit level.
type HitLevels struct {
	Strong int `json:"strong"`
	Medium int `json:"medium"`
	Weak   int `json:"weak"`
	Miss   int `json:"miss"`
	NA     int `json:"n/a"`
}

// Known histogram keys, always present with 0 counts.
var (
	knownEvidenceStatus  = []string{contract.EvidenceSufficient, contract.EvidenceWeak, contract.EvidenceNone}
	knownSelectedAttempt = []string{contract.AttemptFiltered, contract.AttemptUnfiltered, contract.AttemptUnfilteredRetry}
	knownRelevanceLevels = []string{contract.LevelHigh, contract.LevelMedium, contract.LevelLow}
)

// Summarize aggregates results.
func Summarize(results []*CaseResult) Summary {
	s := Summary{
		EvidenceStatus:  zeroHist(knownEvidenceStatus),
		SelectedAttempt: zeroHist(knownSelectedAttempt),
		RelevanceLevels: zeroHist(knownRelevanceLevels),
		SearchModes:     []string{},
	}
	var (
		judged, ranked, retries, firstRankN, keyworded      int
		firstRankSum, rr, ndcg, recall, precision, coverage float64
		modes                                               = map[string]bool{}
		skips                                               = map[skipKey]int{}
	)
	for _, r := range results {
		s.CaseCount++
		switch r.Status {
		case StatusPass:
			s.PassCount++
		case StatusFail:
			s.FailCount++
		case StatusNotRun:
			s.NotRunCount++
		case StatusError:
			s.ErrorCount++
		case StatusSkipped:
			s.SkippedCount++
		case StatusDraft:
			s.DraftCount++
		}
		if !r.Status.Judged() {
			continue
		}
		for _, ch := range r.Checks {
			if ch.Skipped {
				skips[skipKey{ch.Name, messageOf(ch)}]++
			}
		}
		judged++
		level := HitNA
		if r.HitLevel != nil {
			level = *r.HitLevel
		}
		switch level {
		case HitStrong:
			s.HitLevels.Strong++
		case HitMedium:
			s.HitLevels.Medium++
		case HitWeak:
			s.HitLevels.Weak++
		case HitMiss:
			s.HitLevels.Miss++
		default:
			s.HitLevels.NA++
		}
		if r.FirstExpectedRank != nil {
			firstRankN++
			firstRankSum += float64(*r.FirstExpectedRank)
		}
		if m := r.Metrics; m != nil {
			ranked++
			rr += float64(m.ReciprocalRank)
			ndcg += float64(m.NDCGAtK)
			recall += float64(m.DocRecallAtK)
			precision += float64(m.PrecisionAtK)
		}
		if r.KeywordCoverage != nil {
			keyworded++
			coverage += *r.KeywordCoverage
		}
		if r.SelectedAttempt != nil {
			s.SelectedAttempt[*r.SelectedAttempt]++
			if *r.SelectedAttempt == contract.AttemptUnfilteredRetry {
				retries++
			}
		}
		if r.EvidenceStatus != nil {
			s.EvidenceStatus[*r.EvidenceStatus]++
		}
		for _, c := range r.TopCandidates {
			if c.RelevanceLevel != "" {
				s.RelevanceLevels[c.RelevanceLevel]++
			}
		}
		if r.SearchMode != nil {
			modes[*r.SearchMode] = true
		}
	}
	s.PassRate = ratio(float64(s.PassCount), s.CaseCount-s.SkippedCount-s.DraftCount)
	hits := s.HitLevels.Strong + s.HitLevels.Medium
	s.RecallAtK = ratio(float64(hits), hits+s.HitLevels.Weak+s.HitLevels.Miss)
	s.AvgFirstExpectedRank = ratio(firstRankSum, firstRankN)
	s.MRR = ratio(rr, ranked)
	s.NDCGAtK = ratio(ndcg, ranked)
	s.DocRecallAtK = ratio(recall, ranked)
	s.PrecisionAtK = ratio(precision, ranked)
	s.KeywordCoverage = ratio(coverage, keyworded)
	s.FallbackRate = ratio(float64(retries), judged)
	for m := range modes {
		s.SearchModes = append(s.SearchModes, m)
	}
	sort.Strings(s.SearchModes)
	for key, n := range skips {
		s.SkippedChecks = append(s.SkippedChecks, SkippedChecks{Check: key.check, Reason: key.reason, Count: n})
	}
	sort.Slice(s.SkippedChecks, func(a, b int) bool {
		x, y := &s.SkippedChecks[a], &s.SkippedChecks[b]
		if ix, iy := checkIndex(x.Check), checkIndex(y.Check); ix != iy {
			return ix < iy
		}
		return x.Reason < y.Reason
	})
	return s
}

type skipKey struct{ check, reason string }

// checkIndex is the position of the check called name in the table.
func checkIndex(name string) int {
	for i := range checks {
		if checks[i].name == name {
			return i
		}
	}
	return len(checks)
}

func messageOf(ch Check) string {
	s := ch.Message
	if s == nil {
		return ""
	}
	return *s
}

// Group is a named subset of the results (a scenario or a tag).
type Group struct {
	Name    string
	Summary Summary
}

// Totals is the summary of a run overall, per scenario and per tag.
type Totals struct {
	Overall    Summary
	ByScenario []Group // sorted by name
	ByTag      []Group // sorted by name
}

// Summarize builds the overall, per-scenario and per-tag summaries.
func (r *Result) Summarize() Totals {
	all := make([]*CaseResult, len(r.Cases))
	scen := map[string][]*CaseResult{}
	tags := map[string][]*CaseResult{}
	for i := range r.Cases {
		cr := &r.Cases[i]
		all[i] = cr
		scen[cr.Scenario] = append(scen[cr.Scenario], cr)
		seen := map[string]bool{}
		for _, t := range cr.Tags {
			if !seen[t] {
				seen[t] = true
				tags[t] = append(tags[t], cr)
			}
		}
	}
	return Totals{Overall: Summarize(all), ByScenario: groups(scen), ByTag: groups(tags)}
}

func groups(m map[string][]*CaseResult) []Group {
	out := make([]Group, 0, len(m))
	for name, rs := range m {
		out = append(out, Group{Name: name, Summary: Summarize(rs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func zeroHist(keys []string) map[string]int {
	m := make(map[string]int, len(keys))
	for _, k := range keys {
		m[k] = 0
	}
	return m
}

func ratio(num float64, den int) *contract.Float6 {
	if den == 0 {
		return nil
	}
	v := contract.Float6(num / float64(den))
	return &v
}
