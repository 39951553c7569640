// Command benchgen writes a synthetic eval set for judge benchmarks: a
// golden-cases file and one fixture per case. Each fixture has a given
// number of evidence blocks of realistic size, with mixed Chinese and
// English excerpts, a packed context and traces. The output is
// deterministic for a given seed.
//
//	go run ./tools/benchgen -cases 10000 -blocks 30 -out .ragbaseline/bench/judge
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

var words = strings.Fields(`连接池 max_connections 慢查询 slow_query_log 索引 主从延迟 binlog 磁盘 inode
df -h 内存 OOM kill JVM GC heap Full Redis maxmemory 淘汰 Kafka lag consumer rebalance 证书 TLS openssl
notAfter 网关 timeout 504 upstream Kubernetes pod CrashLoopBackOff 探针 readiness liveness 节点 NotReady
告警 值班 升级 回滚 nginx proxy_read_timeout 排查 步骤 确认 检查 日志 监控 指标 P99 latency the a of to
check restart verify config threshold when if then before after rotate compress`)

func main() {
	cases := flag.Int("cases", 10000, "number of cases")
	blocks := flag.Int("blocks", 30, "evidence blocks per fixture")
	excerpt := flag.Int("excerpt", 80, "approximate characters per excerpt")
	out := flag.String("out", ".ragbaseline/bench/judge", "output directory")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := generate(*out, *cases, *blocks, *excerpt, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "benchgen:", err)
		os.Exit(1)
	}
}

func generate(out string, n, nblocks, excerptLen int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 2))
	text := func(chars int) string {
		var b strings.Builder
		for b.Len() < chars*2 {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	fixDir := filepath.Join(out, "fixtures")
	if err := os.MkdirAll(fixDir, 0o755); err != nil {
		return err
	}
	type gcase struct {
		CaseID              string         `json:"caseId"`
		Scenario            string         `json:"scenario"`
		Tags                []string       `json:"tags"`
		Query               string         `json:"query"`
		ExpectedSources     []string       `json:"expectedSources"`
		ExpectedBreadcrumbs []string       `json:"expectedBreadcrumbs"`
		ExpectedKeywords    []string       `json:"expectedKeywords"`
		Relevance           map[string]int `json:"relevance"`
		MustNotSources      []string       `json:"mustNotSources"`
		ExpectedFound       bool           `json:"expectedFound"`
	}
	golden := struct {
		Version int     `json:"version"`
		KBScope string  `json:"kbScope"`
		K       int     `json:"k"`
		Cases   []gcase `json:"cases"`
	}{Version: 1, KBScope: "rag-eval", K: 5}
	scenarios := []string{"chat", "aiops", "fallback", "negative"}
	for i := range n {
		id := fmt.Sprintf("case-%05d", i)
		query := text(20)
		docs := 50
		exp := fmt.Sprintf("doc-%02d", rng.IntN(docs))
		bc := "Ops > " + exp
		golden.Cases = append(golden.Cases, gcase{
			CaseID: id, Scenario: scenarios[i%len(scenarios)], Tags: []string{"t" + fmt.Sprint(i%7)}, Query: query,
			ExpectedSources: []string{exp}, ExpectedBreadcrumbs: []string{bc}, ExpectedKeywords: []string{words[rng.IntN(len(words))], "max_connections"},
			Relevance: map[string]int{fmt.Sprintf("doc-%02d", rng.IntN(docs)): 2}, MustNotSources: []string{"decoy"}, ExpectedFound: true,
		})
		lr := &contract.LookupResult{Found: true, EvidenceStatus: "sufficient", Has: contract.HasAll}
		for r := range nblocks {
			src := fmt.Sprintf("doc-%02d", rng.IntN(docs))
			q := rng.Float64()
			lr.EvidenceBlocks = append(lr.EvidenceBlocks, contract.EvidenceBlock{
				Rank: r + 1, EvidenceKey: fmt.Sprintf("rag-eval/%s#%d", src, r), DocID: "rag-eval/" + src, Source: src,
				Title: "Runbook " + src, Breadcrumb: "Ops > " + src + " > 排查步骤", Category: "ops", ChunkIndex: r,
				Excerpt: text(excerptLen), QualityScore: contract.Float6(q), RelevanceLevel: "medium",
				DenseDistance: contract.Float6(1 - q), FusedScore: contract.Float6(1 / float64(61+r)), ScoreLabel: "RRF",
				HasRank: true, HasQuality: true,
			})
			lr.RerankTrace.InputOrder = append(lr.RerankTrace.InputOrder, lr.EvidenceBlocks[r].EvidenceKey)
		}
		lr.RerankTrace.OutputOrder = lr.RerankTrace.InputOrder
		lr.RerankTrace.TopSource = lr.EvidenceBlocks[0].Source
		lr.ContextPack = contract.ContextPack{Sources: []string{lr.EvidenceBlocks[0].Source}, BlockCount: 5,
			UsedChars: 3000, BudgetChars: 3000, PackedText: text(750)}
		lr.RetrievalTrace = contract.RetrievalTrace{SearchMode: "hybrid", KBScope: "rag-eval", SelectedAttempt: contract.AttemptFiltered,
			Attempts: []contract.Attempt{{Name: contract.AttemptFiltered, Filter: contract.Filter{KBScope: "rag-eval"}, Candidates: 20, BestQuality: 0.8, LatencyMs: 3}}}
		f := &contract.Fixture{FixtureVersion: 1, CaseID: id, Query: query, RetrievedAt: "2026-11-29T12:00:00Z",
			SearchMode: "hybrid", KBScope: "rag-eval", LookupResult: lr}
		data, err := contract.EncodeFixture(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(fixDir, id+".json"), data, 0o644); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(golden, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "golden-cases.json"), append(data, '\n'), 0o644)
}
