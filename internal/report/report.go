package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// SchemaVersion is the version of the JSON report format.
const SchemaVersion = 1

// Report is the offline judge's report (docs/reports.md). Field order is the JSON
// key order; it is built once from a judge.Result and rendered by WriteJSON,
// WriteMarkdown, WriteJUnit and WriteText.
type Report struct {
	SchemaVersion int                `json:"schemaVersion"`
	Tool          string             `json:"tool"`
	Inputs        Inputs             `json:"inputs"`
	Summary       Summary            `json:"summary"`
	ByScenario    map[string]Summary `json:"byScenario"`
	ByTag         map[string]Summary `json:"byTag"`
	Warnings      []string           `json:"warnings"`
	Cases         []Case             `json:"cases"`
}

// Inputs identify what was judged.
type Inputs struct {
	Cases       string `json:"cases"`
	CasesSHA256 string `json:"casesSha256"`
	Fixtures    string `json:"fixtures"`
	K           int    `json:"k"`
}

// Float is a nullable metric written rounded to 6 decimals.
type Float = *contract.Float6

// Summary is the JSON form of judge.Summary.
type Summary struct {
	CaseCount            int            `json:"caseCount"`
	PassCount            int            `json:"passCount"`
	FailCount            int            `json:"failCount"`
	NotRunCount          int            `json:"notRunCount"`
	ErrorCount           int            `json:"errorCount"`
	PassRate             Float          `json:"passRate"`
	HitLevels            HitLevels      `json:"hitLevels"`
	RecallAtK            Float          `json:"recallAtK"`
	AvgFirstExpectedRank Float          `json:"avgFirstExpectedRank"`
	MRR                  Float          `json:"mrr"`
	NDCGAtK              Float          `json:"ndcgAtK"`
	DocRecallAtK         Float          `json:"docRecallAtK"`
	PrecisionAtK         Float          `json:"precisionAtK"`
	FallbackRate         Float          `json:"fallbackRate"`
	EvidenceStatus       map[string]int `json:"evidenceStatus"`
	SelectedAttempt      map[string]int `json:"selectedAttempt"`
	RelevanceLevels      map[string]int `json:"relevanceLevels"`
	SearchModes          []string       `json:"searchModes"`
}

// HitLevels counts judged cases per hit level.
type HitLevels struct {
	Strong int `json:"strong"`
	Medium int `json:"medium"`
	Weak   int `json:"weak"`
	Miss   int `json:"miss"`
	NA     int `json:"n/a"`
}

// Case is one case's line in the report.
type Case struct {
	CaseID            string      `json:"caseId"`
	Scenario          string      `json:"scenario"`
	Tags              []string    `json:"tags"`
	Query             string      `json:"query"`
	Status            string      `json:"status"`
	Reason            *string     `json:"reason"`
	K                 int         `json:"k"`
	HitLevel          *string     `json:"hitLevel"`
	FirstExpectedRank *int        `json:"firstExpectedRank"`
	TopCandidates     []Candidate `json:"topCandidates"`
	Checks            []Check     `json:"checks"`
	FailedChecks      []string    `json:"failedChecks"`
	SelectedAttempt   *string     `json:"selectedAttempt"`
	FallbackReason    *string     `json:"fallbackReason"`
	EvidenceStatus    *string     `json:"evidenceStatus"`
	RerankTopSource   *string     `json:"rerankTopSource"`
	SearchMode        *string     `json:"searchMode"`
	Metrics           *Metrics    `json:"metrics"`
}

// Candidate is a top-K block as reported.
type Candidate struct {
	Rank           int    `json:"rank"`
	Source         string `json:"source"`
	DocID          string `json:"docId"`
	Breadcrumb     string `json:"breadcrumb"`
	Category       string `json:"category"`
	RelevanceLevel string `json:"relevanceLevel"`
	QualityScore   Float  `json:"qualityScore"`
}

