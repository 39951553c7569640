package builtin_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/local"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/openai"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/usem3"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
)

func TestHintGivesFilteredAttempt(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	res := run(t, newPipeline(s, nil), "连接池满了 too many connections 怎么办")
	tr := res.RetrievalTrace
	wantHints := contract.L0Hints{Categories: []string{"database"}, MatchedTerms: []string{"too many connections", "连接池"}, MatchedSources: []string{"db-pool"}}
	if !reflect.DeepEqual(tr.L0Hints, wantHints) {
		t.Errorf("l0Hints %q\nwant    %q", tr.L0Hints, wantHints)
	}
	if !slices.Equal(attemptNames(res), []string{contract.AttemptFiltered}) || tr.SelectedAttempt != contract.AttemptFiltered || tr.FallbackReason != nil {
		t.Fatalf("want one selected FILTERED_VECTOR attempt and no fallback: %s", describe(res))
	}
	a := tr.Attempts[0]
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("attempt filter.kbScope", a.Filter.KBScope, scope)
	if want := []string{"database"}; !slices.Equal(a.Filter.Categories, want) {
		t.Errorf("attempt filter.categories %q, want %q", a.Filter.Categories, want)
	}
	check("attempt lowQuality", a.LowQuality, false)
	check("attempt candidates", a.Candidates, 2)
	// Only database documents come back, the pool document first.
	if got := sources(res); len(got) == 0 || got[0] != "db-pool" {
		t.Errorf("sources %v, want db-pool first", got)
	}
	for _, b := range res.EvidenceBlocks {
		if b.Category != "database" {
			t.Errorf("block %s of category %s in a filtered attempt", b.EvidenceKey, b.Category)
		}
	}
	check("found", res.Found, true)
	check("evidenceStatus", res.EvidenceStatus, contract.EvidenceSufficient)
	// Reranker none: disabled, model none, order untouched, top source is
	// the first block's.
	rt := res.RerankTrace
	check("rerankTrace.enabled", rt.Enabled, false)
	check("rerankTrace.model", rt.Model, "none")
	check("rerankTrace.fallback", rt.Fallback, false)
	check("rerankTrace.topSource", rt.TopSource, "db-pool")
	if !slices.Equal(rt.InputOrder, rt.OutputOrder) {
		t.Errorf("rerankTrace.outputOrder %q, want the inputOrder %q", rt.OutputOrder, rt.InputOrder)
	}
	if !slices.Equal(rt.OutputOrder, evidenceKeys(res)) {
		t.Errorf("rerankTrace.outputOrder %q, want the blocks' order %q", rt.OutputOrder, evidenceKeys(res))
	}
	checkBlocks(t, res)
}

func TestNoHintGivesUnfilteredAttempt(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	res := run(t, newPipeline(s, nil), "How do I check when the openssl certificate expires?")
	tr := res.RetrievalTrace
	if len(tr.L0Hints.Categories)+len(tr.L0Hints.MatchedTerms)+len(tr.L0Hints.MatchedSources) != 0 {
		t.Errorf("unexpected hints %+v", tr.L0Hints)
	}
	if !slices.Equal(attemptNames(res), []string{contract.AttemptUnfiltered}) || tr.SelectedAttempt != contract.AttemptUnfiltered || tr.FallbackReason != nil {
		t.Fatalf("want one selected UNFILTERED_VECTOR attempt: %s", describe(res))
	}
	if f := tr.Attempts[0].Filter; f.KBScope != scope {
		t.Errorf("filter kbScope %q, want %q", f.KBScope, scope)
	}
	if f := tr.Attempts[0].Filter; f.Categories != nil {
		t.Errorf("filter categories %q, want none", f.Categories)
	}
	if got := sources(res); len(got) == 0 || got[0] != "tls" {
		t.Errorf("sources %v, want tls first: %s", got, describe(res))
	}
}

