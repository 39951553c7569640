package exttest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Chroma loads and searches one collection of a Chroma server through its
// v2 API. Collections are created and deleted by name and otherwise
// addressed by the UUID the server gives them (ID, set by Load or Open).
type Chroma struct {
	URL        string // e.g. http://127.0.0.1:8091
	Tenant     string // DefaultChromaTenant when empty
	Database   string // DefaultChromaDatabase when empty
	Collection string // DefaultChromaCollection when empty
	// ID is the collection's UUID.
	ID string
}

func (c *Chroma) collections() string {
	t, d := c.Tenant, c.Database
	if t == "" {
		t = DefaultChromaTenant
	}
	if d == "" {
		d = DefaultChromaDatabase
	}
	return c.URL + "/api/v2/tenants/" + url.PathEscape(t) + "/databases/" + url.PathEscape(d) + "/collections"
}

func (c *Chroma) name() string {
	if c.Collection == "" {
		return DefaultChromaCollection
	}
	return c.Collection
}

// Delete removes the collection (nothing when it does not exist).
func (c *Chroma) Delete(ctx context.Context) error {
	_, err := do(ctx, http.MethodDelete, c.collections()+"/"+url.PathEscape(c.name()), "", nil, nil, http.StatusNotFound)
	c.ID = ""
	return err
}

// Open looks the collection up by name and sets ID.
func (c *Chroma) Open(ctx context.Context) error {
	var res struct {
		ID string `json:"id"`
	}
	if _, err := do(ctx, http.MethodGet, c.collections()+"/"+url.PathEscape(c.name()), "", nil, &res); err != nil {
		return fmt.Errorf("chroma: collection %s: %w", c.name(), err)
	}
	if res.ID == "" {
		return fmt.Errorf("chroma: collection %s has no id", c.name())
	}
	c.ID = res.ID
	return nil
}

func (c *Chroma) coll() string { return c.collections() + "/" + url.PathEscape(c.ID) }

// Load replaces the collection with one record per chunk: it deletes the
// collection, creates it with the cosine space (and no embedding function:
// every record and query brings its embedding) and adds the chunks in
// batches.
func (c *Chroma) Load(ctx context.Context, chunks []kb.Chunk) error {
	if err := c.Delete(ctx); err != nil {
		return err
	}
	body := map[string]any{
		"name":          c.name(),
		"configuration": map[string]any{"hnsw": map[string]any{"space": "cosine"}},
		"metadata":      map[string]any{"hnsw:space": "cosine", "createdBy": "ragbaseline internal/testkit/exttest"},
	}
	var res struct {
		ID string `json:"id"`
	}
	if _, err := do(ctx, http.MethodPost, c.collections(), "", body, &res); err != nil {
		return fmt.Errorf("chroma: create collection %s: %w", c.name(), err)
	}
	if res.ID == "" {
		return fmt.Errorf("chroma: collection %s created without an id", c.name())
	}
	c.ID = res.ID
	return batches(chunks, loadBatch, func(b []kb.Chunk) error {
		ids := make([]string, len(b))
		embs := make([][]float32, len(b))
		docs := make([]string, len(b))
		metas := make([]map[string]any, len(b))
		for i := range b {
			ids[i] = ObjectID(b[i].KBScope, b[i].EvidenceKey)
			embs[i] = b[i].Vector
			docs[i] = b[i].Text
			m := Properties(&b[i])
			delete(m, "text") // the record's document
			metas[i] = m
		}
		add := map[string]any{"ids": ids, "embeddings": embs, "documents": docs, "metadatas": metas}
		if _, err := do(ctx, http.MethodPost, c.coll()+"/add", "", add, nil); err != nil {
			return fmt.Errorf("chroma: add: %w", err)
		}
		return nil
	})
}

// Count returns the number of records in the collection.
func (c *Chroma) Count(ctx context.Context) (int, error) {
	var n int
	if _, err := do(ctx, http.MethodGet, c.coll()+"/count", "", nil, &n); err != nil {
		return 0, fmt.Errorf("chroma: count: %w", err)
	}
	return n, nil
}

// Query is a nearest-neighbour query with the given embedding. When
// contains is set it is restricted to records whose document contains it,
// by Chroma's full-text where_document filter. Score is the cosine
// distance.
func (c *Chroma) Query(ctx context.Context, vec []float32, contains string, limit int) ([]Hit, error) {
	body := map[string]any{
		"query_embeddings": [][]float32{vec},
		"n_results":        limit,
		"include":          []string{"metadatas", "distances"},
	}
	if contains != "" {
		body["where_document"] = map[string]any{"$contains": contains}
	}
	// Parallel arrays, one row per query embedding.
	var res struct {
		IDs       [][]string         `json:"ids"`
		Distances [][]float64        `json:"distances"`
		Metadatas [][]map[string]any `json:"metadatas"`
	}
	if _, err := do(ctx, http.MethodPost, c.coll()+"/query", "", body, &res); err != nil {
		return nil, fmt.Errorf("chroma: query: %w", err)
	}
	if len(res.IDs) != 1 || len(res.Distances) != 1 || len(res.Metadatas) != 1 ||
		len(res.Distances[0]) != len(res.IDs[0]) || len(res.Metadatas[0]) != len(res.IDs[0]) {
		return nil, fmt.Errorf("chroma: query answered arrays of unequal shape")
	}
	hits := make([]Hit, len(res.IDs[0]))
	for i, id := range res.IDs[0] {
		src, _ := res.Metadatas[0][i]["source"].(string)
		doc, _ := res.Metadatas[0][i]["docId"].(string)
		hits[i] = Hit{ID: id, Source: src, DocID: doc, Score: res.Distances[0][i]}
	}
	return hits, nil
}

// Contains returns at most limit records whose document contains s, by the
// full-text where_document filter. They are unranked, in the server's
// order.
func (c *Chroma) Contains(ctx context.Context, s string, limit int) ([]Hit, error) {
	body := map[string]any{
		"where_document": map[string]any{"$contains": s},
		"limit":          limit,
		"include":        []string{"metadatas"},
	}
	var res struct {
		IDs       []string         `json:"ids"`
		Metadatas []map[string]any `json:"metadatas"`
	}
	if _, err := do(ctx, http.MethodPost, c.coll()+"/get", "", body, &res); err != nil {
		return nil, fmt.Errorf("chroma: get: %w", err)
	}
	if len(res.Metadatas) != len(res.IDs) {
		return nil, fmt.Errorf("chroma: get answered %d ids and %d metadatas", len(res.IDs), len(res.Metadatas))
	}
	hits := make([]Hit, len(res.IDs))
	for i, id := range res.IDs {
		src, _ := res.Metadatas[i]["source"].(string)
		doc, _ := res.Metadatas[i]["docId"].(string)
		hits[i] = Hit{ID: id, Source: src, DocID: doc}
	}
	return hits, nil
}
