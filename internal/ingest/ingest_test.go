package ingest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/mysql"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/sqlite"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/local"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/embedded"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

const scope = "rag-eval"

// backend opens fresh, empty backends for one test. Addresses may be
// rewritten (to go through a proxy) by the hooks.
type backend struct {
	name string
	open func(t testing.TB, hooks hooks) ingest.Backends
}

type hooks struct {
	mysqlAddr, milvusAddr func(string) string
}

func (h hooks) mysql(a string) string {
	if h.mysqlAddr == nil {
		return a
	}
	return h.mysqlAddr(a)
}

func (h hooks) milvus(a string) string {
	if h.milvusAddr == nil {
		return a
	}
	return h.milvusAddr(a)
}

func embedder(t testing.TB) kb.Embedder {
	e, err := local.New(128)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var backends = []backend{
	{"embedded", func(t testing.TB, _ hooks) ingest.Backends {
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
		return ingest.Backends{Catalog: cat, Index: idx, Embedder: embedder(t)}
	}},
	{"server", func(t testing.TB, h hooks) ingest.Backends {
		dsn := kbtest.FreshMySQL(t)
		addr := kbtest.ServiceEnv(t, "RAG_MILVUS_ADDR")
		if h.mysqlAddr != nil {
			// user:pass@tcp(host:port)/db → through the hook's address
			i, j := strings.Index(dsn, "tcp("), strings.Index(dsn, ")/")
			dsn = dsn[:i+4] + h.mysql(dsn[i+4:j]) + dsn[j:]
		}
		cat, err := mysql.Open(dsn)
		if err != nil {
			t.Fatal(err)
		}
		coll := kbtest.RandomName("t_")
		idx, err := milvus.Open(context.Background(), milvus.Config{Addr: h.milvus(addr), Collection: coll, Timeout: 20 * time.Second, ConnectTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cat.Close()
			idx.Close()
			// Drop through the direct address: the proxy may be cut.
			ix, err := milvus.Open(context.Background(), milvus.Config{Addr: addr, Collection: coll})
			if err == nil {
				ix.Drop(context.Background())
				ix.Close()
			}
		})
		return ingest.Backends{Catalog: cat, Index: idx, Embedder: embedder(t)}
	}},
}

func forEachBackend(t *testing.T, fn func(t *testing.T, open func(testing.TB, hooks) ingest.Backends)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b.open) })
	}
}

