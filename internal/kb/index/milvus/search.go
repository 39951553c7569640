package milvus

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/milvus-io/milvus/client/v2/column"
	"github.com/milvus-io/milvus/client/v2/entity"
	"github.com/milvus-io/milvus/client/v2/milvusclient"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Count counts the chunks matching f (a count(*) query).
func (ix *Index) Count(ctx context.Context, f kb.Filter) (int, error) {
	expr, err := filterExpr(f)
	if err != nil {
		return 0, fmt.Errorf("milvus: count: %w", err)
	}
	if _, err := ix.currentDim(ctx); err != nil {
		return 0, err
	}
	var n int64
	err = ix.call(ctx, "count", func(ctx context.Context) error {
		rs, err := ix.cli.Query(ctx, milvusclient.NewQueryOption(ix.cfg.Collection).WithFilter(expr).
			WithOutputFields("count(*)").WithConsistencyLevel(entity.ClStrong))
		if err != nil {
			return err
		}
		col := rs.GetColumn("count(*)")
		if col == nil || col.Len() == 0 {
			return errors.New("no count(*) in the answer")
		}
		n, err = col.GetAsInt64(0)
		return err
	})
	return int(n), err
}

// Search runs a dense search, or a hybrid search, under req.Filter. A
// hybrid search is a dense and a BM25 search fused in Go by kb.Fuse with
// req.Fusion and k = req.RRFK, exactly as the embedded index fuses. It
// returns up to req.K hits, best first. Each carries the true cosine
// distance computed from the stored vector.
func (ix *Index) Search(ctx context.Context, req kb.SearchRequest) ([]kb.Hit, error) {
	if req.Mode != kb.Dense && req.Mode != kb.Hybrid {
		return nil, fmt.Errorf("milvus: search: unknown search mode %q (want %q or %q)", req.Mode, kb.Dense, kb.Hybrid)
	}
	if req.K <= 0 || req.K > maxTopK {
		return nil, fmt.Errorf("milvus: search: k = %d, want 1..%d", req.K, maxTopK)
	}
	if req.RRFK < 0 {
		return nil, fmt.Errorf("milvus: search: negative RRF k %d", req.RRFK)
	}
	if err := req.Fusion.Valid(); err != nil {
		return nil, fmt.Errorf("milvus: search: %w", err)
	}
	for _, x := range req.Vector {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, errors.New("milvus: search: query vector has a non-finite value")
		}
	}
	expr, err := filterExpr(req.Filter)
	if err != nil {
		return nil, fmt.Errorf("milvus: search: %w", err)
	}
	dim, err := ix.currentDim(ctx)
	if err != nil {
		return nil, err
	}
	if len(req.Vector) != dim {
		return nil, fmt.Errorf("milvus: search %s: query vector has dimension %d, the collection %d", ix.cfg.Collection, len(req.Vector), dim)
	}
	dense, err := ix.search(ctx, "dense search", fieldDense, entity.FloatVector(req.Vector), entity.COSINE, expr, req)
	if err != nil || req.Mode == kb.Dense {
		return dense, err
	}
	// The BM25 analyzer of Milvus Lite crashes the server on invalid UTF-8.
	text := strings.ToValidUTF8(req.Text, " ")
	sparse, err := ix.search(ctx, "bm25 search", fieldSparse, entity.Text(text), entity.BM25, expr, req)
	if err != nil {
		return nil, err
	}
	return fuse(req, dense, sparse), nil
}

