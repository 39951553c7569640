package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// SchemaVersion is the version of the calibration report format.
const SchemaVersion = 1

// Tool is the report's "tool" value.
const Tool = "rag-eval calibrate"

// Report is the calibration report. Field order is the JSON key order,
// which the package documentation lists. Build makes it once, and
// WriteJSON, WriteMarkdown and WriteText render it.
type Report struct {
	SchemaVersion int    `json:"schemaVersion"`
	Tool          string `json:"tool"`
	Inputs        Inputs `json:"inputs"`
	Modes         []Mode `json:"modes"`
}

// Inputs identify the golden cases the calibration judged with.
type Inputs = judge.CaseSet

// Mode is the calibration of one fixture directory (one search mode).
type Mode struct {
	Name     string  `json:"name"`
	Fixtures string  `json:"fixtures"`
	Status   string  `json:"status"`
	Reason   *string `json:"reason"`
	// Embedder is the manifest's embedder, nil when unknown: thresholds
	// only mean something for the embedder that produced the scores.
	Embedder *string    `json:"embedder"`
	Shipped  Shipped    `json:"shipped"`
	Blocks   *Blocks    `json:"blocks"` // nil when unavailable
	Cases    *CaseLevel `json:"cases"`  // nil when unavailable
	// Warnings name each class with fewer than MinClassSize scored
	// members, as a threshold derived from a handful of scores is coarse.
	// The classes are relevant and non-relevant blocks, answered and
	// off-topic cases. Warnings is never nil, and empty when unavailable.
	Warnings []string `json:"warnings"`
}

// MinClassSize is the number of scored members a class needs before its
// calibration is not flagged as a small sample.
const MinClassSize = 5

// Shipped are the thresholds the fixtures were produced with, from the
// manifest's pipeline.params. Each is nil when unknown.
type Shipped struct {
	LowQuality *contract.Float6 `json:"lowQuality"`
	MinQuality *contract.Float6 `json:"minQuality"`
	Levels     ShippedLevels    `json:"levels"`
}

// ShippedLevels are the relevanceLevel thresholds.
type ShippedLevels struct {
	High   *contract.Float6 `json:"high"`
	Medium *contract.Float6 `json:"medium"`
}

// Counts count what was labelled how. Relevant, NonRelevant and Unlabelled
// partition the observations. MissingScore counts those of them without a
// qualityScore, which are left out of every score statistic.
type Counts struct {
	Relevant     int `json:"relevant"`
	NonRelevant  int `json:"nonRelevant"`
	Unlabelled   int `json:"unlabelled"`
	MissingScore int `json:"missingScore"`
}

// Dist summarises the scores of one class.
type Dist struct {
	Count  int              `json:"count"`
	Min    *contract.Float6 `json:"min"`
	Median *contract.Float6 `json:"median"`
	Mean   *contract.Float6 `json:"mean"`
	Max    *contract.Float6 `json:"max"`
}

// HistBin is one histogram bin: [from, to), the last one [from, to].
type HistBin struct {
	From        contract.Float6 `json:"from"`
	To          contract.Float6 `json:"to"`
	Relevant    int             `json:"relevant"`
	NonRelevant int             `json:"nonRelevant"`
}

// Threshold is a threshold and the rates of "score ≥ threshold" at it.
// Name says which threshold it is: "best", or the shipped parameter.
// Threshold is nil when the shipped value is unknown, and then so is every
// rate.
type Threshold struct {
	Name      string           `json:"name"`
	Threshold *contract.Float6 `json:"threshold"`
	TPR       *contract.Float6 `json:"tpr"`
	FPR       *contract.Float6 `json:"fpr"`
	J         *contract.Float6 `json:"j"`
	Precision *contract.Float6 `json:"precision"`
}

// LevelRow counts the top-K blocks of one relevanceLevel per label.
// Precision = relevant / (relevant + nonRelevant), nil when both are 0.
type LevelRow struct {
	Level       string           `json:"level"`
	Relevant    int              `json:"relevant"`
	NonRelevant int              `json:"nonRelevant"`
	Unlabelled  int              `json:"unlabelled"`
	Precision   *contract.Float6 `json:"precision"`
}

