// Package milvus implements kb.Index over a Milvus collection, through the
// Milvus Go client github.com/milvus-io/milvus/client/v2.
//
// One collection holds the chunks of every kbScope. Its schema:
//
//	id            VarChar primary key: the hex SHA-256 of
//	              "<len(kbScope)>:<kbScope>:<evidenceKey>". An evidence key
//	              is unique only inside a kbScope, and holds heading text.
//	evidence_key, doc_id, source, kb_scope, category, breadcrumb, title
//	              VarChar scalars. chunk_index Int64.
//	text          VarChar with enable_match and an analyzer: the jieba
//	              tokenizer with the lowercase and cnalphanumonly filters.
//	dense         FloatVector(dim), AUTOINDEX, metric COSINE
//	sparse        SparseFloatVector, output of a BM25 function over text,
//	              SPARSE_INVERTED_INDEX, metric BM25
//
// Filters are structured kb.Filter values rendered by filterExpr. It quotes
// every string with quote, the only place a value enters an expression.
// Every call runs under Config.Timeout. Every error names the server
// address and the collection. So a server that is down or slow is a clear
// error, never a hang. A failed call is an *Error, so no caller needs to
// know gRPC. Its Transient says whether retrying may help, for the gRPC
// codes Unavailable, DeadlineExceeded, ResourceExhausted and Aborted. Its
// DeadlineExceeded says whether Milvus ran out of time.
//
// Search: dense mode is one COSINE search. Hybrid mode is a COSINE search
// and a BM25 search on the sparse field, fused in Go by kb.Fuse. That is
// the function the embedded index fuses with. Milvus' RRF ranker is not
// used, because it knows only plain RRF. In both modes the dense vectors of
// the hits are returned as output fields. The true cosine,
// DenseDistance = √(2 − 2·cos), is computed from them locally in float64,
// so it is exact for BM25-only candidates too. Hits are ordered by score,
// then by kb.CompareTies, as the embedded index orders them. So equal
// scores come out in a deterministic order, where Milvus orders ties
// arbitrarily.
//
// The collection is created with Strong consistency and every read asks for
// it. So a search sees the writes that returned before it, with no Flush
// needed.
//
// Some choices work on both Milvus Lite 2.5, the local test server, and a
// Milvus server. The dense field has AUTOINDEX, because Lite refuses HNSW.
// Index names equal field names. metric_type is passed in every search.
// Filters are literal expressions, because Lite fails on expression
// templates. Query text is made valid UTF-8, because invalid UTF-8 crashes
// Lite's BM25 analyzer. Upsert into a collection with a BM25 function
// failed on early 2.5 builds, milvus-io/milvus#37021. Milvus Lite 2.5.1
// accepts it. A Milvus server answers dense and hybrid searches from an
// approximate index once segments are sealed. The embedded index is exact.
package milvus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/milvus-io/milvus/client/v2/entity"
	"github.com/milvus-io/milvus/client/v2/index"
	"github.com/milvus-io/milvus/client/v2/milvusclient"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// DefaultCollection is the collection used when Config.Collection is empty
// (RAG_MILVUS_COLLECTION).
const DefaultCollection = "rag_eval"

// Defaults of Config.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultBatchSize      = 256
)

// Field names of the collection schema.
const (
	fieldID          = "id"
	fieldEvidenceKey = "evidence_key"
	fieldDocID       = "doc_id"
	fieldSource      = "source"
	fieldKBScope     = "kb_scope"
	fieldCategory    = "category"
	fieldBreadcrumb  = "breadcrumb"
	fieldTitle       = "title"
	fieldChunkIndex  = "chunk_index"
	fieldText        = "text"
	fieldDense       = "dense"
	fieldSparse      = "sparse"
	bm25Function     = "text_bm25"
)