// search runs one search on field and returns its best req.K hits in the
// deterministic order of compareHits. Score is the cosine for the dense
// field and Milvus' BM25 score for the sparse one. It asks Milvus for up to
// 2K hits, so that ties at the K-th place are cut by that order, not by
// Milvus.
func (ix *Index) search(ctx context.Context, op, field string, v entity.Vector, metric entity.MetricType, expr string, req kb.SearchRequest) ([]kb.Hit, error) {
	limit := min(2*req.K, maxTopK)
	var rs []milvusclient.ResultSet
	err := ix.call(ctx, op, func(ctx context.Context) error {
		var err error
		rs, err = ix.cli.Search(ctx, milvusclient.NewSearchOption(ix.cfg.Collection, limit, []entity.Vector{v}).
			WithANNSField(field).WithFilter(expr).
			// Milvus Lite needs the metric type in every search.
			WithSearchParam("metric_type", string(metric)).
			WithOutputFields(outputFields...).WithConsistencyLevel(entity.ClStrong))
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, nil
	}
	hits, err := decodeHits(rs[0], req.Vector, field == fieldSparse)
	if err != nil {
		return nil, ix.wrap("read "+op+" result", err)
	}
	slices.SortFunc(hits, compareHits)
	if len(hits) > req.K {
		hits = hits[:req.K]
	}
	return hits, nil
}

// fuse fuses the dense and BM25 hits with kb.Fuse and returns the best
// req.K, Score = fused score.
func fuse(req kb.SearchRequest, dense, sparse []kb.Hit) []kb.Hit {
	type key struct{ scope, ev string }
	var all []kb.Hit
	id := map[key]int{}
	ids := func(hs []kb.Hit) []int {
		out := make([]int, len(hs))
		for i, h := range hs {
			k := key{h.KBScope, h.EvidenceKey}
			n, ok := id[k]
			if !ok {
				n = len(all)
				id[k] = n
				all = append(all, h)
			}
			out[i] = n
		}
		return out
	}
	d, s := ids(dense), ids(sparse)
	for n, score := range kb.Fuse(req.Fusion, req.RRFK, d, s) {
		all[n].Score = score
	}
	slices.SortFunc(all, compareHits)
	if len(all) > req.K {
		all = all[:req.K]
	}
	return all
}

// compareHits orders hits best first: higher score, then kb.CompareTies.
func compareHits(a, b kb.Hit) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return kb.CompareTies(&a.Chunk, &b.Chunk)
}

// decodeHits turns a result set into hits. The cosine is computed from the
// returned vector in float64. It is also the score, unless serverScore asks
// for Milvus' BM25 score.
func decodeHits(rs milvusclient.ResultSet, q []float32, serverScore bool) ([]kb.Hit, error) {
	if rs.Err != nil {
		return nil, rs.Err
	}
	if rs.ResultCount == 0 {
		return nil, nil // an empty answer carries no field columns
	}
	cols := map[string]column.Column{}
	for _, name := range outputFields {
		c := rs.GetColumn(name)
		if c == nil {
			return nil, fmt.Errorf("field %s missing from the answer", name)
		}
		if c.Len() < rs.ResultCount {
			return nil, fmt.Errorf("field %s has %d values for %d results", name, c.Len(), rs.ResultCount)
		}
		cols[name] = c
	}
	str := func(name string, i int) string {
		s, _ := cols[name].GetAsString(i)
		return s
	}
	qn := norm(q)
	hits := make([]kb.Hit, 0, rs.ResultCount)
	for i := 0; i < rs.ResultCount; i++ {
		idx, err := cols[fieldChunkIndex].GetAsInt64(i)
		if err != nil {
			return nil, err
		}
		v, err := cols[fieldDense].Get(i)
		if err != nil {
			return nil, err
		}
		vec, ok := v.(entity.FloatVector)
		if !ok {
			return nil, fmt.Errorf("dense value is %T", v)
		}
		cos := cosine(q, qn, vec)
		h := kb.Hit{
			Chunk: kb.Chunk{
				EvidenceKey: str(fieldEvidenceKey, i),
				DocID:       str(fieldDocID, i),
				Source:      str(fieldSource, i),
				Title:       str(fieldTitle, i),
				Breadcrumb:  str(fieldBreadcrumb, i),
				Category:    str(fieldCategory, i),
				KBScope:     str(fieldKBScope, i),
				ChunkIndex:  int(idx),
				Text:        str(fieldText, i),
			},
			DenseDistance: math.Sqrt(max(0, 2-2*cos)),
			Score:         cos,
		}
		if serverScore {
			if i >= len(rs.Scores) {
				return nil, fmt.Errorf("%d scores for %d results", len(rs.Scores), rs.ResultCount)
			}
			h.Score = float64(rs.Scores[i])
		}
		hits = append(hits, h)
	}
	return hits, nil
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// cosine returns the cosine of q (of norm qn) and v, 0 when either is zero,
// clamped to [-1, 1].
func cosine(q []float32, qn float64, v []float32) float64 {
	if len(v) != len(q) {
		return 0
	}
	var dot float64
	for i := range q {
		dot += float64(q[i]) * float64(v[i])
	}
	vn := norm(v)
	if qn == 0 || vn == 0 {
		return 0
	}
	return max(-1, min(1, dot/(qn*vn)))
}