// Separation is how well "qualityScore ≥ t" separates the relevant from
// the non-relevant members of one population (top-K blocks, or cases by
// their best block): both classes' distributions and histogram, the best
// separating threshold (nil when either class has no score) and the rates
// at the shipped thresholds.
type Separation struct {
	Counts      Counts      `json:"counts"`
	Relevant    Dist        `json:"relevant"`
	NonRelevant Dist        `json:"nonRelevant"`
	Histogram   []HistBin   `json:"histogram"`
	Best        *Threshold  `json:"best"`
	AtShipped   []Threshold `json:"atShipped"`
	// ROC is the ROC curve of the scored members (ROC), for the HTML
	// report's plot. The JSON report does not carry it.
	ROC []ROCPoint `json:"-"`
}

// Blocks are the block-level statistics. AtShipped holds levels.medium,
// levels.high and minQuality, in that order.
type Blocks struct {
	Separation
	RelevanceLevels []LevelRow `json:"relevanceLevels"`
}

// CaseLevel are the case-level statistics, those of the evidence gate,
// over each judged case's best top-K qualityScore. AtShipped holds
// lowQuality and minQuality, in that order.
type CaseLevel struct {
	Separation
	// Samples lists every judged case in golden-file order.
	Samples []CaseSample `json:"samples"`
}

// CaseSample is one judged case's observation. BestQuality is the best
// qualityScore of its top-K blocks, with ScoreFrom "blocks". Else it is its
// selected attempt's bestQuality, with ScoreFrom "attempt". Else it is nil.
// ScoreFrom is then "nothingRetrieved" for a labelled case that retrieved
// no block: it counts in its class as rejected at every threshold. It is
// nil for any other case.
type CaseSample struct {
	CaseID      string           `json:"caseId"`
	Label       string           `json:"label"`
	BestQuality *contract.Float6 `json:"bestQuality"`
	ScoreFrom   *string          `json:"scoreFrom"`
}

// CaseSample.ScoreFrom values.
const (
	ScoreFromBlocks  = "blocks"
	ScoreFromAttempt = "attempt"
	// ScoreFromNothing marks a labelled case without a score that retrieved
	// no block. An off-topic one is a correct rejection, an answerable one a
	// miss, at every threshold.
	ScoreFromNothing = "nothingRetrieved"
)

// Names of the thresholds in Threshold.Name.
const (
	NameBest         = "best"
	NameLevelsMedium = "levels.medium"
	NameLevelsHigh   = "levels.high"
	NameMinQuality   = "minQuality"
	NameLowQuality   = "lowQuality"
)

// Known relevance levels, listed first and in this order.
var knownLevels = []string{contract.LevelHigh, contract.LevelMedium, contract.LevelLow}

// Input is one fixture directory to calibrate on.
type Input struct {
	// Fixtures is the directory as the user named it.
	Fixtures string
	// Manifest is its _snapshot.json, nil when it has none.
	Manifest *contract.Manifest
	// Result is the judgement of its fixtures. It is nil when the manifest
	// says the directory is unavailable.
	Result *judge.Result
	// AttemptBest maps the caseId of a judged case whose top K has no
	// scored block to its selected attempt's bestQuality, when the fixture
	// records one and the attempt had candidates. That is
	// retrievalTrace.attempts[].bestQuality, the best qualityScore among
	// the attempt's first topK candidates before post-processing. A nil map
	// or a missing entry means no such score.
	AttemptBest map[string]float64
}

// Load reads the manifest of dir and, unless it says the directory is
// unavailable, judges dir's fixtures against g. A missing manifest is not
// an error. An unreadable manifest or dir is.
func Load(g *contract.GoldenFile, dir string, flagK int) (Input, error) {
	in := Input{Fixtures: dir}
	m, err := contract.ReadManifest(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return in, fmt.Errorf("read manifest: %w", err)
	default:
		in.Manifest = m
	}
	if in.Manifest != nil && in.Manifest.Status == contract.StatusUnavailable {
		return in, nil
	}
	if in.Result, err = judge.Run(g, dir, judge.Options{FlagK: flagK}); err != nil {
		return in, err
	}
	if in.Result.Manifest != nil { // the one read with the fixtures judged
		in.Manifest = in.Result.Manifest
	}
	if in.Manifest != nil && in.Manifest.Pipeline != nil && in.Manifest.Pipeline.Lacks(contract.CapTrace) {
		// No trace, so no attempt's bestQuality to read: the fixtures are
		// not read a second time for it.
		return in, nil
	}
	for i := range in.Result.Cases {
		r := &in.Result.Cases[i]
		if !r.Status.Judged() || hasScore(r.TopCandidates) {
			continue
		}
		if q, ok := readAttemptBest(judge.FixturePath(dir, r.CaseID)); ok {
			if in.AttemptBest == nil {
				in.AttemptBest = map[string]float64{}
			}
			in.AttemptBest[r.CaseID] = q
		}
	}
	return in, nil
}

