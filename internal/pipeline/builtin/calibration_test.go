package builtin_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
)

// exampleQueries are the queries the local-hash-v1 defaults were
// calibrated on (the golden queries of eval/rag-retrieval, paraphrases, and
// off-topic questions), with the document that answers them ("" for none)
// and, where the corpus holds a near-duplicate that answers as well (the
// gateway-timeouts summary and its full version nginx-upstream-errors), that
// one in alt. limitation marks an off-topic question the lexical embedder
// is known to score as an answer (see the package documentation): it is
// logged, not failed, and a change that brings it below lowQuality is an
// improvement to record.
var exampleQueries = []struct {
	query, source, alt string
	limitation         bool
}{
	// golden-cases.json
	{"连接池满了 too many connections 怎么办", "mysql-connection-pool", "", false},
	{"Redis used_memory 告警，maxmemory 快满了", "redis-memory", "", false},
	{"告警：node-7 磁盘使用率 95%，inode 也快用尽", "disk-full", "", false},
	{"服务器磁盘满了，inode 也用尽了", "disk-full", "", false},
	{"How do I check when the gateway TLS certificate expires?", "tls-certificate", "", false},
	{"明天上海天气怎么样", "", "", false},
	// paraphrases
	{"MySQL 慢查询怎么排查", "mysql-slow-query", "", false},
	{"logrotate 怎么配置日志轮转", "log-rotation", "", false},
	{"网关返回 504 超时", "gateway-timeouts", "nginx-upstream-errors", false},
	{"No space left on device", "disk-full", "", false},
	{"redis 内存满了怎么办", "redis-memory", "", false},
	// Off-topic for the 8-document corpus; since cert-manager-renewal (whose
	// certificates are the Ingress certificates) and the Kubernetes guide
	// joined it, it has an answer.
	{"如何配置 Kubernetes Ingress 证书轮换", "cert-manager-renewal", "", false},
	// off-topic
	{"怎么做红烧肉", "", "", false},
	{"What is the capital of France?", "", "", true},
	{"推荐几本好看的小说", "", "", false},
	{"Python list comprehension syntax", "", "", true},
}