func TestFilteredLowQualityRetries(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	// Without the minQuality floor the database chunks the decoy steers to
	// are evidence, only poor: a low-quality retry.
	noFloor := func(c *builtin.Config) { c.MinQuality = 0 }
	res := run(t, newPipeline(s, noFloor), "服务器磁盘满了，inode 也用尽了")
	tr := res.RetrievalTrace
	if want := []string{"database"}; !slices.Equal(tr.L0Hints.Categories, want) {
		t.Errorf("hints categories %q, want %q", tr.L0Hints.Categories, want)
	}
	if want := []string{"decoy"}; !slices.Equal(tr.L0Hints.MatchedSources, want) {
		t.Errorf("hints matchedSources %q, want %q", tr.L0Hints.MatchedSources, want)
	}
	if !slices.Equal(attemptNames(res), []string{contract.AttemptFiltered, contract.AttemptUnfilteredRetry}) ||
		reason(res) != contract.FallbackLowQuality || tr.SelectedAttempt != contract.AttemptUnfilteredRetry {
		t.Fatalf("want a low-quality retry, selected: %s", describe(res))
	}
	first, retry := tr.Attempts[0], tr.Attempts[1]
	if first.Candidates == 0 {
		t.Error("first attempt: no candidates, want some")
	}
	if !first.LowQuality {
		t.Error("first attempt: lowQuality false, want true")
	}
	if lowQuality := newPipeline(s, nil).Config().LowQuality; float64(first.BestQuality) >= lowQuality {
		t.Errorf("first attempt: bestQuality %v, want below the default lowQuality %v", first.BestQuality, lowQuality)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("retry filter.kbScope", retry.Filter.KBScope, scope)
	if retry.Filter.Categories != nil {
		t.Errorf("retry filter.categories %q, want none", retry.Filter.Categories)
	}
	check("retry candidates", retry.Candidates, 4)
	check("retry lowQuality", retry.LowQuality, false)
	if got := sources(res); len(got) == 0 || got[0] != "disk-full" {
		t.Errorf("sources %v, want disk-full first", got)
	}
}

func TestFilteredBelowFloorHasNoEvidence(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	// With the default floor (0.13) none of those database chunks (best
	// 0.057) would survive post-processing: the filtered attempt returns
	// candidates but no evidence.
	p := newPipeline(s, nil)
	res := run(t, p, "服务器磁盘满了，inode 也用尽了")
	tr := res.RetrievalTrace
	if reason(res) != contract.FallbackNoEvidence || tr.SelectedAttempt != contract.AttemptUnfilteredRetry {
		t.Fatalf("want a no-evidence retry, selected: %s", describe(res))
	}
	if a := tr.Attempts[0]; a.Candidates == 0 {
		t.Error("first attempt: no candidates, want some")
	} else if float64(a.BestQuality) >= p.Config().MinQuality {
		t.Errorf("first attempt: bestQuality %v, want all candidates below minQuality %v", a.BestQuality, p.Config().MinQuality)
	}
	if got := sources(res); len(got) == 0 || got[0] != "disk-full" {
		t.Errorf("sources %v, want disk-full first", got)
	}
	// A floor the best database chunk reaches makes it low quality again.
	best := float64(tr.Attempts[0].BestQuality)
	res = run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = best }), "服务器磁盘满了，inode 也用尽了")
	if reason(res) != contract.FallbackLowQuality {
		t.Errorf("floor at the best candidate (%v): want low quality, got %s", best, describe(res))
	}
}

func TestFilteredEmptyRetries(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	// The index lost the vectors of every database document (a collection
	// rebuilt without reseeding): the catalog still hints database, the
	// filtered search finds nothing there.
	ctx := context.Background()
	for _, id := range []string{"rag-eval/db-pool", "rag-eval/decoy"} {
		if err := s.idx.DeleteDocument(ctx, scope, id); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, newPipeline(s, nil), "连接池满了 too many connections 怎么办")
	tr := res.RetrievalTrace
	if !slices.Equal(attemptNames(res), []string{contract.AttemptFiltered, contract.AttemptUnfilteredRetry}) ||
		reason(res) != contract.FallbackNoEvidence || tr.SelectedAttempt != contract.AttemptUnfilteredRetry {
		t.Fatalf("want a no-evidence retry, selected: %s", describe(res))
	}
	a := tr.Attempts[0]
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("first attempt candidates", a.Candidates, 0)
	check("first attempt bestQuality", a.BestQuality, contract.Float6(0))
	check("first attempt lowQuality", a.LowQuality, true)
	check("retry candidates", tr.Attempts[1].Candidates, 2)
}

func TestRetryEmptyKeepsFirstAttempt(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	ctx := context.Background()
	for _, d := range opsCorpus {
		if err := s.idx.DeleteDocument(ctx, scope, scope+"/"+d.source); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, newPipeline(s, nil), "连接池满了 too many connections 怎么办")
	tr := res.RetrievalTrace
	if !slices.Equal(attemptNames(res), []string{contract.AttemptFiltered, contract.AttemptUnfilteredRetry}) ||
		tr.SelectedAttempt != contract.AttemptFiltered || reason(res) != contract.FallbackNoEvidence {
		t.Fatalf("an empty retry must not be selected, and the reason stays: %s", describe(res))
	}
	// An empty result.
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("found", res.Found, false)
	check("evidenceStatus", res.EvidenceStatus, contract.EvidenceNone)
	check("len(evidenceBlocks)", len(res.EvidenceBlocks), 0)
	check("contextPack.blockCount", res.ContextPack.BlockCount, 0)
	check("contextPack.packedText", res.ContextPack.PackedText, "")
	check("rerankTrace.topSource", res.RerankTrace.TopSource, "")
}

