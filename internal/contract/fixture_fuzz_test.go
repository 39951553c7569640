package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// refDecodeFixture is the reference for DecodeFixture: encoding/json into
// map[string]any (numbers kept as text), with the rules of DecodeFixture's
// documentation applied to the result. It is slow and obviously right.
func refDecodeFixture(data []byte) (*Fixture, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	if !json.Valid(data) {
		return nil, errors.New("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not an object")
	}
	f := &Fixture{FixtureVersion: FixtureVersion}
	if ver, ok := top["fixtureVersion"]; ok {
		n, isNum := ver.(json.Number)
		v, isInt := refExactInt(n)
		if !isNum || !isInt || !slices.Contains(SupportedFixtureVersions, v) {
			return nil, fmt.Errorf("unsupported fixtureVersion %v", ver)
		}
		f.FixtureVersion = v
	}
	if f.CaseID, ok = top["caseId"].(string); !ok {
		return nil, errors.New("caseId missing or not a string")
	}
	if f.Query, ok = top["query"].(string); !ok {
		return nil, errors.New("query missing or not a string")
	}
	f.RetrievedAt, _ = top["retrievedAt"].(string)
	f.SearchMode, _ = top["searchMode"].(string)
	f.KBScope, _ = top["kbScope"].(string)
	m, ok := top["lookupResult"].(map[string]any)
	if !ok {
		return nil, errors.New("lookupResult missing or not an object")
	}
	if pm, ok := top["pipeline"].(map[string]any); ok {
		f.Pipeline = &Pipeline{}
		f.Pipeline.SearchMode, _ = pm["searchMode"].(string)
		if arr, ok := pm["capabilities"].([]any); ok {
			caps := []string{}
			for _, e := range arr {
				s, ok := e.(string)
				if !ok {
					caps = nil
					break
				}
				caps = append(caps, s)
			}
			f.Pipeline.Capabilities = caps
		}
	}
	lr := &LookupResult{Partial: true}
	f.LookupResult = lr
	if b, ok := m["found"].(bool); ok {
		lr.Found = b
		lr.Has |= HasFound
	}
	if s, ok := m["evidenceStatus"].(string); ok {
		lr.EvidenceStatus = s
		lr.Has |= HasEvidenceStatus
	}
	if bv, ok := m["evidenceBlocks"]; ok {
		arr, ok := bv.([]any)
		if !ok {
			return nil, errors.New("evidenceBlocks not an array")
		}
		lr.Has |= HasEvidenceBlocks
		lr.EvidenceBlocks = []EvidenceBlock{}
		for _, e := range arr {
			o, ok := e.(map[string]any)
			if !ok {
				return nil, errors.New("evidence block not an object")
			}
			var b EvidenceBlock
			if n, ok := o["rank"].(json.Number); ok {
				b.Rank, b.HasRank = refExactInt(n)
			}
			if n, ok := o["qualityScore"].(json.Number); ok {
				if q, err := strconv.ParseFloat(string(n), 64); err == nil {
					b.QualityScore, b.HasQuality = Float6(q), true
				}
			}
			str := func(key string, dst *string, bit BlockPresence) {
				var ok bool
				if *dst, ok = o[key].(string); ok {
					b.Has |= bit
				}
			}
			str("evidenceKey", &b.EvidenceKey, BlockHasEvidenceKey)
			str("docId", &b.DocID, BlockHasDocID)
			str("source", &b.Source, BlockHasSource)
			str("breadcrumb", &b.Breadcrumb, BlockHasBreadcrumb)
			str("category", &b.Category, BlockHasCategory)
			str("excerpt", &b.Excerpt, BlockHasExcerpt)
			str("relevanceLevel", &b.RelevanceLevel, BlockHasRelevanceLevel)
			str("scoreLabel", &b.ScoreLabel, BlockHasScoreLabel)
			lr.EvidenceBlocks = append(lr.EvidenceBlocks, b)
		}
	}
	if cp, ok := m["contextPack"].(map[string]any); ok {
		if arr, ok := cp["sources"].([]any); ok {
			srcs := []string{}
			for _, e := range arr {
				s, ok := e.(string)
				if !ok {
					srcs = nil
					break
				}
				srcs = append(srcs, s)
			}
			if srcs != nil {
				lr.ContextPack.Sources = srcs
				lr.Has |= HasContextSources
			}
		}
	}
	if rt, ok := m["retrievalTrace"].(map[string]any); ok {
		if s, ok := rt["selectedAttempt"].(string); ok {
			lr.RetrievalTrace.SelectedAttempt = s
			lr.Has |= HasSelectedAttempt
		}
		if fb, ok := rt["fallbackReason"]; ok {
			switch fb := fb.(type) {
			case nil:
				lr.Has |= HasFallbackReason
			case string:
				lr.RetrievalTrace.FallbackReason = &fb
				lr.Has |= HasFallbackReason
			}
		}
	}
	if rr, ok := m["rerankTrace"].(map[string]any); ok {
		if s, ok := rr["topSource"].(string); ok {
			lr.RerankTrace.TopSource = s
			lr.Has |= HasRerankTopSource
		}
	}
	return f, nil
}

