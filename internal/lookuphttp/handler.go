// Package lookuphttp serves a lookup pipeline over HTTP and calls one, so an
// agent, or a second pipeline used as a sidecar, speaks the same JSON as the
// builtin pipeline (SPEC §6):
//
//	POST /v1/lookup   {"query": "…", "kbScope": "rag-eval", "searchMode": "hybrid", "topK": 5}
//	                  → 200 {"lookupResult": {…}}   (the lookupResult of a fixture, SPEC §7)
//	GET  /healthz     → 200 {"status": "ok", "pipeline": {…}}
//
// Errors are JSON too, {"error": "message"}, with the status saying whose
// fault it was: 400 a malformed request (not UTF-8 JSON, an unknown field,
// an empty query, an unknown searchMode, a topK out of range, trailing data,
// or a request the pipeline refuses with lookup.ErrInvalidRequest),
// 405 another method (with Allow), 404 another path, 413 a body over the size
// limit, 500 a failed lookup, 504 a lookup over the time limit.
//
// Handler is the server side (rag-snapshot serve); Client is the client
// side, a lookup.Lookuper, used by rag-snapshot --pipeline http and
// --sidecar-url.
package lookuphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/lookup"
)

// Paths served by the handler.
const (
	LookupPath = "/v1/lookup"
	HealthPath = "/healthz"
)

// Defaults of HandlerOptions.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBodyBytes = 1 << 20
	DefaultMaxTopK      = lookup.MaxTopK
	// MaxKBScopeLen is the longest kbScope accepted, in bytes.
	MaxKBScopeLen = 200
)

// HandlerOptions tune the handler. The zero value is usable.
type HandlerOptions struct {
	// Timeout bounds each lookup; 0 means DefaultTimeout. A lookup that
	// runs over it is answered 504.
	Timeout time.Duration
	// MaxBodyBytes bounds the request body; 0 means DefaultMaxBodyBytes.
	// A larger body is answered 413.
	MaxBodyBytes int64
	// MaxTopK is the largest topK accepted; 0 means DefaultMaxTopK.
	MaxTopK int
	// DefaultKBScope is used for a request without kbScope; when it is
	// empty too, kbScope is required.
	DefaultKBScope string
	// ErrorLog, when set, receives one line per failed lookup (500, 504).
	ErrorLog *log.Logger
}

// NewHandler serves l on LookupPath and HealthPath.
func NewHandler(l lookup.Lookuper, opts HandlerOptions) http.Handler {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxTopK <= 0 {
		opts.MaxTopK = DefaultMaxTopK
	}
	h := &handler{l: l, opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc(LookupPath, h.lookup)
	mux.HandleFunc(HealthPath, h.health)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint %s (try POST %s or GET %s)", r.URL.Path, LookupPath, HealthPath))
	})
	return mux
}

type handler struct {
	l    lookup.Lookuper
	opts HandlerOptions
}

// healthResponse is the body of GET /healthz.
type healthResponse struct {
	Status   string             `json:"status"`
	Pipeline *contract.Pipeline `json:"pipeline,omitempty"`
}

// lookupResponse is the body of a successful POST /v1/lookup.
type lookupResponse struct {
	LookupResult *contract.LookupResult `json:"lookupResult"`
}

// errorResponse is the body of every error.
type errorResponse struct {
	Error string `json:"error"`
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s (use GET)", r.Method, HealthPath))
		return
	}
	p := h.l.Describe()
	writeJSON(w, http.StatusOK, healthResponse{Status: "ok", Pipeline: &p})
}

func (h *handler) lookup(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s (use POST)", r.Method, LookupPath))
		return
	}
	req, status, err := h.decode(w, r)
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.opts.Timeout)
	defer cancel()
	res, err := h.l.Lookup(ctx, req)
	switch {
	case err == nil && res == nil:
		err = errors.New("pipeline returned no result")
		fallthrough
	case err != nil:
		if r.Context().Err() != nil {
			return // the client went away; nobody reads an answer
		}
		status, msg := http.StatusInternalServerError, "lookup failed: "+err.Error()
		switch {
		case errors.Is(err, lookup.ErrInvalidRequest):
			status, msg = http.StatusBadRequest, err.Error()
		case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
			status, msg = http.StatusGatewayTimeout, fmt.Sprintf("lookup did not finish within %s: %v", h.opts.Timeout, err)
		case unavailable(err):
			status = http.StatusServiceUnavailable
		}
		if h.opts.ErrorLog != nil {
			h.opts.ErrorLog.Printf("%s %q: %d %s", LookupPath, req.Query, status, msg)
		}
		writeError(w, status, msg)
		return
	}
	writeJSON(w, http.StatusOK, lookupResponse{LookupResult: nonNil(res)})
}

