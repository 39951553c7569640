// Package kb is the domain of the knowledge base that rag-seed fills and
// rag-snapshot searches. It holds documents, chunks, filters and search
// hits. It holds the interfaces that the ingestion and the lookup pipeline
// consume: Embedder, EmbedCache, Catalog and Index. Each backend lives in
// its own package and implements one of them. Package kbtest holds the one
// contract test suite every implementation runs, so the embedded default
// and the server stack cannot drift apart.
//
// kb imports only the standard library and diag, which imports only the
// standard library itself.
package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
)

// MaxKBScopeLen is the longest kbScope, in bytes: every store holds it
// (the catalog's key columns, Milvus' kb_scope field).
const MaxKBScopeLen = 255

// ValidKBScope reports why s cannot be a kbScope, or nil: it names a
// directory under the data dir and a value in every store's filters, so
// it is a plain slug, [A-Za-z0-9][A-Za-z0-9._-]*, of at most
// MaxKBScopeLen bytes. rag-seed --kb-scope, rag-snapshot and serve apply
// this one rule.
func ValidKBScope(s string) error {
	if len(s) > MaxKBScopeLen {
		return fmt.Errorf("is %d bytes long, at most %d", len(s), MaxKBScopeLen)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return errSlug
		}
	}
	if s == "" {
		return errSlug
	}
	return nil
}

var errSlug = errors.New("must start with a letter or digit, then letters, digits, '.', '_' or '-'")

// Document is one seed document after frontmatter parsing (docs/corpus.md).
type Document struct {
	DocID      string // default "<kbScope>/<source>"
	Source     string
	Title      string
	Breadcrumb string
	Category   string
	KBScope    string
	Keywords   []string // L0 hints only, never embedded or indexed for search
	Aliases    []string // L0 hints only
	// Body is the markdown body with the frontmatter stripped.
	Body string
	// ContentHash is the hex SHA-256 of the whole file (frontmatter
	// included, so a keyword change re-indexes the L0 terms).
	ContentHash string
	// Path is the file the document was read from, for messages.
	Path string
}

// Chunk is one searchable piece of a document. EvidenceKey is unique in a
// kbScope and stable under edits of other sections, as EvidenceKey
// explains. ChunkIndex is the chunk's position in the document: 0, 1, ….
type Chunk struct {
	EvidenceKey string
	DocID       string
	Source      string
	Title       string
	Breadcrumb  string // document breadcrumb + heading path
	Category    string
	KBScope     string
	ChunkIndex  int
	Text        string // the chunk's full text, returned as the excerpt
	Vector      []float32
}

// Filter restricts a search. It is a structured value: every backend
// renders it itself (Milvus as an expression with every string escaped,
// SQL with parameters), never by concatenating user input.
type Filter struct {
	KBScope string
	// Categories, when non-empty, keeps only chunks in one of them.
	Categories []string
}

// SearchMode selects dense or hybrid (dense + BM25, fused as
// SearchRequest.Fusion says) search.
type SearchMode string

// Search modes.
const (
	Dense  SearchMode = "dense"
	Hybrid SearchMode = "hybrid"
)

// DefaultRRFK is the k of reciprocal rank fusion, 1/(k+rank).
const DefaultRRFK = 60

// SearchRequest is one search.
type SearchRequest struct {
	Mode SearchMode
	// Vector is the unit-normalised query embedding.
	Vector []float32
	// Text is the query text for BM25 (hybrid only).
	Text   string
	Filter Filter
	// K is the number of candidates from each retriever (candidateK).
	K int
	// RRFK is the RRF constant. 0 means DefaultRRFK.
	RRFK int
	// Fusion is how hybrid search fuses the two lists, as Fuse does. "" is
	// FusionRRF.
	Fusion Fusion
}

// Hit is one search result. Chunk.Vector is not filled.
type Hit struct {
	Chunk
	// DenseDistance is the true dense distance √(2 − 2·cos) between the
	// query vector and the chunk vector, in both modes.
	DenseDistance float64
	// Score ranks the hits: cosine similarity in dense mode, the fused
	// score (Fuse) in hybrid mode.
	Score float64
}

