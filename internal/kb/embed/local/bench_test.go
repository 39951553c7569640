package local

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// mixedChunks returns n deterministic chunks of exactly size characters
// mixing Chinese sentences and English identifiers, like the seed corpus.
func mixedChunks(n, size int) []string {
	parts := []string{
		"排查步骤：先用 SHOW PROCESSLIST 看连接来源，确认是否有慢查询占住连接。",
		"若 Threads_connected 接近 max_connections，说明连接池已满（too many connections）。",
		"调大 max_connections 之前，先检查应用侧连接池（HikariCP maximumPoolSize）与 wait_timeout。",
		"Redis used_memory 接近 maxmemory 时：确认 maxmemory-policy（allkeys-lru 等），用 MEMORY USAGE 找大 key。",
		"Check expiry with openssl s_client -connect host:443 | openssl x509 -noout -enddate; renew 30 days before notAfter.",
		"磁盘满时先 df -h 与 df -i 区分空间与 inode；inode 用尽多为海量小文件，用 find 按目录统计文件数。",
		"A 504 from the gateway means the upstream did not answer within proxy_read_timeout.",
		"logrotate 配置 daily、rotate 7、compress，避免日志写满磁盘。",
	}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := i; utf8.RuneCountInString(b.String()) < size; k++ {
			fmt.Fprintf(&b, "%s 第%d段 ", parts[(k*7+i)%len(parts)], k)
		}
		r := []rune(b.String())
		out[i] = string(r[:size])
	}
	return out
}

func BenchmarkVectorChunk800(b *testing.B) {
	e, _ := New(DefaultDim)
	chunks := mixedChunks(256, 800)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		e.Vector(chunks[i%len(chunks)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}

func BenchmarkVectorQuery(b *testing.B) {
	e, _ := New(DefaultDim)
	qs := []string{"连接池满了 too many connections 怎么办", "Redis used_memory 告警，maxmemory 快满了", "How do I check when the gateway TLS certificate expires?"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Vector(qs[i%len(qs)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "texts/s")
}

func BenchmarkEmbedBatch1000(b *testing.B) {
	e, _ := New(DefaultDim)
	chunks := mixedChunks(1000, 800)
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := e.Embed(ctx, kb.Passage, chunks); err != nil {
			b.Fatal(err)
		}
		n += len(chunks)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}