// decode reads and validates a lookup request; on error it returns the
// status to answer with.
func (h *handler) decode(w http.ResponseWriter, r *http.Request) (lookup.Request, int, error) {
	var req lookup.Request
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return req, http.StatusRequestEntityTooLarge, fmt.Errorf("request body larger than %d bytes", mbe.Limit)
		}
		return req, http.StatusBadRequest, fmt.Errorf("read request body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return req, http.StatusBadRequest, errors.New(`empty request body; send {"query": "…", "kbScope": "…", "searchMode": "hybrid", "topK": 5}`)
	}
	if !utf8.Valid(data) {
		return req, http.StatusBadRequest, errors.New("request body is not valid UTF-8")
	}
	// Keys are checked exactly first: encoding/json matches them ignoring
	// case, which would take "topk" for "topK".
	dec := json.NewDecoder(bytes.NewReader(data))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return req, http.StatusBadRequest, fmt.Errorf("invalid request: the body must be a JSON object, not %s", ute.Value)
		}
		return req, http.StatusBadRequest, fmt.Errorf("invalid request: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, http.StatusBadRequest, errors.New("invalid request: data after the JSON object")
	}
	for k := range fields {
		switch k {
		case "query", "kbScope", "searchMode", "topK":
		default:
			return req, http.StatusBadRequest, fmt.Errorf("invalid request: unknown field %q (the fields are query, kbScope, searchMode, topK)", k)
		}
	}
	if err := json.Unmarshal(data, &req); err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("invalid request: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if strings.TrimSpace(req.Query) == "" {
		return req, http.StatusBadRequest, errors.New("query must not be empty")
	}
	switch req.SearchMode {
	case "":
		req.SearchMode = kb.Hybrid
	case kb.Hybrid, kb.Dense:
	default:
		return req, http.StatusBadRequest, fmt.Errorf("searchMode must be %q or %q, got %q", kb.Hybrid, kb.Dense, req.SearchMode)
	}
	if req.TopK < 0 || req.TopK > h.opts.MaxTopK {
		return req, http.StatusBadRequest, fmt.Errorf("topK must be between 1 and %d (0 or absent: the pipeline's default), got %d", h.opts.MaxTopK, req.TopK)
	}
	if req.KBScope == "" {
		req.KBScope = h.opts.DefaultKBScope
	}
	switch {
	case strings.TrimSpace(req.KBScope) == "":
		return req, http.StatusBadRequest, errors.New("kbScope must not be empty")
	case len(req.KBScope) > MaxKBScopeLen:
		return req, http.StatusBadRequest, fmt.Errorf("kbScope longer than %d bytes", MaxKBScopeLen)
	}
	return req, 0, nil
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorResponse{Error: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		fmt.Fprintf(&buf, "{\"error\":%q}\n", "encode response: "+err.Error())
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// nonNil returns a copy of lr whose lists are [] rather than null, as in a
// fixture file.
func nonNil(lr *contract.LookupResult) *contract.LookupResult {
	c := *lr
	c.EvidenceBlocks = orEmpty(c.EvidenceBlocks)
	c.ContextPack.Sources = orEmpty(c.ContextPack.Sources)
	rt := &c.RetrievalTrace
	rt.L0Hints.Categories = orEmpty(rt.L0Hints.Categories)
	rt.L0Hints.MatchedTerms = orEmpty(rt.L0Hints.MatchedTerms)
	rt.L0Hints.MatchedSources = orEmpty(rt.L0Hints.MatchedSources)
	rt.Attempts = orEmpty(rt.Attempts)
	c.RerankTrace.InputOrder = orEmpty(c.RerankTrace.InputOrder)
	c.RerankTrace.OutputOrder = orEmpty(c.RerankTrace.OutputOrder)
	return &c
}

func orEmpty[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}

// unavailable reports whether err says a backing service could not be
// reached (a network error, a refused connection, gRPC Unavailable), which
// is worth retrying; other pipeline errors are answered with 500.
func unavailable(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	return strings.Contains(err.Error(), "code = Unavailable")
}