// refExactInt is exactInt done with math/big: the exact value of the number
// is an integer from 1 to MaxInt32.
func refExactInt(n json.Number) (int, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f < 0.5 || f > math.MaxInt32+1 {
		return 0, false // keeps big.Rat away from huge exponents
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	v := r.Num().Int64()
	if v < 1 || v > math.MaxInt32 {
		return 0, false
	}
	return int(v), true
}

// diffFixtures describes how two decoded fixtures differ, "" when equal.
func diffFixtures(got, want *Fixture) string {
	if reflect.DeepEqual(got, want) {
		return ""
	}
	show := func(f *Fixture) string {
		s := fmt.Sprintf("%+v", *f)
		if f.LookupResult != nil {
			lr := *f.LookupResult
			fb := "<nil>"
			if lr.RetrievalTrace.FallbackReason != nil {
				fb = strconv.Quote(*lr.RetrievalTrace.FallbackReason)
			}
			s += fmt.Sprintf("\n  lookupResult: %+v\n  fallbackReason: %s", lr, fb)
		}
		return s
	}
	return "got:  " + show(got) + "\nwant: " + show(want)
}

// fuzzSeeds are inputs for the edges of the rules, added to the testdata
// fixtures.
var fuzzSeeds = []string{
	``,
	` `,
	`[]`,
	`"x"`,
	`{}`,
	`{"caseId":"a","query":"q","lookupResult":{}}`,
	`{"caseId":"a","query":"q","lookupResult":{}} `,
	`{"caseId":"a","query":"q","lookupResult":{}} x`,
	`{"caseId":"a","query":"q","lookupResult":null}`,
	`{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":null}}`,
	`{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":[null]}}`,
	`{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":[{"rank":1e0},{"rank":10e-1},{"rank":2147483647},{"rank":2147483648}]}}`,
	`{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":[{"qualityScore":1e309},{"qualityScore":-0},{"qualityScore":1E-5}]}}`,
	`{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":[{"evidenceKey":"kb/a#A \u003e B~2"},{"evidenceKey":null},{"evidenceKey":1,"evidenceKey":"kb/a#"}]}}`,
	`{"fixtureVersion":2,"caseId":"a","query":"q","lookupResult":{}}`,
	`{"fixtureVersion":1.0,"caseId":"a","query":"q","lookupResult":{}}`,
	`{"fixtureVersion":"1","caseId":"a","query":"q","lookupResult":{}}`,
	`{"caseId":"\ud800\udc00\ud800\u0041\udc00","query":"\"\\\/\b\f\n\r\t","lookupResult":{}}`,
	"{\"caseId\":\"a\xff\",\"query\":\"q\",\"lookupResult\":{}}",
	"{\"caseId\":\"a\x01\",\"query\":\"q\",\"lookupResult\":{}}",
	"{\"caseId\":\"\xed\xa0\x80\",\"query\":\"q\",\"lookupResult\":{}}",
	`{"caseId":"a","query":"q","lookupResult":{"contextPack":{"sources":["a",null]},"retrievalTrace":{"fallbackReason":null}}}`,
	`{"caseId":"a","caseId":1,"query":"q","lookupResult":{}}`,
	`{"caseId":"a","query":"q","lookupResult":{"evidenceBlocks":1,"evidenceBlocks":[]}}`,
	`{"caseId":"a","query":"q","lookupResult":{"found":true,"found":null}}`,
	`{"caseId":"a","query":"q","pipeline":{"searchMode":"bm25","capabilities":["trace",1]},"pipeline":{"capabilities":[]},"lookupResult":{"evidenceBlocks":[{"source":"s","breadcrumb":null}]}}`,
	`{"caseId":"a","query":"q","pipeline":{"searchMode":1,"capabilities":null},"lookupResult":{"evidenceBlocks":[{"rank":0,"excerpt":"<&>"}]}}`,
	`{"caseId":"a","query":"q","pipeline":[],"lookupResult":{"contextPack":{},"retrievalTrace":{"fallbackReason":"x"}}}`,
	`{"a":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]}`,
	`{"caseId":"a","query":"q","lookupResult":{},"x":[1,2,]}`,
	`{"caseId":"a","query":"q","lookupResult":{},"x":01}`,
	`{"caseId":"a","query":"q","lookupResult":{},"x":-}`,
	`{"caseId":"a","query":"q","lookupResult":{},"x":1.}`,
	`{"caseId":"a","query":"q","lookupResult":{},"x":1e}`,
	`{"caseId":"a","query":"q","lookupResult":{},"x":tru}`,
	`{"caseId":"a","query":"q","lookupResult":{},"x":"\x"}`,
	`{"caseId":"a","query":"q","lookupResult":{},"x":"\u12"}`,
	"\xef\xbb\xbf{\"caseId\":\"a\",\"query\":\"q\",\"lookupResult\":{}}",
}

// addFixtureSeeds adds the testdata fixtures and fuzzSeeds to the corpus.
func addFixtureSeeds(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("testdata", "fixtures", "*.json"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no testdata fixtures: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
}

// FuzzDecodeFixture checks DecodeFixture against refDecodeFixture: it never
// panics, succeeds exactly when the reference does, and then decodes the
// same judged fields; and a fixture it decodes survives EncodeFixture.
func FuzzDecodeFixture(f *testing.F) {
	addFixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeFixture(data)
		want, refErr := refDecodeFixture(data)
		if (err == nil) != (refErr == nil) {
			t.Fatalf("DecodeFixture error %v, reference error %v\ninput: %q", err, refErr, data)
		}
		if err != nil {
			checkFixtureError(t, data, err)
			return
		}
		if d := diffFixtures(got, want); d != "" {
			t.Fatalf("DecodeFixture differs from the reference\ninput: %q\n%s", data, d)
		}
		checkRoundTrip(t, got)
	})
}

