package builtin

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// Pipeline is the builtin lookup pipeline (docs/pipeline.md) over a
// catalog, which holds the L0 terms, an index and an embedder. It is safe
// for concurrent use.
type Pipeline struct {
	cat    kb.Catalog
	idx    kb.Index
	emb    kb.Embedder
	cfg    Config
	cfgErr error
	info   contract.Pipeline
	l0     *l0Cache
	rr     reranker // nil for RerankNone
}

var _ pipeline.Lookuper = (*Pipeline)(nil)

// New returns the pipeline. cfg is completed with the integer defaults
// (see Config). An invalid cfg makes every Lookup fail with the reason.
// info describes the pipeline in fixtures. Its Params are replaced by
// cfg's, an empty Name becomes "builtin", and an empty Embedder and a zero
// Dim are taken from emb.
func New(cat kb.Catalog, idx kb.Index, emb kb.Embedder, cfg Config, info contract.Pipeline) *Pipeline {
	cfg = cfg.withDefaults()
	p := &Pipeline{cat: cat, idx: idx, emb: emb, cfg: cfg, cfgErr: cfg.Validate(), l0: newL0Cache(cfg.L0TTL)}
	switch cfg.Rerank {
	case RerankLocal:
		p.rr = localReranker{}
	case RerankHTTP:
		client := cfg.HTTPClient
		if client == nil {
			client = http.DefaultClient
		}
		p.rr = &httpReranker{url: rerankEndpoint(cfg.RerankURL), modelName: cfg.RerankModel, apiKey: cfg.RerankAPIKey, client: client}
	}
	if info.Name == "" {
		info.Name = "builtin"
	}
	if info.Embedder == "" {
		info.Embedder = emb.Name()
	}
	if info.Dim == 0 {
		info.Dim = emb.Dim()
	}
	info.Params = &contract.PipelineParams{
		TopK:          cfg.TopK,
		CandidateK:    cfg.CandidateK,
		LowQuality:    contract.Float6(cfg.LowQuality),
		MinQuality:    contract.Float6(cfg.MinQuality),
		RelQuality:    contract.Float6(cfg.RelQuality),
		Fusion:        string(cfg.Fusion),
		Levels:        contract.Levels{High: contract.Float6(cfg.Levels.High), Medium: contract.Float6(cfg.Levels.Medium)},
		Rerank:        cfg.Rerank,
		ContextBudget: cfg.ContextBudget,
	}
	p.info = info
	return p
}

// Config returns the configuration the pipeline runs with.
func (p *Pipeline) Config() Config { return p.cfg }

// Describe says what produced the results: the info New was given, its
// Params those of the config. The value is the caller's to change.
func (p *Pipeline) Describe() contract.Pipeline {
	info := p.info
	params := *info.Params
	info.Params = &params
	info.Capabilities = slices.Clone(info.Capabilities)
	return info
}

// InvalidateL0 drops the cached L0 terms of every kbScope, so the next
// lookup reads them from the catalog. Call it after seeding into a store
// that a long-running pipeline serves.
func (p *Pipeline) InvalidateL0() { p.l0.invalidate() }

