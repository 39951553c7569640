package builtin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/sqlite"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/local"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/embedded"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
)

const scope = "rag-eval"

// testDoc is a seed document of an in-test corpus.
type testDoc struct {
	source, category string
	keywords         []string
	body             string
}

func (d testDoc) markdown() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "---\nsource: %s\ntitle: Title of %s\nbreadcrumb: Test > %s\ncategory: %s\nkb_scope: %s\n",
		d.source, d.source, d.source, d.category, scope)
	if len(d.keywords) > 0 {
		sb.WriteString("keywords: [")
		for i, k := range d.keywords {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%q", k)
		}
		sb.WriteString("]\n")
	}
	sb.WriteString("---\n")
	sb.WriteString(d.body)
	sb.WriteString("\n")
	return sb.String()
}

// store is a real embedded store (SQLite catalog, embedded index, local
// embedder at the default dimension the defaults are calibrated for).
type store struct {
	cat kb.Catalog
	idx kb.Index
	emb kb.Embedder
}

func (s store) backends() ingest.Backends {
	return ingest.Backends{Catalog: s.cat, Index: s.idx, Embedder: s.emb}
}

func openEmbedded(t testing.TB) store {
	t.Helper()
	dir := t.TempDir()
	cat, err := sqlite.Open(filepath.Join(dir, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := embedded.Open(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close(); idx.Close() })
	return store{cat, idx, localEmbedder(t)}
}

func localEmbedder(t testing.TB) kb.Embedder {
	e, err := local.New(local.DefaultDim)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// seedDir seeds the documents of dir through the real ingestion path.
func seedDir(t testing.TB, s store, dir string) {
	t.Helper()
	docs, err := corpus.LoadDir(dir, scope)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Seed(context.Background(), docs, s.backends(), ingest.Options{KBScope: scope}); err != nil {
		t.Fatal(err)
	}
}

// seedDocs writes docs to a temp dir and seeds them.
func seedDocs(t testing.TB, s store, docs ...testDoc) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range docs {
		if err := os.WriteFile(filepath.Join(dir, d.source+".md"), []byte(d.markdown()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seedDir(t, s, dir)
}

// newPipeline builds the pipeline with the local embedder's defaults,
// changed by edit.
func newPipeline(s store, edit func(*builtin.Config)) *builtin.Pipeline {
	cfg := builtin.DefaultConfig(s.emb.Name())
	if edit != nil {
		edit(&cfg)
	}
	return builtin.New(s.cat, s.idx, s.emb, cfg, contract.Pipeline{Version: "test", Store: "embedded"})
}

func run(t testing.TB, p pipeline.Lookuper, query string, edit ...func(*pipeline.Request)) *contract.LookupResult {
	t.Helper()
	req := pipeline.Request{Query: query, KBScope: scope, SearchMode: kb.Hybrid}
	for _, e := range edit {
		e(&req)
	}
	res, err := p.Lookup(context.Background(), req)
	if err != nil {
		t.Fatalf("lookup %q: %v", query, err)
	}
	return res
}

func sources(res *contract.LookupResult) []string {
	out := []string{}
	for _, b := range res.EvidenceBlocks {
		out = append(out, b.Source)
	}
	return out
}

func attemptNames(res *contract.LookupResult) []string {
	out := []string{}
	for _, a := range res.RetrievalTrace.Attempts {
		out = append(out, a.Name)
	}
	return out
}

func reason(res *contract.LookupResult) string {
	if r := res.RetrievalTrace.FallbackReason; r != nil {
		return *r
	}
	return "<null>"
}

// describe summarises a result for failure messages.
func describe(res *contract.LookupResult) string {
	var sb strings.Builder
	tr := res.RetrievalTrace
	fmt.Fprintf(&sb, "hints %v terms %v; selected %s, reason %s; attempts:", tr.L0Hints.Categories, tr.L0Hints.MatchedTerms, tr.SelectedAttempt, reason(res))
	for _, a := range tr.Attempts {
		fmt.Fprintf(&sb, " [%s %v n=%d best=%.3f low=%v]", a.Name, a.Filter.Categories, a.Candidates, a.BestQuality, a.LowQuality)
	}
	sb.WriteString("; blocks:")
	for _, b := range res.EvidenceBlocks {
		fmt.Fprintf(&sb, " %s(%.3f %s)", b.EvidenceKey, b.QualityScore, b.RelevanceLevel)
	}
	return sb.String()
}

// The in-test corpus: a decoy whose keyword 服务器磁盘 steers the L0 hint to
// database, where nothing answers a disk question.
var (
	docPool = testDoc{"db-pool", "database", []string{"连接池", "too many connections"},
		"# MySQL 连接池\n\n排查步骤：先用 SHOW PROCESSLIST 看连接来源，确认是否有慢查询占住连接。若 Threads_connected 接近 max_connections，说明连接池已满（too many connections）。"}
	docDisk = testDoc{"disk-full", "ops", []string{"磁盘告警"},
		"# 磁盘满\n\n磁盘满时先 df -h 与 df -i 区分空间与 inode；inode 用尽多为海量小文件（如 session、日志切片），用 find 按目录统计文件数。"}
	docDecoy = testDoc{"decoy", "database", []string{"服务器磁盘"},
		"# 数据目录迁移\n\n停止 MySQL 后使用 rsync -av 复制 datadir 到新的数据卷，修改 my.cnf 的 datadir 并更新 socket 路径，然后启动并检查错误日志。"}
	docTLS = testDoc{"tls", "security", []string{"证书过期"},
		"# TLS\n\nCheck expiry with openssl s_client -connect host:443 | openssl x509 -noout -enddate; renew the TLS certificate 30 days before notAfter."}
	opsCorpus = []testDoc{docPool, docDisk, docDecoy, docTLS}
)
