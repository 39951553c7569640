// Package exttest loads the shipped corpus into the external retrieval
// servers that `make ext-services` starts on loopback: Weaviate, OpenSearch
// and Chroma. docs/external-servers.md describes them. It loads through
// each server's own HTTP API, for the tests of pipelines that search them,
// rag-snapshot --pipeline mapped.
//
// What is loaded is exactly what rag-seed indexes. The documents of an eval
// set are read by corpus.LoadDir, cut by the project's chunker and embedded
// as passages by the given embedder. ingest.Chunks does that, the function
// the seed flow itself calls. Each chunk is one object, document or record,
// with the same properties on every server:
//
//	docId        the document's docId, "<kbScope>/<source>" by default
//	source       the document's source, as evidence blocks report it
//	evidenceKey  the chunk's evidence key, unique in a kbScope
//	breadcrumb   the document breadcrumb + heading path of the chunk
//	category     the document's category
//	kbScope      the kb scope
//	text         the chunk text, the excerpt, keyword-searchable
//	the vector   512 dimensions for use-multilingual-v3, cosine
//
// Per server:
//
//	Weaviate    class RagChunk, DefaultWeaviateClass. Vectorizer none,
//	            cosine distance, BM25 on text with word tokenization. The
//	            other properties are text with field tokenization, for
//	            exact match.
//	OpenSearch  index rag-chunks, DefaultOpenSearchIndex. embedding is a
//	            knn_vector of the lucene engine with cosinesimil. text is
//	            text with the standard analyzer, the others keyword. Bulk
//	            writes use ?refresh=true, so a load is searchable when it
//	            returns.
//	Chroma      collection rag-chunks, DefaultChromaCollection, in
//	            default_tenant/default_database. Cosine space, documents =
//	            the chunk texts, metadatas = the other properties,
//	            ids = ObjectID. The v2 API addresses it by its UUID.
//
// Every object's id is ObjectID(kbScope, evidenceKey), a UUID derived from
// the chunk, so a load is deterministic. Each loader first deletes its own
// class, index or collection, so a load is a reset and safe to repeat.
// Tests use names of their own from TestName, so concurrent runs do not
// clash, and delete them when they end.
//
// A server is located by an environment variable that
// .ragbaseline/ext-services.env sets: WEAVIATE_URL, OPENSEARCH_URL or
// CHROMA_URL. Without it a test is skipped, saying how to start the
// servers. It fails instead when RAG_REQUIRE_EXT_SERVICES=1, as in CI, so
// the tests cannot be skipped silently.
package exttest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// The environment variables that locate the servers, and the one that
// makes a missing server a failure.
const (
	EnvWeaviate   = "WEAVIATE_URL"
	EnvOpenSearch = "OPENSEARCH_URL"
	EnvChroma     = "CHROMA_URL"
	EnvRequire    = "RAG_REQUIRE_EXT_SERVICES"
)

// The names the loaders use by default (the shipped mapped-pipeline
// configurations search these).
const (
	DefaultWeaviateClass    = "RagChunk"
	DefaultOpenSearchIndex  = "rag-chunks"
	DefaultChromaCollection = "rag-chunks"
	DefaultChromaTenant     = "default_tenant"
	DefaultChromaDatabase   = "default_database"
)

const (
	howToStart     = "run `make ext-services && . .ragbaseline/ext-services.env` to start Weaviate, OpenSearch and Chroma on loopback (docs/external-servers.md)"
	requestTimeout = 2 * time.Minute
	maxErrorBody   = 2048
	// loadBatch is the number of chunks per write request.
	loadBatch = 64
)

// ServerURL returns the value of the environment variable env without a
// trailing slash. env is EnvWeaviate, EnvOpenSearch or EnvChroma. When it
// is not set the test is skipped, saying how to start the servers. It fails
// instead when RAG_REQUIRE_EXT_SERVICES=1, by kbtest.RequiredEnv.
func ServerURL(t testing.TB, env string) string {
	t.Helper()
	return strings.TrimRight(kbtest.RequiredEnv(t, env, EnvRequire, howToStart), "/")
}