// Lookup runs one lookup, as pipeline.Lookuper's documentation and the
// package's say. The result is deterministic for the same store and
// request, apart from the attempts' latencyMs. Errors of the embedder,
// catalog or index are returned wrapped, so that their own Transient
// methods still answer. A failing reranker is not an error: the original
// order is kept and rerankTrace.fallback set. A request the pipeline
// refuses wraps pipeline.ErrInvalidRequest.
func (p *Pipeline) Lookup(ctx context.Context, req pipeline.Request) (*contract.LookupResult, error) {
	if p.cfgErr != nil {
		return nil, p.cfgErr
	}
	mode, topK, err := p.check(req)
	if err != nil {
		return nil, err
	}
	cfg := &p.cfg

	// 1. Embed the query.
	vecs, err := p.emb.Embed(ctx, kb.Query, []string{req.Query})
	if err != nil {
		return nil, fmt.Errorf("lookup: embed query: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) != p.emb.Dim() {
		return nil, fmt.Errorf("lookup: embed query: embedder %s returned %d vectors, want 1 of dimension %d", p.emb.Name(), len(vecs), p.emb.Dim())
	}
	vec := vecs[0]

	// 2. L0 hints.
	terms, err := p.l0.terms(ctx, p.cat, req.KBScope)
	if err != nil {
		return nil, fmt.Errorf("lookup: L0 terms of %q: %w", req.KBScope, err)
	}
	hints := matchL0(terms, req.Query, cfg.MinVotes)

	// 3–6. Attempts.
	search := func(name string, f kb.Filter) (contract.Attempt, []kb.Hit, error) {
		start := time.Now()
		hits, err := p.idx.Search(ctx, kb.SearchRequest{
			Mode: mode, Vector: vec, Text: req.Query, Filter: f,
			K: max(cfg.CandidateK, topK), RRFK: cfg.RRFK, Fusion: cfg.Fusion,
		})
		if err != nil {
			return contract.Attempt{}, nil, fmt.Errorf("lookup: %s search: %w", name, err)
		}
		best := bestQuality(hits, topK)
		a := contract.Attempt{
			Name:        name,
			Filter:      contract.Filter{KBScope: f.KBScope, Categories: f.Categories},
			Candidates:  len(hits),
			BestQuality: contract.Float6(best),
			LowQuality:  best < cfg.LowQuality,
			LatencyMs:   time.Since(start).Milliseconds(),
		}
		return a, hits, nil
	}
	trace := contract.RetrievalTrace{SearchMode: string(mode), KBScope: req.KBScope, L0Hints: hints}
	var hits []kb.Hit
	if len(hints.Categories) == 0 {
		a, h, err := search(contract.AttemptUnfiltered, kb.Filter{KBScope: req.KBScope})
		if err != nil {
			return nil, err
		}
		trace.Attempts = []contract.Attempt{a}
		trace.SelectedAttempt, hits = a.Name, h
	} else {
		cats := append([]string(nil), hints.Categories...)
		a, h, err := search(contract.AttemptFiltered, kb.Filter{KBScope: req.KBScope, Categories: cats})
		if err != nil {
			return nil, err
		}
		// The relative gate: the unfiltered search runs beside the
		// filtered one and is reused as the retry.
		var pa contract.Attempt
		var ph []kb.Hit
		probed := cfg.RelQuality > 0
		if probed {
			pa, ph, err = search(contract.AttemptUnfilteredRetry, kb.Filter{KBScope: req.KBScope})
			if err != nil {
				return nil, err
			}
			if float64(a.BestQuality) < cfg.RelQuality*float64(pa.BestQuality) {
				a.LowQuality = true
			}
		}
		trace.Attempts = []contract.Attempt{a}
		trace.SelectedAttempt, hits = a.Name, h
		reason := ""
		switch {
		case !hasEvidence(h, cfg.MinQuality):
			// Nothing, or nothing that would survive the minQuality floor.
			reason = contract.FallbackNoEvidence
		case a.LowQuality:
			reason = contract.FallbackLowQuality
		}
		if reason != "" {
			trace.FallbackReason = &reason
			ra, rh := pa, ph
			if !probed {
				ra, rh, err = search(contract.AttemptUnfilteredRetry, kb.Filter{KBScope: req.KBScope})
				if err != nil {
					return nil, err
				}
			}
			trace.Attempts = append(trace.Attempts, ra)
			if len(rh) > 0 {
				trace.SelectedAttempt, hits = ra.Name, rh
			}
		}
	}

	// 7. Post-process.
	label := "COSINE"
	if mode == kb.Hybrid {
		label = "RRF"
	}
	blocks := postProcess(hits, topK, cfg.MinQuality, cfg.Levels, label)

	// 8. Rerank.
	rt := contract.RerankTrace{Model: RerankNone, InputOrder: keys(blocks)}
	if p.rr != nil {
		rt.Enabled, rt.Model = true, p.rr.model()
		if len(blocks) > 0 {
			rctx, cancel := context.WithTimeout(ctx, cfg.RerankTimeout)
			order, err := p.rr.rerank(rctx, req.Query, blocks)
			cancel()
			if err == nil && !isPermutation(order, len(blocks)) {
				err = fmt.Errorf("reranker returned an invalid order")
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil, fmt.Errorf("lookup: rerank: %w", context.Cause(ctx))
				}
				rt.Fallback = true
			} else {
				reordered := make([]contract.EvidenceBlock, len(blocks))
				for i, j := range order {
					reordered[i] = blocks[j]
				}
				blocks = reordered
			}
		}
	}
	for i := range blocks {
		blocks[i].Rank = i + 1
	}
	rt.OutputOrder = keys(blocks)
	if len(blocks) > 0 {
		rt.TopSource = blocks[0].Source
	}

	// 9–10. Context pack, evidence status.
	return &contract.LookupResult{
		Found:          len(blocks) > 0,
		EvidenceStatus: evidenceStatus(blocks, cfg.LowQuality),
		EvidenceBlocks: blocks,
		ContextPack:    pack(blocks, cfg.ContextBudget),
		RetrievalTrace: trace,
		RerankTrace:    rt,
		Has:            contract.HasAll,
	}, nil
}

// check validates a request and resolves its defaults.
func (p *Pipeline) check(req pipeline.Request) (kb.SearchMode, int, error) {
	return ResolveRequest(req, p.cfg.TopK)
}

// ResolveRequest validates a request by the rules the builtin and mapped
// pipelines apply, listed under Requests in the package documentation. It
// resolves the defaults: "" is the hybrid search mode, and topK 0 is
// defaultTopK. A refused request wraps pipeline.ErrInvalidRequest.
func ResolveRequest(req pipeline.Request, defaultTopK int) (kb.SearchMode, int, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("lookup: %w: "+format, append([]any{pipeline.ErrInvalidRequest}, args...)...)
	}
	switch {
	case !utf8.ValidString(req.Query):
		return "", 0, bad("query is not valid UTF-8")
	case strings.TrimSpace(req.Query) == "":
		return "", 0, bad("empty query")
	case utf8.RuneCountInString(req.Query) > MaxQueryChars:
		return "", 0, bad("query longer than %d characters", MaxQueryChars)
	case req.KBScope == "":
		return "", 0, bad("no kbScope")
	case !utf8.ValidString(req.KBScope):
		return "", 0, bad("kbScope is not valid UTF-8")
	case req.TopK < 0 || req.TopK > MaxTopK:
		return "", 0, bad("topK %d, want 1..%d (0 for the default)", req.TopK, MaxTopK)
	}
	mode := req.SearchMode
	switch mode {
	case "":
		mode = kb.Hybrid
	case kb.Hybrid, kb.Dense:
	default:
		return "", 0, bad("search mode %q, want %q or %q", mode, kb.Hybrid, kb.Dense)
	}
	topK := req.TopK
	if topK == 0 {
		topK = defaultTopK
	}
	return mode, topK, nil
}

func keys(blocks []contract.EvidenceBlock) []string {
	out := make([]string, len(blocks))
	for i := range blocks {
		out[i] = blocks[i].EvidenceKey
	}
	return out
}

// isPermutation reports whether order holds each of 0..n-1 once.
func isPermutation(order []int, n int) bool {
	if len(order) != n {
		return false
	}
	seen := make([]bool, n)
	for _, i := range order {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
	}
	return true
}