// copyDocs copies the corpus test documents into a temp dir the test may edit.
func copyDocs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := "../corpus/testdata/docs"
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t *testing.T, dir string) []kb.Document {
	t.Helper()
	docs, err := corpus.LoadDir(dir, scope)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func seed(t *testing.T, b ingest.Backends, dir string, opts ingest.Options) *ingest.Summary {
	t.Helper()
	opts.KBScope = scope
	sum, err := ingest.Seed(context.Background(), load(t, dir), b, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// totalChunks is how many chunks the documents of dir make.
func totalChunks(t *testing.T, dir string) int {
	n := 0
	for _, d := range load(t, dir) {
		n += len(corpus.Chunk(&d, corpus.ChunkOptions{}))
	}
	return n
}

// checkOneCopy asserts both backends hold exactly the chunks of dir, once.
func checkOneCopy(t *testing.T, b ingest.Backends, dir string) {
	t.Helper()
	ctx := context.Background()
	want := totalChunks(t, dir)
	if n, err := b.Catalog.ChunkCount(ctx, scope); err != nil || n != want {
		t.Errorf("catalog holds %d chunks (err %v), want %d", n, err, want)
	}
	if n, err := b.Index.Count(ctx, kb.Filter{KBScope: scope}); err != nil || n != want {
		t.Errorf("index holds %d chunks (err %v), want %d", n, err, want)
	}
	docs, err := b.Catalog.Documents(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Status != kb.StatusReady {
			t.Errorf("%s is %s after a successful seed", d.DocID, d.Status)
		}
	}
}

func TestSeedTwiceLeavesOneCopy(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(testing.TB, hooks) ingest.Backends) {
		b := open(t, hooks{})
		dir := copyDocs(t)
		first := seed(t, b, dir, ingest.Options{})
		if len(first.Added) != 3 || first.ChunksWritten != totalChunks(t, dir) {
			t.Fatalf("first seed: %+v", first)
		}
		checkOneCopy(t, b, dir)
		second := seed(t, b, dir, ingest.Options{})
		if len(second.Unchanged) != 3 || len(second.Added)+len(second.Updated) != 0 || second.ChunksWritten != 0 {
			t.Fatalf("second seed: %+v", second)
		}
		checkOneCopy(t, b, dir)
		// --recreate re-indexes everything and still leaves one copy.
		third := seed(t, b, dir, ingest.Options{Recreate: true})
		if len(third.Updated) != 3 {
			t.Fatalf("recreate: %+v", third)
		}
		checkOneCopy(t, b, dir)
	})
}

func TestFrontmatterOnlyWordIsNotSearchable(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(testing.TB, hooks) ingest.Backends) {
		b := open(t, hooks{})
		dir := copyDocs(t)
		seed(t, b, dir, ingest.Options{})
		ctx := context.Background()
		search := func(mode kb.SearchMode, q string) []kb.Hit {
			vecs, err := b.Embedder.Embed(ctx, kb.Passage, []string{q})
			if err != nil {
				t.Fatal(err)
			}
			hits, err := b.Index.Search(ctx, kb.SearchRequest{Mode: mode, Vector: vecs[0], Text: q, Filter: kb.Filter{KBScope: scope}, K: 100})
			if err != nil {
				t.Fatal(err)
			}
			return hits
		}
		// Control: a word of the decoy's body is found by BM25 (hybrid top hit).
		if hits := search(kb.Hybrid, "rsync"); len(hits) == 0 || !strings.Contains(hits[0].Text, "rsync") {
			t.Fatalf("control word not found first: %v", sources(hits))
		}
		// 服务器磁盘 is only a frontmatter keyword of the decoy.
		const word = "服务器磁盘"
		for _, mode := range []kb.SearchMode{kb.Dense, kb.Hybrid} {
			for _, h := range search(mode, word) {
				if strings.Contains(h.Text, word) {
					t.Errorf("%s: chunk %s contains the frontmatter-only word", mode, h.EvidenceKey)
				}
				if strings.Contains(h.Text, "kb_scope:") || strings.Contains(h.Text, "keywords:") {
					t.Errorf("%s: chunk %s contains frontmatter", mode, h.EvidenceKey)
				}
			}
		}
		// BM25 matched nothing for it: hybrid ranks exactly as dense does.
		// (A word-level BM25 would also match no Latin token here.)
		d, h := keys(search(kb.Dense, "datadirzz")), keys(search(kb.Hybrid, "datadirzz"))
		if strings.Join(d, ",") != strings.Join(h, ",") {
			t.Errorf("a word in no chunk changed the hybrid ranking:\ndense  %v\nhybrid %v", d, h)
		}
		terms, err := b.Catalog.L0Terms(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, term := range terms {
			found = found || term.Term == word
		}
		if !found {
			t.Errorf("the frontmatter keyword is not an L0 term: %v", terms)
		}
	})
}

func TestEditedDocumentIsReplaced(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(testing.TB, hooks) ingest.Backends) {
		b := open(t, hooks{})
		dir := copyDocs(t)
		seed(t, b, dir, ingest.Options{})
		path := filepath.Join(dir, "disk-full.md")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		edited := string(data) + "\n## 新增章节\n\n补充说明：清理 journal 日志可以用 journalctl --vacuum-size=500M。\n"
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := seed(t, b, dir, ingest.Options{})
		if len(sum.Updated) != 1 || len(sum.Unchanged) != 2 {
			t.Fatalf("after edit: %+v", sum)
		}
		checkOneCopy(t, b, dir)
	})
}

func TestPrune(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(testing.TB, hooks) ingest.Backends) {
		b := open(t, hooks{})
		dir := copyDocs(t)
		seed(t, b, dir, ingest.Options{})
		if err := os.Remove(filepath.Join(dir, "overfilter-decoy.md")); err != nil {
			t.Fatal(err)
		}
		kept := seed(t, b, dir, ingest.Options{})
		if len(kept.Stale) != 1 || len(kept.Pruned) != 0 {
			t.Fatalf("without --prune: %+v", kept)
		}
		dry := seed(t, b, dir, ingest.Options{Prune: true, DryRun: true})
		if len(dry.Pruned) != 1 {
			t.Fatalf("dry run: %+v", dry)
		}
		pruned := seed(t, b, dir, ingest.Options{Prune: true})
		if len(pruned.Pruned) != 1 || pruned.Pruned[0] != "rag-eval/overfilter-decoy" {
			t.Fatalf("with --prune: %+v", pruned)
		}
		checkOneCopy(t, b, dir)
	})
}