// checkFixtureError checks the shape of a DecodeFixture error.
func checkFixtureError(t *testing.T, data []byte, err error) {
	t.Helper()
	lines := 1 + bytes.Count(data, []byte{'\n'})
	var e *diag.Error
	var ve *UnsupportedVersionError
	switch {
	case errors.As(err, &e):
		if e.Msg == "" {
			t.Fatalf("error without a message %#v for input %q", e, data)
		}
		if e.Line < 0 || e.Line > lines {
			t.Fatalf("error on line %d, want 0 to %d: %#v for input %q", e.Line, lines, e, data)
		}
	case errors.As(err, &ve):
		if !errors.Is(err, ErrUnsupportedVersion) {
			t.Fatalf("error %#v is not ErrUnsupportedVersion, for input %q", ve, data)
		}
		if ve.Line < 1 || ve.Line > lines {
			t.Fatalf("error on line %d, want 1 to %d: %#v for input %q", ve.Line, lines, ve, data)
		}
		if ve.Field != "fixtureVersion" {
			t.Fatalf("error on field %q, want fixtureVersion: %#v for input %q", ve.Field, ve, data)
		}
	default:
		t.Fatalf("error %T %v is neither *diag.Error nor *UnsupportedVersionError", err, err)
	}
}

// checkRoundTrip encodes a decoded fixture and decodes it again: every
// judged value and its presence must survive (qualityScore rounded to 6
// decimals): an absent field stays absent.
func checkRoundTrip(t *testing.T, f *Fixture) {
	t.Helper()
	data, err := EncodeFixture(f)
	if err != nil {
		if f.CaseID == "" || !validRetrievedAt(f.RetrievedAt) {
			return // EncodeFixture refuses these; TestEncodeFixtureErrors covers it
		}
		t.Fatalf("EncodeFixture: %v", err)
	}
	g, err := DecodeFixture(data)
	if err != nil {
		t.Fatalf("DecodeFixture(EncodeFixture(f)): %v\n%s", err, data)
	}
	if d := diffFixtures(judgedValues(g), judgedValues(f)); d != "" {
		t.Fatalf("round trip changed the fixture\n%s\nencoded:\n%s", d, data)
	}
}

func validRetrievedAt(s string) bool {
	t, err := time.Parse(fixtureTimeLayout, s)
	return s == "" || err == nil && t.Format(fixtureTimeLayout) == s
}

// judgedValues returns a copy of f with qualityScore rounded as
// EncodeFixture writes it, for comparing a fixture with its re-decoded
// encoding.
func judgedValues(f *Fixture) *Fixture {
	g := *f
	lr := *f.LookupResult
	g.LookupResult = &lr
	lr.EvidenceBlocks = slices.Clone(lr.EvidenceBlocks)
	for i := range lr.EvidenceBlocks {
		b := &lr.EvidenceBlocks[i]
		b.QualityScore = Float6(Round6(float64(b.QualityScore)))
	}
	return &g
}
