package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// FixtureVersion is the fixture format version this package writes.
const FixtureVersion = 1

// SupportedFixtureVersions lists the fixtureVersion values the decoder accepts.
var SupportedFixtureVersions = []int{1}

// Attempt names (retrievalTrace.attempts[].name, retrievalTrace.selectedAttempt).
const (
	AttemptFiltered        = "FILTERED_VECTOR"
	AttemptUnfiltered      = "UNFILTERED_VECTOR"
	AttemptUnfilteredRetry = "UNFILTERED_VECTOR_RETRY"
)

// Fallback reasons (retrievalTrace.fallbackReason).
const (
	FallbackNoEvidence = "filtered_vector_no_evidence"
	FallbackLowQuality = "filtered_vector_low_quality"
)

// Evidence statuses (lookupResult.evidenceStatus).
const (
	EvidenceSufficient = "sufficient"
	EvidenceWeak       = "weak"
	EvidenceNone       = "none"
)

// Relevance levels (evidenceBlocks[].relevanceLevel).
const (
	LevelHigh   = "high"
	LevelMedium = "medium"
	LevelLow    = "low"
)

// Fixture is one frozen lookup result, the file fixtures/<caseId>.json
// (docs/fixtures.md). Field order is the order in which fields are written.
type Fixture struct {
	FixtureVersion int           `json:"fixtureVersion"`
	CaseID         string        `json:"caseId"`
	Query          string        `json:"query"`
	RetrievedAt    string        `json:"retrievedAt"`
	SearchMode     string        `json:"searchMode"`
	KBScope        string        `json:"kbScope"`
	Pipeline       *Pipeline     `json:"pipeline,omitempty"`
	LookupResult   *LookupResult `json:"lookupResult"`
}

// Pipeline describes what produced a fixture.
type Pipeline struct {
	Name     string          `json:"name"`
	Version  string          `json:"version"`
	Store    string          `json:"store"`
	Embedder string          `json:"embedder"`
	Dim      int             `json:"dim"`
	Params   *PipelineParams `json:"params,omitempty"`
	// SearchMode is the search the pipeline itself runs, as its user
	// declares it: "hybrid", "dense", "bm25" or "other". Absent for the
	// builtin pipeline, whose search mode is the fixture's searchMode.
	SearchMode string `json:"searchMode,omitempty"`
	// Capabilities lists the parts of a lookup result the pipeline
	// produces (the Cap constants). Absent means every part: the builtin
	// pipeline, and fixtures written before capabilities were declared. A
	// check that needs a part the pipeline declares it lacks is skipped,
	// not failed.
	Capabilities []string `json:"capabilities,omitempty"`
}

// The parts of a lookup result a pipeline can declare it produces
// (Pipeline.Capabilities), in the order they are written.
const (
	CapEvidenceStatus = "evidenceStatus" // lookupResult.evidenceStatus
	CapQualityScore   = "qualityScore"   // evidenceBlocks[].qualityScore (and relevanceLevel)
	CapBreadcrumb     = "breadcrumb"     // evidenceBlocks[].breadcrumb
	CapContextPack    = "contextPack"    // lookupResult.contextPack
	CapTrace          = "trace"          // retrievalTrace: attempts and the selected attempt
	CapFallback       = "fallback"       // retrievalTrace.fallbackReason
	CapRerank         = "rerank"         // rerankTrace
)

// Capabilities are every part of a lookup result, in order (Pipeline.Capabilities).
var Capabilities = []string{CapEvidenceStatus, CapQualityScore, CapBreadcrumb, CapContextPack, CapTrace, CapFallback, CapRerank}

// Declared search modes of a pipeline (Pipeline.SearchMode).
const (
	ModeHybrid = "hybrid"
	ModeDense  = "dense"
	ModeBM25   = "bm25"
	ModeOther  = "other"
)

// PipelineSearchModes are the values Pipeline.SearchMode may take.
var PipelineSearchModes = []string{ModeHybrid, ModeDense, ModeBM25, ModeOther}

// ValidPipelineSearchMode checks a declared search mode: "" (not declared)
// or one of PipelineSearchModes.
func ValidPipelineSearchMode(mode string) error {
	if mode == "" || slices.Contains(PipelineSearchModes, mode) {
		return nil
	}
	return fmt.Errorf("unknown search mode %q (known: %s)", mode, strings.Join(PipelineSearchModes, ", "))
}

