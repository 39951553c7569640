package builtin

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// reranker reorders blocks. It returns the new order as indexes into
// blocks, or an error, in which case the pipeline keeps the original order
// and records fallback: true.
type reranker interface {
	model() string
	rerank(ctx context.Context, query string, blocks []contract.EvidenceBlock) ([]int, error)
}

// localReranker is the deterministic local cross-scorer. A block scores
//
//	0.5 · overlap + 0.5 · qualityScore
//
// where overlap is the weighted share of the query's distinct tokens that
// occur among the block excerpt's tokens. The tokens are textnorm.Tokens,
// those of BM25 and the local embedder. A single-character token, such as a
// CJK unigram or a lone letter or digit, weighs 0.5, and any other 1. Only
// the excerpt is read: title and breadcrumb come from the frontmatter,
// which must not make a chunk findable. Blocks are sorted by score,
// descending, and equal scores keep their order.
type localReranker struct{}

func (localReranker) model() string { return LocalRerankModel }

func (localReranker) rerank(_ context.Context, query string, blocks []contract.EvidenceBlock) ([]int, error) {
	scores := localScores(query, blocks)
	order := identity(len(blocks))
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	return order, nil
}

// localScores computes the local cross-scorer's score of each block.
func localScores(query string, blocks []contract.EvidenceBlock) []float64 {
	qt := distinct(textnorm.Tokens(query))
	total := 0.0
	for _, t := range qt {
		total += tokenWeight(t)
	}
	scores := make([]float64, len(blocks))
	for i := range blocks {
		overlap := 0.0
		if total > 0 {
			bt := map[string]bool{}
			for _, t := range textnorm.Tokens(blocks[i].Excerpt) {
				bt[t] = true
			}
			for _, t := range qt {
				if bt[t] {
					overlap += tokenWeight(t)
				}
			}
			overlap /= total
		}
		scores[i] = 0.5*overlap + 0.5*float64(blocks[i].QualityScore)
	}
	return scores
}

func tokenWeight(t string) float64 {
	if utf8.RuneCountInString(t) == 1 {
		return 0.5
	}
	return 1
}

func distinct(ts []string) []string {
	seen := make(map[string]bool, len(ts))
	out := ts[:0:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func identity(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

// httpReranker calls an OpenAI/Jina-style rerank endpoint:
//
//	POST <url>  {"model": m, "query": q, "documents": [excerpt, …], "top_n": n}
//	→ 200       {"results": [{"index": i, "relevance_score": s}, …]}
//
// Blocks are ordered by relevance_score descending, equal scores by their
// original order, so that the server's own order of equal scores does not
// matter. Blocks the answer leaves out follow, in their original order.
// A non-2xx status, a timeout, an answer that is not such JSON, an index out
// of range or given twice, or a score that is not a number is a failure.
type httpReranker struct {
	url, modelName, apiKey string
	client                 *http.Client
}

// maxRerankResponse bounds the rerank answer read.
const maxRerankResponse = 8 << 20

func (r *httpReranker) model() string {
	if r.modelName == "" {
		return RerankHTTP
	}
	return r.modelName
}

type rerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type rerankResponse struct {
	Results []struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
}

func (r *httpReranker) rerank(ctx context.Context, query string, blocks []contract.EvidenceBlock) ([]int, error) {
	docs := make([]string, len(blocks))
	for i := range blocks {
		docs[i] = blocks[i].Excerpt
	}
	body, err := json.Marshal(rerankRequest{Model: r.modelName, Query: query, Documents: docs, TopN: len(blocks)})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if r.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.apiKey)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRerankResponse+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	if len(data) > maxRerankResponse {
		return nil, fmt.Errorf("answer larger than %d bytes", maxRerankResponse)
	}
	var rr rerankResponse
	if err := json.Unmarshal(data, &rr); err != nil {
		return nil, fmt.Errorf("answer: %w", err)
	}
	if len(rr.Results) == 0 && len(blocks) > 0 {
		return nil, errors.New("answer has no results")
	}
	type scored struct {
		i int
		s float64
	}
	seen := make([]bool, len(blocks))
	got := make([]scored, 0, len(rr.Results))
	for _, res := range rr.Results {
		if res.Index == nil || res.RelevanceScore == nil {
			return nil, errors.New("a result lacks index or relevance_score")
		}
		i := *res.Index
		if i < 0 || i >= len(blocks) || seen[i] {
			return nil, fmt.Errorf("result index %d out of range or repeated", i)
		}
		seen[i] = true
		got = append(got, scored{i, *res.RelevanceScore})
	}
	slices.SortFunc(got, func(a, b scored) int {
		if c := cmp.Compare(b.s, a.s); c != 0 {
			return c
		}
		return a.i - b.i
	})
	order := make([]int, 0, len(blocks))
	for _, g := range got {
		order = append(order, g.i)
	}
	for i, ok := range seen {
		if !ok {
			order = append(order, i)
		}
	}
	return order, nil
}

// rerankEndpoint is base with "/rerank" appended to its path unless the
// path already ends in it. A query string is kept.
func rerankEndpoint(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base // Validate has refused it already
	}
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/rerank") {
		p += "/rerank"
	}
	u.Path, u.RawPath = p, ""
	return u.String()
}