// Embedder turns texts into unit-normalised vectors of a fixed dimension.
type Embedder interface {
	// Name identifies the model in fixtures and cache keys ("local-hash-v1",
	// "openai:text-embedding-3-small").
	Name() string
	// Dim is the vector dimension.
	Dim() int
	// Embed returns one vector per text, in order, embedding them as kind
	// says. Retrieval models such as e5 embed a query and a passage
	// differently. The lookup embeds queries as Query, and ingestion embeds
	// chunks as Passage. An embedder that makes no difference ignores kind.
	// A vector of another dimension is an error, never silently accepted.
	Embed(ctx context.Context, kind InputType, texts []string) ([][]float32, error)
}

// InputType says what an embedder is embedding.
type InputType string

// Input types.
const (
	Query   InputType = "query"
	Passage InputType = "passage"
)

// EmbedCache stores embeddings by key (see embed.CacheKey).
type EmbedCache interface {
	// Get returns the cached vectors of the keys it has.
	Get(ctx context.Context, keys []string) (map[string][]float32, error)
	// Put stores vectors. Storing a key twice keeps one entry.
	Put(ctx context.Context, entries map[string][]float32) error
	Close() error
}

// Document statuses in the catalog. A document is marked Indexing before
// its vectors are written and Ready (with its content hash) after, so a
// crash leaves it Indexing and the next seed re-indexes it.
const (
	StatusIndexing = "indexing"
	StatusReady    = "ready"
)

// DocumentState is a document's row in the catalog.
type DocumentState struct {
	DocID       string
	Source      string
	KBScope     string
	Title       string
	Breadcrumb  string
	Category    string
	ContentHash string // set when Ready
	Status      string
	ChunkCount  int
}

// L0 term kinds.
const (
	TermKeyword = "keyword"
	TermAlias   = "alias"
	TermTitle   = "title"
)

// L0Term is one entry of the L0 index: a keyword, alias or title of a
// document, pointing at its category and source.
type L0Term struct {
	Term     string // as written in the frontmatter
	Kind     string // TermKeyword, TermAlias or TermTitle
	DocID    string
	Source   string
	Category string
}

// Catalog is the metadata store: documents, their chunks' metadata and the
// L0 index (SQLite embedded, MySQL/MariaDB on the server stack). Every
// method uses query parameters only.
type Catalog interface {
	// Init creates the schema if it does not exist. Idempotent.
	Init(ctx context.Context) error
	// Documents lists the documents of a kbScope, ordered by docId.
	Documents(ctx context.Context, kbScope string) ([]DocumentState, error)
	// BeginIndexing records doc with status Indexing (no content hash),
	// replacing its L0 terms and its chunk rows, in one transaction.
	BeginIndexing(ctx context.Context, doc Document, chunks []Chunk) error
	// MarkReady sets a document Ready with its content hash. It fails if
	// the document is not Indexing.
	MarkReady(ctx context.Context, kbScope, docID, contentHash string) error
	// DeleteDocument removes a document, its L0 terms and its chunk rows.
	// Deleting a missing document is not an error.
	DeleteDocument(ctx context.Context, kbScope, docID string) error
	// L0Terms returns the L0 terms of the Ready documents of a kbScope,
	// ordered by term, then docId.
	L0Terms(ctx context.Context, kbScope string) ([]L0Term, error)
	// ChunkCount counts the chunk rows of a kbScope.
	ChunkCount(ctx context.Context, kbScope string) (int, error)
	// Verify checks, creating nothing, that the schema exists and is the
	// one this build reads. A catalog that was never initialised is an
	// error wrapping ErrNotSeeded.
	Verify(ctx context.Context) error
	// SetIndexInfo records which embedder and dimension made the vectors of
	// a kbScope, and the format of its evidence keys. A nil info forgets
	// the record.
	SetIndexInfo(ctx context.Context, kbScope string, info *IndexInfo) error
	// IndexInfo returns the record of a kbScope. ok is false without one.
	IndexInfo(ctx context.Context, kbScope string) (info IndexInfo, ok bool, err error)
	// BeginSeed records that a seed of a kbScope is in progress, replacing
	// such a record. A seed calls it before its first write.
	BeginSeed(ctx context.Context, kbScope string, run SeedRun) error
	// CompleteSeed records info for a kbScope and forgets its seed in
	// progress, in one transaction. A seed calls it after its last write.
	CompleteSeed(ctx context.Context, kbScope string, info IndexInfo) error
	// SeedInProgress returns the seed in progress of a kbScope. ok is false
	// without one. A catalog of a build that recorded none has none.
	SeedInProgress(ctx context.Context, kbScope string) (run SeedRun, ok bool, err error)
	Close() error
}

