package ingest_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// mixedCorpus writes a corpus of one-chunk and many-chunk documents, some
// of them twins (another source, the same body: the same chunk texts in
// two documents, which the embedding cache holds once).
func mixedCorpus(t *testing.T) string {
	t.Helper()
	dir := kbtest.WriteBenchCorpus(t, scope, 40, 1)
	many := kbtest.WriteBenchCorpus(t, scope, 8, 90) // more chunks than a cache write takes
	for i, name := range []string{"doc-0001.md", "doc-0003.md", "doc-0006.md"} {
		data, err := os.ReadFile(filepath.Join(many, name))
		if err != nil {
			t.Fatal(err)
		}
		for twin := range 2 {
			src := fmt.Sprintf("many-%d-%d", i, twin)
			body := strings.Replace(string(data), "source: "+strings.TrimSuffix(name, ".md"), "source: "+src, 1)
			if err := os.WriteFile(filepath.Join(dir, src+".md"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// seedStore seeds docs into a fresh embedded store under dataDir, as
// rag-seed does (catalog, embedding cache, index, knowledge copies), then
// re-embeds everything from the cache (Recreate), and closes the store.
func seedStore(t *testing.T, dataDir, docs string, opts ingest.Options) {
	t.Helper()
	ctx := context.Background()
	c := config.Defaults()
	c.Store, c.DataDir, c.Embedder, c.EmbedDim = config.StoreEmbedded, dataDir, config.EmbedderLocal, 0
	for _, recreate := range []bool{false, true} {
		st, err := config.Open(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		o.KBScope, o.Recreate, o.KnowledgeDir = scope, recreate, c.KnowledgeDir()
		if _, err := ingest.Seed(ctx, load(t, docs), ingest.Backends{Catalog: st.Catalog, Index: st.Index, Embedder: st.Embedder}, o); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// files returns the contents of every file under dir, by relative path.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBatchingGivesTheSameStore: embedding in batches across documents,
// ahead of the writes, leaves the same bytes in every file of the embedded
// store (the SQLite catalog with its embedding cache, the index, the
// knowledge copies) as embedding one chunk at a time with nothing ahead,
// the way a seed went one document after the other; after a first seed and
// after a --recreate that takes every vector from the cache.
func TestBatchingGivesTheSameStore(t *testing.T) {
	docs := mixedCorpus(t)
	base := t.TempDir()
	runs := []struct {
		name string
		opts ingest.Options
	}{
		{"one at a time", ingest.Options{BatchSize: 1, QueueChunks: 1}},
		{"batches of 64", ingest.Options{BatchSize: 64, QueueChunks: 256}},
		{"batches of 7, queue of 5", ingest.Options{BatchSize: 7, QueueChunks: 5}},
		{"defaults", ingest.Options{}},
	}
	var want map[string][]byte
	for i, r := range runs {
		dir := filepath.Join(base, fmt.Sprint(i))
		seedStore(t, dir, docs, r.opts)
		got := files(t, dir)
		if i == 0 {
			want = got
			if len(want) < 40 {
				t.Fatalf("the store has %d files", len(want))
			}
			continue
		}
		for name, data := range want {
			if !bytes.Equal(got[name], data) {
				t.Errorf("%s: %s differs from the one-at-a-time seed's", r.name, name)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d files, the one-at-a-time seed wrote %d", r.name, len(got), len(want))
		}
	}
}

// countingEmbedder counts the texts it embeds and the calls, each of which
// takes at least delay.
type countingEmbedder struct {
	kb.Embedder
	delay time.Duration
	texts atomic.Int64
	calls atomic.Int64
}

func (e *countingEmbedder) Embed(ctx context.Context, kind kb.InputType, texts []string) ([][]float32, error) {
	e.texts.Add(int64(len(texts)))
	e.calls.Add(1)
	time.Sleep(e.delay)
	return e.Embedder.Embed(ctx, kind, texts)
}

// gatedCatalog counts the chunks of the documents marked ready, and holds
// the first MarkReady until gate is closed.
type gatedCatalog struct {
	kb.Catalog
	gate    chan struct{}
	once    sync.Once
	written atomic.Int64
	pending sync.Map // docId -> chunks
}

func (c *gatedCatalog) BeginIndexing(ctx context.Context, d kb.Document, chunks []kb.Chunk) error {
	c.pending.Store(d.DocID, len(chunks))
	return c.Catalog.BeginIndexing(ctx, d, chunks)
}

func (c *gatedCatalog) MarkReady(ctx context.Context, kbScope, docID, hash string) error {
	c.once.Do(func() { <-c.gate })
	if err := c.Catalog.MarkReady(ctx, kbScope, docID, hash); err != nil {
		return err
	}
	n, _ := c.pending.Load(docID)
	c.written.Add(int64(n.(int)))
	return nil
}

// TestQueueBound: while the writer is held on the first document, the
// chunker and the embedder run ahead of it, up to QueueChunks chunks cut
// and embedded but not written, and no further; then the seed completes.
func TestQueueBound(t *testing.T) {
	const queue, sections = 20, 5
	b := backends[0].open(t, hooks{})
	emb := &countingEmbedder{Embedder: b.Embedder}
	cat := &gatedCatalog{Catalog: b.Catalog, gate: make(chan struct{})}
	b.Embedder, b.Catalog = emb, cat
	docs, err := corpus.LoadDir(kbtest.WriteBenchCorpus(t, scope, 30, sections), scope)
	if err != nil {
		t.Fatal(err)
	}
	ahead := func() int64 { return emb.texts.Load() - cat.written.Load() }
	errc := make(chan error, 1)
	go func() {
		_, err := ingest.Seed(context.Background(), docs, b, ingest.Options{KBScope: scope, BatchSize: sections, QueueChunks: queue})
		errc <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); ahead() < queue; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("with the writer held, %d chunks were embedded ahead, want %d", ahead(), queue)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := ahead(); n != queue {
		t.Errorf("%d chunks embedded ahead of the writer, the queue holds %d", n, queue)
	}
	close(cat.gate)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if n := emb.texts.Load(); n != int64(len(docs)*sections) {
		t.Errorf("%d texts embedded, want %d", n, len(docs)*sections)
	}
	if n := emb.calls.Load(); n > int64(len(docs)) {
		t.Errorf("%d embedding calls for %d documents", n, len(docs))
	}
}

// TestBatchesAcrossDocuments: one-chunk documents are embedded many at a
// time, not one call each. Each call takes 20 ms, as a model's would, and
// meanwhile the chunker cuts the next documents.
func TestBatchesAcrossDocuments(t *testing.T) {
	b := backends[0].open(t, hooks{})
	emb := &countingEmbedder{Embedder: b.Embedder, delay: 20 * time.Millisecond}
	b.Embedder = emb
	docs, err := corpus.LoadDir(kbtest.WriteBenchCorpus(t, scope, 200, 1), scope)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Seed(context.Background(), docs, b, ingest.Options{KBScope: scope, BatchSize: 50}); err != nil {
		t.Fatal(err)
	}
	// The embedder embeds what it has when the chunker is behind (the
	// first call), then full batches.
	if n := emb.calls.Load(); emb.texts.Load() != 200 || n > 10 {
		t.Errorf("%d texts in %d calls, want 200 texts in batches", emb.texts.Load(), n)
	}
}

// The kill test runs the test binary again as a seed that stops, for good,
// at a given write of the third document (ragKillChild says which), and
// kills it there.
const (
	killEnv     = "INGEST_KILL_CHILD"
	killDataEnv = "INGEST_KILL_DATA"
	killDocsEnv = "INGEST_KILL_DOCS"
)

// stallIndex and stallCatalog stop the process's seed at the third
// document's upsert or MarkReady: they say so on stdout and never return.
type stallIndex struct {
	kb.Index
	n atomic.Int64
}

func (ix *stallIndex) Upsert(ctx context.Context, chunks []kb.Chunk) error {
	if ix.n.Add(1) == 3 && os.Getenv(killEnv) == "upsert" {
		fmt.Println("stalled")
		select {}
	}
	return ix.Index.Upsert(ctx, chunks)
}

type stallCatalog struct {
	kb.Catalog
	n atomic.Int64
}

func (c *stallCatalog) MarkReady(ctx context.Context, kbScope, docID, hash string) error {
	if c.n.Add(1) == 3 && os.Getenv(killEnv) == "ready" {
		fmt.Println("stalled")
		select {}
	}
	return c.Catalog.MarkReady(ctx, kbScope, docID, hash)
}

func stack(t *testing.T, dataDir string) (*config.Stack, config.Config) {
	t.Helper()
	c := config.Defaults()
	c.Store, c.DataDir, c.Embedder, c.EmbedDim = config.StoreEmbedded, dataDir, config.EmbedderLocal, 0
	st, err := config.Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return st, c
}

// TestKilledSeedConverges kills a seed (SIGKILL) in the middle of a
// document, once while its vectors are being written and once between its
// vectors and its ready mark, with later documents already embedded
// ahead: the documents before it are ready, it is left indexing, none
// after it is in the catalog, and the next seed re-indexes what it must
// and leaves the store as a seed that was never killed.
func TestKilledSeedConverges(t *testing.T) {
	if mode := os.Getenv(killEnv); mode != "" {
		st, c := stack(t, os.Getenv(killDataEnv))
		b := ingest.Backends{Catalog: &stallCatalog{Catalog: st.Catalog}, Index: &stallIndex{Index: st.Index}, Embedder: st.Embedder}
		_, err := ingest.Seed(context.Background(), load(t, os.Getenv(killDocsEnv)), b,
			ingest.Options{KBScope: scope, KnowledgeDir: c.KnowledgeDir(), BatchSize: 16})
		t.Fatalf("the seed returned (%v) instead of stalling", err)
	}
	docs := mixedCorpus(t)
	clean := t.TempDir()
	seedOnce(t, clean, docs)
	for _, mode := range []string{"upsert", "ready"} {
		t.Run(mode, func(t *testing.T) {
			dataDir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run", "^TestKilledSeedConverges$")
			cmd.Env = append(os.Environ(), killEnv+"="+mode, killDataEnv+"="+dataDir, killDocsEnv+"="+docs)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stalled := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					if sc.Text() == "stalled" {
						stalled <- true
						return
					}
				}
				stalled <- false
			}()
			select {
			case ok := <-stalled:
				if !ok {
					cmd.Wait()
					t.Fatalf("the seed ended before it stalled: %s", stderr.String())
				}
			case <-time.After(60 * time.Second):
				t.Fatal("the seed did not stall")
			}
			cmd.Process.Kill()
			cmd.Wait()

			st, _ := stack(t, dataDir)
			states, err := st.Catalog.Documents(context.Background(), scope)
			if err != nil {
				t.Fatal(err)
			}
			var status []string
			for _, s := range states {
				status = append(status, s.Status)
			}
			if want := []string{kb.StatusReady, kb.StatusReady, kb.StatusIndexing}; !slices.Equal(status, want) {
				t.Errorf("after the kill the catalog holds %v, want %v", status, want)
			}
			sum, err := ingest.Seed(context.Background(), load(t, docs), ingest.Backends{Catalog: st.Catalog, Index: st.Index, Embedder: st.Embedder},
				ingest.Options{KBScope: scope, KnowledgeDir: filepath.Join(dataDir, "knowledge")})
			if err != nil {
				t.Fatal(err)
			}
			// Killed in its upsert, the third document has its chunk rows
			// but not its vectors: the index and the catalog disagree, and
			// everything is re-indexed. Killed before its ready mark, it
			// alone is.
			switch {
			case mode == "upsert" && (!sum.Resynced || len(sum.Unchanged) != 0 || len(sum.Updated) != 3):
				t.Errorf("the rerun: %+v, want every document re-indexed", sum)
			case mode == "ready" && (sum.Resynced || len(sum.Unchanged) != 2 || len(sum.Updated) != 1):
				t.Errorf("the rerun: %+v, want the 2 ready documents unchanged and the third re-indexed", sum)
			}
			checkOneCopy(t, ingest.Backends{Catalog: st.Catalog, Index: st.Index, Embedder: st.Embedder}, docs)
			if got, want := searchAll(t, st), searchAll(t, openStack(t, clean)); !slices.Equal(got, want) {
				t.Errorf("the rerun's store answers otherwise than a seed never killed:\n got %v\nwant %v", got, want)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			for name, data := range files(t, filepath.Join(clean, "knowledge")) {
				if got, err := os.ReadFile(filepath.Join(dataDir, "knowledge", name)); err != nil || !bytes.Equal(got, data) {
					t.Errorf("knowledge copy %s: %v", name, err)
				}
			}
		})
	}
}

func seedOnce(t *testing.T, dataDir, docs string) {
	t.Helper()
	st, c := stack(t, dataDir)
	defer st.Close()
	if _, err := ingest.Seed(context.Background(), load(t, docs), ingest.Backends{Catalog: st.Catalog, Index: st.Index, Embedder: st.Embedder},
		ingest.Options{KBScope: scope, KnowledgeDir: c.KnowledgeDir()}); err != nil {
		t.Fatal(err)
	}
}

func openStack(t *testing.T, dataDir string) *config.Stack {
	st, _ := stack(t, dataDir)
	t.Cleanup(func() { st.Close() })
	return st
}

// searchAll returns, for a few queries in both modes, the evidence keys
// and distances of everything the index holds, best first.
func searchAll(t *testing.T, st *config.Stack) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, q := range []string{"连接池 max_connections", "Redis maxmemory 内存", "证书 TLS 网关 timeout"} {
		vecs, err := st.Embedder.Embed(ctx, kb.Query, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []kb.SearchMode{kb.Dense, kb.Hybrid} {
			hits, err := st.Index.Search(ctx, kb.SearchRequest{Mode: mode, Vector: vecs[0], Text: q, Filter: kb.Filter{KBScope: scope}, K: 1000})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				out = append(out, fmt.Sprintf("%s %s %.6f", mode, h.EvidenceKey, h.DenseDistance))
			}
		}
	}
	return out
}
