package builtin_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/mysql"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// backend opens a fresh, empty store of one kind.
type backend struct {
	name string
	open func(t testing.TB) store
}

var backends = []backend{
	{"embedded", openEmbedded},
	{"server", openServer},
}

// openServer opens a MySQL catalog in a fresh database and a Milvus
// collection dropped when the test ends. Without the services environment
// the test is skipped (or fails with RAG_REQUIRE_SERVICES=1).
func openServer(t testing.TB) store {
	t.Helper()
	dsn := kbtest.FreshMySQL(t)
	addr := kbtest.ServiceEnv(t, "RAG_MILVUS_ADDR")
	cat, err := mysql.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	coll := kbtest.RandomName("t_lookup_")
	idx, err := milvus.Open(context.Background(), milvus.Config{Addr: addr, Collection: coll, Timeout: 30 * time.Second, ConnectTimeout: 10 * time.Second})
	if err != nil {
		cat.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := idx.Drop(ctx); err != nil {
			t.Errorf("drop collection %s: %v", coll, err)
		}
		idx.Close()
		cat.Close()
	})
	return store{cat, idx, localEmbedder(t)}
}

const seedDocsDir = "../../../eval/rag-retrieval/seed-docs"

// TestDecoyFallback is the fallback case of the shipped corpus on both
// stores: the frontmatter keyword 服务器磁盘 of overfilter-decoy steers the
// L0 hint to database, where nothing answers a disk question; the filtered
// attempt is low quality (or empty), the unfiltered retry finds disk-full.
func TestDecoyFallback(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t)
			seedDir(t, s, seedDocsDir)
			p := newPipeline(s, nil)
			for _, mode := range []kb.SearchMode{kb.Hybrid, kb.Dense} {
				res := run(t, p, "服务器磁盘满了，inode 也用尽了", func(r *pipeline.Request) { r.SearchMode = mode })
				tr := res.RetrievalTrace
				wantHints := contract.L0Hints{Categories: []string{"database"}, MatchedTerms: []string{"服务器磁盘"}, MatchedSources: []string{"overfilter-decoy"}}
				if !reflect.DeepEqual(tr.L0Hints, wantHints) {
					t.Errorf("%s: hints %q\nwant   %q", mode, tr.L0Hints, wantHints)
				}
				if !slices.Equal(attemptNames(res), []string{contract.AttemptFiltered, contract.AttemptUnfilteredRetry}) ||
					tr.SelectedAttempt != contract.AttemptUnfilteredRetry ||
					(reason(res) != contract.FallbackLowQuality && reason(res) != contract.FallbackNoEvidence) {
					t.Fatalf("%s: want the unfiltered retry selected: %s", mode, describe(res))
				}
				if a := tr.Attempts[0]; a.Candidates > 0 && !a.LowQuality {
					t.Errorf("%s: filtered attempt with %d candidates and lowQuality false, want true", mode, a.Candidates)
				}
				got := sources(res)
				if len(got) == 0 || got[0] != "disk-full" {
					t.Errorf("%s: sources %v, want disk-full first: %s", mode, got, describe(res))
				}
				if slices.Contains(got, "overfilter-decoy") {
					t.Errorf("%s: sources %v, want no overfilter-decoy: %s", mode, got, describe(res))
				}
				if res.RerankTrace.TopSource != "disk-full" {
					t.Errorf("%s: top source %s, want disk-full", mode, res.RerankTrace.TopSource)
				}
				if !slices.Contains(res.ContextPack.Sources, "disk-full") {
					t.Errorf("%s: context sources %v, want disk-full among them", mode, res.ContextPack.Sources)
				}
				if !res.Found {
					t.Errorf("%s: found false, want true", mode)
				}
				t.Logf("%s: %s", mode, describe(res))
			}
		})
	}
}

// TestBackendsAgree runs the example queries on both stores: the same
// pipeline over the same corpus gives the same blocks in dense mode (exact
// cosine on both; hybrid may differ where the BM25 tokenizers do).
func TestBackendsAgree(t *testing.T) {
	server := openServer(t)
	embedded := openEmbedded(t)
	seedDir(t, server, seedDocsDir)
	seedDir(t, embedded, seedDocsDir)
	for _, q := range exampleQueries {
		a := run(t, newPipeline(embedded, nil), q.query, dense)
		b := run(t, newPipeline(server, nil), q.query, dense)
		if !slices.Equal(evidenceKeys(a), evidenceKeys(b)) {
			t.Errorf("%q: blocks differ\nembedded %s\nserver   %s", q.query, describe(a), describe(b))
		}
		if a.RetrievalTrace.SelectedAttempt != b.RetrievalTrace.SelectedAttempt {
			t.Errorf("%q: selected attempt %s on the embedded store, %s on the server", q.query, a.RetrievalTrace.SelectedAttempt, b.RetrievalTrace.SelectedAttempt)
		}
		if a.EvidenceStatus != b.EvidenceStatus {
			t.Errorf("%q: evidenceStatus %s on the embedded store, %s on the server", q.query, a.EvidenceStatus, b.EvidenceStatus)
		}
	}
}