func hasScore(cands []judge.Candidate) bool {
	for i := range cands {
		if cands[i].QualityScore != nil {
			return true
		}
	}
	return false
}

// readAttemptBest returns the bestQuality of the selected attempt recorded
// in the fixture at path. The judge reads no attempts, so this decodes just
// that part of the fixture. Any problem means there is no such score, as
// the judge has already judged the file.
func readAttemptBest(path string) (float64, bool) {
	data, err := contract.ReadFixtureFile(path, nil)
	if err != nil {
		return 0, false
	}
	var f struct {
		LookupResult struct {
			RetrievalTrace struct {
				SelectedAttempt string `json:"selectedAttempt"`
				Attempts        []struct {
					Name        string   `json:"name"`
					Candidates  int      `json:"candidates"`
					BestQuality *float64 `json:"bestQuality"`
				} `json:"attempts"`
			} `json:"retrievalTrace"`
		} `json:"lookupResult"`
	}
	if json.Unmarshal(contract.TrimBOM(data), &f) != nil {
		return 0, false
	}
	rt := &f.LookupResult.RetrievalTrace
	sel := strings.TrimSpace(rt.SelectedAttempt)
	for _, a := range rt.Attempts {
		if strings.TrimSpace(a.Name) == sel && sel != "" && a.Candidates > 0 && a.BestQuality != nil {
			return *a.BestQuality, true
		}
	}
	return 0, false
}

// Build computes the calibration of every input. casesPath and casesSHA256
// identify the golden file, k is inputs.k (contract.GoldenFile.ReportK).
func Build(casesPath, casesSHA256 string, k int, inputs []Input) *Report {
	r := &Report{
		SchemaVersion: SchemaVersion,
		Tool:          Tool,
		Inputs:        Inputs{Cases: casesPath, CasesSHA256: casesSHA256, K: k},
		Modes:         make([]Mode, 0, len(inputs)),
	}
	for i := range inputs {
		r.Modes = append(r.Modes, buildMode(&inputs[i]))
	}
	return r
}

func buildMode(in *Input) Mode {
	m := Mode{Name: modeName(in), Fixtures: in.Fixtures, Status: contract.StatusAvailable, Warnings: []string{}}
	var params *contract.PipelineParams
	if man := in.Manifest; man != nil {
		if man.Status != "" {
			m.Status = man.Status
		}
		if man.Reason != "" {
			m.Reason = &man.Reason
		}
		emb := man.Embedder
		if man.Pipeline != nil {
			if emb == "" {
				emb = man.Pipeline.Embedder
			}
			params = man.Pipeline.Params
		}
		if emb != "" {
			m.Embedder = &emb
		}
	}
	if params != nil {
		m.Shipped = Shipped{
			LowQuality: f6p(params.LowQuality), MinQuality: f6p(params.MinQuality),
			Levels: ShippedLevels{High: f6p(params.Levels.High), Medium: f6p(params.Levels.Medium)},
		}
	}
	if in.Result == nil {
		return m
	}
	var out outside
	m.Blocks, m.Cases, out = buildStats(in.Result.Cases, in.AttemptBest, m.Shipped)
	m.Warnings = smallClasses(&m)
	if out.n > 0 {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s: %d qualityScores outside [0, 1], from %g to %g, were counted as the nearest bound, 0 or 1: the fixtures do not keep to the contract's range",
			m.Name, out.n, out.min, out.max))
	}
	if man := in.Manifest; man != nil && man.Pipeline.Lacks(contract.CapQualityScore) {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s: the pipeline declares no qualityScore: its %d blocks are counted as missingScore and there is nothing to calibrate",
			m.Name, m.Blocks.Counts.MissingScore))
	}
	return m
}

