package builtin

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

func TestQuality(t *testing.T) {
	for _, c := range []struct{ d, want float64 }{
		{0, 1}, {math.Sqrt(2), 0}, {2, 0}, {1, 0.5}, {math.Sqrt(2 - 2*0.3), 0.3}, {math.NaN(), 0}, {math.Copysign(0, -1), 1},
	} {
		if got := quality(c.d); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quality(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}

func TestLevel(t *testing.T) {
	l := Levels{High: 0.3, Medium: 0.15}
	for _, c := range []struct {
		q    float64
		want string
	}{{1, "high"}, {0.3, "high"}, {0.2999999, "medium"}, {0.15, "medium"}, {0.1499999, "low"}, {0, "low"}} {
		if got := level(c.q, l); got != c.want {
			t.Errorf("level(%v) = %s, want %s", c.q, got, c.want)
		}
	}
}

// hit makes a hit of doc chunk i with cosine cos.
func hit(doc string, i int, cos float64, text string) kb.Hit {
	id := "s/" + doc
	return kb.Hit{Chunk: kb.Chunk{EvidenceKey: kb.EvidenceKey(id, strconv.Itoa(i), 1, 1), DocID: id, Source: doc, ChunkIndex: i, Text: text},
		DenseDistance: math.Sqrt(2 - 2*cos), Score: cos}
}

func TestPostProcess(t *testing.T) {
	hits := []kb.Hit{
		hit("a", 0, 0.9, "alpha"),
		hit("a", 0, 0.9, "alpha again"),  // same evidence key
		hit("b", 0, 0.8, "  ALPHA "),     // same normalised text as a#0
		hit("a", 1, 0.7, "a one"),        //
		hit("a", 2, 0.6, "a two"),        // third block of a
		hit("c", 0, 0.1, "below floor"),  // below minQuality
		hit("d", 0, 0.5, "ｄ full width"), //
		hit("e", 0, 0.4, "e"),
	}
	got := postProcess(hits, 3, 0.2, Levels{High: 0.85, Medium: 0.6}, "RRF")
	var keys, levels []string
	for _, b := range got {
		keys = append(keys, b.EvidenceKey)
		levels = append(levels, b.RelevanceLevel)
		if b.ScoreLabel != "RRF" {
			t.Errorf("block %s: scoreLabel %q, want RRF", b.EvidenceKey, b.ScoreLabel)
		}
		if !b.HasRank {
			t.Errorf("block %s: HasRank false, want true", b.EvidenceKey)
		}
		if !b.HasQuality {
			t.Errorf("block %s: HasQuality false, want true", b.EvidenceKey)
		}
	}
	if want := []string{"s/a#0", "s/a#1", "s/d#0"}; !slices.Equal(keys, want) {
		t.Errorf("blocks %v, want %v", keys, want)
	}
	if want := []string{"high", "medium", "low"}; !slices.Equal(levels, want) {
		t.Errorf("levels %v, want %v", levels, want)
	}
	if got[0].Excerpt != "alpha" {
		t.Errorf("first block: excerpt %q, want alpha", got[0].Excerpt)
	}
	if math.Abs(float64(got[0].QualityScore)-0.9) > 1e-12 {
		t.Errorf("first block: qualityScore %v, want 0.9", got[0].QualityScore)
	}
	if float64(got[0].FusedScore) != 0.9 {
		t.Errorf("first block: fusedScore %v, want 0.9", got[0].FusedScore)
	}
	if n := len(postProcess(hits, 10, 0.2, Levels{}, "RRF")); n != 4 {
		t.Errorf("topK 10: %d blocks, want 4", n)
	}
}

func blocks(specs ...string) []contract.EvidenceBlock {
	var bs []contract.EvidenceBlock
	for _, s := range specs {
		src, ex, _ := strings.Cut(s, ":")
		bs = append(bs, contract.EvidenceBlock{Source: src, Breadcrumb: "B > " + src, Excerpt: ex})
	}
	return bs
}

func TestPack(t *testing.T) {
	bs := blocks("a:磁盘满了", "b:inode 用尽", "a:第三块")
	// "[a] B > a\n磁盘满了" is 14 characters, "\n\n[b] B > b\ninode 用尽" 20,
	// "\n\n[a] B > a\n第三块" 15: 49 in all.
	const two = "[a] B > a\n磁盘满了\n\n[b] B > b\ninode 用尽"
	for _, c := range []struct {
		budget    int
		text      string
		n         int
		sources   []string
		truncated bool
	}{
		{100, two + "\n\n[a] B > a\n第三块", 3, []string{"a", "b"}, false},
		{49, two + "\n\n[a] B > a\n第三块", 3, []string{"a", "b"}, false},
		{48, two + "\n\n[a] B > a\n第三", 3, []string{"a", "b"}, true},
		{47, two + "\n\n[a] B > a\n第", 3, []string{"a", "b"}, true},
		// No room for a character of the third excerpt: dropped whole.
		{46, two, 2, []string{"a", "b"}, true},
		{36, two, 2, []string{"a", "b"}, true},
		{30, "[a] B > a\n磁盘满了\n\n[b] B > b\ninod", 2, []string{"a", "b"}, true},
		{27, "[a] B > a\n磁盘满了\n\n[b] B > b\ni", 2, []string{"a", "b"}, true},
		{26, "[a] B > a\n磁盘满了", 1, []string{"a"}, true},
		{14, "[a] B > a\n磁盘满了", 1, []string{"a"}, true},
		{11, "[a] B > a\n磁", 1, []string{"a"}, true},
		{10, "", 0, []string{}, true},
	} {
		cp := pack(bs, c.budget)
		check := func(name string, got, want any) {
			t.Helper()
			if got != want {
				t.Errorf("budget %d: %s = %v, want %v", c.budget, name, got, want)
			}
		}
		check("packedText", cp.PackedText, c.text)
		check("blockCount", cp.BlockCount, c.n)
		if !slices.Equal(cp.Sources, c.sources) {
			t.Errorf("budget %d: sources %q, want %q", c.budget, cp.Sources, c.sources)
		}
		check("truncated", cp.Truncated, c.truncated)
		check("budgetChars", cp.BudgetChars, c.budget)
		check("usedChars", cp.UsedChars, utf8.RuneCountInString(c.text))
		if cp.UsedChars > c.budget {
			t.Errorf("budget %d: usedChars %d, over the budget", c.budget, cp.UsedChars)
		}
	}
	cp := pack(nil, 100)
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("no blocks: blockCount", cp.BlockCount, 0)
	check("no blocks: truncated", cp.Truncated, false)
	if cp.Sources == nil {
		t.Error("no blocks: sources nil, want []")
	}
	check("no blocks: packedText", cp.PackedText, "")
}

func TestEvidenceStatusFunc(t *testing.T) {
	bs := []contract.EvidenceBlock{{QualityScore: 0.1}, {QualityScore: 0.2}}
	for _, c := range []struct {
		bs   []contract.EvidenceBlock
		low  float64
		want string
	}{{nil, 0.15, "none"}, {bs, 0.15, "sufficient"}, {bs, 0.2, "sufficient"}, {bs, 0.21, "weak"}} {
		if got := evidenceStatus(c.bs, c.low); got != c.want {
			t.Errorf("%v/%v: %s, want %s", c.bs, c.low, got, c.want)
		}
	}
}

func TestMatchL0(t *testing.T) {
	term := func(term, doc, cat string) l0Term {
		return l0Term{norm: strings.ToLower(term), L0Term: kb.L0Term{Term: term, DocID: "s/" + doc, Source: doc, Category: cat}}
	}
	terms := []l0Term{
		term("disk", "d1", "ops"), term("Disk", "d1", "ops"), // one vote: same term, same doc
		term("inode", "d2", "ops"),
		term("disk", "s1", "storage"),
		term("磁盘", "m1", "db"),
	}
	h := matchL0(terms, "DISK full, inode exhausted, 磁盘", 1)
	want := contract.L0Hints{
		Categories:     []string{"ops", "db", "storage"},
		MatchedTerms:   []string{"disk", "inode", "磁盘"},
		MatchedSources: []string{"d1", "d2", "m1", "s1"},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("hints %q\nwant  %q", h, want)
	}
	// No match gives empty lists, not nil ones.
	h = matchL0(terms, "nothing here", 1)
	if h.Categories == nil || len(h.Categories) != 0 {
		t.Errorf("no match: categories %#v, want []string{}", h.Categories)
	}
	if h.MatchedTerms == nil {
		t.Errorf("no match: matchedTerms %#v, want non-nil", h.MatchedTerms)
	}
	if h.MatchedSources == nil {
		t.Errorf("no match: matchedSources %#v, want non-nil", h.MatchedSources)
	}
}

func TestRerankEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:8080":                 "http://h:8080/rerank",
		"http://h:8080/":                "http://h:8080/rerank",
		"http://h:8080/v1":              "http://h:8080/v1/rerank",
		"http://h:8080/v1/":             "http://h:8080/v1/rerank",
		"https://api.jina.ai/v1/rerank": "https://api.jina.ai/v1/rerank",
		"https://h/v1/rerank/":          "https://h/v1/rerank",
		"http://h/v1?api-version=2":     "http://h/v1/rerank?api-version=2",
		"http://h/reranker":             "http://h/reranker/rerank",
	} {
		if got := rerankEndpoint(in); got != want {
			t.Errorf("rerankEndpoint(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHasEvidence(t *testing.T) {
	hit := func(q float64) kb.Hit { return kb.Hit{DenseDistance: math.Sqrt(2 - 2*q)} }
	// In hybrid mode candidates come in RRF order: the one that reaches
	// the floor may come after topK poorer ones, and still counts.
	hits := []kb.Hit{hit(0.05), hit(0.08), hit(0.1), hit(0.06), hit(0.02), hit(0.2)}
	for _, c := range []struct {
		hits []kb.Hit
		min  float64
		want bool
	}{
		{nil, 0, false},                   // nothing at all
		{hits[:1], 0, true},               // no floor: any candidate is evidence
		{hits[:5], 0.13, false},           // all below the floor
		{hits, 0.13, true},                // the sixth reaches it
		{[]kb.Hit{hit(0.13)}, 0.13, true}, // the floor is inclusive
	} {
		if got := hasEvidence(c.hits, c.min); got != c.want {
			t.Errorf("hasEvidence(%d hits, %v) = %v, want %v", len(c.hits), c.min, got, c.want)
		}
	}
	if best := bestQuality(hits, 5); best >= 0.13 {
		t.Errorf("bestQuality of the first 5 = %v: the example needs it below the floor", best)
	}
}

func TestValidateKeepsTheFloorUnderLowQuality(t *testing.T) {
	c := DefaultConfig(LocalHashEmbedder)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.MinQuality = c.LowQuality + 0.01
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "minQuality") {
		t.Fatalf("minQuality above lowQuality: %v", err)
	}
}
