package judge

import (
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/metrics"
)

// The result types below are the one shape of a judgement. The report
// (package report), the comparison (package compare) and the calibration
// (package calibrate) all draw from them. Their JSON form is the report's
// (docs/reports.md). Fields come in key order, a nil pointer is null, and
// numbers are rounded by contract.Float6. Arrays the judge builds are
// never nil.

// Status is the outcome of one case.
type Status string

// Case statuses (docs/checks.md).
const (
	StatusPass   Status = "pass"
	StatusFail   Status = "fail"
	StatusNotRun Status = "not_run"
	StatusError  Status = "error"
	// StatusSkipped: the case did not fail, but every check it declares
	// besides query was skipped (its pipeline declares it lacks what they
	// need), so nothing of its retrieval was judged. Not a pass.
	StatusSkipped Status = "skipped"
	// StatusDraft: the golden case is a draft ("draft": true). Nothing of it
	// is judged. Its fixture's candidates and traced fields are reported
	// when there is one, and Reason says why when there is none to show.
	// A draft counts in no rate, mean or gate.
	StatusDraft Status = "draft"
)

// Judged reports whether the case's fixture was judged (pass, fail or
// skipped), as opposed to not run or broken.
func (s Status) Judged() bool { return s == StatusPass || s == StatusFail || s == StatusSkipped }

// Hit levels (docs/checks.md). A not_run or error case has none (nil).
const (
	HitStrong = "strong"
	HitMedium = "medium"
	HitWeak   = "weak"
	HitMiss   = "miss"
	HitNA     = "n/a"
)

// CaseResult is the judgement of one golden case.
type CaseResult struct {
	// CaseID, Scenario, Tags and Query are the golden case's.
	CaseID   string   `json:"caseId"`
	Scenario string   `json:"scenario"`
	Tags     []string `json:"tags"`
	Query    string   `json:"query"`
	Status   Status   `json:"status"`
	// Reason explains not_run and error. It is nil for pass and fail. For
	// a draft it says why its fixture is not shown (none, broken or stale),
	// and is nil when it is.
	Reason *string `json:"reason"`
	// K is the case's K: checks and hit levels count K blocks, rank metrics
	// count K documents.
	K int `json:"k"`
	// HitLevel is strong|medium|weak|miss|n/a, nil for not_run, error and
	// draft.
	HitLevel *string `json:"hitLevel"`
	// FirstExpectedRank is the 1-based position of the first expected block
	// in the whole block list, nil when there is none.
	FirstExpectedRank *int `json:"firstExpectedRank"`
	// TopCandidates are the first K blocks in block order.
	TopCandidates []Candidate `json:"topCandidates"`
	// Checks are the declared checks in the order of docs/checks.md.
	// FailedChecks names those that failed, in the same order, and
	// SkippedChecks those that were skipped. The JSON omits SkippedChecks
	// when none was.
	Checks        []Check  `json:"checks"`
	FailedChecks  []string `json:"failedChecks"`
	SkippedChecks []string `json:"skippedChecks,omitempty"`
	// Fixture fields reported as they were, nil when absent or not run.
	SelectedAttempt *string `json:"selectedAttempt"`
	FallbackReason  *string `json:"fallbackReason"` // nil also when the fixture has JSON null
	EvidenceStatus  *string `json:"evidenceStatus"`
	RerankTopSource *string `json:"rerankTopSource"`
	SearchMode      *string `json:"searchMode"`
	// Metrics is nil for n/a, not_run, error and draft cases.
	Metrics *Metrics `json:"metrics"`

	// Case is the golden case that was judged. It is nil in a result read
	// back from a JSON report.
	Case *contract.Case `json:"-"`
	// Ranking is the case's document ranking and Grades its judgments, both
	// in the identity space of the case, for TREC export and calibration.
	// They are nil when Metrics is, and in a result read back from JSON.
	Ranking []string          `json:"-"`
	Grades  metrics.Judgments `json:"-"`
	// KeywordCoverage is the share of the case's distinct expected
	// keywords found in the top K, the keywords check's coverage, for the
	// summary's mean. It is nil when the case declares no keywords, when it
	// was not judged, and in a result read back from JSON.
	KeywordCoverage *float64 `json:"-"`
	// Trace is the fixture's retrieval trace: the attempts with their
	// filters, the selected attempt and the fallback reason. KeepEvidence
	// keeps it for the HTML report when Options.Evidence asks. It is nil
	// otherwise, for a case without lookupResult, and in a result read back
	// from JSON.
	Trace *contract.RetrievalTrace `json:"-"`
}

