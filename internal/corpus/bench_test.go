package corpus

import (
	"fmt"
	"strings"
	"testing"
)

// benchBody returns a runbook-like body of about n bytes: headings three
// levels deep, paragraphs of mixed Chinese and English, lists and code.
func benchBody(n int) string {
	words := []string{"连接池", "max_connections", "排查步骤", "too many connections", "检查", "wait_timeout",
		"慢查询", "index", "磁盘满了", "inode", "确认应用是否归还连接", "restart", "SHOW PROCESSLIST", "配置"}
	var b strings.Builder
	seed := uint32(1)
	next := func(k int) int { seed = seed*1664525 + 1013904223; return int(seed>>16) % k }
	for s := 0; b.Len() < n; s++ {
		fmt.Fprintf(&b, "%s 第 %d 节 section %d\n\n", strings.Repeat("#", s%3+1), s, s)
		for p := next(4) + 1; p > 0; p-- {
			switch next(4) {
			case 0:
				b.WriteString("```sql\nSHOW GLOBAL STATUS LIKE 'Threads_connected';\n# comment\n\nSELECT 1;\n```\n\n")
			case 1:
				for i := next(5) + 2; i > 0; i-- {
					fmt.Fprintf(&b, "%d. %s %s。\n", i, words[next(len(words))], words[next(len(words))])
				}
				b.WriteString("\n")
			default:
				for w := next(120) + 20; w > 0; w-- {
					b.WriteString(words[next(len(words))])
					switch next(8) {
					case 0:
						b.WriteString("。")
					case 1:
						b.WriteString(". ")
					case 2, 3:
						b.WriteString(" ")
					}
				}
				b.WriteString("\n\n")
			}
		}
	}
	return b.String()
}

func BenchmarkChunk(b *testing.B) {
	for _, size := range []int{4 << 10, 256 << 10} {
		doc := testDoc(benchBody(size))
		b.Run(fmt.Sprintf("body=%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(doc.Body)))
			b.ReportAllocs()
			chunks := 0
			for b.Loop() {
				chunks += len(Chunk(doc, ChunkOptions{}))
			}
			b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

func BenchmarkParse(b *testing.B) {
	data := file(valid+"title: 连接池\nkeywords: [连接池, too many connections, max_connections]\naliases:\n  - pool exhausted\n",
		benchBody(16<<10))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, problems := Parse("b.md", data, "rag-eval"); problems != nil {
			b.Fatal(problemStrings(problems))
		}
	}
}