// TestServiceDiesMidSeed cuts the connection to MariaDB or Milvus while the
// second document is being seeded: the run fails with a clear error, no
// document is ready without its vectors, and a rerun converges.
func TestServiceDiesMidSeed(t *testing.T) {
	for _, which := range []string{"mariadb", "milvus"} {
		t.Run(which, func(t *testing.T) {
			var p *kbtest.Proxy
			h := hooks{}
			if which == "mariadb" {
				h.mysqlAddr = func(a string) string { p = kbtest.NewProxy(t, a); return p.Addr() }
			} else {
				h.milvusAddr = func(a string) string { p = kbtest.NewProxy(t, a); return p.Addr() }
			}
			b := backends[1].open(t, h)
			dir := copyDocs(t)
			docs := load(t, dir)
			ctx := context.Background()
			// Seed once so the schema and collection exist, then edit every
			// document so the next run rewrites them all.
			if _, err := ingest.Seed(ctx, docs[:1], b, ingest.Options{KBScope: scope}); err != nil {
				t.Fatal(err)
			}
			before := map[string]string{}
			if states, err := b.Catalog.Documents(ctx, scope); err == nil {
				for _, s := range states {
					before[s.DocID] = s.ContentHash
				}
			}
			for _, d := range docs {
				data, _ := os.ReadFile(d.Path)
				os.WriteFile(d.Path, append(data, []byte("\n\n附录：修改于第二轮。\n")...), 0o644)
			}
			docs = load(t, dir)
			_, err := ingest.Seed(ctx, docs, b, ingest.Options{KBScope: scope, Progress: func(pr ingest.Progress) {
				if pr.Done == 1 {
					p.Cut()
				}
			}})
			if err == nil {
				t.Fatal("seed succeeded with the service gone")
			}
			t.Logf("error: %v", err)
			if !strings.Contains(err.Error(), "seed ") {
				t.Errorf("error does not name the document: %v", err)
			}
			p.Restore()
			// Only the document finished before the cut is ready with its
			// new content; the one cut in the middle is not (a document
			// whose catalog write failed keeps its old hash and old vectors).
			states, err := b.Catalog.Documents(ctx, scope)
			if err != nil {
				t.Fatal(err)
			}
			readyNew := 0
			for _, s := range states {
				if s.Status == kb.StatusReady && s.ContentHash != before[s.DocID] {
					readyNew++
				}
			}
			if readyNew != 1 {
				t.Errorf("%d documents ready with their new content after the cut, want 1: %+v", readyNew, states)
			}
			sum, err := ingest.Seed(ctx, docs, b, ingest.Options{KBScope: scope})
			if err != nil {
				t.Fatalf("rerun: %v", err)
			}
			if len(sum.Added)+len(sum.Updated) == 0 {
				t.Errorf("rerun re-indexed nothing: %+v", sum)
			}
			checkOneCopy(t, b, dir)
		})
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	b := backends[0].open(t, hooks{})
	dir := copyDocs(t)
	sum := seed(t, b, dir, ingest.Options{DryRun: true})
	if len(sum.Added) != 3 || sum.ChunksWritten != 0 {
		t.Fatalf("dry run: %+v", sum)
	}
	if n, _ := b.Catalog.ChunkCount(context.Background(), scope); n != 0 {
		t.Errorf("dry run wrote %d chunk rows", n)
	}
	if docs, _ := b.Catalog.Documents(context.Background(), scope); len(docs) != 0 {
		t.Errorf("dry run wrote documents %v", docs)
	}
}

func TestKnowledgeCopy(t *testing.T) {
	b := backends[0].open(t, hooks{})
	dir := copyDocs(t)
	kdir := t.TempDir()
	seed(t, b, dir, ingest.Options{KnowledgeDir: kdir})
	want, _ := os.ReadFile(filepath.Join(dir, "disk-full.md"))
	got, err := os.ReadFile(filepath.Join(kdir, scope, "disk-full.md"))
	if err != nil || string(got) != string(want) {
		t.Fatalf("knowledge copy: %v", err)
	}
	os.Remove(filepath.Join(dir, "disk-full.md"))
	seed(t, b, dir, ingest.Options{KnowledgeDir: kdir, Prune: true})
	if _, err := os.Stat(filepath.Join(kdir, scope, "disk-full.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pruned document's copy still there: %v", err)
	}
}

func sources(hits []kb.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Source
	}
	return out
}

