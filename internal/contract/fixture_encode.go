package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// fixtureTimeLayout is RFC 3339 in UTC with second precision (docs/fixtures.md).
const fixtureTimeLayout = "2006-01-02T15:04:05Z"

// EncodeFixture writes f as a fixture file (docs/fixtures.md): fields in struct
// order, two-space indent, floats rounded to 6 decimals in their shortest
// form (Float6), arrays never null (a nil slice is written as []), '<', '>'
// and '&' written as they are, and a trailing newline. The same fixture
// always encodes to the same bytes. The Has bits are not written.
//
// A zero FixtureVersion is written as FixtureVersion. It is an error when
// f has no caseId, no lookupResult, a FixtureVersion that is not in
// SupportedFixtureVersions, or a RetrievedAt that is set but not RFC 3339
// UTC with second precision ("2006-01-02T15:04:05Z"). f is not modified.
func EncodeFixture(f *Fixture) ([]byte, error) {
	if f == nil {
		return nil, errors.New("encode fixture: nil fixture")
	}
	if f.CaseID == "" {
		return nil, errors.New("encode fixture: fixture has no caseId")
	}
	fail := func(format string, args ...any) ([]byte, error) {
		return nil, fmt.Errorf("encode fixture %s: "+format, append([]any{f.CaseID}, args...)...)
	}
	if f.LookupResult == nil {
		return fail("fixture has no lookupResult")
	}
	if f.RetrievedAt != "" {
		t, err := time.Parse(fixtureTimeLayout, f.RetrievedAt)
		if err != nil || t.Format(fixtureTimeLayout) != f.RetrievedAt {
			return fail("retrievedAt %q is not RFC 3339 UTC with second precision (%s)", f.RetrievedAt, fixtureTimeLayout)
		}
	}

	g := *f
	if g.FixtureVersion == 0 {
		g.FixtureVersion = FixtureVersion
	}
	if !slices.Contains(SupportedFixtureVersions, g.FixtureVersion) {
		return fail("unsupported fixtureVersion %d (supported: %v)", g.FixtureVersion, SupportedFixtureVersions)
	}
	lr := *f.LookupResult
	g.LookupResult = &lr
	lr.EvidenceBlocks = fxNonNil(lr.EvidenceBlocks)
	lr.ContextPack.Sources = fxNonNil(lr.ContextPack.Sources)
	rt := &lr.RetrievalTrace
	rt.L0Hints.Categories = fxNonNil(rt.L0Hints.Categories)
	rt.L0Hints.MatchedTerms = fxNonNil(rt.L0Hints.MatchedTerms)
	rt.L0Hints.MatchedSources = fxNonNil(rt.L0Hints.MatchedSources)
	rt.Attempts = fxNonNil(rt.Attempts)
	lr.RerankTrace.InputOrder = fxNonNil(lr.RerankTrace.InputOrder)
	lr.RerankTrace.OutputOrder = fxNonNil(lr.RerankTrace.OutputOrder)

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&g); err != nil {
		return fail("%w", err)
	}
	return buf.Bytes(), nil
}

// fxNonNil returns s, or an empty slice when s is nil, so that it is written
// as [] rather than null.
func fxNonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}