// WeaviateURL is ServerURL(t, EnvWeaviate).
func WeaviateURL(t testing.TB) string { t.Helper(); return ServerURL(t, EnvWeaviate) }

// OpenSearchURL is ServerURL(t, EnvOpenSearch).
func OpenSearchURL(t testing.TB) string { t.Helper(); return ServerURL(t, EnvOpenSearch) }

// ChromaURL is ServerURL(t, EnvChroma).
func ChromaURL(t testing.TB) string { t.Helper(); return ServerURL(t, EnvChroma) }

// TestName returns a name of its own for one test run. It is "RagTest<unix
// seconds>x<12 hex digits>" when capital is set, because a Weaviate class
// must start with a capital letter. Else it is "ragtest-<unix seconds>-<12
// hex digits>", because OpenSearch index names are lower case.
func TestName(capital bool) string {
	var b [6]byte
	rand.Read(b[:])
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	if capital {
		return "RagTest" + ts + "x" + hex.EncodeToString(b[:])
	}
	return "ragtest-" + ts + "-" + hex.EncodeToString(b[:])
}

// Corpus is an eval set's documents as rag-seed indexes them.
type Corpus struct {
	KBScope string
	// Chunks in document order (the order of corpus.LoadDir), each with
	// its vector.
	Chunks []kb.Chunk
	// Golden is the eval set's golden file.
	Golden *contract.GoldenFile
	// Embedder embedded the chunks as passages. Queries must be embedded by
	// it too, as queries.
	Embedder kb.Embedder
}

// LoadCorpus reads the eval set in dir (<dir>/seed-docs, the kbScope of
// <dir>/cases/golden-cases.json) and chunks and embeds every document with
// rag-seed's default chunk options, through ingest.Chunks.
func LoadCorpus(ctx context.Context, dir string, e kb.Embedder) (*Corpus, error) {
	g, err := contract.LoadGolden(filepath.Join(dir, "cases", "golden-cases.json"))
	if err != nil {
		return nil, err
	}
	if g.KBScope == "" {
		return nil, fmt.Errorf("%s: the golden file has no kbScope", dir)
	}
	docs, err := corpus.LoadDir(filepath.Join(dir, "seed-docs"), g.KBScope)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	c := &Corpus{KBScope: g.KBScope, Golden: g, Embedder: e}
	opts := corpus.ChunkOptions{MaxChars: corpus.DefaultMaxChars, Overlap: corpus.DefaultOverlap}
	for i := range docs {
		chunks, err := ingest.Chunks(ctx, &docs[i], e, opts, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", docs[i].Path, err)
		}
		c.Chunks = append(c.Chunks, chunks...)
	}
	if len(c.Chunks) == 0 {
		return nil, fmt.Errorf("%s: no chunks", dir)
	}
	return c, nil
}

// Dim is the dimension of the chunks' vectors.
func (c *Corpus) Dim() int { return len(c.Chunks[0].Vector) }

// Sources returns the distinct sources of the chunks, in order.
func (c *Corpus) Sources() []string {
	var out []string
	seen := map[string]bool{}
	for _, ch := range c.Chunks {
		if !seen[ch.Source] {
			seen[ch.Source] = true
			out = append(out, ch.Source)
		}
	}
	return out
}