func keys(hits []kb.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.EvidenceKey
	}
	return out
}

// TestLostIndexIsRebuilt: an index that no longer holds what the catalog
// records (deleted, recreated by another run, a new collection) makes the
// next seed re-index every document instead of trusting "unchanged".
func TestLostIndexIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	cat, err := sqlite.Open(filepath.Join(dir, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	openIndex := func() *embedded.Index {
		idx, err := embedded.Open(filepath.Join(dir, "index"))
		if err != nil {
			t.Fatal(err)
		}
		return idx
	}
	idx := openIndex()
	docs := copyDocs(t)
	b := ingest.Backends{Catalog: cat, Index: idx, Embedder: embedder(t)}
	seed(t, b, docs, ingest.Options{})
	idx.Close()
	if err := os.RemoveAll(filepath.Join(dir, "index")); err != nil {
		t.Fatal(err)
	}
	b.Index = openIndex()
	defer b.Index.Close()
	sum := seed(t, b, docs, ingest.Options{})
	if !sum.Resynced || len(sum.Updated) != 3 {
		t.Fatalf("after losing the index: %+v", sum)
	}
	checkOneCopy(t, b, docs)
	if again := seed(t, b, docs, ingest.Options{}); again.Resynced || len(again.Unchanged) != 3 {
		t.Fatalf("third seed: %+v", again)
	}
}

// TestChunkOptionsOrModelChangeReindex: the stored hash covers the chunking
// and the embedder, not only the file.
func TestChunkOptionsOrModelChangeReindex(t *testing.T) {
	b := backends[0].open(t, hooks{})
	dir := copyDocs(t)
	seed(t, b, dir, ingest.Options{})
	if sum := seed(t, b, dir, ingest.Options{Chunk: corpus.ChunkOptions{MaxChars: 200, Overlap: -1}}); len(sum.Updated) != 3 {
		t.Fatalf("after a chunk size change: %+v", sum)
	}
	e, err := local.New(128)
	if err != nil {
		t.Fatal(err)
	}
	b.Embedder = renamed{e}
	if sum := seed(t, b, dir, ingest.Options{Chunk: corpus.ChunkOptions{MaxChars: 200, Overlap: -1}}); len(sum.Updated) != 3 {
		t.Fatalf("after an embedder change: %+v", sum)
	}
}

// renamed is the local embedder under another model name, as a stand-in
// for switching models at the same dimension.
type renamed struct{ kb.Embedder }

func (renamed) Name() string { return "other-model" }

// An embedder change that leaves documents of the kbScope behind (no longer
// in the input, kept without Prune) would mix two models' vectors in one
// kbScope: the seed fails saying so and records no embedder, so reading
// commands refuse the store; with Prune it records the new embedder.
func TestEmbedderChangeWithStaleDocuments(t *testing.T) {
	b := backends[0].open(t, hooks{})
	dir := copyDocs(t)
	seed(t, b, dir, ingest.Options{})
	if err := os.Remove(filepath.Join(dir, "overfilter-decoy.md")); err != nil {
		t.Fatal(err)
	}
	b.Embedder = renamed{b.Embedder}
	_, err := ingest.Seed(context.Background(), load(t, dir), b, ingest.Options{KBScope: scope})
	var sv *ingest.StaleVectorsError
	if !errors.As(err, &sv) || len(sv.Stale) != 1 || sv.Stale[0] != "rag-eval/overfilter-decoy" || !strings.Contains(err.Error(), "--prune") {
		t.Fatalf("got %v, want a *StaleVectorsError naming the stale document and --prune", err)
	}
	if info, ok, err := b.Catalog.IndexInfo(context.Background(), scope); err != nil || ok {
		t.Fatalf("a mixed kbScope has a record: %+v, %v, %v", info, ok, err)
	}
	seed(t, b, dir, ingest.Options{Prune: true})
	if info, ok, err := b.Catalog.IndexInfo(context.Background(), scope); err != nil || !ok || info.Embedder != "other-model" {
		t.Fatalf("after --prune: %+v, %v, %v", info, ok, err)
	}
}

// A seed that did not finish leaves no record; the next seed, leaving a
// document behind without Prune, cannot say which model or key format that
// document holds, and says so rather than naming a previous embedder.
func TestStaleDocumentsAfterAnUnfinishedSeed(t *testing.T) {
	b := backends[0].open(t, hooks{})
	dir := copyDocs(t)
	seed(t, b, dir, ingest.Options{})
	if err := b.Catalog.SetIndexInfo(context.Background(), scope, nil); err != nil { // as a run that died half way leaves it
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "overfilter-decoy.md")); err != nil {
		t.Fatal(err)
	}
	_, err := ingest.Seed(context.Background(), load(t, dir), b, ingest.Options{KBScope: scope})
	var sv *ingest.StaleVectorsError
	if !errors.As(err, &sv) || !sv.Unrecorded || !strings.Contains(err.Error(), "did not finish") || strings.Contains(err.Error(), "previous embedder") {
		t.Fatalf("got %v, want a *StaleVectorsError saying the last seed did not finish", err)
	}
}