// IndexInfo is what made the vectors of a kbScope: the embedder's name, as
// Embedder.Name gives it, and dimension, and the rule its evidence keys
// follow. That rule is KeyFormat, EvidenceKeyFormat when this build seeded
// the kbScope. rag-seed records it after a complete run. Reading commands
// refuse a store whose record disagrees with their embedder, since vectors
// of two models are not comparable even when their dimensions match. They
// also refuse one whose keys follow another rule, since fixtures would
// carry keys golden cases cannot pin.
//
// ChunkSize, ChunkOverlap, Documents and CorpusSHA256 record how the
// kbScope was seeded, for people and for the fixtures' manifest. A diff of
// two snapshots can then say "chunk size 800 → 120". Nothing refuses a
// store over them. ChunkSize and ChunkOverlap are the sizes the chunker
// used, in Unicode characters. An overlap of 0 is none. Documents counts
// the kbScope's documents, and CorpusSHA256 is their CorpusFingerprint. A
// record written before they were recorded has ChunkSize 0 and no
// fingerprint.
type IndexInfo struct {
	Embedder  string
	Dim       int
	KeyFormat int

	ChunkSize    int
	ChunkOverlap int
	Documents    int
	CorpusSHA256 string
}

// SeedRun is a seed of a kbScope that began and has not completed: one
// still running, or one that died. It names what the seed was writing:
// Documents documents of corpus fingerprint CorpusSHA256 (see IndexInfo).
// Reading commands refuse a kbScope with one, since its documents may be
// ready while only some of the edited ones are re-indexed. It records no
// time: nothing the catalog holds depends on when it was written, so two
// seeds of the same corpus leave the same bytes.
type SeedRun struct {
	Documents    int
	CorpusSHA256 string
}

// SameVectors reports whether two records describe vectors of the same
// embedder and dimension keyed by the same evidence-key format: what a
// reading command and a seed's consistency rules compare. The chunking and
// corpus fields are not compared.
func (i IndexInfo) SameVectors(o IndexInfo) bool {
	return i.Embedder == o.Embedder && i.Dim == o.Dim && i.KeyFormat == o.KeyFormat
}

// CorpusFingerprint is the fingerprint of a kbScope's documents. It is the
// hex SHA-256 of, per document in bytewise docId order, its docId, a NUL
// byte, its hash and a newline. The hash identifies the document's content.
// rag-seed uses the hex SHA-256 of its file. The same documents give the
// same fingerprint in any order. A changed, added, removed or renamed
// document changes it.
func CorpusFingerprint(docs map[string]string) string {
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	h := sha256.New()
	for _, id := range ids {
		fmt.Fprintf(h, "%s\x00%s\n", id, docs[id])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ErrNotSeeded is wrapped by the errors of reading a store, catalog or
// index that does not exist: the way out is rag-seed.
var ErrNotSeeded = errors.New("not seeded")

// Index is the chunk vector and BM25 index (the embedded index, or Milvus).
type Index interface {
	// Ensure creates the collection for vectors of dim if it does not
	// exist. An existing collection of another dimension is a
	// *DimensionMismatchError.
	Ensure(ctx context.Context, dim int) error
	// Recreate drops the collection and creates it for dim.
	Recreate(ctx context.Context, dim int) error
	// Upsert writes chunks, replacing chunks with the same EvidenceKey in
	// the same kbScope. Every chunk must carry a vector of the index's dim.
	Upsert(ctx context.Context, chunks []Chunk) error
	// DeleteDocument removes every chunk of a document. Idempotent.
	DeleteDocument(ctx context.Context, kbScope, docID string) error
	// Count counts the chunks matching f.
	Count(ctx context.Context, f Filter) (int, error)
	// Search returns up to K hits (hybrid: the fusion of up to K dense and
	// K BM25 candidates), best first, each with its true DenseDistance.
	Search(ctx context.Context, req SearchRequest) ([]Hit, error)
	Close() error
}

// DimensionMismatchError reports a collection created for another
// embedding dimension.
type DimensionMismatchError struct {
	Collection string
	Have, Want int
}

func (e *DimensionMismatchError) Error() string {
	return fmt.Sprintf("collection %s has dimension %d, the embedder gives %d; rerun rag-seed with --recreate to rebuild it",
		e.Collection, e.Have, e.Want)
}

// ErrNotIndexing is returned by Catalog.MarkReady for a document that is
// not being indexed.
var ErrNotIndexing = errors.New("document is not being indexed")