// ObjectID is the id of a chunk's object on every server: a UUID (version
// 5 layout) made from the SHA-256 of the kb scope and the evidence key.
func ObjectID(kbScope, evidenceKey string) string {
	h := sha256.Sum256([]byte("ragbaseline-chunk\x00" + kbScope + "\x00" + evidenceKey))
	b := h[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// Properties are a chunk's properties as every server stores them.
func Properties(ch *kb.Chunk) map[string]any {
	return map[string]any{
		"docId":       ch.DocID,
		"source":      ch.Source,
		"evidenceKey": ch.EvidenceKey,
		"breadcrumb":  ch.Breadcrumb,
		"category":    ch.Category,
		"kbScope":     ch.KBScope,
		"text":        ch.Text,
	}
}

// keywordProps are the properties stored for exact match (everything but
// text).
var keywordProps = []string{"docId", "source", "evidenceKey", "breadcrumb", "category", "kbScope"}

// A Server is one of the loaders (Weaviate, OpenSearch, Chroma): what it
// loads, counts and deletes is its class, index or collection.
type Server interface {
	// Load replaces what the server holds with one object per chunk.
	Load(ctx context.Context, chunks []kb.Chunk) error
	// Count returns the number of objects it holds.
	Count(ctx context.Context) (int, error)
	// Delete removes them (nothing when there are none).
	Delete(ctx context.Context) error
}

// LoadForTest loads chunks into s, failing t on an error, and deletes them
// when t ends. what names them in the error, as in "class RagTest…". s
// should have a name of its own from TestName.
func LoadForTest(t testing.TB, ctx context.Context, s Server, what string, chunks []kb.Chunk) {
	t.Helper()
	t.Cleanup(func() {
		if err := s.Delete(context.Background()); err != nil {
			t.Errorf("delete %s: %v", what, err)
		}
	})
	if err := s.Load(ctx, chunks); err != nil {
		t.Fatal(err)
	}
}

// Hit is one result of a search through a server's own API.
type Hit struct {
	ID     string
	Source string
	DocID  string
	// Score is what the server returned: a BM25 or similarity score, or
	// a distance (Chroma, Weaviate nearVector).
	Score float64
}

// Sources returns the hits' sources in rank order.
func Sources(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Source
	}
	return out
}

// client is the HTTP client of every loader: no proxy (the servers are on
// loopback) and a timeout per request.
var client = &http.Client{
	Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4},
	Timeout:   requestTimeout,
}

// HTTPError is a status a server answered that the caller did not accept.
type HTTPError struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.URL, e.Status, e.Body)
}

// do sends body and decodes a 2xx answer into out when out is not nil. body
// is JSON-encoded unless it is []byte. A status in allow is accepted too,
// and its body is not decoded. Any other status is an *HTTPError.
func do(ctx context.Context, method, url, contentType string, body any, out any, allow ...int) (int, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, err
	}
	if rd != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	for _, s := range allow {
		if resp.StatusCode == s {
			return s, nil
		}
	}
	if resp.StatusCode/100 != 2 {
		msg := string(data)
		msg = diag.Clip(msg, maxErrorBody, diag.Bytes)
		return resp.StatusCode, &HTTPError{Method: method, URL: url, Status: resp.StatusCode, Body: strings.TrimSpace(msg)}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: decoding the answer: %w", method, url, err)
		}
	}
	return resp.StatusCode, nil
}

// batches calls fn with consecutive slices of at most n chunks.
func batches(chunks []kb.Chunk, n int, fn func([]kb.Chunk) error) error {
	for lo := 0; lo < len(chunks); lo += n {
		if err := fn(chunks[lo:min(lo+n, len(chunks))]); err != nil {
			return err
		}
	}
	return nil
}

// BruteForce returns the limit chunks nearest to vec by cosine similarity,
// best first (ties by object id, ObjectID): the exact answer an approximate
// vector index should reproduce on a corpus this small. Score is the
// cosine distance.
func BruteForce(chunks []kb.Chunk, vec []float32, limit int) []Hit {
	hits := make([]Hit, len(chunks))
	for i := range chunks {
		hits[i] = Hit{ID: ObjectID(chunks[i].KBScope, chunks[i].EvidenceKey), Source: chunks[i].Source, DocID: chunks[i].DocID,
			Score: 1 - kbtest.Cosine(chunks[i].Vector, vec)}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return hits[:min(limit, len(hits))]
}
