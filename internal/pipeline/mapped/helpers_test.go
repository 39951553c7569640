package mapped

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/local"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/usem3"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// shipped is the path of a config under deploy/mapped.
func shipped(name string) string { return filepath.Join("..", "..", "..", "deploy", "mapped", name) }

// recorded is one request a fakeAPI received.
type recorded struct {
	Method, Path, RawQuery string
	EscapedPath            string // the path as sent
	Host                   string
	Header                 http.Header
	Body                   []byte
}

// fakeAPI is an httptest server standing in for a retrieval API in
// protocol tests: answer decides each response (status 0 drops the
// connection unanswered); every request is kept.
type fakeAPI struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []recorded
	answer func(r recorded) (status int, body []byte)
}

func newFakeAPI(t testing.TB, answer func(r recorded) (int, []byte)) *fakeAPI {
	f := &fakeAPI{answer: answer}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := recorded{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, EscapedPath: r.URL.EscapedPath(), Host: r.Host, Header: r.Header.Clone(), Body: body}
		f.mu.Lock() // answers one at a time: tests count calls in them
		f.reqs = append(f.reqs, rec)
		status, out := f.answer(rec)
		f.mu.Unlock()
		if status == 0 { // the server dies: the connection drops unanswered
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(out)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// readResponse reads a recorded response under testdata/responses.
func readResponse(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "responses", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// localEmbedder is the lexical embedder: no model, 512 dimensions, the
// thresholds of local-hash-v1.
func localEmbedder(t testing.TB) kb.Embedder {
	t.Helper()
	e, err := local.New(512)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// useEmbedder is use-multilingual-v3, the embedder the shipped configs'
// data model embeds the chunks with. The test is skipped when `make
// models` has not installed it (and fails with RAG_REQUIRE_MODEL=1).
func useEmbedder(t testing.TB) kb.Embedder {
	t.Helper()
	kbtest.ModelBase(t)
	e, err := usem3.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// envOf is a LookupEnv reading only env.
func envOf(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// openConfig loads the config at path and builds its pipeline with env as
// the environment and the local embedder.
func openConfig(t testing.TB, path string, env map[string]string) *Pipeline {
	t.Helper()
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(cfg, Options{Embedder: localEmbedder(t), LookupEnv: envOf(env)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeConfig writes a config into a temporary file.
func writeConfig(t testing.TB, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pipeline.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func lookupOK(t testing.TB, p *Pipeline, query string) *contract.LookupResult {
	t.Helper()
	lr, err := p.Lookup(context.Background(), pipeline.Request{Query: query, KBScope: "rag-eval"})
	if err != nil {
		t.Fatal(err)
	}
	return lr
}

// blockView is what the mapping tests compare of a block.
type blockView struct {
	Rank                                            int
	DocID, Source, EvidenceKey, Breadcrumb, Excerpt string
	Quality                                         float64
	HasQuality                                      bool
	Level, Label                                    string
	Dense, Fused                                    float64
}

func viewOf(blocks []contract.EvidenceBlock) []blockView {
	out := make([]blockView, len(blocks))
	for i, b := range blocks {
		out[i] = blockView{b.Rank, b.DocID, b.Source, b.EvidenceKey, b.Breadcrumb, b.Excerpt,
			float64(b.QualityScore), b.HasQuality, b.RelevanceLevel, b.ScoreLabel,
			contract.Round6(float64(b.DenseDistance)), contract.Round6(float64(b.FusedScore))}
	}
	return out
}
