package contract

// GoldenVersion is the golden-cases format version this package writes.
const GoldenVersion = 1

// SupportedGoldenVersions lists the golden "version" values the parser accepts.
var SupportedGoldenVersions = []int{1}

// DefaultK is the K used when neither the case, --k, nor the file sets one.
const DefaultK = 5

// GoldenFile is cases/golden-cases.json (docs/golden-cases.md).
type GoldenFile struct {
	Version int    `json:"version"`
	KBScope string `json:"kbScope,omitempty"`
	// K is the file's default K, 0 when the file does not set one.
	K     int    `json:"k,omitempty"`
	Cases []Case `json:"cases"`
}

// Case is one golden retrieval case. A field that is absent, null, [] or ""
// declares nothing, as the Uses* methods say.
type Case struct {
	CaseID   string   `json:"caseId"`
	Scenario string   `json:"scenario"`
	Tags     []string `json:"tags,omitempty"`
	Query    string   `json:"query"`
	Notes    string   `json:"notes,omitempty"`
	// Draft marks a case drafted from a query log (rag-eval draft) that no
	// one has assessed yet. A draft declares no check: it is snapshotted
	// like any case, reported with the status draft, and counts in no rate,
	// mean or gate.
	Draft bool `json:"draft,omitempty"`
	// Count is how often the query was seen in the log it was drafted from,
	// 0 when unknown. It declares nothing.
	Count int `json:"count,omitempty"`

	ExpectedSources     []string `json:"expectedSources,omitempty"`
	ExpectedDocIDs      []string `json:"expectedDocIds,omitempty"`
	ExpectedBreadcrumbs []string `json:"expectedBreadcrumbs,omitempty"`
	// ExpectedEvidenceKeys are chunks (evidenceKey) that must be among the
	// top K blocks.
	ExpectedEvidenceKeys []string       `json:"expectedEvidenceKeys,omitempty"`
	ExpectedKeywords     []string       `json:"expectedKeywords,omitempty"`
	MinKeywordCoverage   *float64       `json:"minKeywordCoverage,omitempty"`
	Relevance            map[string]int `json:"relevance,omitempty"`
	MustNotSources       []string       `json:"mustNotSources,omitempty"`
	MustNotDocIDs        []string       `json:"mustNotDocIds,omitempty"`

	ExpectedFound           *bool    `json:"expectedFound,omitempty"`
	ExpectedSelectedAttempt string   `json:"expectedSelectedAttempt,omitempty"`
	ExpectedFallbackReason  string   `json:"expectedFallbackReason,omitempty"`
	ExpectedFallbackReasons []string `json:"expectedFallbackReasons,omitempty"`
	ExpectedEvidenceStatus  string   `json:"expectedEvidenceStatus,omitempty"`
	// ExpectedEvidenceStatuses is the plural of ExpectedEvidenceStatus: any
	// one of them will do. The two are never both set.
	ExpectedEvidenceStatuses []string `json:"expectedEvidenceStatuses,omitempty"`
	ExpectedContextSources   []string `json:"expectedContextSources,omitempty"`
	ExpectedRerankTopSource  string   `json:"expectedRerankTopSource,omitempty"`
	ExpectedFirstRankMax     *int     `json:"expectedFirstRankMax,omitempty"`
	// MinExpectedBlocks is how many of the top K blocks at least must come
	// from expected documents, nil when unset.
	MinExpectedBlocks *int `json:"minExpectedBlocks,omitempty"`

	// K overrides the K of the file and of --k for this case, nil when unset.
	K *int `json:"k,omitempty"`
}

// UsesExpectedDocs reports whether the case names expected documents, which
// makes it eligible for a hit level and rank metrics.
func (c *Case) UsesExpectedDocs() bool {
	return len(c.ExpectedSources) > 0 || len(c.ExpectedDocIDs) > 0
}

// UsesDocIDIdentity reports whether rank metrics identify documents by docId
// (the case uses expectedDocIds) rather than by source.
func (c *Case) UsesDocIDIdentity() bool { return len(c.ExpectedDocIDs) > 0 }

// UsesCoverage reports whether the case declares a coverage expectation
// (keywords, breadcrumbs or evidence keys), which separates strong from
// medium hits.
func (c *Case) UsesCoverage() bool {
	return len(c.ExpectedKeywords) > 0 || len(c.ExpectedBreadcrumbs) > 0 || len(c.ExpectedEvidenceKeys) > 0
}

// UsesFallbackReason reports whether either fallback-reason field is declared.
func (c *Case) UsesFallbackReason() bool {
	return c.ExpectedFallbackReason != "" || len(c.ExpectedFallbackReasons) > 0
}

// UsesEvidenceStatus reports whether either evidence-status field is declared.
func (c *Case) UsesEvidenceStatus() bool {
	return c.ExpectedEvidenceStatus != "" || len(c.ExpectedEvidenceStatuses) > 0
}

// EvidenceStatuses returns the accepted evidence statuses, as written: the
// singular field as a list of one, else the plural one. It is nil when the
// case declares neither.
func (c *Case) EvidenceStatuses() []string {
	if c.ExpectedEvidenceStatus != "" {
		return []string{c.ExpectedEvidenceStatus}
	}
	return c.ExpectedEvidenceStatuses
}

// DeclaresCheck reports whether the case declares at least one check other
// than the always-on query check.
func (c *Case) DeclaresCheck() bool {
	return c.UsesExpectedDocs() || len(c.ExpectedKeywords) > 0 || len(c.ExpectedBreadcrumbs) > 0 ||
		len(c.ExpectedEvidenceKeys) > 0 || c.MinExpectedBlocks != nil ||
		len(c.MustNotSources) > 0 || len(c.MustNotDocIDs) > 0 || c.ExpectedFound != nil ||
		c.ExpectedSelectedAttempt != "" || c.UsesFallbackReason() || c.UsesEvidenceStatus() ||
		len(c.ExpectedContextSources) > 0 || c.ExpectedRerankTopSource != "" || c.ExpectedFirstRankMax != nil
}

// ResolveK returns the K for a case: the case's k, else flagK (--k, 0 when
// unset), else the file's k, else DefaultK.
func (g *GoldenFile) ResolveK(c *Case, flagK int) int {
	switch {
	case c.K != nil:
		return *c.K
	case flagK > 0:
		return flagK
	case g.K > 0:
		return g.K
	}
	return DefaultK
}

// ReportK is the K written as inputs.k of a report: --k, else the file's k,
// else DefaultK.
func (g *GoldenFile) ReportK(flagK int) int {
	switch {
	case flagK > 0:
		return flagK
	case g.K > 0:
		return g.K
	}
	return DefaultK
}
