package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// SchemaVersion is the version of the JSON report format.
const SchemaVersion = 1

// Report is the offline judge's report (docs/reports.md): the judge's
// summaries and case results as they are, with what was judged. Field
// order is the JSON key order. Build makes it once, or ReadJSON reads it
// back, and WriteJSON, WriteMarkdown, WriteJUnit and WriteText render it.
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
	// Snapshot is what the fixture directory's manifest says made the
	// fixtures (SnapshotOf). It is nil, and absent from the JSON, when the
	// directory has no readable manifest of an available snapshot.
	Snapshot *Snapshot `json:"snapshot,omitempty"`
}

// Snapshot is the part of a fixture directory's manifest (_snapshot.json)
// that describes how the fixtures were made, so that a baseline diff can
// say what changed between two snapshots ("chunk size 800 → 120").
type Snapshot struct {
	SearchMode string             `json:"searchMode"`
	KBScope    string             `json:"kbScope"`
	Pipeline   *contract.Pipeline `json:"pipeline"`
	// Seed is null when the manifest does not say (an HTTP pipeline, a
	// store seeded before it was recorded, an older rag-snapshot).
	Seed *contract.SeedRecord `json:"seed"`
}

// SnapshotOf is the Snapshot of a manifest. It is nil for a nil manifest
// and for one whose status is not available.
func SnapshotOf(m *contract.Manifest) *Snapshot {
	if m == nil || m.Status != contract.StatusAvailable {
		return nil
	}
	return &Snapshot{SearchMode: m.SearchMode, KBScope: m.KBScope, Pipeline: m.Pipeline, Seed: m.Seed}
}

// Build makes the report of a judge result. The report shares res's cases.
// casesPath is written as given. casesSHA256 is the hex digest of the
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
// golden case (Case), ranking or grades. A leading byte order mark is
// skipped (contract.TrimBOM).
func ReadJSON(data []byte) (*Report, error) {
	data = contract.TrimBOM(data)
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
	// One decoding, into types that also read the candidates' evidenceKey
	// and excerptStart, which are not judge.Candidate's JSON (WriteJSON
	// writes them by hand). A report written before they were has neither.
	var rj reportJSON
	if err := json.Unmarshal(data, &rj); err != nil {
		return nil, fmt.Errorf("not a rag-eval JSON report: %w", err)
	}
	r := rj.Report
	if rj.Cases != nil {
		r.Cases = make([]judge.CaseResult, len(rj.Cases))
	}
	for i := range rj.Cases {
		c := &rj.Cases[i]
		r.Cases[i] = c.CaseResult
		if c.TopCandidates == nil {
			r.Cases[i].TopCandidates = nil
			continue
		}
		tops := make([]judge.Candidate, len(c.TopCandidates))
		for j, t := range c.TopCandidates {
			tops[j] = t.Candidate
			tops[j].EvidenceKey, tops[j].ExcerptStart = t.EvidenceKey, t.ExcerptStart
		}
		r.Cases[i].TopCandidates = tops
	}
	return &r, nil
}

// reportJSON, caseJSON and candidateJSON are Report, judge.CaseResult and
// judge.Candidate as ReadJSON decodes them: a candidate's evidenceKey and
// excerptStart included. The outer fields hide the embedded ones of the
// same JSON name.
type reportJSON struct {
	Report
	Cases []caseJSON `json:"cases"`
}

type caseJSON struct {
	judge.CaseResult
	TopCandidates []candidateJSON `json:"topCandidates"`
}

type candidateJSON struct {
	judge.Candidate
	EvidenceKey  string `json:"evidenceKey"`
	ExcerptStart string `json:"excerptStart"`
}

// writeSnapshotLine writes, after the Markdown report's inputs line, the
// SnapshotLine: "Snapshot: hybrid, kbScope rag-eval, …". Nothing without
// a snapshot.
func writeSnapshotLine(b *bufio.Writer, s *Snapshot) {
	if s == nil {
		return
	}
	fmt.Fprintf(b, "Snapshot: %s.\n\n", escape(SnapshotLine(s)))
}

// SnapshotLine says what the manifest says made the fixtures, as the
// Markdown and HTML reports show it:
//
//	hybrid, kbScope rag-eval, builtin pipeline, embedder use-multilingual-v3 (512), fusion anchored; seeded with chunk size 800, overlap 100, 40 documents (corpus 13134c7f8ec5)
//
// A pipeline's own declared search mode replaces the requested one, which
// it does not run, and its declared capabilities are listed:
//
//	bm25 (as the pipeline declares), kbScope rag-eval, http pipeline, declares contextPack
//
// A pipeline's fixtures made without a search mode, as those of a
// production side, say none:
//
//	kbScope rag-eval, production pipeline, declares none of the optional parts
//
// It is "" without a snapshot.
func SnapshotLine(s *Snapshot) string {
	if s == nil {
		return ""
	}
	parts := []string{s.SearchMode, "kbScope " + s.KBScope}
	if p := s.Pipeline; p != nil {
		if p.SearchMode != "" && p.SearchMode != s.SearchMode {
			parts[0] = p.SearchMode + " (as the pipeline declares)"
		}
		parts = append(parts, p.Name+" pipeline")
		if p.Embedder != "" || p.Dim != 0 {
			parts = append(parts, fmt.Sprintf("embedder %s (%d)", p.Embedder, p.Dim))
		}
		if p.Params != nil && p.Params.Fusion != "" {
			parts = append(parts, "fusion "+p.Params.Fusion)
		}
		switch {
		case p.Capabilities == nil:
		case len(p.Capabilities) == 0:
			parts = append(parts, "declares none of the optional parts")
		default:
			parts = append(parts, "declares "+strings.Join(p.Capabilities, ", "))
		}
	}
	if parts[0] == "" && s.Pipeline != nil {
		parts = parts[1:] // no search mode requested, as for a production side
	}
	line := strings.Join(parts, ", ")
	if sd := s.Seed; sd != nil {
		line += fmt.Sprintf("; seeded with chunk size %d, overlap %d, %d documents (corpus %s)",
			sd.ChunkSize, sd.ChunkOverlap, sd.Documents, mdcell.ShortHash(sd.CorpusSHA256))
	}
	return line
}