func TestDuplicateTextIsDropped(t *testing.T) {
	s := openEmbedded(t)
	body := "# Kafka\n\nKafka consumer lag grows when the consumer group rebalances; check the partition assignment."
	// The copy differs only in what normalisation removes (full-width
	// letters, case).
	copyBody := strings.Replace(body, "Kafka consumer", "ＫＡＦＫＡ CONSUMER", 1)
	seedDocs(t, s,
		testDoc{"kafka-a", "mq", nil, body},
		testDoc{"kafka-b", "mq", nil, copyBody},
		testDoc{"other", "mq", nil, "# Other\n\nThe broker disk usage alert fires at 80 percent."})
	res := run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0 }), "kafka consumer lag rebalance")
	if n := res.RetrievalTrace.Attempts[0].Candidates; n != 3 {
		t.Fatalf("the index returned %d candidates, want 3 (both copies)", n)
	}
	got := sources(res)
	if !slices.Equal(got, []string{"kafka-a", "other"}) {
		t.Errorf("blocks %v, want the first copy (smaller evidence key on a tie) and no second copy: %s", got, describe(res))
	}
}

func TestAtMostTwoBlocksPerDocument(t *testing.T) {
	s := openEmbedded(t)
	var long strings.Builder
	long.WriteString("# Lag\n")
	for i := range 4 {
		long.WriteString("\n## Part " + string(rune('A'+i)) + "\n\nKafka consumer lag: check the consumer group offsets, step " + strings.Repeat("x", i+1) + ".\n")
	}
	seedDocs(t, s,
		testDoc{"lag", "mq", nil, long.String()},
		testDoc{"offsets", "mq", nil, "# Offsets\n\nReset consumer group offsets with kafka-consumer-groups --reset-offsets when lag is stale."})
	res := run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0 }), "kafka consumer lag offsets", func(r *pipeline.Request) { r.TopK = 5 })
	if n := res.RetrievalTrace.Attempts[0].Candidates; n < 5 {
		t.Fatalf("%d candidates, want the 4 chunks of lag and offsets: %s", n, describe(res))
	}
	perDoc := map[string]int{}
	for _, b := range res.EvidenceBlocks {
		perDoc[b.Source]++
	}
	if perDoc["lag"] != 2 || perDoc["offsets"] != 1 || len(res.EvidenceBlocks) != 3 {
		t.Errorf("blocks per document %v, want lag 2, offsets 1: %s", perDoc, describe(res))
	}
}

func TestRelevanceLevels(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	const q = "How do I check when the openssl certificate expires?"
	noFloor := func(c *builtin.Config) { c.MinQuality = 0 }
	dense := func(r *pipeline.Request) { r.SearchMode = kb.Dense }
	base := run(t, newPipeline(s, noFloor), q, dense)
	var qs []float64
	for _, b := range base.EvidenceBlocks {
		qs = append(qs, float64(b.QualityScore))
	}
	if len(qs) < 3 || !(qs[0] > qs[1] && qs[1] > qs[2]) {
		t.Fatalf("want three blocks of decreasing quality to place the thresholds between: %s", describe(base))
	}
	// Thresholds between the first and second, second and third qualities.
	hi, med := (qs[0]+qs[1])/2, (qs[1]+qs[2])/2
	res := run(t, newPipeline(s, func(c *builtin.Config) { noFloor(c); c.Levels = builtin.Levels{High: hi, Medium: med} }), q, dense)
	want := []string{contract.LevelHigh, contract.LevelMedium}
	for range len(qs) - 2 {
		want = append(want, contract.LevelLow)
	}
	var got []string
	for _, b := range res.EvidenceBlocks {
		got = append(got, b.RelevanceLevel)
	}
	if !slices.Equal(got, want) {
		t.Errorf("levels %v, want %v (thresholds %.3f/%.3f): %s", got, want, hi, med, describe(res))
	}
	// A threshold equal to a quality makes it that level (≥).
	res = run(t, newPipeline(s, func(c *builtin.Config) {
		noFloor(c)
		c.Levels = builtin.Levels{High: 1, Medium: float64(res.EvidenceBlocks[1].QualityScore)}
	}), q, dense)
	if l := res.EvidenceBlocks[1].RelevanceLevel; l != contract.LevelMedium {
		t.Errorf("quality equal to the medium threshold gives %s: %s", l, describe(res))
	}
}

