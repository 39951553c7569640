package lookuphttp

import (
	"slices"
	"strconv"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// FuzzDecodeResult checks DecodeResult on any answer: it never panics; what
// it accepts encodes as a fixture, and the judge's decoder reads back from
// that fixture the very values and presence DecodeResult produced (a field
// the service did not send is absent from the fixture, one it sent is
// there).
func FuzzDecodeResult(f *testing.F) {
	for _, s := range []string{
		`{"found": true, "evidenceBlocks": []}`,
		`{"found": false, "evidenceStatus": null, "evidenceBlocks": [{"rank": 1, "source": "a", "qualityScore": 0.1234567}]}`,
		`{"found": true, "evidenceBlocks": [{"rank": 0, "breadcrumb": "A > B", "excerpt": "<&>"}, {}], "contextPack": {"sources": ["a"]}}`,
		`{"found": true, "evidenceBlocks": [], "retrievalTrace": {"fallbackReason": null, "selectedAttempt": "X"}, "rerankTrace": {"topSource": ""}}`,
		`{"found": true, "evidenceBlocks": [{"rank": "1"}]}`,
		`{"found": true, "evidenceBlocks": [null]}`,
		`{"found": 1, "evidenceBlocks": []}`,
		`[]`, `null`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lr, err := DecodeResult(data)
		if err != nil {
			return
		}
		if !lr.Partial || lr.Has&(contract.HasFound|contract.HasEvidenceBlocks) != contract.HasFound|contract.HasEvidenceBlocks {
			t.Fatalf("accepted %q with presence %b", data, lr.Has)
		}
		enc, err := contract.EncodeFixture(&contract.Fixture{CaseID: "c", Query: "q", LookupResult: lr})
		if err != nil {
			t.Fatalf("EncodeFixture of %q: %v", data, err)
		}
		back, err := contract.DecodeFixture(enc)
		if err != nil {
			t.Fatalf("DecodeFixture of the encoding of %q: %v\n%s", data, err, enc)
		}
		got := back.LookupResult
		if want := lr.Has & contract.HasJudged; got.Has != want {
			t.Fatalf("presence %b, want %b\ninput %q\n%s", got.Has, want, data, enc)
		}
		if got.Found != lr.Found {
			t.Fatalf("found %v, want %v\ninput %q\n%s", got.Found, lr.Found, data, enc)
		}
		if got.EvidenceStatus != lr.EvidenceStatus {
			t.Fatalf("evidenceStatus %q, want %q\ninput %q\n%s", got.EvidenceStatus, lr.EvidenceStatus, data, enc)
		}
		if len(got.EvidenceBlocks) != len(lr.EvidenceBlocks) {
			t.Fatalf("%d blocks, want %d\ninput %q\n%s", len(got.EvidenceBlocks), len(lr.EvidenceBlocks), data, enc)
		}
		for i := range lr.EvidenceBlocks {
			a, b := &lr.EvidenceBlocks[i], &got.EvidenceBlocks[i]
			strs := contract.BlockHasEvidenceKey | contract.BlockHasDocID | contract.BlockHasSource | contract.BlockHasBreadcrumb |
				contract.BlockHasCategory | contract.BlockHasExcerpt | contract.BlockHasRelevanceLevel | contract.BlockHasScoreLabel
			if b.Has != a.Has&strs || b.HasQuality != a.HasQuality || b.HasRank != (a.HasRank && a.Rank >= 1) ||
				b.Source != a.Source || b.Breadcrumb != a.Breadcrumb || b.Excerpt != a.Excerpt ||
				a.HasQuality && b.QualityScore != contract.Float6(contract.Round6(float64(a.QualityScore))) {
				t.Fatalf("block %d: %+v, want %+v\ninput %q\n%s", i, *b, *a, data, enc)
			}
		}
		if got.Has&contract.HasContextSources != 0 && !slices.Equal(got.ContextPack.Sources, lr.ContextPack.Sources) {
			t.Fatalf("sources %q, want %q", got.ContextPack.Sources, lr.ContextPack.Sources)
		}
		fa, fb := lr.RetrievalTrace.FallbackReason, got.RetrievalTrace.FallbackReason
		if (fa == nil) != (fb == nil) || fa != nil && *fa != *fb {
			show := func(s *string) string {
				if s == nil {
					return "null"
				}
				return strconv.Quote(*s)
			}
			t.Fatalf("fallbackReason %s, want %s\ninput %q\n%s", show(fb), show(fa), data, enc)
		}
		if g, w := got.RetrievalTrace.SelectedAttempt, lr.RetrievalTrace.SelectedAttempt; g != w {
			t.Fatalf("selectedAttempt %q, want %q\ninput %q\n%s", g, w, data, enc)
		}
		if g, w := got.RerankTrace.TopSource, lr.RerankTrace.TopSource; g != w {
			t.Fatalf("rerankTrace.topSource %q, want %q\ninput %q\n%s", g, w, data, enc)
		}
	})
}
