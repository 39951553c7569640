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

// EncodeFixture writes f as a fixture file (docs/fixtures.md), with:
//
//   - fields in struct order and a two-space indent;
//   - floats rounded to 6 decimals in their shortest form (Float6);
//   - arrays never null, a nil slice written as [];
//   - '<', '>' and '&' written as they are;
//   - a trailing newline.
//
// The same fixture always encodes to the same bytes. The Has bits are not
// written. When the result is Partial they say which of its fields are
// written: a field it does not carry is left out, not written as a zero.
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

	var v any = &g
	if lr.Partial {
		type plain Fixture
		v = &struct {
			plain
			LookupResult jsonObject `json:"lookupResult"`
		}{plain(g), partialResult(&lr)}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fail("%w", err)
	}
	return buf.Bytes(), nil
}

// partialResult is what EncodeFixture writes of a Partial result: the
// fields of the complete form, in the same order and with the same values,
// less those it does not carry. An object none of whose fields it carries,
// such as contextPack, retrievalTrace or rerankTrace, is left out too.
// attempts and l0Hints are written whole when carried. lr's slices are
// already non-nil.
func partialResult(lr *LookupResult) jsonObject {
	var o jsonObject
	for _, g := range lr.FieldGroups() {
		var m jsonObject
		for _, f := range g.Fields {
			if lr.Has&f.Bit == 0 {
				continue
			}
			val := f.Value
			if f.Bit == HasEvidenceBlocks {
				blocks := make([]jsonObject, len(lr.EvidenceBlocks))
				for i := range lr.EvidenceBlocks {
					blocks[i] = partialBlock(&lr.EvidenceBlocks[i])
				}
				val = blocks
			}
			m.add(true, f.Key, val)
		}
		if g.Key == "" {
			o = m
		} else {
			o.add(len(m) > 0, g.Key, m)
		}
	}
	return o
}

// partialBlock is what EncodeFixture writes of a block of a Partial result.
func partialBlock(b *EvidenceBlock) jsonObject {
	var o jsonObject
	for _, f := range b.Fields() {
		o.add(f.Carried(b), f.Key, f.Value)
	}
	return o
}

// jsonObject is a JSON object whose members are written in order.
type jsonObject []jsonMember

type jsonMember struct {
	key string // written as it is: a plain ASCII name
	val any
}

func (o *jsonObject) add(ok bool, key string, val any) {
	if ok {
		*o = append(*o, jsonMember{key, val})
	}
}

// MarshalJSON implements json.Marshaler. The caller's encoder indents
// and, if it does, escapes HTML.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`"` + m.key + `":`)
		if err := enc.Encode(m.val); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteByte('}')
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