// seedKeyFormat1 writes dir into b as a build of evidence-key format 1
// left it: chunks keyed "<docId>#<chunkIndex>", documents ready with that
// build's index hash (which the file, the embedder and the chunking alone
// made: unchanged files hash the same), the record of format 1.
func seedKeyFormat1(t *testing.T, b ingest.Backends, dir string) {
	t.Helper()
	ctx := context.Background()
	if err := b.Catalog.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Index.Ensure(ctx, b.Embedder.Dim()); err != nil {
		t.Fatal(err)
	}
	for _, d := range load(t, dir) {
		chunks := corpus.Chunk(&d, corpus.ChunkOptions{})
		texts := make([]string, len(chunks))
		for i := range chunks {
			chunks[i].EvidenceKey = fmt.Sprintf("%s#%d", d.DocID, chunks[i].ChunkIndex)
			texts[i] = chunks[i].Text
		}
		vecs, err := b.Embedder.Embed(ctx, kb.Passage, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range chunks {
			chunks[i].Vector = vecs[i]
		}
		if err := b.Catalog.BeginIndexing(ctx, d, chunks); err != nil {
			t.Fatal(err)
		}
		if err := b.Index.Upsert(ctx, chunks); err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%d\x00%d", d.ContentHash, b.Embedder.Name(), b.Embedder.Dim(), 0, 0))
		if err := b.Catalog.MarkReady(ctx, d.KBScope, d.DocID, hex.EncodeToString(h[:])); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Catalog.SetIndexInfo(ctx, scope, &kb.IndexInfo{Embedder: b.Embedder.Name(), Dim: b.Embedder.Dim(), KeyFormat: 1}); err != nil {
		t.Fatal(err)
	}
}

// indexKeys returns the evidence keys of every chunk of the kbScope in
// the index, sorted.
func indexKeys(t *testing.T, b ingest.Backends) []string {
	t.Helper()
	ctx := context.Background()
	vecs, err := b.Embedder.Embed(ctx, kb.Query, []string{"连接池"})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := b.Index.Search(ctx, kb.SearchRequest{Mode: kb.Dense, Vector: vecs[0], Filter: kb.Filter{KBScope: scope}, K: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := keys(hits)
	slices.Sort(out)
	return out
}

// TestKeyFormat1StoreIsRekeyed: a store seeded by a build whose evidence
// keys were running counters is not trusted as unchanged although its
// files are: every document is re-indexed under the section keys, no old
// key is left in the index, and the record says the new format. Documents
// no longer in the input would keep old keys: without --prune that is an
// error naming them.
func TestKeyFormat1StoreIsRekeyed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(testing.TB, hooks) ingest.Backends) {
		b := open(t, hooks{})
		dir := copyDocs(t)
		seedKeyFormat1(t, b, dir)
		if got := indexKeys(t, b); !slices.Contains(got, "rag-eval/mysql-connection-pool#0") {
			t.Fatalf("the format 1 store: %q", got)
		}

		// A document left out would keep its old keys.
		if err := os.Rename(filepath.Join(dir, "overfilter-decoy.md"), filepath.Join(t.TempDir(), "x.md")); err != nil {
			t.Fatal(err)
		}
		// The documents in the input are re-keyed although their files are
		// unchanged.
		sum, err := ingest.Seed(context.Background(), load(t, dir), b, ingest.Options{KBScope: scope})
		if len(sum.Updated) != 2 || len(sum.Unchanged) != 0 || !sum.Rekeyed || sum.OldKeyFormat != 1 {
			t.Fatalf("re-keying seed: %+v", sum)
		}
		var sv *ingest.StaleVectorsError
		if !errors.As(err, &sv) || !sv.KeysOnly || !strings.Contains(err.Error(), "evidence keys of an older rag-seed (format 1") ||
			!strings.Contains(err.Error(), "--prune") {
			t.Fatalf("got %v, want a *StaleVectorsError about the keys", err)
		}
		if _, ok, err := b.Catalog.IndexInfo(context.Background(), scope); err != nil || ok {
			t.Fatalf("a kbScope of two key formats has a record: %v, %v", ok, err)
		}

		if sum := seed(t, b, dir, ingest.Options{Prune: true}); len(sum.Unchanged) != 2 || len(sum.Pruned) != 1 {
			t.Fatalf("with --prune: %+v", sum)
		}
		checkOneCopy(t, b, dir)
		var want []string
		for _, d := range load(t, dir) {
			for _, c := range corpus.Chunk(&d, corpus.ChunkOptions{}) {
				want = append(want, c.EvidenceKey)
			}
		}
		slices.Sort(want)
		if got := indexKeys(t, b); !slices.Equal(got, want) {
			t.Errorf("index keys after the re-keying seed:\n got %q\nwant %q", got, want)
		}
		info, ok, err := b.Catalog.IndexInfo(context.Background(), scope)
		if err != nil || !ok || info.KeyFormat != kb.EvidenceKeyFormat {
			t.Fatalf("record after the re-keying seed: %+v, %v, %v", info, ok, err)
		}
		if again := seed(t, b, dir, ingest.Options{}); len(again.Unchanged) != 2 {
			t.Fatalf("then: %+v", again)
		}
	})
}

// The record says how the kbScope was chunked and fingerprints its corpus:
// the same documents give the same fingerprint, an edit, a stale document
// kept without Prune or a prune change it; a chunk-size change is recorded
// with the sizes the chunker used.
func TestSeedRecordsChunkingAndCorpus(t *testing.T) {
	b := backends[0].open(t, hooks{})
	dir := copyDocs(t)
	record := func() kb.IndexInfo {
		t.Helper()
		info, ok, err := b.Catalog.IndexInfo(context.Background(), scope)
		if err != nil || !ok {
			t.Fatalf("no record: %v, %v", ok, err)
		}
		return info
	}
	seed(t, b, dir, ingest.Options{})
	first := record()
	docs := load(t, dir)
	want := map[string]string{}
	for _, d := range docs {
		want[d.DocID] = d.ContentHash
	}
	if first.ChunkSize != corpus.DefaultMaxChars || first.ChunkOverlap != corpus.DefaultOverlap ||
		first.Documents != len(docs) || first.CorpusSHA256 != kb.CorpusFingerprint(want) {
		t.Fatalf("record %+v, want chunk %d/%d, %d documents, fingerprint %s", first, corpus.DefaultMaxChars, corpus.DefaultOverlap,
			len(docs), kb.CorpusFingerprint(want))
	}
	seed(t, b, dir, ingest.Options{})
	if again := record(); again != first {
		t.Fatalf("an unchanged rerun changed the record: %+v, was %+v", again, first)
	}

	seed(t, b, dir, ingest.Options{Chunk: corpus.ChunkOptions{MaxChars: 120, Overlap: -1}})
	if got := record(); got.ChunkSize != 120 || got.ChunkOverlap != 0 || got.CorpusSHA256 != first.CorpusSHA256 {
		t.Fatalf("after --chunk-size 120 --chunk-overlap 0: %+v", got)
	}

	if err := os.Remove(filepath.Join(dir, "overfilter-decoy.md")); err != nil {
		t.Fatal(err)
	}
	seed(t, b, dir, ingest.Options{Chunk: corpus.ChunkOptions{MaxChars: 120, Overlap: -1}})
	kept := record()
	if kept.Documents != len(docs) || kept.CorpusSHA256 == first.CorpusSHA256 {
		t.Fatalf("a stale document kept without --prune: %+v", kept)
	}
	seed(t, b, dir, ingest.Options{Chunk: corpus.ChunkOptions{MaxChars: 120, Overlap: -1}, Prune: true})
	pruned := record()
	delete(want, "rag-eval/overfilter-decoy")
	if pruned.Documents != len(docs)-1 || pruned.CorpusSHA256 != kb.CorpusFingerprint(want) {
		t.Fatalf("after --prune: %+v", pruned)
	}
}

// orderedIndex records, in calls, which writes reach the index.
type orderedIndex struct {
	kb.Index
	cat   kb.Catalog
	calls *[]string
}

func (x orderedIndex) mark(op string) {
	_, ok, _ := x.cat.SeedInProgress(context.Background(), scope)
	*x.calls = append(*x.calls, fmt.Sprintf("%s marked=%v", op, ok))
}

func (x orderedIndex) Ensure(ctx context.Context, dim int) error {
	x.mark("ensure")
	return x.Index.Ensure(ctx, dim)
}

func (x orderedIndex) Upsert(ctx context.Context, chunks []kb.Chunk) error {
	x.mark("upsert")
	return x.Index.Upsert(ctx, chunks)
}

// TestUnfinishedSeedIsMarked: a seed marks the kbScope in progress before
// its first write, naming the corpus it seeds. A run stopped between two
// documents keeps the mark and the record of the seed before, never one
// naming the new corpus. A rerun completes: the mark is gone and the
// record names the new corpus. A dry run marks nothing.
func TestUnfinishedSeedIsMarked(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(testing.TB, hooks) ingest.Backends) {
		ctx := context.Background()
		b := open(t, hooks{})
		dir := copyDocs(t)
		var calls []string
		b.Index = orderedIndex{Index: b.Index, cat: b.Catalog, calls: &calls}
		seed(t, b, dir, ingest.Options{})
		if len(calls) < 2 {
			t.Fatalf("the seed wrote to the index %d times: %v", len(calls), calls)
		}
		for _, c := range calls {
			if !strings.HasSuffix(c, "marked=true") {
				t.Errorf("index write before the seed was marked: %v", calls)
				break
			}
		}
		if _, ok, err := b.Catalog.SeedInProgress(ctx, scope); err != nil || ok {
			t.Fatalf("after a complete seed: in progress %v, %v", ok, err)
		}
		old, _, err := b.Catalog.IndexInfo(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(data, "\n补充说明：第二次种子。\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		docs := load(t, dir)
		fp := make(map[string]string, len(docs))
		for _, d := range docs {
			fp[d.DocID] = d.ContentHash
		}
		want := kb.SeedRun{Documents: len(docs), CorpusSHA256: kb.CorpusFingerprint(fp)}

		if s := seed(t, b, dir, ingest.Options{DryRun: true}); len(s.Updated) != len(docs) {
			t.Fatalf("dry run: %+v", s)
		}
		if _, ok, _ := b.Catalog.SeedInProgress(ctx, scope); ok {
			t.Error("a dry run marked a seed in progress")
		}

		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		_, err = ingest.Seed(sctx, docs, b, ingest.Options{KBScope: scope, BatchSize: 1, QueueChunks: 1,
			Progress: func(p ingest.Progress) {
				if p.Done == 1 {
					cancel()
				}
			}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the interrupted seed returned %v", err)
		}
		if got, ok, err := b.Catalog.SeedInProgress(ctx, scope); err != nil || !ok || got != want {
			t.Errorf("after an interrupted seed: %+v, %v, %v; want %+v in progress", got, ok, err, want)
		}
		if got, ok, err := b.Catalog.IndexInfo(ctx, scope); err != nil || !ok || got != old {
			t.Errorf("the record after an interrupted seed = %+v, %v, %v; want the one before, %+v", got, ok, err, old)
		}

		seed(t, b, dir, ingest.Options{})
		if _, ok, err := b.Catalog.SeedInProgress(ctx, scope); err != nil || ok {
			t.Errorf("after the rerun: in progress %v, %v", ok, err)
		}
		if got, _, err := b.Catalog.IndexInfo(ctx, scope); err != nil || got.CorpusSHA256 != want.CorpusSHA256 || got.Documents != want.Documents {
			t.Errorf("the record after the rerun = %+v, %v; want corpus %s of %d documents", got, err, want.CorpusSHA256, want.Documents)
		}
	})
}