// Check is one declared check's outcome.
type Check struct {
	Name    string  `json:"name"`
	Passed  bool    `json:"passed"`
	Message *string `json:"message"`
}

// Metrics are a case's rank metrics.
type Metrics struct {
	ReciprocalRank contract.Float6 `json:"reciprocalRank"`
	NDCGAtK        contract.Float6 `json:"ndcgAtK"`
	DocRecallAtK   contract.Float6 `json:"docRecallAtK"`
	PrecisionAtK   contract.Float6 `json:"precisionAtK"`
}

// Build turns a judge result into a report. casesPath and fixturesPath are
// written as given; casesSHA256 is the hex digest of the golden file.
func Build(res *judge.Result, casesPath, casesSHA256 string) *Report {
	t := res.Summarize()
	r := &Report{
		SchemaVersion: SchemaVersion,
		Tool:          "rag-eval",
		Inputs: Inputs{
			Cases: casesPath, CasesSHA256: casesSHA256, Fixtures: res.Fixtures,
			K: res.Golden.ReportK(res.FlagK),
		},
		Summary:    summary(t.Overall),
		ByScenario: map[string]Summary{},
		ByTag:      map[string]Summary{},
		Warnings:   []string{},
		Cases:      make([]Case, len(res.Cases)),
	}
	for _, g := range t.ByScenario {
		r.ByScenario[g.Name] = summary(g.Summary)
	}
	for _, g := range t.ByTag {
		r.ByTag[g.Name] = summary(g.Summary)
	}
	for _, w := range res.Warnings {
		r.Warnings = append(r.Warnings, w.Error())
	}
	for i := range res.Cases {
		r.Cases[i] = caseOf(&res.Cases[i])
	}
	return r
}

// BuildSummary is the overall summary (docs/checks.md) of res, as Build would report it.
func BuildSummary(res *judge.Result) Summary { return summary(res.Summarize().Overall) }

func summary(s judge.Summary) Summary {
	return Summary{
		CaseCount: s.CaseCount, PassCount: s.PassCount, FailCount: s.FailCount,
		NotRunCount: s.NotRunCount, ErrorCount: s.ErrorCount,
		PassRate: fl(s.PassRate),
		HitLevels: HitLevels{
			Strong: s.HitLevels.Strong, Medium: s.HitLevels.Medium, Weak: s.HitLevels.Weak,
			Miss: s.HitLevels.Miss, NA: s.HitLevels.NA,
		},
		RecallAtK: fl(s.RecallAtK), AvgFirstExpectedRank: fl(s.AvgFirstExpectedRank), MRR: fl(s.MRR),
		NDCGAtK: fl(s.NDCGAtK), DocRecallAtK: fl(s.DocRecallAtK), PrecisionAtK: fl(s.PrecisionAtK),
		FallbackRate:    fl(s.FallbackRate),
		EvidenceStatus:  maps.Clone(s.EvidenceStatus),
		SelectedAttempt: maps.Clone(s.SelectedAttempt),
		RelevanceLevels: maps.Clone(s.RelevanceLevels),
		SearchModes:     append([]string{}, s.SearchModes...),
	}
}