func TestContextBudget(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	const q = "服务器磁盘满了，inode 也用尽了"
	full := run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0 }), q)
	bs := full.EvidenceBlocks
	// At the default budget at least 3 blocks are packed whole.
	if len(bs) < 3 {
		t.Fatalf("%d blocks, want at least 3", len(bs))
	}
	if full.ContextPack.Truncated {
		t.Fatal("contextPack truncated at the default budget")
	}
	if full.ContextPack.BlockCount != len(bs) {
		t.Fatalf("contextPack.blockCount %d, want all %d blocks", full.ContextPack.BlockCount, len(bs))
	}
	piece := func(i int) string {
		return "[" + bs[i].Source + "] " + bs[i].Breadcrumb + "\n" + bs[i].Excerpt
	}
	whole := piece(0)
	for i := 1; i < len(bs); i++ {
		whole += "\n\n" + piece(i)
	}
	if full.ContextPack.PackedText != whole || full.ContextPack.UsedChars != len([]rune(whole)) {
		t.Errorf("packed text:\n%s\nwant:\n%s", full.ContextPack.PackedText, whole)
	}
	// A budget that holds block 1, block 2's separator and header and 5
	// characters of its excerpt.
	head2 := "\n\n[" + bs[1].Source + "] " + bs[1].Breadcrumb + "\n"
	budget := len([]rune(piece(0))) + len([]rune(head2)) + 5
	res := run(t, newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0; c.ContextBudget = budget }), q)
	cp := res.ContextPack
	wantText := piece(0) + head2 + string([]rune(bs[1].Excerpt)[:5])
	wantSources := []string{bs[0].Source}
	if bs[1].Source != bs[0].Source {
		wantSources = append(wantSources, bs[1].Source)
	}
	if cp.PackedText != wantText {
		t.Errorf("packedText %q\nwant       %q", cp.PackedText, wantText)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("usedChars", cp.UsedChars, budget)
	check("budgetChars", cp.BudgetChars, budget)
	check("truncated", cp.Truncated, true)
	check("blockCount", cp.BlockCount, 2)
	if !slices.Equal(cp.Sources, wantSources) {
		t.Errorf("sources %q, want %q", cp.Sources, wantSources)
	}
	// The blocks themselves are not cut by the budget.
	if len(res.EvidenceBlocks) != len(bs) {
		t.Errorf("%d blocks, want %d", len(res.EvidenceBlocks), len(bs))
	}
}

func TestEvidenceStatus(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	const q = "How do I check when the openssl certificate expires?"
	t.Run("sufficient", func(t *testing.T) {
		res := run(t, newPipeline(s, nil), q)
		if !res.Found {
			t.Errorf("found false, want true: %s", describe(res))
		}
		if res.EvidenceStatus != contract.EvidenceSufficient {
			t.Errorf("evidenceStatus %s, want %s: %s", res.EvidenceStatus, contract.EvidenceSufficient, describe(res))
		}
	})
	t.Run("weak", func(t *testing.T) {
		res := run(t, newPipeline(s, func(c *builtin.Config) { c.LowQuality = 0.99 }), q)
		if !res.Found {
			t.Errorf("found false, want true: %s", describe(res))
		}
		if res.EvidenceStatus != contract.EvidenceWeak {
			t.Errorf("evidenceStatus %s, want %s: %s", res.EvidenceStatus, contract.EvidenceWeak, describe(res))
		}
		if !res.RetrievalTrace.Attempts[0].LowQuality {
			t.Errorf("attempt lowQuality false, want true: %s", describe(res))
		}
	})
	t.Run("none: nothing above the floor", func(t *testing.T) {
		res := run(t, newPipeline(s, nil), "明天上海天气怎么样")
		if res.Found {
			t.Errorf("found true, want false: %s", describe(res))
		}
		if res.EvidenceStatus != contract.EvidenceNone {
			t.Errorf("evidenceStatus %s, want %s: %s", res.EvidenceStatus, contract.EvidenceNone, describe(res))
		}
		if len(res.EvidenceBlocks) != 0 {
			t.Errorf("%d blocks, want none: %s", len(res.EvidenceBlocks), describe(res))
		}
		// The attempt still records what the index returned.
		a := res.RetrievalTrace.Attempts[0]
		if a.Candidates != 4 {
			t.Errorf("attempt candidates %d, want 4", a.Candidates)
		}
		if !a.LowQuality {
			t.Error("attempt lowQuality false, want true")
		}
	})
	t.Run("none: empty kbScope", func(t *testing.T) {
		res := run(t, newPipeline(s, nil), q, func(r *pipeline.Request) { r.KBScope = "empty-scope" })
		if res.Found {
			t.Errorf("found true, want false: %s", describe(res))
		}
		if res.EvidenceStatus != contract.EvidenceNone {
			t.Errorf("evidenceStatus %s, want %s: %s", res.EvidenceStatus, contract.EvidenceNone, describe(res))
		}
		if n := res.RetrievalTrace.Attempts[0].Candidates; n != 0 {
			t.Errorf("attempt candidates %d, want 0: %s", n, describe(res))
		}
	})
}

