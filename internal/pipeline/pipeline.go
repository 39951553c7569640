package pipeline

import (
	"context"
	"errors"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// Request is one lookup (the body of POST /v1/lookup).
type Request struct {
	Query      string        `json:"query"`
	KBScope    string        `json:"kbScope"`
	SearchMode kb.SearchMode `json:"searchMode"` // "hybrid" (default) or "dense"
	// TopK is the number of evidence blocks returned; 0 means the
	// pipeline's default (5).
	TopK int `json:"topK,omitempty"`
}

// Lookuper runs lookups: the builtin Pipeline, or an HTTP client of another
// pipeline speaking the same JSON (lookuphttp.Client).
type Lookuper interface {
	Lookup(ctx context.Context, req Request) (*contract.LookupResult, error)
	// Describe says what produced the results, for fixture meta.
	Describe() contract.Pipeline
}

// ErrInvalidRequest is wrapped by the error of a request the pipeline
// refuses (empty or oversized query, no kbScope, unknown search mode, topK
// out of range), so a server can answer 400 instead of 500.
var ErrInvalidRequest = errors.New("invalid lookup request")

// HealthChecker is implemented by pipelines that can say whether they are
// reachable before any lookup (lookuphttp.Client).
type HealthChecker interface {
	Health(ctx context.Context) error
}