// Maximum lengths in bytes of the VarChar fields. Upsert checks them before
// sending anything, so an oversized value is a clear error naming the chunk.
var maxLen = map[string]int{
	fieldID:          1400,
	fieldEvidenceKey: 1024,
	fieldDocID:       1024,
	fieldSource:      512,
	fieldKBScope:     256,
	fieldCategory:    256,
	fieldBreadcrumb:  4096,
	fieldTitle:       1024,
	fieldText:        65535,
}

// FieldMaxLen returns the maximum length in bytes of the collection's
// VarChar field name, such as "category" or "breadcrumb". It returns 0 for
// another name. Package config's tests check the corpus limits against it.
func FieldMaxLen(name string) int { return maxLen[name] }

// outputFields are the fields a search returns.
var outputFields = []string{
	fieldEvidenceKey, fieldDocID, fieldSource, fieldKBScope, fieldCategory,
	fieldBreadcrumb, fieldTitle, fieldChunkIndex, fieldText, fieldDense,
}

// analyzerParams is the BM25 analyzer of the text field: jieba segments
// Chinese, lowercase folds ASCII case, cnalphanumonly drops punctuation.
func analyzerParams() map[string]any {
	return map[string]any{"tokenizer": "jieba", "filter": []any{"lowercase", "cnalphanumonly"}}
}

// maxTopK is the largest limit Milvus accepts for a search.
const maxTopK = 16384

