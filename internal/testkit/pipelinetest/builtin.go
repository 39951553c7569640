package pipelinetest

import (
	"context"
	"os"
	"path/filepath"
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

// BuiltinKBScope is the kbScope NewBuiltin seeds.
const BuiltinKBScope = "contract"

// BuiltinRequest is a request NewBuiltin's pipeline answers with several
// blocks: its query matches an L0 keyword, so the lookup runs the filtered
// attempt.
var BuiltinRequest = pipeline.Request{Query: "MySQL 连接池 too many connections: raise max_connections?", KBScope: BuiltinKBScope}

// builtinCorpus are the documents NewBuiltin seeds, by file name.
var builtinCorpus = map[string]string{
	"mysql-pool.md": `---
source: mysql-pool
title: MySQL connection pool
breadcrumb: Database > MySQL
category: database
kb_scope: contract
keywords: ["连接池", "too many connections"]
---
# Connection pool

Too many connections: the MySQL connection pool is exhausted. Check SHOW PROCESSLIST and raise max_connections.

# Pool size

Size the connection pool of every service so that their sum stays below max_connections.
`,
	"postgres-connections.md": `---
source: postgres-connections
title: PostgreSQL connections
breadcrumb: Database > PostgreSQL
category: database
kb_scope: contract
---
# Connections

PostgreSQL refuses new connections above max_connections in postgresql.conf; put a connection pool such as PgBouncer in front.
`,
	"disk-full.md": `---
source: disk-full
title: Disk full
breadcrumb: Ops > Disk
category: ops
kb_scope: contract
keywords: ["磁盘告警"]
---
# Disk full

Tell space from inodes with df -h and df -i; many small files use up the inodes.
`,
}

// NewBuiltin returns the builtin pipeline with the local embedder's
// defaults over a new embedded store (SQLite catalog, embedded index)
// seeded with a small corpus through the real ingestion path. The store is
// closed when the test ends.
func NewBuiltin(t *testing.T) *builtin.Pipeline {
	t.Helper()
	cat, idx, emb := OpenBuiltinStore(t)
	return builtin.New(cat, idx, emb, builtin.DefaultConfig(emb.Name()), contract.Pipeline{Version: "contract", Store: "embedded"})
}

// OpenBuiltinStore opens the store NewBuiltin uses, seeded, and the local
// embedder it was seeded with.
func OpenBuiltinStore(t *testing.T) (kb.Catalog, kb.Index, kb.Embedder) {
	t.Helper()
	dir := t.TempDir()
	cat, err := sqlite.Open(filepath.Join(dir, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	idx, err := embedded.Open(filepath.Join(dir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	emb, err := local.New(local.DefaultDim)
	if err != nil {
		t.Fatal(err)
	}
	docsDir := filepath.Join(dir, "docs")
	if err := os.Mkdir(docsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range builtinCorpus {
		if err := os.WriteFile(filepath.Join(docsDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := corpus.LoadDir(docsDir, BuiltinKBScope)
	if err != nil {
		t.Fatal(err)
	}
	b := ingest.Backends{Catalog: cat, Index: idx, Embedder: emb}
	if _, err := ingest.Seed(context.Background(), docs, b, ingest.Options{KBScope: BuiltinKBScope}); err != nil {
		t.Fatal(err)
	}
	return cat, idx, emb
}