// ParseCapabilities reads a comma-separated list of capabilities, such as
// "trace, rerank". Spaces around names are ignored. "" and "none" are the
// empty list: the pipeline produces none of the parts. The result is in the
// order of Capabilities, without duplicates, and never nil. An unknown
// name is an error that lists the known ones.
func ParseCapabilities(list string) ([]string, error) {
	caps := []string{}
	if t := strings.TrimSpace(list); t == "" || t == "none" {
		return caps, nil
	}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("empty capability in %q", list)
		}
		if !slices.Contains(Capabilities, name) {
			return nil, fmt.Errorf("unknown capability %q (known: %s, or none)", name, strings.Join(Capabilities, ", "))
		}
		caps = append(caps, name)
	}
	return NormalizeCapabilities(caps), nil
}

// ValidCapabilities checks a declared list: nil (not declared) or known
// names only.
func ValidCapabilities(caps []string) error {
	for _, c := range caps {
		if !slices.Contains(Capabilities, c) {
			return fmt.Errorf("unknown capability %q (known: %s)", c, strings.Join(Capabilities, ", "))
		}
	}
	return nil
}

// NormalizeCapabilities returns the known names of caps in the order of
// Capabilities, each once. nil, not declared, stays nil.
func NormalizeCapabilities(caps []string) []string {
	if caps == nil {
		return nil
	}
	out := []string{}
	for _, c := range Capabilities {
		if slices.Contains(caps, c) {
			out = append(out, c)
		}
	}
	return out
}

// Lacks reports whether p declares that it does not produce the part
// capability: it declares capabilities and capability is not one of them.
// A nil pipeline, or one without a declaration, lacks nothing.
func (p *Pipeline) Lacks(capability string) bool {
	return p != nil && p.Capabilities != nil && !slices.Contains(p.Capabilities, capability)
}

