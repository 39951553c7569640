package ingest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

var benchWords = strings.Fields(`连接池 max_connections 慢查询 索引 主从延迟 binlog 磁盘 inode 内存 OOM JVM GC
heap Redis maxmemory Kafka lag consumer 证书 TLS 网关 timeout upstream Kubernetes pod 探针 节点 告警 值班
回滚 nginx 排查 步骤 确认 检查 日志 监控 指标 latency check restart verify config threshold rotate`)

// benchDocs writes docs seed documents of sections sections each, every
// section one chunk of about 500 characters, and loads them.
func benchDocs(b *testing.B, docs, sections int) []kb.Document {
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for d := range docs {
		var sb strings.Builder
		fmt.Fprintf(&sb, "---\nsource: doc-%04d\nbreadcrumb: Ops > Doc %d\ncategory: c%d\nkb_scope: %s\nkeywords: [k%d]\n---\n# Doc %d\n", d, d, d%8, scope, d, d)
		for s := range sections {
			fmt.Fprintf(&sb, "\n## Section %d\n\n", s)
			for n := 0; n < 250; {
				w := benchWords[rng.IntN(len(benchWords))]
				sb.WriteString(w)
				sb.WriteByte(' ')
				n += len([]rune(w)) + 1
			}
			sb.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc-%04d.md", d)), []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	out, err := corpus.LoadDir(dir, scope)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkSeed10k seeds 10,000 chunks (500 documents × 20 sections) with
// the local embedder into fresh backends and reports chunks/s.
//
//	go test -run '^$' -bench Seed10k -benchtime 1x ./internal/ingest
//	. .ragbaseline/services.env && go test -run '^$' -bench Seed10k -benchtime 1x ./internal/ingest
func BenchmarkSeed10k(b *testing.B) {
	docs := benchDocs(b, 500, 20)
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			chunks := 0
			for b.Loop() {
				b.StopTimer()
				bk := be.open(b, hooks{})
				b.StartTimer()
				sum, err := ingest.Seed(context.Background(), docs, bk, ingest.Options{KBScope: scope, BatchSize: 256})
				if err != nil {
					b.Fatal(err)
				}
				chunks += sum.ChunksWritten
			}
			b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}
