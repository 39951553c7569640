package contract

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
)

// benchText returns deterministic text of about n characters, mixed ASCII
// and CJK like the seed documents; cjkPercent of the words are CJK.
func benchText(seed uint32, n, cjkPercent int) string {
	ascii := []string{"SHOW", "PROCESSLIST", "max_connections", "wait_timeout", "connection", "pool", "too", "many",
		"connections", "slow_query_log", "index", "upstream", "proxy_read_timeout", "df", "-h", "inode", "maxmemory",
		"(allkeys-lru)", "kubectl", "describe", "pod", "OOMKilled", "the", "check", "is", "and", "restart", "<leak>", "&"}
	cjk := []string{"连接池", "排查步骤", "慢查询", "索引", "磁盘满了", "内存告警", "检查", "确认", "配置", "超时",
		"日志", "应用", "归还连接", "必要时", "调大", "定位目录", "，", "。", "：", "（", "）"}
	var b strings.Builder
	for chars := 0; chars < n; {
		seed = seed*1664525 + 1013904223
		var w string
		if int(seed>>8%100) < cjkPercent {
			w = cjk[int(seed>>16)%len(cjk)]
		} else {
			w = ascii[int(seed>>16)%len(ascii)] + " "
		}
		b.WriteString(w)
		chars += utf8.RuneCountInString(w)
	}
	return b.String()
}

// benchFixture returns an encoded fixture with the given number of blocks,
// excerpts of about excerptChars characters and a packedText of about
// packedChars.
func benchFixture(tb testing.TB, blocks, excerptChars, packedChars, cjkPercent int) []byte {
	tb.Helper()
	fb := FallbackLowQuality
	lr := &LookupResult{
		Found:          true,
		EvidenceStatus: EvidenceSufficient,
		ContextPack: ContextPack{
			BlockCount: 5, UsedChars: packedChars, BudgetChars: 3000,
			PackedText: benchText(99, packedChars, cjkPercent),
		},
		RetrievalTrace: RetrievalTrace{
			SearchMode: "hybrid", KBScope: "rag-eval",
			L0Hints: L0Hints{Categories: []string{"database"}, MatchedTerms: []string{"连接池"},
				MatchedSources: []string{"mysql-connection-pool"}},
			Attempts: []Attempt{
				{Name: AttemptFiltered, Filter: Filter{KBScope: "rag-eval", Categories: []string{"database"}},
					Candidates: 3, BestQuality: 0.18, LowQuality: true, LatencyMs: 4},
				{Name: AttemptUnfilteredRetry, Filter: Filter{KBScope: "rag-eval"}, Candidates: 20,
					BestQuality: 0.81, LatencyMs: 6},
			},
			SelectedAttempt: AttemptUnfilteredRetry,
			FallbackReason:  &fb,
		},
		RerankTrace: RerankTrace{Model: "none", TopSource: "mysql-connection-pool"},
	}
	for i := range blocks {
		src := "seed-doc-" + strconv.Itoa(i%17)
		key := "rag-eval/" + src + "#" + strconv.Itoa(i)
		lr.EvidenceBlocks = append(lr.EvidenceBlocks, EvidenceBlock{
			Rank: i + 1, EvidenceKey: key, DocID: "rag-eval/" + src, Source: src,
			Title: "Seed document " + strconv.Itoa(i), Breadcrumb: "Database > MySQL > Connection Pool > 排查步骤",
			Category: "database", ChunkIndex: i, Excerpt: benchText(uint32(i), excerptChars, cjkPercent),
			QualityScore: Float6(0.81 - float64(i)*0.0123457), RelevanceLevel: LevelMedium,
			DenseDistance: 0.616, FusedScore: 0.0325, ScoreLabel: "RRF",
		})
		if i < 5 {
			lr.ContextPack.Sources = append(lr.ContextPack.Sources, src)
		}
		lr.RerankTrace.InputOrder = append(lr.RerankTrace.InputOrder, key)
		lr.RerankTrace.OutputOrder = append(lr.RerankTrace.OutputOrder, key)
	}
	data, err := EncodeFixture(&Fixture{
		CaseID: "chat-mysql-pool", Query: "连接池满了 too many connections 怎么办",
		RetrievedAt: "2026-11-29T12:00:00Z", SearchMode: "hybrid", KBScope: "rag-eval",
		Pipeline: &Pipeline{Name: "builtin", Version: "0.1.0", Store: "embedded", Embedder: "local-hash-v1", Dim: 512,
			Params: &PipelineParams{TopK: 5, CandidateK: 20, LowQuality: 0.2, Levels: Levels{High: 0.45, Medium: 0.25},
				Rerank: "none", ContextBudget: 3000}},
		LookupResult: lr,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkDecodeFixture decodes a realistic fixture (30 blocks, excerpts of
// about 600 characters, packedText of about 3000) with DecodeFixture and,
// for comparison, with go-json-experiment/json (json v2) and encoding/json
// into a Fixture: the figures that decide whether package fixturescan can
// go (see its README).
func BenchmarkDecodeFixture(b *testing.B) {
	inputs := []struct {
		name string
		data []byte
	}{
		{"mixed", benchFixture(b, 30, 600, 3000, 15)}, // mostly ASCII, some CJK words
		{"cjk", benchFixture(b, 30, 600, 3000, 60)},   // mostly CJK
	}
	for _, in := range inputs {
		b.Run(in.name+"/DecodeFixture", func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeFixture(in.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/json-v2", func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				var f Fixture
				if err := jsonv2.Unmarshal(in.data, &f); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				var f Fixture
				if err := json.Unmarshal(in.data, &f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchFixture keeps the benchmark input honest: a valid fixture of the
// advertised shape.
func TestBenchFixture(t *testing.T) {
	data := benchFixture(t, 30, 600, 3000, 15)
	f, err := DecodeFixture(data)
	if err != nil {
		t.Fatal(err)
	}
	lr := f.LookupResult
	if len(lr.EvidenceBlocks) != 30 {
		t.Fatalf("%d blocks, want 30", len(lr.EvidenceBlocks))
	}
	if lr.Has != HasJudged {
		t.Fatalf("presence %b, want %b", lr.Has, HasJudged)
	}
	if n := utf8.RuneCountInString(lr.EvidenceBlocks[0].Excerpt); n < 600 || n > 620 {
		t.Errorf("excerpt has %d characters", n)
	}
	t.Logf("benchmark fixture: %d bytes", len(data))
}