func TestL0Votes(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s,
		testDoc{"a1", "alpha", []string{"maxmemory"}, "# A1\n\nRedis memory."},
		testDoc{"a2", "alpha", []string{"ＵＳＥＤ_ＭＥＭＯＲＹ", "M"}, "# A2\n\nRedis memory usage."},
		testDoc{"b1", "beta", []string{"eviction"}, "# B1\n\nKey eviction."},
		testDoc{"c1", "gamma", []string{"noeviction"}, "# C1\n\nWrites fail."},
		testDoc{"z1", "zeta", []string{"unrelated term"}, "# Z1\n\nNothing."})
	p := newPipeline(s, nil)
	// maxmemory and used_memory (full-width and upper case in the
	// frontmatter) vote alpha twice; eviction votes beta once, and
	// noeviction (which contains eviction) gamma once; the one-letter
	// keyword M never matches.
	res := run(t, p, "Used_Memory near MaxMemory with noeviction")
	h := res.RetrievalTrace.L0Hints
	want := contract.L0Hints{
		Categories:     []string{"alpha", "beta", "gamma"},
		MatchedTerms:   []string{"eviction", "maxmemory", "noeviction", "ＵＳＥＤ_ＭＥＭＯＲＹ"},
		MatchedSources: []string{"a1", "a2", "b1", "c1"},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("hints %q\nwant  %q", h, want)
	}
	if f := res.RetrievalTrace.Attempts[0].Filter.Categories; !slices.Equal(f, h.Categories) {
		t.Errorf("filter categories %v, want the hints' %v", f, h.Categories)
	}
	res = run(t, newPipeline(s, func(c *builtin.Config) { c.MinVotes = 2 }), "Used_Memory near MaxMemory with noeviction")
	h = res.RetrievalTrace.L0Hints
	if want := []string{"alpha"}; !slices.Equal(h.Categories, want) {
		t.Errorf("minVotes 2: hints categories %q, want %q", h.Categories, want)
	}
	if want := []string{"a1", "a2"}; !slices.Equal(h.MatchedSources, want) {
		t.Errorf("minVotes 2: hints matchedSources %q, want %q", h.MatchedSources, want)
	}
	if len(h.MatchedTerms) != 2 {
		t.Errorf("minVotes 2: hints matchedTerms %q, want 2 terms", h.MatchedTerms)
	}
}

func TestL0CacheInvalidation(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, docTLS)
	p := newPipeline(s, func(c *builtin.Config) { c.L0TTL = time.Hour })
	const q = "连接池满了怎么办"
	if h := run(t, p, q).RetrievalTrace.L0Hints; len(h.Categories) != 0 {
		t.Fatalf("hints before seeding: categories %q, want none", h.Categories)
	}
	seedDocs(t, s, docPool)
	if h := run(t, p, q).RetrievalTrace.L0Hints; len(h.Categories) != 0 {
		t.Errorf("the cache was not used: categories %q, want none", h.Categories)
	}
	p.InvalidateL0()
	if h := run(t, p, q).RetrievalTrace.L0Hints; !slices.Equal(h.Categories, []string{"database"}) {
		t.Errorf("after InvalidateL0: categories %q, want [database]", h.Categories)
	}
	// Without a TTL every lookup reads the catalog.
	seedDocs(t, s, docDecoy)
	p0 := newPipeline(s, func(c *builtin.Config) { c.L0TTL = 0 })
	run(t, p0, q)
	if err := s.cat.DeleteDocument(context.Background(), scope, "rag-eval/db-pool"); err != nil {
		t.Fatal(err)
	}
	if h := run(t, p0, q).RetrievalTrace.L0Hints; len(h.Categories) != 0 {
		t.Errorf("L0TTL 0 served stale terms: categories %q, want none", h.Categories)
	}
}

