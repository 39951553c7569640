package report

import (
	"encoding/json"
	"fmt"

	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// SchemaVersion is the version of the JSON report format.
const SchemaVersion = 1

// Report is the offline judge's report (docs/reports.md): the judge's summaries
// and case results as they are, with what was judged. Field order is the
// JSON key order; it is built once by Build (or read back by ReadJSON) and
// rendered by WriteJSON, WriteMarkdown, WriteJUnit and WriteText.
type Report struct {
	SchemaVersion int                      `json:"schemaVersion"`
	Tool          string                   `json:"tool"`
	Inputs        Inputs                   `json:"inputs"`
	Summary       judge.Summary            `json:"summary"`
	ByScenario    map[string]judge.Summary `json:"byScenario"`
	ByTag         map[string]judge.Summary `json:"byTag"`
	Warnings      []string                 `json:"warnings"`
	Cases         []judge.CaseResult       `json:"cases"`
}

// Inputs identify what was judged.
type Inputs struct {
	Cases       string `json:"cases"`
	CasesSHA256 string `json:"casesSha256"`
	Fixtures    string `json:"fixtures"`
	K           int    `json:"k"`
}

// Build makes the report of a judge result; the report shares res's cases.
// casesPath is written as given; casesSHA256 is the hex digest of the
// golden file.
func Build(res *judge.Result, casesPath, casesSHA256 string) *Report {
	t := res.Summarize()
	r := &Report{
		SchemaVersion: SchemaVersion,
		Tool:          "rag-eval",
		Inputs: Inputs{
			Cases: casesPath, CasesSHA256: casesSHA256, Fixtures: res.Fixtures,
			K: res.Golden.ReportK(res.FlagK),
		},
		Summary:    t.Overall,
		ByScenario: byName(t.ByScenario),
		ByTag:      byName(t.ByTag),
		Warnings:   make([]string, len(res.Warnings)),
		Cases:      res.Cases,
	}
	for i, w := range res.Warnings {
		r.Warnings[i] = w.Error()
	}
	if r.Cases == nil {
		r.Cases = []judge.CaseResult{}
	}
	return r
}

func byName(groups []judge.Group) map[string]judge.Summary {
	m := make(map[string]judge.Summary, len(groups))
	for _, g := range groups {
		m[g.Name] = g.Summary
	}
	return m
}

// ErrSchemaVersion is returned by ReadJSON for a report of another schema.
type ErrSchemaVersion struct{ Got int }

func (e *ErrSchemaVersion) Error() string {
	return fmt.Sprintf("report schemaVersion %d is not supported (supported: %d)", e.Got, SchemaVersion)
}

// ReadJSON decodes a JSON report, such as a baseline. A report with another
// schemaVersion is an *ErrSchemaVersion. The cases read back have no
// golden case (Case), ranking or grades.
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