// TestLocalHashCalibration pins the local-hash-v1 defaults to the
// measurements that justify them (package documentation): on the shipped
// corpus every answered example query has its document above lowQuality,
// no off-topic query reaches lowQuality (apart from the marked known
// limitations), and no category the L0 hints could wrongly pick reaches
// levels.high. A change of the embedder, the chunker
// or the corpus that breaks this fails here, with the table to recalibrate
// from (go test -run LocalHashCalibration -v ./internal/pipeline/builtin).
func TestLocalHashCalibration(t *testing.T) {
	s := openEmbedded(t)
	seedDir(t, s, seedDocsDir)
	cfg := builtin.DefaultConfig(builtin.LocalHashEmbedder)
	ctx := context.Background()
	best := func(q string, cats []string) (float64, string) {
		v, err := s.emb.Embed(ctx, kb.Passage, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := s.idx.Search(ctx, kb.SearchRequest{Mode: kb.Dense, Vector: v[0], Filter: kb.Filter{KBScope: scope, Categories: cats}, K: 1})
		if err != nil || len(hits) == 0 {
			t.Fatalf("search %q: %v", q, err)
		}
		d := hits[0].DenseDistance
		return math.Max(0, 1-d*d/2), hits[0].Source
	}
	// bestOf is the best qualityScore of a chunk of one of sources.
	bestOf := func(q string, sources ...string) float64 {
		v, err := s.emb.Embed(ctx, kb.Passage, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := s.idx.Search(ctx, kb.SearchRequest{Mode: kb.Dense, Vector: v[0], Filter: kb.Filter{KBScope: scope}, K: builtin.MaxTopK})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		for _, h := range hits {
			if slices.Contains(sources, h.Source) {
				return math.Max(0, 1-h.DenseDistance*h.DenseDistance/2)
			}
		}
		return 0
	}
	var onTopic, offTopic []float64
	var table, outranked strings.Builder
	for _, q := range exampleQueries {
		b, src := best(q.query, nil)
		fmt.Fprintf(&table, "  %.3f %-22s %s\n", b, src, q.query)
		if q.source == "" {
			// Off-topic evidence is never sufficient.
			offTopic = append(offTopic, b)
			switch {
			case b >= cfg.LowQuality && q.limitation:
				fmt.Fprintf(&outranked, "  known limitation: off-topic %q scores %.3f (%s), at or above lowQuality %.2f\n", q.query, b, src, cfg.LowQuality)
			case b >= cfg.LowQuality:
				t.Errorf("off-topic %q: best quality %.3f (%s) reaches lowQuality %.2f", q.query, b, src, cfg.LowQuality)
			case q.limitation:
				t.Errorf("off-topic %q now scores %.3f (%s), below lowQuality %.2f: drop its limitation mark and update the package documentation", q.query, b, src, cfg.LowQuality)
			}
			continue
		}
		// The answering document's own best chunk must pass lowQuality.
		// On the 8-document corpus it was also the best chunk of the whole
		// kbScope; on the 37-document corpus a document sharing the query's
		// words can edge it out in dense search by a few thousandths (the
		// pipeline's hybrid search still ranks disk-full first for the
		// node-7 alert, golden case aiops-disk-full, and redis-memory first
		// for the Redis paraphrase). That is logged, not failed.
		own := b
		if src != q.source && src != q.alt {
			own = bestOf(q.query, q.source, q.alt)
			fmt.Fprintf(&outranked, "  %q: %s %.3f above %s %.3f\n", q.query, src, b, q.source, own)
		}
		onTopic = append(onTopic, own)
		if own < cfg.LowQuality {
			t.Errorf("%q: best chunk of %s at %.3f, want ≥ lowQuality %.2f (best chunk overall: %s at %.3f)", q.query, q.source, own, cfg.LowQuality, src, b)
		}
	}
	// The best chunk of every other category: what a filtered attempt
	// steered to the wrong category finds. Where that category holds a
	// document that shares the query's words (gateway-timeouts for the
	// certificate query, disk-full's logrotate advice for the logrotate
	// query) it can pass lowQuality: a lexical embedder cannot tell, and the
	// filtered attempt then stands. It never reaches levels.high.
	// Every category of the corpus.
	cats := []string{"cache", "database", "host", "jvm", "kubernetes", "network", "ops", "process", "queue", "security"}
	var wrong []float64
	var passing strings.Builder
	for _, q := range exampleQueries {
		if q.source == "" {
			continue
		}
		for _, c := range cats {
			b, src := best(q.query, []string{c})
			if src == q.source || src == q.alt {
				continue
			}
			wrong = append(wrong, b)
			if b >= cfg.LowQuality {
				fmt.Fprintf(&passing, "  %.3f %s for %q filtered to %s\n", b, src, q.query, c)
			}
			if b >= cfg.Levels.High {
				t.Errorf("%q filtered to %s: %s at %.3f reaches levels.high %.2f", q.query, c, src, b, cfg.Levels.High)
			}
		}
	}
	// The decoy: the category the L0 hint picks holds nothing close.
	if b, src := best("服务器磁盘满了，inode 也用尽了", []string{"database"}); b >= cfg.LowQuality {
		t.Errorf("the decoy's category scores %.3f (%s), not low quality", b, src)
	}
	slices.Sort(wrong)
	if n, err := s.cat.ChunkCount(ctx, scope); err == nil {
		t.Logf("%d chunks", n)
	}
	t.Logf("best dense qualityScore per example query:\n%s", table.String())
	if outranked.Len() > 0 {
		t.Logf("logged, not failed (an answering document outranked, known limitations):\n%s", outranked.String())
	}
	t.Logf("answered: min %.3f; off-topic: max %.3f; wrong category (%d): median %.3f, top four %.3f; at or above lowQuality:\n%s",
		slices.Min(onTopic), slices.Max(offTopic), len(wrong), wrong[len(wrong)/2], wrong[len(wrong)-4:], passing.String())
}

// TestShippedCorpus runs the pipeline with the defaults over the shipped
// corpus: attempts, fallback, evidence status and top source of the
// golden queries. (chat-cert-expiry expects UNFILTERED_VECTOR, but the
// corpus gives tls-certificate the keyword "tls", a substring of the query,
// so the L0 hint is security and the filtered attempt stands.)
func TestShippedCorpus(t *testing.T) {
	s := openEmbedded(t)
	seedDir(t, s, seedDocsDir)
	p := newPipeline(s, nil)
	for _, c := range []struct {
		query, attempt, status, top string
		reason                      string // fallbackReason, "<null>" for none
	}{
		{"连接池满了 too many connections 怎么办", contract.AttemptFiltered, contract.EvidenceSufficient, "mysql-connection-pool", "<null>"},
		// The decoys: nothing in the hinted category reaches the floor.
		{"服务器磁盘满了，inode 也用尽了", contract.AttemptUnfilteredRetry, contract.EvidenceSufficient, "disk-full", contract.FallbackNoEvidence},
		{"主机磁盘io很高，%util 一直 100%，业务写入变慢", contract.AttemptUnfilteredRetry, contract.EvidenceSufficient, "host-load-io", contract.FallbackNoEvidence},
		// dig inside pt-query-digest: the network category holds something
		// above the floor, below lowQuality.
		{"用 pt-query-digest 分析 slow log 找出最慢的 SQL", contract.AttemptUnfilteredRetry, contract.EvidenceSufficient, "mysql-slow-query", contract.FallbackLowQuality},
		// none on the 8-document corpus; on the 37-document one the best
		// chunk (change-freeze, 0.136) is in the weak band (golden case
		// negative-weather).
		{"明天上海天气怎么样", contract.AttemptUnfiltered, contract.EvidenceWeak, "change-freeze", "<null>"},
		{"How do I check when the gateway TLS certificate expires?", contract.AttemptFiltered, contract.EvidenceSufficient, "tls-certificate", "<null>"},
		{"告警：node-7 磁盘使用率 95%，inode 也快用尽", contract.AttemptUnfiltered, contract.EvidenceSufficient, "disk-full", "<null>"},
		{"Redis used_memory 告警，maxmemory 快满了", contract.AttemptFiltered, contract.EvidenceSufficient, "redis-memory", "<null>"},
	} {
		res := run(t, p, c.query)
		if res.RetrievalTrace.SelectedAttempt != c.attempt || res.EvidenceStatus != c.status || res.RerankTrace.TopSource != c.top || reason(res) != c.reason {
			t.Errorf("%q: want %s/%s/%q/%q: %s, status %s", c.query, c.attempt, c.status, c.top, c.reason, describe(res), res.EvidenceStatus)
		}
	}
}
