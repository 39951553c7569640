package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/texttab"
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
	Counts        Counts           `json:"counts"`
	Cases         []CaseDiff       `json:"cases"`
	// Regressions explains, one line each, why the verdict is regression.
	Regressions []string `json:"regressions"`
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
}

// FieldDiff is one field's baseline and current value (JSON values; null
// when absent).
type FieldDiff struct {
	Field    string `json:"field"`
	Baseline any    `json:"baseline"`
	Current  any    `json:"current"`
}

// Regressed reports whether the diff fails the run (exit 3).
func (d *Diff) Regressed() bool { return d.Verdict == VerdictRegression }

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
		Summary: map[string]Delta{}, Cases: []CaseDiff{}, Regressions: []string{},
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
			d.Regressions = append(d.Regressions, fmt.Sprintf("%s dropped from %s to %s", m, texttab.Float(b), texttab.Float(c)))
		}
	}

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
			d.Regressions = append(d.Regressions, fmt.Sprintf("case %s was removed", b.CaseID))
			continue
		}
		cd := diffCase(b, c)
		if cd.Change == ChangeRegressed {
			d.Regressions = append(d.Regressions, fmt.Sprintf("case %s regressed", b.CaseID))
		}
		d.add(cd)
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

func (d *Diff) add(cd CaseDiff) {
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

	worse, better := false, false
	cmp := func(x int) {
		if x < 0 {
			worse = true
		} else if x > 0 {
			better = true
		}
	}
	cmp(statusOrder(c.Status) - statusOrder(b.Status))
	if hb, hc := hitOrder(b.HitLevel), hitOrder(c.HitLevel); hb >= 0 && hc >= 0 {
		cmp(hc - hb)
	}
	cmp(rankCompare(b.FirstExpectedRank, c.FirstExpectedRank))
	switch {
	case worse:
		cd.Change = ChangeRegressed
	case better:
		cd.Change = ChangeImproved
	case len(cd.Fields) > 0:
		cd.Change = ChangeChanged
	default:
		cd.Change = ChangeUnchanged
	}
	return cd
}

func topSourcesOf(c *judge.CaseResult) []string {
	out := make([]string, len(c.TopCandidates))
	for i, t := range c.TopCandidates {
		out[i] = t.Source
	}
	return out
}

// statusOrder: pass > fail > error = not_run.
func statusOrder(s judge.Status) int {
	switch s {
	case judge.StatusPass:
		return 2
	case judge.StatusFail:
		return 1
	}
	return 0
}

// hitOrder: strong > medium > weak > miss > null; n/a is not ordered (-1).
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

// rankCompare returns >0 when the first expected rank got better (smaller,
// or found), <0 when it got worse (larger, or lost), 0 otherwise.
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

// worseFloat reports whether a metric dropped; a value that became null
// (nothing to divide by any more) counts as a drop.
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

// WriteMarkdown renders the diff, leading with the regressions.
func (d *Diff) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# RAG retrieval baseline diff\n\n")
	fmt.Fprintf(b, "Baseline `%s`, current `%s`: **%s**.\n\n", texttab.Code(d.Baseline), texttab.Code(d.Current), d.Verdict)
	if len(d.Regressions) > 0 {
		fmt.Fprintf(b, "## Regressions\n\n")
		for _, r := range d.Regressions {
			fmt.Fprintf(b, "- %s\n", escape(r))
		}
		b.WriteString("\n")
		writeCaseTable(b, d.Cases, func(c CaseDiff) bool { return c.Change == ChangeRegressed || c.Change == ChangeRemoved })
	}
	fmt.Fprintf(b, "## Summary\n\n")
	row(b, "metric", "baseline", "current", "delta")
	row(b, "---", "---:", "---:", "---:")
	for _, m := range diffMetrics {
		s := d.Summary[m]
		row(b, m, texttab.Float(s.Baseline), texttab.Float(s.Current), texttab.Signed(s.Delta))
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
	}
	return b.Flush()
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
			row(b, id, c.Change, f.Field, escape(jsonText(f.Baseline)), escape(jsonText(f.Current)))
		}
	}
	b.WriteString("\n")
}

func jsonText(v any) string {
	j, _ := json.Marshal(v)
	s := string(j)
	if strings.HasPrefix(s, `"`) {
		var str string
		if json.Unmarshal(j, &str) == nil {
			return str
		}
	}
	return s
}