// MarshalJSON writes p with its fields in order, capabilities omitted when
// nil (not declared) but written as [] when the pipeline declares that it
// produces none of the parts.
func (p Pipeline) MarshalJSON() ([]byte, error) {
	type plain Pipeline
	var out struct {
		plain
		Capabilities *[]string `json:"capabilities,omitempty"`
	}
	out.plain = plain(p)
	if p.Capabilities != nil {
		out.Capabilities = &p.Capabilities
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the caller's encoder escapes, if it does
	if err := enc.Encode(&out); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// PipelineParams are the lookup parameters a fixture was produced with.
type PipelineParams struct {
	TopK       int    `json:"topK"`
	CandidateK int    `json:"candidateK"`
	LowQuality Float6 `json:"lowQuality"`
	// MinQuality is the floor below which a candidate is not evidence
	// (0: no floor).
	MinQuality Float6 `json:"minQuality"`
	// RelQuality is the relative quality gate of a filtered attempt,
	// builtin.Config.RelQuality. It is absent when off.
	RelQuality Float6 `json:"relQuality,omitempty"`
	// Fusion is how hybrid search fused the dense and BM25 lists: "rrf",
	// reciprocal rank fusion, or "anchored", RRF anchored on the dense
	// list. It is absent in fixtures written before it was recorded, which
	// used rrf.
	Fusion        string `json:"fusion,omitempty"`
	Levels        Levels `json:"levels"`
	Rerank        string `json:"rerank"`
	ContextBudget int    `json:"contextBudget"`
}

// Levels are the qualityScore thresholds of the relevance levels.
type Levels struct {
	High   Float6 `json:"high"`
	Medium Float6 `json:"medium"`
}

// LookupResult is what the lookup pipeline returns for one query.
type LookupResult struct {
	Found          bool            `json:"found"`
	EvidenceStatus string          `json:"evidenceStatus"`
	EvidenceBlocks []EvidenceBlock `json:"evidenceBlocks"`
	ContextPack    ContextPack     `json:"contextPack"`
	RetrievalTrace RetrievalTrace  `json:"retrievalTrace"`
	RerankTrace    RerankTrace     `json:"rerankTrace"`

	// Has records which fields were present when the result was decoded
	// from a fixture or received from an external pipeline. A result built
	// in memory by the builtin pipeline has every field (HasAll).
	Has Presence `json:"-"`
	// Partial reports that Has, and each block's HasRank, HasQuality and
	// Has, say exactly which fields the result carries. EncodeFixture then
	// writes only those, and a field the pipeline did not send stays absent
	// from the fixture, with no zero score and no empty breadcrumb.
	// DecodeFixture and the HTTP pipeline's client set it. When it is
	// false, as for the builtin pipeline's results, every field is written,
	// whatever Has says.
	Partial bool `json:"-"`
	// DroppedBlocks counts the evidence blocks an external pipeline sent
	// beyond those kept (pipeline.MaxBlocks). They are not in
	// EvidenceBlocks. rag-snapshot adds them up in the manifest's
	// droppedBlocks.
	DroppedBlocks int `json:"-"`
}

// Presence is a set of lookupResult fields: the judged ones a decoded
// fixture reports, and the others an external pipeline may leave out.
type Presence uint32

// The judged fields whose absence a check must be able to report
// ("fixture lacks <path>", docs/checks.md).
const (
	HasFound Presence = 1 << iota
	HasEvidenceStatus
	HasEvidenceBlocks
	HasContextSources
	HasSelectedAttempt
	HasFallbackReason
	HasRerankTopSource

	// HasJudged is every judged field: what DecodeFixture can report.
	HasJudged = HasFound | HasEvidenceStatus | HasEvidenceBlocks | HasContextSources |
		HasSelectedAttempt | HasFallbackReason | HasRerankTopSource
)

// The fields the judge does not read. They matter only to what
// EncodeFixture writes of a Partial result. DecodeFixture never sets them.
const (
	HasContextBlockCount Presence = HasRerankTopSource << (1 + iota)
	HasContextUsedChars
	HasContextBudgetChars
	HasContextTruncated
	HasContextPackedText
	HasTraceSearchMode
	HasTraceKBScope
	HasTraceL0Hints
	HasTraceAttempts
	HasRerankEnabled
	HasRerankModel
	HasRerankInputOrder
	HasRerankOutputOrder
	HasRerankFallback

	// HasAll is every field. Results built in memory report it.
	HasAll = HasJudged | HasContextBlockCount | HasContextUsedChars | HasContextBudgetChars |
		HasContextTruncated | HasContextPackedText | HasTraceSearchMode | HasTraceKBScope |
		HasTraceL0Hints | HasTraceAttempts | HasRerankEnabled | HasRerankModel |
		HasRerankInputOrder | HasRerankOutputOrder | HasRerankFallback
)

// FieldPath returns the fixture path of a single Presence bit, as used in
// "fixture lacks <path>" messages.
func (p Presence) FieldPath() string {
	if path, ok := fieldPaths[p]; ok {
		return path
	}
	return "lookupResult"
}

// fieldPaths are the paths of the Presence bits.
var fieldPaths = func() map[Presence]string {
	m := map[Presence]string{}
	for _, g := range new(LookupResult).FieldGroups() {
		for _, f := range g.Fields {
			m[f.Bit] = strings.TrimSuffix("lookupResult."+g.Key, ".") + "." + f.Key
		}
	}
	return m
}()

// A FieldGroup is lookupResult itself (Key "") or one of its objects
// (contextPack, retrievalTrace, rerankTrace), with those of its fields that
// a Presence bit covers.
type FieldGroup struct {
	Key    string
	Fields []Field
}

// A Field is a field of a lookup result, its Presence bit and the address
// of its value.
type Field struct {
	Key   string
	Bit   Presence
	Value any
}

// FieldGroups returns every field of lr that Presence covers, grouped by
// the object holding it, each with the address of its value in lr: groups
// and fields in the order they are written. It is the one list of what
// EncodeFixture writes of a Partial result and of what an external
// pipeline's answer is read into (package lookuphttp).
func (lr *LookupResult) FieldGroups() []FieldGroup {
	cp, rt, rr := &lr.ContextPack, &lr.RetrievalTrace, &lr.RerankTrace
	return []FieldGroup{
		{"", []Field{
			{"found", HasFound, &lr.Found},
			{"evidenceStatus", HasEvidenceStatus, &lr.EvidenceStatus},
			{"evidenceBlocks", HasEvidenceBlocks, &lr.EvidenceBlocks},
		}},
		{"contextPack", []Field{
			{"sources", HasContextSources, &cp.Sources},
			{"blockCount", HasContextBlockCount, &cp.BlockCount},
			{"usedChars", HasContextUsedChars, &cp.UsedChars},
			{"budgetChars", HasContextBudgetChars, &cp.BudgetChars},
			{"truncated", HasContextTruncated, &cp.Truncated},
			{"packedText", HasContextPackedText, &cp.PackedText},
		}},
		{"retrievalTrace", []Field{
			{"searchMode", HasTraceSearchMode, &rt.SearchMode},
			{"kbScope", HasTraceKBScope, &rt.KBScope},
			{"l0Hints", HasTraceL0Hints, &rt.L0Hints},
			{"attempts", HasTraceAttempts, &rt.Attempts},
			{"selectedAttempt", HasSelectedAttempt, &rt.SelectedAttempt},
			{"fallbackReason", HasFallbackReason, &rt.FallbackReason},
		}},
		{"rerankTrace", []Field{
			{"enabled", HasRerankEnabled, &rr.Enabled},
			{"model", HasRerankModel, &rr.Model},
			{"inputOrder", HasRerankInputOrder, &rr.InputOrder},
			{"outputOrder", HasRerankOutputOrder, &rr.OutputOrder},
			{"topSource", HasRerankTopSource, &rr.TopSource},
			{"fallback", HasRerankFallback, &rr.Fallback},
		}},
	}
}

// EvidenceBlock is one retrieved chunk.
type EvidenceBlock struct {
	Rank           int    `json:"rank"`
	EvidenceKey    string `json:"evidenceKey"`
	DocID          string `json:"docId"`
	Source         string `json:"source"`
	Title          string `json:"title"`
	Breadcrumb     string `json:"breadcrumb"`
	Category       string `json:"category"`
	ChunkIndex     int    `json:"chunkIndex"`
	Excerpt        string `json:"excerpt"`
	QualityScore   Float6 `json:"qualityScore"`
	RelevanceLevel string `json:"relevanceLevel"`
	DenseDistance  Float6 `json:"denseDistance"`
	FusedScore     Float6 `json:"fusedScore"`
	ScoreLabel     string `json:"scoreLabel"`

	// HasRank and HasQuality report, for a decoded block, whether rank was
	// a positive integer and qualityScore a number. Blocks built in memory
	// set both.
	HasRank    bool `json:"-"`
	HasQuality bool `json:"-"`
	// Has records which of the other fields the block carries. It matters
	// when the result is Partial, since every field of a complete result is
	// written. DecodeFixture sets the bits of the string fields it reads.
	Has BlockPresence `json:"-"`
}

// BlockHas reports whether b, a block of lr, carries the field bit: always
// for a complete result, else when b.Has says so.
func (lr *LookupResult) BlockHas(b *EvidenceBlock, bit BlockPresence) bool {
	return !lr.Partial || b.Has&bit != 0
}

// BlockPresence is a set of evidence block fields other than rank and
// qualityScore (EvidenceBlock.HasRank and HasQuality say those).
type BlockPresence uint16

// The evidence block fields of BlockPresence, in the order they are written.
const (
	BlockHasEvidenceKey BlockPresence = 1 << iota
	BlockHasDocID
	BlockHasSource
	BlockHasTitle
	BlockHasBreadcrumb
	BlockHasCategory
	BlockHasChunkIndex
	BlockHasExcerpt
	BlockHasRelevanceLevel
	BlockHasDenseDistance
	BlockHasFusedScore
	BlockHasScoreLabel

	// BlockHasAll is every field of BlockPresence.
	BlockHasAll = BlockHasScoreLabel<<1 - 1
)

// A BlockField is a field of an evidence block, its BlockPresence bit and
// the address of its value. Rank and qualityScore have no bit (Bit 0):
// Flag is the address of HasRank or HasQuality, their presence.
type BlockField struct {
	Key   string
	Bit   BlockPresence
	Flag  *bool
	Value any
}

// Carried reports whether b, whose field f is, carries it.
func (f BlockField) Carried(b *EvidenceBlock) bool {
	if f.Flag != nil {
		return *f.Flag
	}
	return b.Has&f.Bit != 0
}

// Fields returns every field of b with the address of its value, in the
// order they are written (see LookupResult.FieldGroups).
func (b *EvidenceBlock) Fields() []BlockField {
	return []BlockField{
		{"rank", 0, &b.HasRank, &b.Rank},
		{"evidenceKey", BlockHasEvidenceKey, nil, &b.EvidenceKey},
		{"docId", BlockHasDocID, nil, &b.DocID},
		{"source", BlockHasSource, nil, &b.Source},
		{"title", BlockHasTitle, nil, &b.Title},
		{"breadcrumb", BlockHasBreadcrumb, nil, &b.Breadcrumb},
		{"category", BlockHasCategory, nil, &b.Category},
		{"chunkIndex", BlockHasChunkIndex, nil, &b.ChunkIndex},
		{"excerpt", BlockHasExcerpt, nil, &b.Excerpt},
		{"qualityScore", 0, &b.HasQuality, &b.QualityScore},
		{"relevanceLevel", BlockHasRelevanceLevel, nil, &b.RelevanceLevel},
		{"denseDistance", BlockHasDenseDistance, nil, &b.DenseDistance},
		{"fusedScore", BlockHasFusedScore, nil, &b.FusedScore},
		{"scoreLabel", BlockHasScoreLabel, nil, &b.ScoreLabel},
	}
}

// ContextPack is what the pipeline hands to the agent.
type ContextPack struct {
	Sources     []string `json:"sources"`
	BlockCount  int      `json:"blockCount"`
	UsedChars   int      `json:"usedChars"`
	BudgetChars int      `json:"budgetChars"`
	Truncated   bool     `json:"truncated"`
	PackedText  string   `json:"packedText"`
}

// RetrievalTrace records every step of a lookup.
type RetrievalTrace struct {
	SearchMode      string    `json:"searchMode"`
	KBScope         string    `json:"kbScope"`
	L0Hints         L0Hints   `json:"l0Hints"`
	Attempts        []Attempt `json:"attempts"`
	SelectedAttempt string    `json:"selectedAttempt"`
	// FallbackReason is nil (JSON null) when no retry was attempted.
	FallbackReason *string `json:"fallbackReason"`
}

// L0Hints are the categories the L0 index suggested for a query.
type L0Hints struct {
	Categories     []string `json:"categories"`
	MatchedTerms   []string `json:"matchedTerms"`
	MatchedSources []string `json:"matchedSources"`
}

// Attempt is one search attempt of the pipeline.
type Attempt struct {
	Name        string `json:"name"`
	Filter      Filter `json:"filter"`
	Candidates  int    `json:"candidates"`
	BestQuality Float6 `json:"bestQuality"`
	LowQuality  bool   `json:"lowQuality"`
	LatencyMs   int64  `json:"latencyMs"`
}

// Filter is the structured filter of an attempt.
type Filter struct {
	KBScope    string   `json:"kbScope"`
	Categories []string `json:"categories,omitempty"`
}

// RerankTrace records the reranking step.
type RerankTrace struct {
	Enabled     bool     `json:"enabled"`
	Model       string   `json:"model"`
	InputOrder  []string `json:"inputOrder"`
	OutputOrder []string `json:"outputOrder"`
	TopSource   string   `json:"topSource"`
	Fallback    bool     `json:"fallback"`
}

// Float6 is a float64 written rounded half away from zero to 6 decimal
// places in its shortest form, so regenerated files diff cleanly.
type Float6 float64

// MarshalJSON implements json.Marshaler.
func (f Float6) MarshalJSON() ([]byte, error) {
	return AppendFloat6(nil, float64(f)), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float6) UnmarshalJSON(b []byte) error {
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float6(v)
	return nil
}

// Round6 rounds v to 6 decimal places, correctly rounded from its exact
// binary value. A float64 is never exactly halfway between two multiples of
// 1e-6, since 1e-6 is not a dyadic fraction, so "half away from zero" and
// "half to even" cannot disagree. Negative zero becomes zero.
func Round6(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	var buf [64]byte
	r, _ := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], v, 'f', 6, 64)), 64)
	if r == 0 {
		return 0
	}
	return r
}

// AppendFloat6 appends v rounded by Round6 in its shortest decimal form.
// NaN and infinities, which JSON cannot carry, are written as null.
func AppendFloat6(dst []byte, v float64) []byte {
	r := Round6(v)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return append(dst, "null"...)
	}
	return strconv.AppendFloat(dst, r, 'f', -1, 64)
}
