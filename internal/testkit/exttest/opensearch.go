package exttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// OpenSearch loads and searches one index of an OpenSearch server (with
// the k-NN plugin) through its REST API.
type OpenSearch struct {
	URL   string // e.g. http://127.0.0.1:9201
	Index string // DefaultOpenSearchIndex when empty
}

func (o *OpenSearch) index() string {
	if o.Index == "" {
		return DefaultOpenSearchIndex
	}
	return o.Index
}

func (o *OpenSearch) base() string { return o.URL + "/" + url.PathEscape(o.index()) }

// Delete removes the index (nothing when it does not exist).
func (o *OpenSearch) Delete(ctx context.Context) error {
	_, err := do(ctx, http.MethodDelete, o.base(), "", nil, nil, http.StatusNotFound)
	return err
}

// Load replaces the index with one document per chunk: it deletes the
// index, creates it (one shard, no replica, embedding a knn_vector of the
// chunks' dimension on the lucene engine with cosinesimil) and bulk-writes
// the chunks with refresh=true, failing on any item the server rejects.
func (o *OpenSearch) Load(ctx context.Context, chunks []kb.Chunk) error {
	if len(chunks) == 0 {
		return fmt.Errorf("opensearch: no chunks to load")
	}
	if err := o.Delete(ctx); err != nil {
		return err
	}
	props := map[string]any{
		"text": map[string]any{"type": "text"},
		"embedding": map[string]any{
			"type":      "knn_vector",
			"dimension": len(chunks[0].Vector),
			"method":    map[string]any{"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"},
		},
	}
	for _, p := range keywordProps {
		props[p] = map[string]any{"type": "keyword"}
	}
	body := map[string]any{
		"settings": map[string]any{"index": map[string]any{"knn": true, "number_of_shards": 1, "number_of_replicas": 0}},
		"mappings": map[string]any{"dynamic": "strict", "properties": props},
	}
	if _, err := do(ctx, http.MethodPut, o.base(), "", body, nil); err != nil {
		return fmt.Errorf("opensearch: create index %s: %w", o.index(), err)
	}
	return batches(chunks, loadBatch, func(b []kb.Chunk) error {
		var nd bytes.Buffer
		enc := json.NewEncoder(&nd)
		for i := range b {
			doc := Properties(&b[i])
			doc["embedding"] = b[i].Vector
			if err := enc.Encode(map[string]any{"index": map[string]any{"_index": o.index(), "_id": ObjectID(b[i].KBScope, b[i].EvidenceKey)}}); err != nil {
				return err
			}
			if err := enc.Encode(doc); err != nil {
				return err
			}
		}
		var res struct {
			Errors bool `json:"errors"`
			Items  []map[string]struct {
				ID     string          `json:"_id"`
				Status int             `json:"status"`
				Error  json.RawMessage `json:"error"`
			} `json:"items"`
		}
		if _, err := do(ctx, http.MethodPost, o.URL+"/_bulk?refresh=true", "application/x-ndjson", nd.Bytes(), &res); err != nil {
			return fmt.Errorf("opensearch: bulk: %w", err)
		}
		if len(res.Items) != len(b) {
			return fmt.Errorf("opensearch: bulk of %d documents answered %d items", len(b), len(res.Items))
		}
		for _, it := range res.Items {
			for _, r := range it {
				if r.Status/100 != 2 || len(r.Error) > 0 {
					return fmt.Errorf("opensearch: document %s rejected (HTTP %d): %s", r.ID, r.Status, r.Error)
				}
			}
		}
		if res.Errors {
			return fmt.Errorf("opensearch: bulk answered errors=true")
		}
		return nil
	})
}

// Count returns the number of documents in the index.
func (o *OpenSearch) Count(ctx context.Context) (int, error) {
	var res struct {
		Count int `json:"count"`
	}
	if _, err := do(ctx, http.MethodGet, o.base()+"/_count", "", nil, &res); err != nil {
		return 0, fmt.Errorf("opensearch: count: %w", err)
	}
	return res.Count, nil
}

// Search runs a query DSL body (size is set to limit) and returns the
// hits, best first.
func (o *OpenSearch) Search(ctx context.Context, query map[string]any, limit int) ([]Hit, error) {
	body := map[string]any{"size": limit, "query": query, "_source": []string{"source", "docId"}}
	var res struct {
		Hits struct {
			Hits []struct {
				ID     string  `json:"_id"`
				Score  float64 `json:"_score"`
				Source struct {
					Source string `json:"source"`
					DocID  string `json:"docId"`
				} `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if _, err := do(ctx, http.MethodPost, o.base()+"/_search", "", body, &res); err != nil {
		return nil, fmt.Errorf("opensearch: search: %w", err)
	}
	hits := make([]Hit, len(res.Hits.Hits))
	for i, h := range res.Hits.Hits {
		hits[i] = Hit{ID: h.ID, Source: h.Source.Source, DocID: h.Source.DocID, Score: h.Score}
	}
	return hits, nil
}

// Match is a BM25 match query on text.
func (o *OpenSearch) Match(ctx context.Context, query string, limit int) ([]Hit, error) {
	return o.Search(ctx, map[string]any{"match": map[string]any{"text": query}}, limit)
}

// KNN is a k-NN query on embedding. Score is the lucene engine's cosine
// score, (1 + cosine) / 2. k is at least knnCandidates, because the lucene
// engine searches its HNSW graph for k neighbours. With k = 5 it misses
// true neighbours of this corpus, at ranks 3 to 5 of a golden query as
// measured. size keeps the answer to limit.
func (o *OpenSearch) KNN(ctx context.Context, vec []float32, limit int) ([]Hit, error) {
	k := max(limit, knnCandidates)
	return o.Search(ctx, map[string]any{"knn": map[string]any{"embedding": map[string]any{"vector": vec, "k": k}}}, limit)
}

// knnCandidates is the smallest k of a KNN query.
const knnCandidates = 100