// smallClasses says, in one warning, which classes have fewer than
// MinClassSize scored members, in this order: relevant blocks,
// non-relevant blocks, answered cases, off-topic cases. A class with
// members that have no score says how many it has ("0 scored of 2
// off-topic cases"). None when every class is large enough.
func smallClasses(m *Mode) []string {
	var small []string
	for _, c := range []struct {
		n, of int
		what  string
	}{
		{m.Blocks.Relevant.Count, m.Blocks.Counts.Relevant, "relevant blocks"},
		{m.Blocks.NonRelevant.Count, m.Blocks.Counts.NonRelevant, "non-relevant blocks"},
		{m.Cases.Relevant.Count, m.Cases.Counts.Relevant, "answered cases"},
		{m.Cases.NonRelevant.Count, m.Cases.Counts.NonRelevant, "off-topic cases"},
	} {
		switch {
		case c.n >= MinClassSize:
		case c.of > c.n:
			small = append(small, fmt.Sprintf("%d scored of %d %s", c.n, c.of, c.what))
		default:
			small = append(small, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(small) == 0 {
		return []string{}
	}
	return []string{fmt.Sprintf("%s: fewer than %d scored members in a class (%s): the thresholds suggested from so few scores are coarse; write more golden cases (off-topic ones for the non-relevant classes)",
		m.Name, MinClassSize, strings.Join(small, ", "))}
}

// modeName is the search mode the manifest's pipeline declares, else the
// manifest's searchMode, else the judged cases' searchMode (the first one
// in golden-file order), else the directory's base name.
func modeName(in *Input) string {
	if in.Manifest != nil && in.Manifest.Pipeline != nil && strings.TrimSpace(in.Manifest.Pipeline.SearchMode) != "" {
		return strings.TrimSpace(in.Manifest.Pipeline.SearchMode)
	}
	if in.Manifest != nil && strings.TrimSpace(in.Manifest.SearchMode) != "" {
		return strings.TrimSpace(in.Manifest.SearchMode)
	}
	if in.Result != nil {
		for i := range in.Result.Cases {
			if sm := in.Result.Cases[i].SearchMode; sm != nil && strings.TrimSpace(*sm) != "" {
				return strings.TrimSpace(*sm)
			}
		}
	}
	return filepath.Base(in.Fixtures)
}

// outside counts the scores outside [0, 1] and the range they span.
type outside struct {
	n        int
	min, max float64
}

// clamp returns q moved into [0, 1], the range of qualityScore, and
// counts it in o when it was outside. A pipeline's fixtures never hold
// such a score. One made by hand or by an older rag-snapshot may, and
// thresholds computed from it would lie outside any score the contract
// allows: a -1e308 written out in 309 digits.
func (o *outside) clamp(q float64) float64 {
	if q >= 0 && q <= 1 {
		return q
	}
	if o.n == 0 || q < o.min {
		o.min = q
	}
	if o.n == 0 || q > o.max {
		o.max = q
	}
	o.n++
	return min(max(q, 0), 1)
}

func buildStats(results []judge.CaseResult, attemptBest map[string]float64, shipped Shipped) (*Blocks, *CaseLevel, outside) {
	var out outside
	bl := &Blocks{}
	cl := &CaseLevel{Samples: []CaseSample{}}
	var blockSamples, caseSamples []Sample
	levels := map[string]*LevelRow{}
	for i := range results {
		r := &results[i]
		if !r.Status.Judged() {
			continue
		}
		labels := BlockLabels(r)
		var top *float64 // the case's best qualityScore
		for j := range r.TopCandidates {
			cand := &r.TopCandidates[j]
			l := labels[j]
			count(&bl.Counts, l, cand.QualityScore == nil)
			if lv := cand.RelevanceLevel; lv != "" {
				row := levels[lv]
				if row == nil {
					row = &LevelRow{Level: lv}
					levels[lv] = row
				}
				switch l {
				case Relevant:
					row.Relevant++
				case NonRelevant:
					row.NonRelevant++
				default:
					row.Unlabelled++
				}
			}
			if cand.QualityScore != nil {
				q := out.clamp(float64(*cand.QualityScore))
				if top == nil || q > *top {
					top = &q
				}
				if l != Unlabelled {
					blockSamples = append(blockSamples, Sample{Score: q, Relevant: l == Relevant})
				}
			}
		}
		caseLabel := CaseLabel(r, labels)
		cs := CaseSample{CaseID: r.CaseID, Label: caseLabel.String()}
		if top != nil {
			cs.ScoreFrom = strp(ScoreFromBlocks)
		} else if q, ok := attemptBest[r.CaseID]; ok {
			q = out.clamp(q)
			top, cs.ScoreFrom = &q, strp(ScoreFromAttempt)
		}
		count(&cl.Counts, caseLabel, top == nil)
		switch {
		case top != nil:
			cs.BestQuality = f6p(contract.Float6(*top))
			if caseLabel != Unlabelled {
				caseSamples = append(caseSamples, Sample{Score: *top, Relevant: caseLabel == Relevant})
			}
		case caseLabel != Unlabelled && len(r.TopCandidates) == 0:
			// Nothing retrieved, and no attempt score: the pipeline itself
			// rejected the case, whatever the threshold.
			cs.ScoreFrom = strp(ScoreFromNothing)
			caseSamples = append(caseSamples, Sample{Relevant: caseLabel == Relevant, Rejected: true})
		}
		cl.Samples = append(cl.Samples, cs)
	}

	bl.measure(blockSamples,
		at(blockSamples, NameLevelsMedium, shipped.Levels.Medium),
		at(blockSamples, NameLevelsHigh, shipped.Levels.High),
		at(blockSamples, NameMinQuality, shipped.MinQuality))
	bl.RelevanceLevels = levelRows(levels)
	cl.measure(caseSamples,
		at(caseSamples, NameLowQuality, shipped.LowQuality),
		at(caseSamples, NameMinQuality, shipped.MinQuality))
	return bl, cl, out
}

// measure fills everything but Counts from samples. atShipped are the
// rates at the shipped thresholds.
func (s *Separation) measure(samples []Sample, atShipped ...Threshold) {
	s.Relevant, s.NonRelevant = dist(samples, true), dist(samples, false)
	s.Histogram = histogram(samples)
	s.Best = best(samples)
	s.AtShipped = atShipped
	s.ROC = ROC(samples)
}

func count(c *Counts, l Label, missing bool) {
	switch l {
	case Relevant:
		c.Relevant++
	case NonRelevant:
		c.NonRelevant++
	default:
		c.Unlabelled++
	}
	if missing {
		c.MissingScore++
	}
}

// levelRows lists the known levels first (always, with zero counts), then
// any other level seen, sorted bytewise.
func levelRows(seen map[string]*LevelRow) []LevelRow {
	out := make([]LevelRow, 0, len(knownLevels)+len(seen))
	for _, lv := range knownLevels {
		row := LevelRow{Level: lv}
		if r := seen[lv]; r != nil {
			row = *r
		}
		out = append(out, row)
	}
	var other []string
	for lv := range seen {
		if !slices.Contains(knownLevels, lv) {
			other = append(other, lv)
		}
	}
	slices.Sort(other)
	for _, lv := range other {
		out = append(out, *seen[lv])
	}
	for i := range out {
		if n := out[i].Relevant + out[i].NonRelevant; n > 0 {
			out[i].Precision = f6p(contract.Float6(float64(out[i].Relevant) / float64(n)))
		}
	}
	return out
}

func dist(samples []Sample, relevant bool) Dist {
	s := Summarize(Scores(samples, relevant))
	return Dist{Count: s.Count, Min: fl(s.Min), Median: fl(s.Median), Mean: fl(s.Mean), Max: fl(s.Max)}
}

func histogram(samples []Sample) []HistBin {
	bins := Histogram(samples)
	out := make([]HistBin, len(bins))
	for i, b := range bins {
		out[i] = HistBin{From: contract.Float6(b.Lo), To: contract.Float6(b.Hi), Relevant: b.Relevant, NonRelevant: b.NonRelevant}
	}
	return out
}

func best(samples []Sample) *Threshold {
	r, ok := BestThreshold(samples)
	if !ok {
		return nil
	}
	t := threshold(NameBest, r)
	return &t
}

func at(samples []Sample, name string, t *contract.Float6) Threshold {
	if t == nil {
		return Threshold{Name: name}
	}
	return threshold(name, RatesAt(samples, float64(*t)))
}

func threshold(name string, r Rates) Threshold {
	return Threshold{
		Name: name, Threshold: f6p(contract.Float6(r.Threshold)),
		TPR: fl(r.TPR), FPR: fl(r.FPR), J: fl(r.J), Precision: fl(r.Precision),
	}
}

func fl(v *float64) *contract.Float6 {
	if v == nil {
		return nil
	}
	return f6p(contract.Float6(*v))
}

func f6p(v contract.Float6) *contract.Float6 { return &v }

func strp(s string) *string { return &s }
