package lookuphttp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
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

// FuzzKeptBlocks checks the stream decoding that keeps the first blocks
// against DecodeResult, which keeps them all: what DecodeResult accepts,
// keeping 2 blocks accepts, with the same first blocks and the others
// counted as dropped. What keeping 2 blocks refuses, DecodeResult refuses
// too, since a dropped block is checked less, never more.
func FuzzKeptBlocks(f *testing.F) {
	for _, s := range []string{
		`{"found": true, "evidenceBlocks": [{"rank": 1}, {"rank": 2}, {"rank": 3, "qualityScore": 0.5}]}`,
		`{"found": true, "evidenceBlocks": [{}, {}, 3]}`,
		`{"found": true, "evidenceBlocks": [{}, {}, {"rank": "x"}]}`,
		`{"found": true, "evidenceBlocks": [], "evidenceBlocks": [{}, {}, {}]}`,
		`{"found": true, "evidenceBlocks": [{"excerpt": "a\u00e9"}, {}, {"a": [1, {"b": null}]}], "contextPack": {"sources": ["a"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, werr := DecodeResult(data)
		dec := newDecoder(bytes.NewReader(data))
		kept, err, synErr := decodeStream(dec, 2, Excerpt)
		if synErr == nil {
			synErr = atEOF(dec)
		}
		if synErr != nil || err != nil || kept == nil {
			if werr == nil {
				t.Fatalf("keeping 2 blocks refuses %q (%v, %v), keeping all accepts it", data, err, synErr)
			}
			return
		}
		if werr != nil {
			return // a dropped block DecodeResult refuses
		}
		n := len(whole.EvidenceBlocks)
		if len(kept.EvidenceBlocks) != min(n, 2) || kept.DroppedBlocks != n-len(kept.EvidenceBlocks) || whole.DroppedBlocks != 0 {
			t.Fatalf("%q: kept %d, dropped %d of %d", data, len(kept.EvidenceBlocks), kept.DroppedBlocks, n)
		}
		for i := range kept.EvidenceBlocks {
			if !reflect.DeepEqual(kept.EvidenceBlocks[i], whole.EvidenceBlocks[i]) {
				t.Fatalf("%q: block %d is %+v, keeping all it is %+v", data, i, kept.EvidenceBlocks[i], whole.EvidenceBlocks[i])
			}
		}
		kept.EvidenceBlocks, whole.EvidenceBlocks, kept.DroppedBlocks = nil, nil, 0
		if !reflect.DeepEqual(kept, whole) {
			t.Fatalf("%q: %+v, keeping all %+v", data, kept, whole)
		}
	})
}

// FuzzBodyUTF8 checks the UTF-8 check of a body read in pieces of any
// size: it fails exactly when the body is not UTF-8, at the first byte
// that is not, and passes every byte on unchanged.
func FuzzBodyUTF8(f *testing.F) {
	for _, s := range []string{"café", "caf\xe9", "连接池😀", "\xf0\x9f\x98", "a\x80", "\xed\xa0\x80", "ok"} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, piece uint8) {
		resp := &http.Response{Header: http.Header{}, Body: io.NopCloser(iotest.OneByteReader(bytes.NewReader(data)))}
		if piece > 1 {
			resp.Body = io.NopCloser(&chunked{data: data, n: int(piece)})
		}
		b, _ := newBodyReader(resp, int64(len(data)))
		b.strict = true
		got, err := io.ReadAll(b)
		want := -1
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				want = i
				break
			}
			i += n
		}
		var nu *notUTF8Error
		switch {
		case want < 0 && err != nil:
			t.Fatalf("%q in pieces of %d: %v, want no error", data, piece, err)
		case want < 0 && !bytes.Equal(got, data):
			t.Fatalf("%q in pieces of %d: read %q", data, piece, got)
		case want >= 0 && (!errors.As(err, &nu) || nu.offset != int64(want)):
			t.Fatalf("%q in pieces of %d: %v, want not UTF-8 at byte %d", data, piece, err, want)
		}
	})
}

// chunked reads data n bytes at a time.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}

// FuzzDecodeHealth checks the reading of a /healthz body: it never panics,
// and what it accepts keeps to the ranges: a topK of at most MaxTopK,
// thresholds in [0, 1], known search modes and capabilities.
func FuzzDecodeHealth(f *testing.F) {
	for _, s := range []string{
		`{"status": "ok", "pipeline": {"name": "svc", "params": {"topK": 5, "lowQuality": 0.2, "levels": {"high": 0.5}}, "searchMode": "bm25", "capabilities": ["trace"]}}`,
		`ok`, `"ok"`, `[1]`, `{"pipeline": [1,2]}`, `{"pipeline": {"params": {"lowQuality": "NaN"}}}`, ``, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &Client{}
		p, err := c.decodeHealth(data, &bodyReader{})
		if err != nil || p == nil {
			return
		}
		if !slices.Contains(append(contract.PipelineSearchModes, ""), p.SearchMode) {
			t.Fatalf("%q: search mode %q", data, p.SearchMode)
		}
		if contract.ValidCapabilities(p.Capabilities) != nil {
			t.Fatalf("%q: capabilities %q", data, p.Capabilities)
		}
		if pp := p.Params; pp != nil {
			if pp.TopK < 0 || pp.TopK > builtin.MaxTopK {
				t.Fatalf("%q: topK %d", data, pp.TopK)
			}
			for _, v := range []contract.Float6{pp.LowQuality, pp.MinQuality, pp.RelQuality, pp.Levels.High, pp.Levels.Medium} {
				if v < 0 || v > 1 {
					t.Fatalf("%q: threshold %v", data, v)
				}
			}
		}
	})
}