func caseOf(cr *judge.CaseResult) Case {
	c := Case{
		CaseID: cr.Case.CaseID, Scenario: cr.Case.Scenario, Tags: append([]string{}, cr.Case.Tags...),
		Query: cr.Case.Query, Status: string(cr.Status), K: cr.K,
		TopCandidates: make([]Candidate, len(cr.TopCandidates)), Checks: make([]Check, len(cr.Checks)),
		FailedChecks:    cr.FailedChecks(),
		SelectedAttempt: cr.SelectedAttempt, FallbackReason: cr.FallbackReason,
		EvidenceStatus: cr.EvidenceStatus, RerankTopSource: cr.RerankTopSource, SearchMode: cr.SearchMode,
	}
	if cr.Reason != "" {
		c.Reason = &cr.Reason
	}
	if cr.HitLevel != "" {
		c.HitLevel = &cr.HitLevel
	}
	if cr.FirstExpectedRank > 0 {
		c.FirstExpectedRank = &cr.FirstExpectedRank
	}
	for i, t := range cr.TopCandidates {
		c.TopCandidates[i] = Candidate{
			Rank: t.Rank, Source: t.Source, DocID: t.DocID, Breadcrumb: t.Breadcrumb,
			Category: t.Category, RelevanceLevel: t.RelevanceLevel, QualityScore: fl(t.QualityScore),
		}
	}
	for i, ch := range cr.Checks {
		c.Checks[i] = Check{Name: ch.Name, Passed: ch.Passed}
		if !ch.Passed {
			msg := ch.Message
			c.Checks[i].Message = &msg
		}
	}
	if m := cr.Metrics; m != nil {
		c.Metrics = &Metrics{
			ReciprocalRank: contract.Float6(m.ReciprocalRank), NDCGAtK: contract.Float6(m.NDCGAtK),
			DocRecallAtK: contract.Float6(m.DocRecallAtK), PrecisionAtK: contract.Float6(m.PrecisionAtK),
		}
	}
	return c
}

func fl(v *float64) Float {
	if v == nil {
		return nil
	}
	f := contract.Float6(*v)
	return &f
}

// WriteJSON writes r as indented JSON (two spaces, no HTML escaping, a
// trailing newline). The same report always gives the same bytes.
//
// The cases, which are most of a large report, are encoded concurrently by
// appendCase; the output is byte for byte what encoding/json gives for the
// whole report (TestWriteJSONMatchesEncodingJSON).
func (r *Report) WriteJSON(w io.Writer) error {
	head := *r
	head.Cases = []Case{}
	var buf bytes.Buffer
	if err := writeJSON(&buf, &head); err != nil {
		return err
	}
	const emptyTail = "\"cases\": []\n}\n"
	out := buf.Bytes()
	if !bytes.HasSuffix(out, []byte(emptyTail)) {
		return fmt.Errorf("report: unexpected JSON layout")
	}
	if len(r.Cases) == 0 {
		_, err := w.Write(out)
		return err
	}
	out = out[:len(out)-len(emptyTail)]
	parts := make([][]byte, len(r.Cases))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(r.Cases)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b []byte
			for {
				i := int(next.Add(1)) - 1
				if i >= len(r.Cases) {
					return
				}
				b = appendCase(b[:0], &r.Cases[i], "    ")
				parts[i] = bytes.Clone(b)
			}
		}()
	}
	wg.Wait()
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(out)
	bw.WriteString("\"cases\": [\n")
	for i, p := range parts {
		if i > 0 {
			bw.WriteString(",\n")
		}
		bw.WriteString("    ")
		bw.Write(p)
	}
	bw.WriteString("\n  ]\n}\n")
	return bw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ErrSchemaVersion is returned by ReadJSON for a report of another schema.
type ErrSchemaVersion struct{ Got int }

func (e *ErrSchemaVersion) Error() string {
	return fmt.Sprintf("report schemaVersion %d is not supported (supported: %d)", e.Got, SchemaVersion)
}

// ReadJSON decodes a JSON report, such as a baseline. A report with another
// schemaVersion is an *ErrSchemaVersion.
func ReadJSON(data []byte) (*Report, error) {
	var head struct {
		SchemaVersion *int `json:"schemaVersion"`
		Tool          string
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a rag-eval JSON report: %w", err)
	}
	if head.SchemaVersion == nil {
		return nil, fmt.Errorf("not a rag-eval JSON report: no schemaVersion")
	}
	if *head.SchemaVersion != SchemaVersion {
		return nil, &ErrSchemaVersion{Got: *head.SchemaVersion}
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not a rag-eval JSON report: %w", err)
	}
	return &r, nil
}
