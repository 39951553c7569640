package corpus_test

import (
	"errors"
	"fmt"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/diag"
)

func Example() {
	data := []byte(`---
source: mysql-connection-pool
breadcrumb: Database > MySQL > Connection Pool
category: database
kb_scope: rag-eval
keywords: [连接池, too many connections]
aliases: [pool exhausted]
---
# MySQL 连接池耗尽排查

应用报 Too many connections。

## 排查步骤

### 查看连接数

SHOW PROCESSLIST;
`)
	doc, problems := corpus.Parse("mysql-connection-pool.md", data, "rag-eval")
	if problems != nil {
		fmt.Println(problems)
		return
	}
	fmt.Printf("%s %q\n", doc.DocID, doc.Title)
	for _, c := range corpus.Chunk(doc, corpus.ChunkOptions{}) {
		fmt.Printf("%s [%s] %q\n", c.EvidenceKey, c.Breadcrumb, c.Text)
	}
	// Output:
	// rag-eval/mysql-connection-pool "MySQL 连接池耗尽排查"
	// rag-eval/mysql-connection-pool# [Database > MySQL > Connection Pool] "# MySQL 连接池耗尽排查\n\n应用报 Too many connections。"
	// rag-eval/mysql-connection-pool#排查步骤 > 查看连接数 [Database > MySQL > Connection Pool > 排查步骤 > 查看连接数] "### 查看连接数\n\nSHOW PROCESSLIST;"
}

func ExampleLoadDir() {
	_, err := corpus.LoadDir("testdata/docs", "prod")
	var problems diag.List
	if errors.As(err, &problems) {
		for _, p := range problems {
			var se *corpus.ScopeError
			if errors.As(p, &se) {
				fmt.Printf("%v (declares %q)\n", p, se.Declared)
			}
		}
	}
	// Output:
	// testdata/docs/disk-full.md:6: kb_scope "rag-eval" does not match the kb scope being loaded ("prod") (declares "rag-eval")
	// testdata/docs/mysql-connection-pool.md:6: kb_scope "rag-eval" does not match the kb scope being loaded ("prod") (declares "rag-eval")
	// testdata/docs/overfilter-decoy.md:6: kb_scope "rag-eval" does not match the kb scope being loaded ("prod") (declares "rag-eval")
}