// Candidate is the part of an evidence block that reports show.
type Candidate struct {
	Rank           int    `json:"rank"` // position after block ordering, 1-based
	Source         string `json:"source"`
	DocID          string `json:"docId"` // effective docId (<kbScope>/<source> when absent)
	Breadcrumb     string `json:"breadcrumb"`
	Category       string `json:"category"`
	ScoreLabel     string `json:"scoreLabel"`
	RelevanceLevel string `json:"relevanceLevel"`
	// QualityScore is nil when the block has none.
	QualityScore *contract.Float6 `json:"qualityScore"`
	// EvidenceKey is the block's evidenceKey, "" when it has none.
	// ExcerptStart is the first words of its excerpt (ExcerptStart), set
	// only for a block without evidenceKey. Reports show one of them, so
	// that two chunks of one section differ visibly. The JSON report
	// writes them by hand, and encoding/json leaves them out, so the
	// comparison's JSON has neither.
	EvidenceKey  string `json:"-"`
	ExcerptStart string `json:"-"`
	// Excerpt is the block's text. KeepEvidence keeps it for the HTML
	// report when Options.Evidence asks. It is "" otherwise and in a result
	// read back from JSON. No JSON report carries it.
	Excerpt string `json:"-"`
}

// Excerpt starts are at most excerptWords words and excerptChars
// characters long.
const (
	excerptWords = 8
	excerptChars = 60
)

// ExcerptStart is the start of an excerpt as reports show it to tell a
// block apart: its first 8 words, with runs of white space as one space,
// cut to at most 60 characters, followed by "…" when anything was left
// out. Text without spaces, such as Chinese, is cut by characters only.
func ExcerptStart(excerpt string) string {
	words := strings.Fields(excerpt)
	head, cut := diag.Prefix(strings.Join(words[:min(len(words), excerptWords)], " "), excerptChars, diag.Chars)
	if cut || len(words) > excerptWords {
		head += diag.Ellipsis
	}
	return head
}

// BlockLabel is what reports show to tell a block apart from another chunk
// of the same section: "key " and its evidenceKey, else the start of its
// excerpt in quotes ("“Raise max_connections first…”"), else "".
func BlockLabel(evidenceKey, excerptStart string) string {
	switch {
	case evidenceKey != "":
		return "key " + evidenceKey
	case excerptStart != "":
		return "“" + excerptStart + "”"
	}
	return ""
}

// Label is c's BlockLabel.
func (c *Candidate) Label() string { return BlockLabel(c.EvidenceKey, c.ExcerptStart) }

// Check is the outcome of one declared check. Message is nil when it
// passed. A check is skipped when its pipeline declares it lacks the
// capability the check needs. A skipped check has Passed false, Skipped
// true and the reason as its Message. The JSON omits Skipped when false.
type Check struct {
	Name    string  `json:"name"`
	Passed  bool    `json:"passed"`
	Skipped bool    `json:"skipped,omitempty"`
	Message *string `json:"message"`
}

// Metrics are a case's rank metrics over its document ranking (docs/checks.md),
// computed exactly as trec_eval computes recip_rank, ndcg_cut.K, recall.K
// and P.K.
type Metrics struct {
	ReciprocalRank contract.Float6 `json:"reciprocalRank"`
	NDCGAtK        contract.Float6 `json:"ndcgAtK"`
	DocRecallAtK   contract.Float6 `json:"docRecallAtK"`
	PrecisionAtK   contract.Float6 `json:"precisionAtK"`
}

// CaseSet identifies the golden cases a comparison or a calibration judged
// with: the file, its sha256 and the K of the rank metrics (the "inputs"
// of their reports).
type CaseSet struct {
	Cases       string `json:"cases"`
	CasesSHA256 string `json:"casesSha256"`
	K           int    `json:"k"`
}
