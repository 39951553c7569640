package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// Case changes in a baseline diff (docs/reports.md), in precedence order after
// added and removed.
const (
	ChangeAdded     = "added"
	ChangeRemoved   = "removed"
	ChangeRegressed = "regressed"
	ChangeImproved  = "improved"
	ChangeChanged   = "changed"
	ChangeUnchanged = "unchanged"
)

// Diff verdicts.
const (
	VerdictRegression = "regression"
	VerdictOK         = "ok"
)

// Diff compares a current report with a baseline report.
type Diff struct {
	SchemaVersion int              `json:"schemaVersion"`
	Baseline      string           `json:"baseline"`
	Current       string           `json:"current"`
	Verdict       string           `json:"verdict"`
	Summary       map[string]Delta `json:"summary"`
	// Inputs are what changed in what was judged: the golden file, K, and
	// what the two fixture directories' manifests say made them (the seed's
	// chunking and corpus, the search mode, the pipeline and its
	// parameters). A value only one side records is not compared.
	Inputs []FieldDiff `json:"inputs"`
	Counts Counts      `json:"counts"`
	Cases  []CaseDiff  `json:"cases"`
	// Regressions explains, one line each, why the verdict is regression.
	// The summary metrics that dropped come first (MetricRegressions), then
	// one line per removed or regressed case, in case order
	// (CaseDiff.regression).
	Regressions []string `json:"regressions"`
	// metricRegressions is how many of Regressions are the metrics'.
	metricRegressions int
}

// Delta is how one summary metric moved.
type Delta struct {
	Baseline *contract.Float6 `json:"baseline"`
	Current  *contract.Float6 `json:"current"`
	Delta    *contract.Float6 `json:"delta"`
}

