package kbtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchWords is the vocabulary of the benchmark corpus: ops terms in
// Chinese and English, as real runbooks mix them.
var BenchWords = strings.Fields(`连接池 max_connections 慢查询 索引 主从延迟 binlog 磁盘 inode 内存 OOM JVM GC
heap Redis maxmemory Kafka lag consumer 证书 TLS 网关 timeout upstream Kubernetes pod 探针 节点 告警 值班
回滚 nginx 排查 步骤 确认 检查 日志 监控 指标 latency check restart verify config threshold rotate`)

// WriteBenchCorpus writes docs seed documents into a new temporary
// directory and returns it: each has sections sections of about 500
// characters (one chunk each with the default chunk size) and one keyword
// of BenchWords, so queries get L0 hints. The text is deterministic.
func WriteBenchCorpus(tb testing.TB, kbScope string, docs, sections int) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := WriteBenchCorpusDir(dir, kbScope, docs, sections); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// WriteBenchCorpusDir writes the documents of WriteBenchCorpus into dir,
// which must exist (tools/benchcorpus, for the fault and load
// scripts).
func WriteBenchCorpusDir(dir, kbScope string, docs, sections int) error {
	rng := rand.New(rand.NewPCG(3, 4))
	for d := range docs {
		var sb strings.Builder
		fmt.Fprintf(&sb, "---\nsource: doc-%04d\ntitle: Doc %d\nbreadcrumb: Ops > Doc %d\ncategory: c%d\nkb_scope: %s\nkeywords: [%s]\n---\n",
			d, d, d, d%8, kbScope, BenchWords[d%len(BenchWords)])
		for s := range sections {
			fmt.Fprintf(&sb, "\n## Section %d\n\n", s)
			for n := 0; n < 250; {
				w := BenchWords[rng.IntN(len(BenchWords))]
				sb.WriteString(w)
				sb.WriteByte(' ')
				n += len([]rune(w)) + 1
			}
			sb.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc-%04d.md", d)), []byte(sb.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