func TestDeterministic(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	encode := func(res *contract.LookupResult) []byte {
		for i := range res.RetrievalTrace.Attempts {
			res.RetrievalTrace.Attempts[i].LatencyMs = 0
		}
		b, err := contract.EncodeFixture(&contract.Fixture{CaseID: "c", Query: "q", RetrievedAt: "2026-01-01T00:00:00Z", LookupResult: res})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, q := range []string{"服务器磁盘满了，inode 也用尽了", "连接池满了 too many connections 怎么办", "openssl certificate"} {
		for _, mode := range []kb.SearchMode{kb.Hybrid, kb.Dense} {
			m := func(r *pipeline.Request) { r.SearchMode = mode }
			a := encode(run(t, newPipeline(s, nil), q, m))
			b := encode(run(t, newPipeline(s, nil), q, m))
			if !bytes.Equal(a, b) {
				t.Errorf("%s %q: two lookups differ:\n%s\n%s", mode, q, a, b)
			}
		}
	}
}

func TestScoreLabelAndDistances(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	for _, c := range []struct {
		mode  kb.SearchMode
		label string
	}{{kb.Hybrid, "RRF"}, {kb.Dense, "COSINE"}} {
		res := run(t, newPipeline(s, nil), "服务器磁盘满了，inode 也用尽了", func(r *pipeline.Request) { r.SearchMode = c.mode })
		if res.RetrievalTrace.SearchMode != string(c.mode) {
			t.Errorf("trace searchMode %s", res.RetrievalTrace.SearchMode)
		}
		for _, b := range res.EvidenceBlocks {
			if b.ScoreLabel != c.label {
				t.Errorf("%s: scoreLabel %s", c.mode, b.ScoreLabel)
			}
			d := float64(b.DenseDistance)
			if q := 1 - d*d/2; abs(q-float64(b.QualityScore)) > 1e-9 {
				t.Errorf("%s: qualityScore %v for distance %v", c.mode, b.QualityScore, d)
			}
			if c.mode == kb.Dense && abs(float64(b.FusedScore)-float64(b.QualityScore)) > 1e-9 {
				t.Errorf("dense: fusedScore %v is not the cosine %v", b.FusedScore, b.QualityScore)
			}
			if c.mode == kb.Hybrid && (b.FusedScore <= 0 || b.FusedScore > 2.0/61) {
				t.Errorf("hybrid: fusedScore %v is not an RRF score", b.FusedScore)
			}
		}
		checkBlocks(t, res)
	}
}

func TestInvalidRequests(t *testing.T) {
	s := openEmbedded(t)
	p := newPipeline(s, nil)
	for name, req := range map[string]pipeline.Request{
		"empty query":   {Query: "  ", KBScope: scope},
		"bad utf8":      {Query: "a\xffb", KBScope: scope},
		"huge query":    {Query: strings.Repeat("字", builtin.MaxQueryChars+1), KBScope: scope},
		"no scope":      {Query: "q"},
		"bad mode":      {Query: "q", KBScope: scope, SearchMode: "sparse"},
		"negative topK": {Query: "q", KBScope: scope, TopK: -1},
		"huge topK":     {Query: "q", KBScope: scope, TopK: builtin.MaxTopK + 1},
	} {
		if _, err := p.Lookup(context.Background(), req); !errors.Is(err, pipeline.ErrInvalidRequest) {
			t.Errorf("%s: %v, want ErrInvalidRequest", name, err)
		}
	}
	bad := builtin.New(s.cat, s.idx, s.emb, builtin.Config{Rerank: "magic"}, contract.Pipeline{})
	if _, err := bad.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: scope}); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("invalid config: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	s := openEmbedded(t)
	p := newPipeline(s, func(c *builtin.Config) { c.Rerank = builtin.RerankLocal })
	d := p.Describe()
	want := contract.PipelineParams{TopK: 5, CandidateK: 20, LowQuality: 0.15, MinQuality: 0.13, Fusion: "anchored", Levels: contract.Levels{High: 0.3, Medium: 0.19}, Rerank: "local", ContextBudget: 3000}
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("Describe().Name", d.Name, "builtin")
	check("Describe().Version", d.Version, "test")
	check("Describe().Store", d.Store, "embedded")
	check("Describe().Embedder", d.Embedder, local.Name)
	check("Describe().Dim", d.Dim, local.DefaultDim)
	if d.Params == nil {
		t.Fatal("Describe().Params = nil")
	}
	if *d.Params != want {
		t.Errorf("Describe().Params = %+v\nwant                %+v", *d.Params, want)
	}
	d.Params.TopK = 99
	if p.Describe().Params.TopK != 5 {
		t.Error("Describe shares its params")
	}
}

