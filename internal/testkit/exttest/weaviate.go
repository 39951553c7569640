package exttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Weaviate loads and searches one class of a Weaviate server through its
// REST and GraphQL API.
type Weaviate struct {
	URL   string // e.g. http://127.0.0.1:8090
	Class string // DefaultWeaviateClass when empty
}

func (w *Weaviate) class() string {
	if w.Class == "" {
		return DefaultWeaviateClass
	}
	return w.Class
}

// Delete removes the class and its objects (nothing when it does not exist).
func (w *Weaviate) Delete(ctx context.Context) error {
	_, err := do(ctx, http.MethodDelete, w.URL+"/v1/schema/"+url.PathEscape(w.class()), "", nil, nil, http.StatusNotFound)
	return err
}

// Load replaces the class with one object per chunk: it deletes the class,
// creates it (vectorizer none, cosine, BM25 on text) and writes the chunks
// in batches, failing on any object the server rejects.
func (w *Weaviate) Load(ctx context.Context, chunks []kb.Chunk) error {
	if err := w.Delete(ctx); err != nil {
		return err
	}
	props := []map[string]any{}
	for _, p := range keywordProps {
		props = append(props, map[string]any{
			"name": p, "dataType": []string{"text"}, "tokenization": "field",
			"indexFilterable": true, "indexSearchable": false,
		})
	}
	props = append(props, map[string]any{
		"name": "text", "dataType": []string{"text"}, "tokenization": "word",
		"indexFilterable": false, "indexSearchable": true,
	})
	schema := map[string]any{
		"class":             w.class(),
		"description":       "ragbaseline chunks (internal/testkit/exttest)",
		"vectorizer":        "none",
		"vectorIndexType":   "hnsw",
		"vectorIndexConfig": map[string]any{"distance": "cosine", "skipDefaultQuantization": true}, // full vectors, exact distances
		"invertedIndexConfig": map[string]any{
			"bm25": map[string]any{"k1": 1.2, "b": 0.75},
		},
		"properties": props,
	}
	if _, err := do(ctx, http.MethodPost, w.URL+"/v1/schema", "", schema, nil); err != nil {
		return fmt.Errorf("weaviate: create class %s: %w", w.class(), err)
	}
	return batches(chunks, loadBatch, func(b []kb.Chunk) error {
		objs := make([]map[string]any, len(b))
		for i := range b {
			objs[i] = map[string]any{
				"class":      w.class(),
				"id":         ObjectID(b[i].KBScope, b[i].EvidenceKey),
				"properties": Properties(&b[i]),
				"vector":     b[i].Vector,
			}
		}
		var res []struct {
			ID     string `json:"id"`
			Result struct {
				Errors *struct {
					Error []struct {
						Message string `json:"message"`
					} `json:"error"`
				} `json:"errors"`
			} `json:"result"`
		}
		if _, err := do(ctx, http.MethodPost, w.URL+"/v1/batch/objects", "", map[string]any{"objects": objs}, &res); err != nil {
			return fmt.Errorf("weaviate: batch: %w", err)
		}
		if len(res) != len(b) {
			return fmt.Errorf("weaviate: batch of %d objects answered %d results", len(b), len(res))
		}
		for _, r := range res {
			if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return fmt.Errorf("weaviate: object %s rejected: %s", r.ID, r.Result.Errors.Error[0].Message)
			}
		}
		return nil
	})
}

// graphQL runs query and decodes its data into out. Errors answered with
// HTTP 200 are errors, because that is how Weaviate reports them.
func (w *Weaviate) graphQL(ctx context.Context, query string, out any) error {
	var res struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if _, err := do(ctx, http.MethodPost, w.URL+"/v1/graphql", "", map[string]string{"query": query}, &res); err != nil {
		return fmt.Errorf("weaviate: graphql: %w", err)
	}
	if len(res.Errors) > 0 {
		msgs := make([]string, len(res.Errors))
		for i, e := range res.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("weaviate: graphql: %s", strings.Join(msgs, "; "))
	}
	return json.Unmarshal(res.Data, out)
}

// Count returns the number of objects in the class.
func (w *Weaviate) Count(ctx context.Context) (int, error) {
	var data map[string]map[string][]struct {
		Meta struct {
			Count int `json:"count"`
		} `json:"meta"`
	}
	if err := w.graphQL(ctx, "{ Aggregate { "+w.class()+" { meta { count } } } }", &data); err != nil {
		return 0, err
	}
	rows := data["Aggregate"][w.class()]
	if len(rows) != 1 {
		return 0, fmt.Errorf("weaviate: aggregate of %s answered %d rows", w.class(), len(rows))
	}
	return rows[0].Meta.Count, nil
}

// gqlString is s as a GraphQL string literal (JSON's escapes are
// GraphQL's).
func gqlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func gqlVector(v []float32) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	sb.WriteByte(']')
	return sb.String()
}

// search runs Get with the search argument arg and returns the hits. score
// names the _additional field holding the score, score or distance.
func (w *Weaviate) search(ctx context.Context, arg string, limit int, score string) ([]Hit, error) {
	q := fmt.Sprintf("{ Get { %s(%s, limit: %d) { source docId _additional { id %s } } } }", w.class(), arg, limit, score)
	var data map[string]map[string][]struct {
		Source     string `json:"source"`
		DocID      string `json:"docId"`
		Additional struct {
			ID       string          `json:"id"`
			Score    json.RawMessage `json:"score"`
			Distance json.RawMessage `json:"distance"`
		} `json:"_additional"`
	}
	if err := w.graphQL(ctx, q, &data); err != nil {
		return nil, err
	}
	var hits []Hit
	for _, r := range data["Get"][w.class()] {
		raw := r.Additional.Score
		if score == "distance" {
			raw = r.Additional.Distance
		}
		// Scores come back as strings ("0.5"), distances as numbers.
		f, err := strconv.ParseFloat(strings.Trim(string(raw), `"`), 64)
		if err != nil {
			return nil, fmt.Errorf("weaviate: %s %s of %s: %w", score, raw, r.Additional.ID, err)
		}
		hits = append(hits, Hit{ID: r.Additional.ID, Source: r.Source, DocID: r.DocID, Score: f})
	}
	return hits, nil
}

// BM25 searches text for query, best first.
func (w *Weaviate) BM25(ctx context.Context, query string, limit int) ([]Hit, error) {
	return w.search(ctx, "bm25: {query: "+gqlString(query)+", properties: [\"text\"]}", limit, "score")
}

// NearVector searches by vector, nearest first (Score is the cosine
// distance).
func (w *Weaviate) NearVector(ctx context.Context, vec []float32, limit int) ([]Hit, error) {
	return w.search(ctx, "nearVector: {vector: "+gqlVector(vec)+"}", limit, "distance")
}

// Hybrid is Weaviate's hybrid search, BM25 on text fused with the vector
// search. alpha 1 is vector only.
func (w *Weaviate) Hybrid(ctx context.Context, query string, vec []float32, alpha float64, limit int) ([]Hit, error) {
	arg := fmt.Sprintf("hybrid: {query: %s, vector: %s, alpha: %s, properties: [\"text\"]}",
		gqlString(query), gqlVector(vec), strconv.FormatFloat(alpha, 'g', -1, 64))
	return w.search(ctx, arg, limit, "score")
}