// Counts counts cases per change.
type Counts struct {
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Regressed int `json:"regressed"`
	Improved  int `json:"improved"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
}

// CaseDiff is one case's change and the fields that moved.
type CaseDiff struct {
	CaseID string      `json:"caseId"`
	Change string      `json:"change"`
	Fields []FieldDiff `json:"fields"`
	// Explain says why a regressed case regressed. For a case whose first
	// expected rank grew only with its block list, it says why that is no
	// regression. It is nil for every other case.
	Explain *Explanation `json:"explain,omitempty"`
}

// Explanation is what a reader of the diff needs to see why a case
// regressed without opening the reports: the rules it broke, its failed
// checks and the evidence before and after.
type Explanation struct {
	// Why lists the regression rules the case broke, one line each
	// ("status pass → fail", "firstExpectedRank 1 → 3"), or, for a
	// changed case, why a worse rank is not a regression.
	Why []string `json:"why"`
	// FailedChecks are the current report's failed checks with their
	// messages. Reason is the current reason of a not_run or error case.
	FailedChecks []FailedCheck `json:"failedChecks"`
	Reason       *string       `json:"reason"`
	// Evidence is the first blocks of each side.
	Evidence Evidence `json:"evidence"`
}

// FailedCheck is a failed check and its message.
type FailedCheck struct {
	Name    string  `json:"name"`
	Message *string `json:"message"`
}

// Evidence is the first blocks of a case in the baseline and now (at most
// EvidenceBlocks each).
type Evidence struct {
	Baseline []EvidenceBlock `json:"baseline"`
	Current  []EvidenceBlock `json:"current"`
}

// EvidenceBlock is the compact form of a top candidate in a diff. Its
// EvidenceKey, or its ExcerptStart when it has none, tells apart two
// chunks of one section. Each is omitted when "", as for a baseline
// written before they were recorded.
type EvidenceBlock struct {
	Rank         int              `json:"rank"`
	Source       string           `json:"source"`
	Breadcrumb   string           `json:"breadcrumb"`
	QualityScore *contract.Float6 `json:"qualityScore"`
	EvidenceKey  string           `json:"evidenceKey,omitempty"`
	ExcerptStart string           `json:"excerptStart,omitempty"`
}

// EvidenceBlocks is how many top candidates of each side an Explanation
// shows.
const EvidenceBlocks = 5

// FieldDiff is one field's baseline and current value, as JSON values. An
// absent value is null.
type FieldDiff struct {
	Field    string `json:"field"`
	Baseline any    `json:"baseline"`
	Current  any    `json:"current"`
}

// Regressed reports whether the diff fails the run (exit 3).
func (d *Diff) Regressed() bool { return d.Verdict == VerdictRegression }

// MetricRegressions are the lines of Regressions that name a summary
// metric that dropped ("passRate dropped from 1 to 0.5"). The cases' lines
// follow them.
func (d *Diff) MetricRegressions() []string { return d.Regressions[:d.metricRegressions] }

// regression is the line of Diff.Regressions that says why c is a
// regression: "case x was removed", "case x regressed: status pass →
// fail". It is "" for a case that is none.
func (c *CaseDiff) regression() string {
	switch {
	case c.Change == ChangeRemoved:
		return fmt.Sprintf("case %s was removed", c.CaseID)
	case c.Change == ChangeRegressed:
		return fmt.Sprintf("case %s regressed: %s", c.CaseID, strings.Join(c.Explain.Why, "; "))
	}
	return ""
}

// diffMetrics are the summary metrics a diff reports, in report order.
var diffMetrics = []string{"passRate", "recallAtK", "mrr", "ndcgAtK", "avgFirstExpectedRank"}

func metricOf(s *judge.Summary, name string) *contract.Float6 {
	switch name {
	case "passRate":
		return s.PassRate
	case "recallAtK":
		return s.RecallAtK
	case "mrr":
		return s.MRR
	case "ndcgAtK":
		return s.NDCGAtK
	case "avgFirstExpectedRank":
		return s.AvgFirstExpectedRank
	}
	return nil
}

// Compare diffs current against baseline. Case order: the baseline's cases
// in baseline order (removed ones included), then added cases in current
// order.
func Compare(baseline, current *Report, baselinePath, currentPath string) *Diff {
	d := &Diff{
		SchemaVersion: SchemaVersion, Baseline: baselinePath, Current: currentPath,
		Summary: map[string]Delta{}, Inputs: inputChanges(&baseline.Inputs, &current.Inputs),
		Cases: []CaseDiff{}, Regressions: []string{},
	}
	for _, m := range diffMetrics {
		b, c := round(metricOf(&baseline.Summary, m)), round(metricOf(&current.Summary, m))
		delta := Delta{Baseline: b, Current: c}
		if b != nil && c != nil {
			v := contract.Float6(contract.Round6(float64(*c) - float64(*b)))
			delta.Delta = &v
		}
		d.Summary[m] = delta
		if (m == "passRate" || m == "recallAtK") && worseFloat(b, c) {
			d.Regressions = append(d.Regressions, fmt.Sprintf("%s dropped from %s to %s", m, mdcell.Float(b), mdcell.Float(c)))
		}
	}
	d.metricRegressions = len(d.Regressions)

	cur := make(map[string]*judge.CaseResult, len(current.Cases))
	for i := range current.Cases {
		cur[current.Cases[i].CaseID] = &current.Cases[i]
	}
	seen := map[string]bool{}
	for i := range baseline.Cases {
		b := &baseline.Cases[i]
		seen[b.CaseID] = true
		c, ok := cur[b.CaseID]
		if !ok {
			d.add(CaseDiff{CaseID: b.CaseID, Change: ChangeRemoved, Fields: []FieldDiff{}})
			continue
		}
		d.add(diffCase(b, c))
	}
	for i := range current.Cases {
		if c := &current.Cases[i]; !seen[c.CaseID] {
			d.add(CaseDiff{CaseID: c.CaseID, Change: ChangeAdded, Fields: []FieldDiff{}})
		}
	}
	d.Verdict = VerdictOK
	if len(d.Regressions) > 0 {
		d.Verdict = VerdictRegression
	}
	return d
}

// inputChanges lists what differs between two reports' inputs, in this
// order:
//
//   - the seed record: seed.chunkSize, seed.chunkOverlap, seed.documents,
//     seed.corpusSha256
//   - searchMode and kbScope
//   - the pipeline's fields as dotted paths in key order, such as
//     pipeline.embedder and pipeline.params.fusion
//   - casesSha256 and k
//
// The snapshot's values are compared only when both reports carry them. A
// report of an older rag-eval, a directory without manifest and a manifest
// without seed record say nothing. Within two recorded pipelines, a field
// only one side has is listed with null on the other. An older
// rag-snapshot did not record it: fusion null means plain RRF.
func inputChanges(b, c *Inputs) []FieldDiff {
	out := []FieldDiff{}
	add := func(name string, bv, cv any) {
		bj, _ := json.Marshal(bv)
		cj, _ := json.Marshal(cv)
		if string(bj) != string(cj) {
			out = append(out, FieldDiff{Field: name, Baseline: bv, Current: cv})
		}
	}
	if bs, cs := b.Snapshot, c.Snapshot; bs != nil && cs != nil {
		if bs.Seed != nil && cs.Seed != nil {
			add("seed.chunkSize", bs.Seed.ChunkSize, cs.Seed.ChunkSize)
			add("seed.chunkOverlap", bs.Seed.ChunkOverlap, cs.Seed.ChunkOverlap)
			add("seed.documents", bs.Seed.Documents, cs.Seed.Documents)
			add("seed.corpusSha256", bs.Seed.CorpusSHA256, cs.Seed.CorpusSHA256)
		}
		add("searchMode", bs.SearchMode, cs.SearchMode)
		add("kbScope", bs.KBScope, cs.KBScope)
		if bs.Pipeline != nil && cs.Pipeline != nil {
			bf, cf := flatten("pipeline", bs.Pipeline), flatten("pipeline", cs.Pipeline)
			keys := map[string]bool{}
			for k := range bf {
				keys[k] = true
			}
			for k := range cf {
				keys[k] = true
			}
			for _, k := range slices.Sorted(maps.Keys(keys)) {
				add(k, bf[k], cf[k])
			}
		}
	}
	if b.CasesSHA256 != "" && c.CasesSHA256 != "" {
		add("casesSha256", b.CasesSHA256, c.CasesSHA256)
	}
	if b.K != 0 && c.K != 0 {
		add("k", b.K, c.K)
	}
	return out
}

// flatten maps the leaves of v's JSON form to their dotted paths under
// prefix (an absent key is a nil value).
func flatten(prefix string, v any) map[string]any {
	data, _ := json.Marshal(v)
	var tree any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	_ = dec.Decode(&tree)
	out := map[string]any{}
	var walk func(string, any)
	walk = func(path string, x any) {
		if m, ok := x.(map[string]any); ok {
			for k, y := range m {
				walk(path+"."+k, y)
			}
			return
		}
		out[path] = x
	}
	walk(prefix, tree)
	return out
}

// inputLabels name the inputs people read about in the Markdown and text
// diff. Any other is shown by its path.
var inputLabels = map[string]string{
	"seed.chunkSize":                "chunk size",
	"seed.chunkOverlap":             "chunk overlap",
	"seed.documents":                "documents",
	"seed.corpusSha256":             "corpus fingerprint",
	"searchMode":                    "search mode",
	"pipeline.embedder":             "embedder",
	"pipeline.dim":                  "dimension",
	"pipeline.params.fusion":        "fusion",
	"casesSha256":                   "golden cases (sha256)",
	"k":                             "K",
	"pipeline.params.topK":          "topK",
	"pipeline.params.rerank":        "rerank",
	"pipeline.params.levels.high":   "levels.high",
	"pipeline.params.levels.medium": "levels.medium",
	"pipeline.searchMode":           "declared search mode",
	"pipeline.capabilities":         "declared capabilities",
}

// InputLines says what changed in the inputs, one line each: "chunk size
// 800 → 120", "corpus fingerprint 13134c7f8ec5 → 9a0b1c2d3e4f".
func (d *Diff) InputLines() []string {
	var out []string
	for _, f := range d.Inputs {
		label := inputLabels[f.Field]
		if label == "" {
			label = f.Field
		}
		bv, cv := mdcell.JSONText(f.Baseline), mdcell.JSONText(f.Current)
		if f.Field == "seed.corpusSha256" || f.Field == "casesSha256" {
			bv, cv = mdcell.ShortHash(bv), mdcell.ShortHash(cv)
		}
		out = append(out, fmt.Sprintf("%s %s → %s", label, bv, cv))
	}
	return out
}

// add counts cd, appends it and, when it is a regression, its line of
// Regressions.
func (d *Diff) add(cd CaseDiff) {
	if r := cd.regression(); r != "" {
		d.Regressions = append(d.Regressions, r)
	}
	switch cd.Change {
	case ChangeAdded:
		d.Counts.Added++
	case ChangeRemoved:
		d.Counts.Removed++
	case ChangeRegressed:
		d.Counts.Regressed++
	case ChangeImproved:
		d.Counts.Improved++
	case ChangeChanged:
		d.Counts.Changed++
	default:
		d.Counts.Unchanged++
	}
	d.Cases = append(d.Cases, cd)
}

// diffCase compares a case of the baseline, b, with the same case now, c.
// A case that is a draft in the baseline is changed or unchanged, never
// regressed or improved, whatever it is now. A case judged in the baseline
// and a draft now is regressed: it left the gate.
func diffCase(b, c *judge.CaseResult) CaseDiff {
	cd := CaseDiff{CaseID: b.CaseID, Fields: []FieldDiff{}}
	field := func(name string, bv, cv any) {
		bj, _ := json.Marshal(bv)
		cj, _ := json.Marshal(cv)
		if string(bj) != string(cj) {
			cd.Fields = append(cd.Fields, FieldDiff{Field: name, Baseline: bv, Current: cv})
		}
	}
	field("status", b.Status, c.Status)
	field("hitLevel", b.HitLevel, c.HitLevel)
	field("firstExpectedRank", b.FirstExpectedRank, c.FirstExpectedRank)
	field("selectedAttempt", b.SelectedAttempt, c.SelectedAttempt)
	field("fallbackReason", b.FallbackReason, c.FallbackReason)
	field("evidenceStatus", b.EvidenceStatus, c.EvidenceStatus)
	field("rerankTopSource", b.RerankTopSource, c.RerankTopSource)
	field("topSources", topSourcesOf(b), topSourcesOf(c))
	field("skippedChecks", b.SkippedChecks, c.SkippedChecks)

	switch {
	case c.Status == judge.StatusDraft && b.Status != judge.StatusDraft:
		// A judged case made a draft leaves the gate, as a removed case
		// does: a regression, until the baseline is renewed.
		cd.Change = ChangeRegressed
		cd.Explain = explain(b, c, []string{fmt.Sprintf("status %s → draft: the case is no longer judged", b.Status)})
		return cd
	case b.Status == judge.StatusDraft:
		// A draft is never judged, so whatever moved in it, or its becoming
		// a judged case, is no regression and no improvement.
		cd.Change = ChangeUnchanged
		if len(cd.Fields) > 0 {
			cd.Change = ChangeChanged
		}
		return cd
	}

	var worse []string
	better := false
	cmp := func(x int, what string) {
		if x < 0 {
			worse = append(worse, what)
		} else if x > 0 {
			better = true
		}
	}
	cmp(statusOrder(c.Status)-statusOrder(b.Status), fmt.Sprintf("status %s → %s", b.Status, c.Status))
	if hb, hc := hitOrder(b.HitLevel), hitOrder(c.HitLevel); hb >= 0 && hc >= 0 {
		cmp(hc-hb, fmt.Sprintf("hitLevel %s → %s", mdcell.Or(b.HitLevel, "null"), mdcell.Or(c.HitLevel, "null")))
	}
	rankWhat := fmt.Sprintf("firstExpectedRank %s → %s", intOrNull(b.FirstExpectedRank), intOrNull(c.FirstExpectedRank))
	rank := rankCompare(b.FirstExpectedRank, c.FirstExpectedRank)
	var grown string
	if rank < 0 {
		// A worse first expected rank is not a regression when the block
		// list only grew: more blocks of the same documents (a smaller
		// chunk size, a lower floor) push the first expected block down
		// without moving any document.
		if grown = grownOnly(b, c); grown != "" {
			rank = 0
		}
	}
	cmp(rank, rankWhat)
	// A check that ran in the baseline and is skipped now is lost: the
	// pipeline now declares it lacks what the check needs. Not a failure,
	// but not silent either: a regression, until the baseline is renewed.
	worse = append(worse, lostChecks(b, c)...)
	switch {
	case len(worse) > 0:
		cd.Change = ChangeRegressed
		cd.Explain = explain(b, c, worse)
	case better:
		cd.Change = ChangeImproved
	case len(cd.Fields) > 0:
		cd.Change = ChangeChanged
		if grown != "" {
			cd.Explain = explain(b, c, []string{rankWhat + ", not a regression: " + grown})
		}
	default:
		cd.Change = ChangeUnchanged
	}
	return cd
}

func intOrNull(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}

// lostChecks says, one phrase each, which checks ran in b and are skipped
// in c. A check ran when it passed or failed. A phrase reads "check
// selected_attempt passed → skipped (pipeline declares no trace)".
func lostChecks(b, c *judge.CaseResult) []string {
	var out []string
	for _, cc := range c.Checks {
		if !cc.Skipped {
			continue
		}
		for _, bc := range b.Checks {
			if bc.Name != cc.Name || bc.Skipped {
				continue
			}
			was := "failed"
			if bc.Passed {
				was = "passed"
			}
			out = append(out, fmt.Sprintf("check %s %s → skipped (%s)", cc.Name, was, mdcell.Or(cc.Message, "")))
		}
	}
	return out
}

// explain gathers what a reader needs to see why a case moved.
func explain(b, c *judge.CaseResult, why []string) *Explanation {
	e := &Explanation{Why: why, FailedChecks: []FailedCheck{}, Reason: c.Reason,
		Evidence: Evidence{Baseline: evidenceOf(b), Current: evidenceOf(c)}}
	for _, ch := range c.Checks {
		if !ch.Passed && !ch.Skipped {
			e.FailedChecks = append(e.FailedChecks, FailedCheck{Name: ch.Name, Message: ch.Message})
		}
	}
	return e
}

func evidenceOf(c *judge.CaseResult) []EvidenceBlock {
	out := []EvidenceBlock{}
	for i, t := range c.TopCandidates {
		if i == EvidenceBlocks {
			break
		}
		out = append(out, EvidenceBlock{Rank: t.Rank, Source: t.Source, Breadcrumb: t.Breadcrumb, QualityScore: t.QualityScore,
			EvidenceKey: t.EvidenceKey, ExcerptStart: t.ExcerptStart})
	}
	return out
}

// grownOnly reports, as a phrase, whether the block list of c is b's grown
// without moving a document. That holds when c has more top-K blocks than
// b, the same first document, and every expected document of either top K
// at the same document rank in both. A document's rank counts the top-K
// blocks' docIds at their first occurrence. The expected documents are
// those of the current run's golden case. In a report read back without
// it, they are the document of each side's first expected block. grownOnly
// returns "" otherwise. It also returns "" when either side's first
// expected block lies beyond its top K, as nothing can then be said of what
// moved.
func grownOnly(b, c *judge.CaseResult) string {
	nb, nc := len(b.TopCandidates), len(c.TopCandidates)
	if nb == 0 || nc <= nb || b.TopCandidates[0].DocID != c.TopCandidates[0].DocID {
		return ""
	}
	if b.FirstExpectedRank == nil || c.FirstExpectedRank == nil || *b.FirstExpectedRank > nb || *c.FirstExpectedRank > nc {
		return ""
	}
	expected := map[string]bool{}
	if g := c.Case; g != nil {
		exp := judge.ExpectedOf(g)
		for _, side := range [][]judge.Candidate{b.TopCandidates, c.TopCandidates} {
			for _, t := range side {
				if exp.Has(t.Source, t.DocID) {
					expected[t.DocID] = true
				}
			}
		}
	} else {
		expected[b.TopCandidates[*b.FirstExpectedRank-1].DocID] = true
		expected[c.TopCandidates[*c.FirstExpectedRank-1].DocID] = true
	}
	if len(expected) == 0 {
		return ""
	}
	rb, rc := docRanks(b.TopCandidates), docRanks(c.TopCandidates)
	for d := range expected {
		if rb[d] == 0 || rb[d] != rc[d] {
			return ""
		}
	}
	return fmt.Sprintf("the block list grew from %d to %d with the same first document and the expected documents at the same document ranks", nb, nc)
}

// docRanks maps each docId of cands to its 1-based rank among the distinct
// docIds, in block order.
func docRanks(cands []judge.Candidate) map[string]int {
	m := map[string]int{}
	for _, t := range cands {
		if _, ok := m[t.DocID]; !ok {
			m[t.DocID] = len(m) + 1
		}
	}
	return m
}

func topSourcesOf(c *judge.CaseResult) []string {
	out := make([]string, len(c.TopCandidates))
	for i, t := range c.TopCandidates {
		out[i] = t.Source
	}
	return out
}

// statusOrder: pass > skipped > fail > error = not_run.
func statusOrder(s judge.Status) int {
	switch s {
	case judge.StatusPass:
		return 3
	case judge.StatusSkipped:
		return 2
	case judge.StatusFail:
		return 1
	}
	return 0
}

// hitOrder ranks hit levels: strong > medium > weak > miss > null. n/a is
// not ordered, at -1.
func hitOrder(h *string) int {
	if h == nil {
		return 0
	}
	switch *h {
	case judge.HitStrong:
		return 4
	case judge.HitMedium:
		return 3
	case judge.HitWeak:
		return 2
	case judge.HitMiss:
		return 1
	}
	return -1
}

// rankCompare returns >0 when the first expected rank got better, smaller
// or found. It returns <0 when the rank got worse, larger or lost, and 0
// otherwise.
func rankCompare(b, c *int) int {
	switch {
	case b == nil && c == nil:
		return 0
	case b == nil:
		return 1
	case c == nil:
		return -1
	}
	return *b - *c
}

func round(f *contract.Float6) *contract.Float6 {
	if f == nil {
		return nil
	}
	v := contract.Float6(contract.Round6(float64(*f)))
	return &v
}

// worseFloat reports whether a metric dropped. A value that became null,
// with nothing to divide by any more, counts as a drop.
func worseFloat(b, c *contract.Float6) bool {
	switch {
	case b == nil:
		return false
	case c == nil:
		return true
	}
	return *c < *b
}

// WriteJSON writes the diff as indented JSON (two spaces, no HTML
// escaping, a trailing newline).
func (d *Diff) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// WriteMarkdown renders the diff: the verdict, what changed in the
// inputs, the regressions (the list, a table of the fields that moved,
// then per regressed case the rules it broke, its failed checks with their
// messages and its first blocks before and after), the summary, the counts
// and the other changes.
func (d *Diff) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# RAG retrieval baseline diff\n\n")
	fmt.Fprintf(b, "Baseline `%s`, current `%s`: **%s**.\n\n", mdcell.Code(d.Baseline), mdcell.Code(d.Current), d.Verdict)
	if lines := d.InputLines(); len(lines) > 0 {
		fmt.Fprintf(b, "## Inputs that changed\n\n")
		for _, l := range lines {
			fmt.Fprintf(b, "- %s\n", escape(l))
		}
		b.WriteString("\n")
	}
	if len(d.Regressions) > 0 {
		fmt.Fprintf(b, "## Regressions\n\n")
		for _, r := range d.Regressions {
			fmt.Fprintf(b, "- %s\n", escape(r))
		}
		b.WriteString("\n")
		writeCaseTable(b, d.Cases, func(c CaseDiff) bool { return c.Change == ChangeRegressed || c.Change == ChangeRemoved })
		for _, c := range d.Cases {
			if c.Change == ChangeRegressed && c.Explain != nil {
				writeExplanation(b, "###", c)
			}
		}
	}
	fmt.Fprintf(b, "## Summary\n\n")
	row(b, "metric", "baseline", "current", "delta")
	row(b, "---", "---:", "---:", "---:")
	for _, m := range diffMetrics {
		s := d.Summary[m]
		row(b, m, mdcell.Float(s.Baseline), mdcell.Float(s.Current), mdcell.Signed(s.Delta))
	}
	b.WriteString("\n")
	c := d.Counts
	fmt.Fprintf(b, "Cases: %d added, %d removed, %d regressed, %d improved, %d changed, %d unchanged.\n\n",
		c.Added, c.Removed, c.Regressed, c.Improved, c.Changed, c.Unchanged)
	if c.Improved+c.Changed+c.Added > 0 {
		fmt.Fprintf(b, "## Other changes\n\n")
		writeCaseTable(b, d.Cases, func(c CaseDiff) bool {
			return c.Change == ChangeImproved || c.Change == ChangeChanged || c.Change == ChangeAdded
		})
		notes := 0
		for _, c := range d.Cases {
			if c.Change != ChangeRegressed && c.Explain != nil {
				fmt.Fprintf(b, "- %s: %s\n", escape(c.CaseID), escape(strings.Join(c.Explain.Why, "; ")))
				notes++
			}
		}
		if notes > 0 {
			b.WriteString("\n")
		}
	}
	return b.Flush()
}

// writeExplanation writes a case's section: the rules it broke, its
// failed checks (or its reason) and its first blocks before and after.
func writeExplanation(b *bufio.Writer, heading string, c CaseDiff) {
	e := c.Explain
	fmt.Fprintf(b, "%s %s (%s)\n\n", heading, escape(c.CaseID), c.Change)
	fmt.Fprintf(b, "%s.\n\n", escape(strings.Join(e.Why, "; ")))
	if e.Reason != nil {
		fmt.Fprintf(b, "- %s\n", escape(*e.Reason))
	}
	for _, f := range e.FailedChecks {
		fmt.Fprintf(b, "- `%s`: %s\n", mdcell.Code(f.Name), escape(mdcell.Or(f.Message, "")))
	}
	if e.Reason != nil || len(e.FailedChecks) > 0 {
		b.WriteString("\n")
	}
	writeEvidence(b, e.Evidence)
}

// writeEvidence writes the first blocks of both sides side by side.
func writeEvidence(b *bufio.Writer, ev Evidence) {
	n := max(len(ev.Baseline), len(ev.Current))
	if n == 0 {
		fmt.Fprintf(b, "No blocks before or after.\n\n")
		return
	}
	row(b, "#", "baseline", "current")
	row(b, "---:", "---", "---")
	for i := range n {
		row(b, strconv.Itoa(i+1), escape(EvidenceCell(ev.Baseline, i)), escape(EvidenceCell(ev.Current, i)))
	}
	b.WriteString("\n")
}

// EvidenceCell is the i-th of a side's first blocks as the diff shows it
// beside the other side's, unescaped: "source · breadcrumb · key
// kb/doc#Setup@2 · 0.71". A block without evidenceKey shows the start of
// its excerpt in quotes instead. A part the block lacks is left out.
// EvidenceCell is mdcell.None past the last block.
func EvidenceCell(blocks []EvidenceBlock, i int) string {
	if i >= len(blocks) {
		return mdcell.None
	}
	t := blocks[i]
	s := t.Source
	if t.Breadcrumb != "" {
		s += " · " + t.Breadcrumb
	}
	if l := judge.BlockLabel(t.EvidenceKey, t.ExcerptStart); l != "" {
		s += " · " + l
	}
	if t.QualityScore != nil {
		s += " · " + mdcell.Float(t.QualityScore)
	}
	return s
}

func writeCaseTable(b *bufio.Writer, cases []CaseDiff, keep func(CaseDiff) bool) {
	row(b, "case", "change", "field", "baseline", "current")
	row(b, "---", "---", "---", "---", "---")
	for _, c := range cases {
		if !keep(c) {
			continue
		}
		if len(c.Fields) == 0 {
			row(b, escape(c.CaseID), c.Change, "", "", "")
		}
		for i, f := range c.Fields {
			id := ""
			if i == 0 {
				id = escape(c.CaseID)
			}
			row(b, id, c.Change, f.Field, escape(mdcell.JSONText(f.Baseline)), escape(mdcell.JSONText(f.Current)))
		}
	}
	b.WriteString("\n")
}