func TestLocalEmbedderName(t *testing.T) {
	if builtin.LocalHashEmbedder != local.Name {
		t.Fatalf("lookup calibrates %q, the local embedder is %q", builtin.LocalHashEmbedder, local.Name)
	}
	if builtin.USEEmbedder != usem3.Name {
		t.Fatalf("lookup calibrates %q, the neural embedder is %q", builtin.USEEmbedder, usem3.Name)
	}
	e5, err := openai.New(openai.Options{Model: "multilingual-e5-small-q4", Dim: 384, BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if builtin.E5Embedder != e5.Name() {
		t.Fatalf("lookup calibrates %q, the e5 embedder is named %q", builtin.E5Embedder, e5.Name())
	}
	for _, name := range []string{builtin.LocalHashEmbedder, builtin.USEEmbedder, builtin.E5Embedder} {
		if _, ok := builtin.ThresholdsFor(name); !ok {
			t.Errorf("%s has no calibrated thresholds", name)
		}
	}
	if _, ok := builtin.ThresholdsFor("openai:text-embedding-3-small"); ok {
		t.Error("an embedder never calibrated here has calibrated thresholds")
	}
	c := builtin.DefaultConfig("openai:text-embedding-3-small")
	if c.LowQuality != 0.5 {
		t.Errorf("neural defaults: lowQuality %v, want 0.5", c.LowQuality)
	}
	if want := (builtin.Levels{High: 0.75, Medium: 0.5}); c.Levels != want {
		t.Errorf("neural defaults: levels %+v, want %+v", c.Levels, want)
	}
	if c.MinQuality != 0 {
		t.Errorf("neural defaults: minQuality %v, want 0", c.MinQuality)
	}
}

// checkBlocks checks what every result must satisfy.
func checkBlocks(t *testing.T, res *contract.LookupResult) {
	t.Helper()
	for i, b := range res.EvidenceBlocks {
		if b.Rank != i+1 {
			t.Errorf("block %d: rank %d, want %d", i, b.Rank, i+1)
		}
		if err := kb.CheckEvidenceKey(b.DocID, b.EvidenceKey); err != nil {
			t.Errorf("block %d: %v", i, err)
		}
		if want := scope + "/" + b.Source; b.DocID != want {
			t.Errorf("block %d: docId %q, want %q", i, b.DocID, want)
		}
		if b.Excerpt == "" {
			t.Errorf("block %d (%s): no excerpt", i, b.EvidenceKey)
		}
		if want := "Test > " + b.Source; !strings.HasPrefix(b.Breadcrumb, want) {
			t.Errorf("block %d: breadcrumb %q, want it to start %q", i, b.Breadcrumb, want)
		}
		if want := "Title of " + b.Source; b.Title != want {
			t.Errorf("block %d: title %q, want %q", i, b.Title, want)
		}
	}
	if !slices.Equal(res.RerankTrace.OutputOrder, evidenceKeys(res)) {
		t.Errorf("outputOrder %v, blocks %v", res.RerankTrace.OutputOrder, evidenceKeys(res))
	}
}

func evidenceKeys(res *contract.LookupResult) []string {
	out := []string{}
	for _, b := range res.EvidenceBlocks {
		out = append(out, b.EvidenceKey)
	}
	return out
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestQualityGate pins what the gate reads: the best qualityScore among
// the first topK candidates in the attempt's (RRF) order, and "below" the
// threshold, not "at" it.
func TestQualityGate(t *testing.T) {
	s := rerankStore(t)
	// In hybrid order exact (0.268) comes before near (0.483): the best is
	// not the first candidate.
	res := run(t, newPipeline(s, nil), rerankQuery)
	a := res.RetrievalTrace.Attempts[0]
	if got := sources(res); len(got) < 2 || got[0] != "exact" || got[1] != "near" {
		t.Fatalf("hybrid order %v, the test needs exact, near: %s", got, describe(res))
	}
	nearQ := float64(res.EvidenceBlocks[1].QualityScore)
	if float64(a.BestQuality) != nearQ || nearQ <= float64(res.EvidenceBlocks[0].QualityScore) {
		t.Errorf("bestQuality %v, want near's %v", a.BestQuality, nearQ)
	}
	// With topK 1 only the first candidate counts.
	res = run(t, newPipeline(s, nil), rerankQuery, func(r *pipeline.Request) { r.TopK = 1 })
	if a := res.RetrievalTrace.Attempts[0]; float64(a.BestQuality) != float64(res.EvidenceBlocks[0].QualityScore) {
		t.Errorf("topK 1: bestQuality %v, want the first candidate's %v", a.BestQuality, res.EvidenceBlocks[0].QualityScore)
	}
	// A threshold equal to the best quality is not low quality (and gives
	// sufficient evidence); just above it is.
	at := run(t, newPipeline(s, func(c *builtin.Config) { c.LowQuality = nearQ }), rerankQuery)
	if at.RetrievalTrace.Attempts[0].LowQuality {
		t.Errorf("lowQuality = best: attempt lowQuality true, want false: %s", describe(at))
	}
	if at.EvidenceStatus != contract.EvidenceSufficient {
		t.Errorf("lowQuality = best: evidenceStatus %s, want %s", at.EvidenceStatus, contract.EvidenceSufficient)
	}
	above := run(t, newPipeline(s, func(c *builtin.Config) { c.LowQuality = math.Nextafter(nearQ, 1) }), rerankQuery)
	if !above.RetrievalTrace.Attempts[0].LowQuality {
		t.Errorf("lowQuality just above best: attempt lowQuality false, want true: %s", describe(above))
	}
	if above.EvidenceStatus != contract.EvidenceWeak {
		t.Errorf("lowQuality just above best: evidenceStatus %s, want %s", above.EvidenceStatus, contract.EvidenceWeak)
	}
}

func TestL0CacheExpires(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, docTLS)
	const ttl = 500 * time.Millisecond
	p := newPipeline(s, func(c *builtin.Config) { c.L0TTL = ttl })
	const q = "连接池满了怎么办"
	loaded := time.Now()
	run(t, p, q)
	seedDocs(t, s, docPool)
	h := run(t, p, q).RetrievalTrace.L0Hints
	if time.Since(loaded) < ttl && len(h.Categories) != 0 {
		t.Errorf("within the TTL: categories %q, want none", h.Categories)
	}
	time.Sleep(time.Until(loaded.Add(ttl + 50*time.Millisecond)))
	if h := run(t, p, q).RetrievalTrace.L0Hints; !slices.Equal(h.Categories, []string{"database"}) {
		t.Errorf("after the TTL: categories %q, want [database]", h.Categories)
	}
}

// TestTopK: a request's topK overrides the default, and one above
// candidateK raises the number of candidates asked for.
func TestTopK(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	p := newPipeline(s, func(c *builtin.Config) { c.MinQuality = 0; c.CandidateK = 2; c.TopK = 1 })
	if n := len(run(t, p, "openssl certificate").EvidenceBlocks); n != 1 {
		t.Errorf("default topK 1: %d blocks", n)
	}
	res := run(t, p, "openssl certificate", func(r *pipeline.Request) { r.TopK = 3 })
	if n := len(res.EvidenceBlocks); n != 3 {
		t.Errorf("topK 3 over candidateK 2: %d blocks, want 3: %s", n, describe(res))
	}
	if n := res.RetrievalTrace.Attempts[0].Candidates; n != 3 {
		t.Errorf("topK 3 over candidateK 2: %d candidates, want 3: %s", n, describe(res))
	}
}

// TestConcurrentLookups: one pipeline serves concurrent callers (run with
// -race) and each gets what it would get alone.
func TestConcurrentLookups(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	p := newPipeline(s, func(c *builtin.Config) { c.Rerank = builtin.RerankLocal })
	queries := []string{"服务器磁盘满了，inode 也用尽了", "连接池满了 too many connections 怎么办", "openssl certificate", "明天上海天气怎么样"}
	want := map[string][]string{}
	for _, q := range queries {
		want[q] = evidenceKeys(run(t, p, q))
	}
	p.InvalidateL0()
	errs := make(chan error, 64)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			q := queries[i%len(queries)]
			res, err := p.Lookup(context.Background(), pipeline.Request{Query: q, KBScope: scope})
			if err == nil && !slices.Equal(evidenceKeys(res), want[q]) {
				err = fmt.Errorf("%q: %v, alone %v", q, evidenceKeys(res), want[q])
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// The relative gate: with no absolute gate or floor at all (as when a
// semantic model scores the decoy's category above any usable one), a
// filtered attempt far below what the unfiltered search finds is low
// quality all the same, and the unfiltered search it was compared with
// is the retry. A filtered attempt that holds the best answer is kept.
func TestRelativeQualityGate(t *testing.T) {
	s := openEmbedded(t)
	seedDocs(t, s, opsCorpus...)
	const decoyQuery = "服务器磁盘满了，inode 也用尽了"
	noAbsolute := func(rel float64) func(*builtin.Config) {
		return func(c *builtin.Config) { c.LowQuality, c.MinQuality, c.RelQuality = 0, 0, rel }
	}
	// Off: nothing stops the filtered attempt.
	res := run(t, newPipeline(s, noAbsolute(0)), decoyQuery)
	if tr := res.RetrievalTrace; tr.SelectedAttempt != contract.AttemptFiltered || tr.FallbackReason != nil {
		t.Fatalf("relative gate off: want the filtered attempt kept: %s", describe(res))
	}
	filteredBest := float64(res.RetrievalTrace.Attempts[0].BestQuality)

	// On: the decoy's category is far below the unfiltered best.
	p := newPipeline(s, noAbsolute(0.77))
	if got := p.Describe().Params.RelQuality; got != 0.77 {
		t.Errorf("params relQuality %v, want 0.77", got)
	}
	res = run(t, p, decoyQuery)
	tr := res.RetrievalTrace
	if !slices.Equal(attemptNames(res), []string{contract.AttemptFiltered, contract.AttemptUnfilteredRetry}) ||
		reason(res) != contract.FallbackLowQuality || tr.SelectedAttempt != contract.AttemptUnfilteredRetry {
		t.Fatalf("relative gate on: want a low-quality retry: %s", describe(res))
	}
	first, retry := tr.Attempts[0], tr.Attempts[1]
	if !first.LowQuality {
		t.Error("filtered attempt: lowQuality false, want true")
	}
	if float64(first.BestQuality) != filteredBest {
		t.Errorf("filtered attempt: bestQuality %v, want %v as with the gate off", first.BestQuality, filteredBest)
	}
	if float64(first.BestQuality) >= 0.77*float64(retry.BestQuality) {
		t.Errorf("filtered attempt: bestQuality %v, want below 0.77 × the unfiltered best %v", first.BestQuality, retry.BestQuality)
	}
	if got := sources(res); len(got) == 0 || got[0] != "disk-full" {
		t.Errorf("sources %v, want disk-full first", got)
	}

	// A filtered attempt that finds the answer is as good as the
	// unfiltered search: kept.
	res = run(t, p, "连接池满了 too many connections")
	tr = res.RetrievalTrace
	if len(tr.L0Hints.Categories) == 0 {
		t.Errorf("no hints, want some: %s", describe(res))
	}
	if tr.SelectedAttempt != contract.AttemptFiltered {
		t.Errorf("a good filtered attempt fell back: selected %s, want %s: %s", tr.SelectedAttempt, contract.AttemptFiltered, describe(res))
	}
	if tr.FallbackReason != nil {
		t.Errorf("a good filtered attempt fell back: reason %s, want none", *tr.FallbackReason)
	}
}
