package contract

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A Partial result that carries every field encodes to the bytes of the
// complete result: the two paths of EncodeFixture agree.
func TestEncodePartialWithEverythingIsComplete(t *testing.T) {
	f := encodeTestFixture()
	full, err := EncodeFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	lr := *f.LookupResult
	lr.Partial, lr.Has = true, HasAll
	lr.EvidenceBlocks = append([]EvidenceBlock(nil), lr.EvidenceBlocks...)
	for i := range lr.EvidenceBlocks {
		b := &lr.EvidenceBlocks[i]
		b.HasRank, b.HasQuality, b.Has = true, true, BlockHasAll
	}
	g := *f
	g.LookupResult = &lr
	partial, err := EncodeFixture(&g)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(full, partial) {
		t.Errorf("partial encoding differs:\n%s\ncomplete:\n%s", partial, full)
	}
}

// What a minimal external pipeline sends stays minimal: no zero score, no
// empty breadcrumb, no invented context pack or trace; and the decoder
// reports the same absences.
func TestEncodePartialLeavesAbsentFieldsOut(t *testing.T) {
	f := &Fixture{
		CaseID: "c", Query: "q", SearchMode: "hybrid", KBScope: "kb",
		Pipeline: &Pipeline{Name: "http", Store: "http://127.0.0.1:9/", SearchMode: ModeBM25, Capabilities: []string{}},
		LookupResult: &LookupResult{
			Partial: true, Has: HasFound | HasEvidenceStatus | HasEvidenceBlocks,
			Found: true, EvidenceStatus: EvidenceSufficient,
			EvidenceBlocks: []EvidenceBlock{{Rank: 1, HasRank: true, Source: "a", Excerpt: "x <y>", Has: BlockHasSource | BlockHasExcerpt}},
		},
	}
	data, err := EncodeFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "fixtureVersion": 1,
  "caseId": "c",
  "query": "q",
  "retrievedAt": "",
  "searchMode": "hybrid",
  "kbScope": "kb",
  "pipeline": {
    "name": "http",
    "version": "",
    "store": "http://127.0.0.1:9/",
    "embedder": "",
    "dim": 0,
    "searchMode": "bm25",
    "capabilities": []
  },
  "lookupResult": {
    "found": true,
    "evidenceStatus": "sufficient",
    "evidenceBlocks": [
      {
        "rank": 1,
        "source": "a",
        "excerpt": "x <y>"
      }
    ]
  }
}
`
	if string(data) != want {
		t.Fatalf("got\n%s\nwant\n%s", data, want)
	}
	g, err := DecodeFixture(data)
	if err != nil {
		t.Fatal(err)
	}
	lr := g.LookupResult
	if lr.Has != f.LookupResult.Has {
		t.Errorf("presence %b, want %b", lr.Has, f.LookupResult.Has)
	}
	if !lr.Partial {
		t.Error("Partial false, want true")
	}
	b := lr.EvidenceBlocks[0]
	if b.HasQuality {
		t.Error("block 0: HasQuality true, want false")
	}
	if !b.HasRank {
		t.Error("block 0: HasRank false, want true")
	}
	if want := BlockHasSource | BlockHasExcerpt; b.Has != want {
		t.Errorf("block 0: presence %b, want %b", b.Has, want)
	}
	if g.Pipeline == nil {
		t.Fatal("pipeline nil")
	}
	if g.Pipeline.SearchMode != ModeBM25 {
		t.Errorf("pipeline searchMode %q, want %q", g.Pipeline.SearchMode, ModeBM25)
	}
	if c := g.Pipeline.Capabilities; c == nil || len(c) != 0 {
		t.Errorf("pipeline capabilities %#v, want []string{}", c)
	}
	// Encoding the decoded fixture again keeps the absences.
	again, err := EncodeFixture(g)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(again, []byte(`"lookupResult": {
    "found": true,
    "evidenceStatus": "sufficient",
    "evidenceBlocks": [
      {
        "rank": 1,
        "source": "a",
        "excerpt": "x <y>"
      }
    ]
  }`)) {
		t.Errorf("re-encoded:\n%s", again)
	}
}

// Parts of the sub-objects: a context pack with only sources, a trace
// with only a null fallbackReason.
func TestEncodePartialSubObjects(t *testing.T) {
	f := &Fixture{CaseID: "c", Query: "q", LookupResult: &LookupResult{
		Partial: true, Has: HasEvidenceBlocks | HasContextSources | HasFallbackReason | HasRerankModel,
		ContextPack: ContextPack{BlockCount: 3}, RerankTrace: RerankTrace{Model: "m"},
	}}
	data, err := EncodeFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	lr, _ := json.Marshal(got["lookupResult"])
	if want := `{"contextPack":{"sources":[]},"evidenceBlocks":[],"rerankTrace":{"model":"m"},"retrievalTrace":{"fallbackReason":null}}`; string(lr) != want {
		t.Errorf("got %s\nwant %s", lr, want)
	}
}

func TestPipelineCapabilitiesJSON(t *testing.T) {
	for _, tc := range []struct {
		p    Pipeline
		want string
	}{
		{Pipeline{Name: "builtin"}, `{"name":"builtin","version":"","store":"","embedder":"","dim":0}`},
		{Pipeline{Name: "http", Capabilities: []string{}}, `{"name":"http","version":"","store":"","embedder":"","dim":0,"capabilities":[]}`},
		{Pipeline{Name: "a&b", SearchMode: "bm25", Capabilities: []string{CapTrace}},
			`{"name":"a\u0026b","version":"","store":"","embedder":"","dim":0,"searchMode":"bm25","capabilities":["trace"]}`},
	} {
		got, err := json.Marshal(tc.p)
		if err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.p, got, err, tc.want)
		}
		var back Pipeline
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("Unmarshal(%s): %v", got, err)
		} else if (back.Capabilities == nil) != (tc.p.Capabilities == nil) {
			t.Errorf("Unmarshal(%s): capabilities %#v, want %#v", got, back.Capabilities, tc.p.Capabilities)
		}
	}
}

func TestParseCapabilities(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "[]", ""},
		{"none", "[]", ""},
		{"rerank, trace,trace", "[trace rerank]", ""},
		{strings.Join(Capabilities, ","), "[evidenceStatus qualityScore breadcrumb contextPack trace fallback rerank]", ""},
		{"trace,,rerank", "", `empty capability in "trace,,rerank"`},
		{"traces", "", `unknown capability "traces" (known: evidenceStatus, qualityScore, breadcrumb, contextPack, trace, fallback, rerank, or none)`},
	} {
		got, err := ParseCapabilities(tc.in)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseCapabilities(%q) error %v, want %s", tc.in, err, tc.err)
			}
		case err != nil || got == nil || fmtList(got) != tc.want:
			t.Errorf("ParseCapabilities(%q) = %q, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if err := ValidPipelineSearchMode("vector"); err == nil || !strings.Contains(err.Error(), "hybrid, dense, bm25, other") {
		t.Errorf("ValidPipelineSearchMode(vector) = %v", err)
	}
	p := &Pipeline{Capabilities: []string{CapTrace}}
	if !p.Lacks(CapRerank) {
		t.Error("a pipeline declaring only trace does not lack rerank")
	}
	if p.Lacks(CapTrace) {
		t.Error("a pipeline declaring trace lacks it")
	}
	if (&Pipeline{}).Lacks(CapRerank) {
		t.Error("a pipeline declaring nothing lacks rerank, want it to have every capability")
	}
	if (*Pipeline)(nil).Lacks(CapTrace) {
		t.Error("a nil pipeline lacks trace, want it to have every capability")
	}
}

func fmtList(xs []string) string { return "[" + strings.Join(xs, " ") + "]" }

// FieldGroups names every Presence bit once, and Fields every
// BlockPresence bit once, so that the partial encoding, FieldPath and an
// external pipeline's decoder miss no field.
func TestFieldTablesCoverEveryBit(t *testing.T) {
	var seen Presence
	for _, g := range new(LookupResult).FieldGroups() {
		for _, f := range g.Fields {
			if f.Bit == 0 || f.Bit&(f.Bit-1) != 0 || seen&f.Bit != 0 {
				t.Errorf("%s.%s: bit %b is not a new single bit", g.Key, f.Key, f.Bit)
			}
			seen |= f.Bit
		}
	}
	if seen != HasAll {
		t.Errorf("fields cover %b, want HasAll %b", seen, HasAll)
	}
	var bseen BlockPresence
	flags := 0
	for _, f := range new(EvidenceBlock).Fields() {
		if f.Flag != nil {
			flags++
			continue
		}
		if f.Bit == 0 || bseen&f.Bit != 0 {
			t.Errorf("block field %s: bit %b is not a new bit", f.Key, f.Bit)
		}
		bseen |= f.Bit
	}
	if bseen != BlockHasAll || flags != 2 {
		t.Errorf("block fields cover %b and %d flags, want %b and 2 (rank, qualityScore)", bseen, flags, BlockHasAll)
	}
}

func TestFieldPath(t *testing.T) {
	for bit, want := range map[Presence]string{
		HasFound:                     "lookupResult.found",
		HasEvidenceBlocks:            "lookupResult.evidenceBlocks",
		HasContextSources:            "lookupResult.contextPack.sources",
		HasSelectedAttempt:           "lookupResult.retrievalTrace.selectedAttempt",
		HasFallbackReason:            "lookupResult.retrievalTrace.fallbackReason",
		HasRerankTopSource:           "lookupResult.rerankTrace.topSource",
		HasContextPackedText:         "lookupResult.contextPack.packedText",
		HasTraceL0Hints:              "lookupResult.retrievalTrace.l0Hints",
		HasRerankFallback:            "lookupResult.rerankTrace.fallback",
		HasFound | HasEvidenceStatus: "lookupResult",
		0:                            "lookupResult",
	} {
		if got := bit.FieldPath(); got != want {
			t.Errorf("FieldPath(%b) = %q, want %q", bit, got, want)
		}
	}
}