var collectionName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,254}$`)

// Config locates the Milvus server and the collection.
type Config struct {
	// Addr is the host:port of the Milvus gRPC endpoint (RAG_MILVUS_ADDR).
	Addr string
	// Collection is the collection name, DefaultCollection when empty.
	Collection string
	// Timeout bounds every call to Milvus: each batch of an upsert, each
	// search. It is DefaultTimeout when zero.
	Timeout time.Duration
	// ConnectTimeout bounds the connection made by Open. It is
	// DefaultConnectTimeout when zero.
	ConnectTimeout time.Duration
	// BatchSize is the number of chunks sent per upsert call. It is
	// DefaultBatchSize when zero.
	BatchSize int
}

// Index is a kb.Index over one Milvus collection. It is safe for concurrent
// use. Its writes, Ensure, Recreate, Upsert and DeleteDocument, are
// serialised.
type Index struct {
	cfg Config
	cli *milvusclient.Client

	mu     sync.Mutex // serialises writes and guards dim
	dim    int        // dimension of the collection, 0 until known
	closed atomic.Bool
}

var _ kb.Index = (*Index)(nil)

// Open connects to the Milvus server at cfg.Addr. It does not touch the
// collection: call Ensure (or Recreate) before writing. A server that does
// not answer within cfg.ConnectTimeout is an error naming the address.
func Open(ctx context.Context, cfg Config) (*Index, error) {
	if cfg.Addr == "" {
		return nil, errors.New("milvus: no address (set RAG_MILVUS_ADDR)")
	}
	routeClientLog()
	if cfg.Collection == "" {
		cfg.Collection = DefaultCollection
	}
	if !collectionName.MatchString(cfg.Collection) {
		return nil, fmt.Errorf("milvus: invalid collection name %q (letters, digits and _, not starting with a digit)", cfg.Collection)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	// A plain TCP dial first: for a closed port it says "connection
	// refused" where the blocking gRPC dial would only time out.
	if !strings.Contains(cfg.Addr, "://") {
		var d net.Dialer
		c, err := d.DialContext(cctx, "tcp", cfg.Addr)
		if err != nil {
			return nil, fmt.Errorf("milvus at %s: connect: %w", redactAddr(cfg.Addr), err)
		}
		c.Close()
	}
	// New dials with grpc.WithBlock: without a deadline it would wait
	// forever for a server that is down.
	cli, err := milvusclient.New(cctx, &milvusclient.ClientConfig{Address: cfg.Addr})
	if err != nil {
		if cctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %s: %w", cfg.ConnectTimeout, err)
		}
		return nil, fmt.Errorf("milvus at %s: connect: %w", redactAddr(cfg.Addr), err)
	}
	return &Index{cfg: cfg, cli: cli}, nil
}

// redactAddr hides the password of an address given as a URL
// (http://user:pass@host:19530), for messages.
func redactAddr(addr string) string {
	if !strings.Contains(addr, "://") {
		return addr
	}
	u, err := url.Parse(addr)
	if err != nil {
		return "<unparsable address>"
	}
	return u.Redacted()
}

// Collection returns the name of the collection.
func (ix *Index) Collection() string { return ix.cfg.Collection }

// Close closes the connection. The collection is kept.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed.Swap(true) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ix.cfg.Timeout)
	defer cancel()
	if err := ix.cli.Close(ctx); err != nil {
		return ix.wrap("close", err)
	}
	return nil
}

// call runs fn under the per-call timeout.
func (ix *Index) call(ctx context.Context, op string, fn func(ctx context.Context) error) error {
	if ix.closed.Load() {
		return ix.wrap(op, errClosed)
	}
	cctx, cancel := context.WithTimeout(ctx, ix.cfg.Timeout)
	defer cancel()
	err := fn(cctx)
	if err == nil {
		return nil
	}
	if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		err = fmt.Errorf("no answer within %s: %w", ix.cfg.Timeout, err)
	}
	return ix.wrap(op, err)
}

// wrap makes err, of the call op, an *Error.
func (ix *Index) wrap(op string, err error) error {
	return &Error{Addr: redactAddr(ix.cfg.Addr), Collection: ix.cfg.Collection, Op: op, Err: err}
}

var errClosed = errors.New("index is closed")

// Ensure creates the collection for vectors of dim, with its indexes, and
// loads it, unless it exists. An existing collection of another dimension
// is a *kb.DimensionMismatchError. One with another schema is an error that
// also names --recreate.
func (ix *Index) Ensure(ctx context.Context, dim int) error {
	if dim <= 0 {
		return fmt.Errorf("milvus: ensure collection %s: invalid dimension %d", ix.cfg.Collection, dim)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	has, err := ix.has(ctx)
	if err != nil {
		return err
	}
	if !has {
		if err := ix.create(ctx, dim); err != nil {
			return err
		}
		ix.dim = dim
		return nil
	}
	have, err := ix.describeDim(ctx)
	if err != nil {
		return err
	}
	if have != dim {
		return &kb.DimensionMismatchError{Collection: ix.cfg.Collection, Have: have, Want: dim}
	}
	if err := ix.ensureIndexes(ctx); err != nil {
		return err
	}
	if err := ix.load(ctx); err != nil {
		return err
	}
	ix.dim = dim
	return nil
}

// Recreate drops the collection (if it exists) and creates it for dim.
func (ix *Index) Recreate(ctx context.Context, dim int) error {
	if dim <= 0 {
		return fmt.Errorf("milvus: recreate collection %s: invalid dimension %d", ix.cfg.Collection, dim)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.drop(ctx); err != nil {
		return err
	}
	ix.dim = 0
	if err := ix.create(ctx, dim); err != nil {
		return err
	}
	ix.dim = dim
	return nil
}

// Drop removes the collection if it exists. Tests and tooling use it, and
// Recreate drops and creates.
func (ix *Index) Drop(ctx context.Context) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.dim = 0
	return ix.drop(ctx)
}

func (ix *Index) drop(ctx context.Context) error {
	has, err := ix.has(ctx)
	if err != nil || !has {
		return err
	}
	return ix.call(ctx, "drop collection", func(ctx context.Context) error {
		return ix.cli.DropCollection(ctx, milvusclient.NewDropCollectionOption(ix.cfg.Collection))
	})
}

func (ix *Index) has(ctx context.Context) (bool, error) {
	var has bool
	err := ix.call(ctx, "has collection", func(ctx context.Context) error {
		var err error
		has, err = ix.cli.HasCollection(ctx, milvusclient.NewHasCollectionOption(ix.cfg.Collection))
		return err
	})
	return has, err
}

// schema is the collection schema for vectors of dim.
func (ix *Index) schema(dim int) *entity.Schema {
	varchar := func(name string) *entity.Field {
		return entity.NewField().WithName(name).WithDataType(entity.FieldTypeVarChar).WithMaxLength(int64(maxLen[name]))
	}
	return entity.NewSchema().WithName(ix.cfg.Collection).
		WithDescription("ragbaseline chunks: dense vectors and BM25 over the chunk text").
		WithDynamicFieldEnabled(false).
		WithField(varchar(fieldID).WithIsPrimaryKey(true).WithIsAutoID(false)).
		WithField(varchar(fieldEvidenceKey)).
		WithField(varchar(fieldDocID)).
		WithField(varchar(fieldSource)).
		WithField(varchar(fieldKBScope)).
		WithField(varchar(fieldCategory)).
		WithField(varchar(fieldBreadcrumb)).
		WithField(varchar(fieldTitle)).
		WithField(entity.NewField().WithName(fieldChunkIndex).WithDataType(entity.FieldTypeInt64)).
		WithField(varchar(fieldText).WithEnableAnalyzer(true).WithEnableMatch(true).WithAnalyzerParams(analyzerParams())).
		WithField(entity.NewField().WithName(fieldDense).WithDataType(entity.FieldTypeFloatVector).WithDim(int64(dim))).
		WithField(entity.NewField().WithName(fieldSparse).WithDataType(entity.FieldTypeSparseVector)).
		WithFunction(entity.NewFunction().WithName(bm25Function).WithType(entity.FunctionTypeBM25).
			WithInputFields(fieldText).WithOutputFields(fieldSparse))
}

// create creates the collection, its two indexes, and loads it.
func (ix *Index) create(ctx context.Context, dim int) error {
	err := ix.call(ctx, "create collection", func(ctx context.Context) error {
		return ix.cli.CreateCollection(ctx, milvusclient.NewCreateCollectionOption(ix.cfg.Collection, ix.schema(dim)).
			WithConsistencyLevel(entity.ClStrong))
	})
	if err != nil {
		return err
	}
	if err := ix.ensureIndexes(ctx); err != nil {
		return err
	}
	return ix.load(ctx)
}

// indexes returns the index of each vector field. Index names equal field
// names (Milvus Lite waits forever on an index named otherwise). AUTOINDEX
// is the one dense index type both Milvus Lite and a Milvus server accept.
func indexes() map[string]index.Index {
	return map[string]index.Index{
		fieldDense:  index.NewAutoIndex(entity.COSINE),
		fieldSparse: index.NewSparseInvertedIndex(entity.BM25, 0.2),
	}
}

func (ix *Index) ensureIndexes(ctx context.Context) error {
	var names []string
	err := ix.call(ctx, "list indexes", func(ctx context.Context) error {
		var err error
		names, err = ix.cli.ListIndexes(ctx, milvusclient.NewListIndexOption(ix.cfg.Collection))
		return err
	})
	if err != nil {
		return err
	}
	for _, field := range []string{fieldDense, fieldSparse} {
		if slices.Contains(names, field) {
			continue
		}
		err := ix.call(ctx, "create index "+field, func(ctx context.Context) error {
			task, err := ix.cli.CreateIndex(ctx, milvusclient.NewCreateIndexOption(ix.cfg.Collection, field, indexes()[field]).
				WithIndexName(field))
			if err != nil {
				return err
			}
			return task.Await(ctx)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (ix *Index) load(ctx context.Context) error {
	return ix.call(ctx, "load collection", func(ctx context.Context) error {
		task, err := ix.cli.LoadCollection(ctx, milvusclient.NewLoadCollectionOption(ix.cfg.Collection))
		if err != nil {
			return err
		}
		return task.Await(ctx)
	})
}

// describeDim reads the dimension of the existing collection and checks
// that its schema is the one this package creates.
func (ix *Index) describeDim(ctx context.Context) (int, error) {
	var coll *entity.Collection
	err := ix.call(ctx, "describe collection", func(ctx context.Context) error {
		var err error
		coll, err = ix.cli.DescribeCollection(ctx, milvusclient.NewDescribeCollectionOption(ix.cfg.Collection))
		return err
	})
	if err != nil {
		return 0, err
	}
	return checkSchema(ix.cfg.Collection, coll.Schema)
}

// checkSchema returns the dense dimension of s, or an error naming
// --recreate when s is not the schema this package creates.
func checkSchema(name string, s *entity.Schema) (int, error) {
	want := map[string]entity.FieldType{
		fieldID: entity.FieldTypeVarChar, fieldEvidenceKey: entity.FieldTypeVarChar,
		fieldDocID: entity.FieldTypeVarChar, fieldSource: entity.FieldTypeVarChar,
		fieldKBScope: entity.FieldTypeVarChar, fieldCategory: entity.FieldTypeVarChar,
		fieldBreadcrumb: entity.FieldTypeVarChar, fieldTitle: entity.FieldTypeVarChar,
		fieldChunkIndex: entity.FieldTypeInt64, fieldText: entity.FieldTypeVarChar,
		fieldDense: entity.FieldTypeFloatVector, fieldSparse: entity.FieldTypeSparseVector,
	}
	bad := func(why string) error {
		return fmt.Errorf("collection %s was not created by this version of ragbaseline (%s); rerun rag-seed with --recreate to rebuild it", name, why)
	}
	if s == nil {
		return 0, bad("no schema")
	}
	dim := 0
	seen := map[string]bool{}
	for _, f := range s.Fields {
		t, ok := want[f.Name]
		if !ok {
			continue
		}
		if f.DataType != t {
			return 0, bad(fmt.Sprintf("field %s has type %v, want %v", f.Name, f.DataType, t))
		}
		if f.Name == fieldID && !f.PrimaryKey {
			return 0, bad("field id is not the primary key")
		}
		if f.Name == fieldDense {
			d, err := strconv.Atoi(f.TypeParams[entity.TypeParamDim])
			if err != nil || d <= 0 {
				return 0, bad(fmt.Sprintf("field dense has dimension %q", f.TypeParams[entity.TypeParamDim]))
			}
			dim = d
		}
		seen[f.Name] = true
	}
	for name := range want {
		if !seen[name] {
			return 0, bad("no field " + name)
		}
	}
	return dim, nil
}

// ExistingDim returns the dimension of the existing collection, loading it
// for search if needed, and never creates it: a missing collection is an
// error wrapping kb.ErrNotSeeded. Reading commands call it instead of
// Ensure.
func (ix *Index) ExistingDim(ctx context.Context) (int, error) { return ix.currentDim(ctx) }

// currentDim returns the collection's dimension, asking Milvus when this
// Index has not ensured it. A missing collection is an error that says how
// to create it.
func (ix *Index) currentDim(ctx context.Context) (int, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.dim > 0 {
		return ix.dim, nil
	}
	has, err := ix.has(ctx)
	if err != nil {
		return 0, err
	}
	if !has {
		return 0, fmt.Errorf("milvus at %s: collection %s does not exist: %w (run rag-seed first, or check --milvus-collection / RAG_MILVUS_COLLECTION)",
			redactAddr(ix.cfg.Addr), ix.cfg.Collection, kb.ErrNotSeeded)
	}
	d, err := ix.describeDim(ctx)
	if err != nil {
		return 0, err
	}
	// A collection is not searchable until loaded, after a server restart
	// for one. Loading a loaded collection is a no-op.
	if err := ix.load(ctx); err != nil {
		return 0, err
	}
	ix.dim = d
	return d, nil
}
