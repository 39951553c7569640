// Package lookuphttp serves a lookup pipeline over HTTP and calls one, so
// an agent, or a second pipeline used as a sidecar, speaks the same JSON as
// the builtin pipeline. docs/fixtures.md has the protocol:
//
//	POST /v1/lookup   {"query": "…", "kbScope": "rag-eval", "searchMode": "hybrid", "topK": 5}
//	                  → 200 {"lookupResult": {…}}   (the lookupResult of a fixture)
//	GET  /healthz     → 200 {"status": "ok", "pipeline": {…}}
//
// A lookup must be sent with Content-Type application/json, and a charset
// parameter, if any, must be utf-8. text/plain, a form or no Content-Type
// at all is answered 415, so a web page cannot post a lookup without a
// CORS preflight, which the handler does not answer.
//
// # Errors
//
// Errors are JSON too, {"error": "message"}, with the status saying whose
// fault it was and whether to retry:
//
//	400  a malformed request: not UTF-8 JSON, not one object, an unknown or
//	     duplicate field, a field of the wrong type, an empty query, an
//	     unknown searchMode, a topK outside 0..MaxTopK, a kbScope that is
//	     not a kb scope by kb.ValidKBScope, the rule of rag-seed's
//	     --kb-scope, or a request the pipeline refuses with
//	     pipeline.ErrInvalidRequest, such as a query over
//	     builtin.MaxQueryChars characters
//	404  another path
//	405  another method, with Allow
//	413  a body over the size limit (HandlerOptions.MaxBodyBytes)
//	415  a Content-Type other than application/json
//	500  a failed lookup that would fail the same way again (not retried)
//	503  a backing service could not be reached, or the pipeline's error
//	     says it is transient (retried)
//	504  a lookup over the time limit, or a backing service that ran out
//	     of time: an error whose DeadlineExceeded method says so, such as
//	     index/milvus' for the gRPC status DeadlineExceeded (retried)
//
// A 503 or 504 is what pipeline.Transient would retry if the pipeline ran
// in process, so a pipeline served over HTTP is retried exactly as it would
// be in process. Client's StatusError.Transient says which statuses to
// retry, and the Client's error for a 400 wraps pipeline.ErrInvalidRequest
// again.
//
// A message quotes at most the first 64 characters of a request value,
// such as a field name, a kbScope or a searchMode. It quotes at most 1000
// characters of a pipeline error, on one line.
//
// # Logging
//
// HandlerOptions.ErrorLog gets one line per 5xx answer (500, 503, 504).
// It gets none for a 4xx, which is the client's to fix and is told to it in
// the answer, so a client cannot fill the log. A line holds the status, the
// error message cut to 300 characters, the start of the query with its
// length in bytes, and the kbScope. The query is cut to 64 characters and
// quoted, so a line break shows as \n. Credentials in a 5xx message are
// replaced by ***, in the log line and in the answer: user:password@ in
// URLs and DSNs, Bearer tokens, sk- keys, and key=, token= and password=
// parameters.
//
// NewHandler is the server side, which rag-snapshot serve runs. Client is
// the client side, a pipeline.Lookuper, used by rag-snapshot --pipeline
// http and --sidecar-url. Client sends the user info of its URL as basic
// authentication and Client.Header on every request. ParseHeaders reads
// --lookup-header and --sidecar-header, expanding ${ENV} references. The
// values read from the environment never appear in the Client's errors,
// results or Describe (package internal/secret).
package lookuphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
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
	DefaultMaxTopK      = builtin.MaxTopK
)

// Bounds of the user text and messages quoted in answers and log lines, in
// characters.
const (
	quoteLen     = 64              // a value or field name of the request, in an answer or a log line
	logMsgLen    = 300             // an error message, in a log line
	answerMsgLen = MaxMessageChars // an error message of the pipeline, in an answer
)

// HandlerOptions tune the handler. The zero value is usable.
type HandlerOptions struct {
	// Timeout bounds each lookup. 0 means DefaultTimeout. A lookup that
	// runs over it is answered 504.
	Timeout time.Duration
	// MaxBodyBytes bounds the request body. 0 means DefaultMaxBodyBytes.
	// A larger body is answered 413.
	MaxBodyBytes int64
	// MaxTopK is the largest topK accepted. 0 means DefaultMaxTopK.
	MaxTopK int
	// DefaultKBScope is used for a request without kbScope. When it is
	// empty too, kbScope is required.
	DefaultKBScope string
	// ErrorLog, when set, receives one bounded line per 5xx answer (500,
	// 503, 504). 4xx answers are not logged.
	ErrorLog *log.Logger
}

// NewHandler serves l on LookupPath and HealthPath.
func NewHandler(l pipeline.Lookuper, opts HandlerOptions) http.Handler {
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
	l    pipeline.Lookuper
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
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		writeError(w, http.StatusUnsupportedMediaType, err.Error())
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
			return // the client went away, and nobody reads an answer
		}
		if errors.Is(err, pipeline.ErrInvalidRequest) {
			writeError(w, http.StatusBadRequest, clip(err.Error(), answerMsgLen))
			return
		}
		status, msg := http.StatusInternalServerError, "lookup failed: "+err.Error()
		switch {
		case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || deadlineExceeded(err):
			status, msg = http.StatusGatewayTimeout, fmt.Sprintf("lookup did not finish within %s: %v", h.opts.Timeout, err)
		case pipeline.Transient(err):
			status = http.StatusServiceUnavailable
		}
		msg = redactSecrets(msg)
		if h.opts.ErrorLog != nil {
			h.opts.ErrorLog.Printf("%s %d: %s (query %s, %d bytes; kbScope %s)",
				LookupPath, status, clip(msg, logMsgLen), quote(req.Query), len(req.Query), quote(req.KBScope))
		}
		writeError(w, status, clip(msg, answerMsgLen))
		return
	}
	writeJSON(w, http.StatusOK, lookupResponse{LookupResult: nonNil(res)})
}

// decode reads and validates a lookup request. On error it returns the
// status to answer with.
func (h *handler) decode(w http.ResponseWriter, r *http.Request) (pipeline.Request, int, error) {
	var req pipeline.Request
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
			return req, http.StatusBadRequest, fmt.Errorf("invalid request: unknown field %s (the fields are query, kbScope, searchMode, topK)", quote(k))
		}
	}
	if k, ok := duplicateKey(data); ok {
		return req, http.StatusBadRequest, fmt.Errorf("invalid request: duplicate field %s", quote(k))
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
		return req, http.StatusBadRequest, fmt.Errorf("searchMode must be %q or %q, got %s", kb.Hybrid, kb.Dense, quote(string(req.SearchMode)))
	}
	if req.TopK < 0 || req.TopK > h.opts.MaxTopK {
		return req, http.StatusBadRequest, fmt.Errorf("topK must be between 1 and %d (0 or absent: the pipeline's default), got %d", h.opts.MaxTopK, req.TopK)
	}
	if req.KBScope == "" {
		req.KBScope = h.opts.DefaultKBScope
	}
	if strings.TrimSpace(req.KBScope) == "" {
		return req, http.StatusBadRequest, errors.New("kbScope must not be empty")
	}
	// The rule of rag-seed --kb-scope: every kb_scope a store can hold
	// passes, and a request for any other is refused before it reaches
	// the pipeline.
	if err := kb.ValidKBScope(req.KBScope); err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("kbScope %s is not a kb scope: it %w", quote(req.KBScope), err)
	}
	return req, 0, nil
}

// checkContentType accepts application/json, with no charset or utf-8.
func checkContentType(ct string) error {
	if strings.TrimSpace(ct) == "" {
		return errors.New("Content-Type must be application/json, got none")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return fmt.Errorf("Content-Type must be application/json, got %s", clip(ct, quoteLen))
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return fmt.Errorf("Content-Type charset must be utf-8, got %s", clip(cs, quoteLen))
	}
	return nil
}

// duplicateKey returns a key that occurs twice in the JSON object data,
// which encoding/json would silently resolve to the last value.
func duplicateKey(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := tok.(string)
		if seen[k] {
			return k, true
		}
		seen[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
	}
	return "", false
}

// deadlineError is implemented by pipeline errors that say a backing
// service ran out of time (index/milvus' *Error: the gRPC status
// DeadlineExceeded). The handler answers them 504, like a lookup over its
// own time limit.
type deadlineError interface{ DeadlineExceeded() bool }

func deadlineExceeded(err error) bool {
	var de deadlineError
	return errors.As(err, &de) && de.DeadlineExceeded()
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

// MaxMessageChars bounds a service's error message that a client decodes
// and quotes: at most this many characters on one line, the most the
// handler sends. The mapped pipeline's errorMessage is cut the same way.
const MaxMessageChars = 1000

// Message returns a service's error message s as a client quotes it: one
// line of valid UTF-8 of at most MaxMessageChars characters, ending in
// "…" when cut. Scrub the secrets from s first, so that a cut never keeps
// the start of one.
func Message(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), MaxMessageChars)
}

// clip returns s as one line of valid UTF-8 (control characters become
// spaces) of at most n characters, ending in "…" when cut.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return diag.Clip(s, n, diag.Chars)
}

// quote returns the first quoteLen characters of s, Go-quoted (so a line
// break shows as \n), followed by "…" when cut.
func quote(s string) string {
	head, cut := diag.Prefix(strings.ToValidUTF8(s, "\uFFFD"), quoteLen, diag.Chars)
	if cut {
		return strconv.Quote(head) + diag.Ellipsis
	}
	return strconv.Quote(head)
}

// secrets match credentials that an error from a backing service may
// carry. redactSecrets replaces them by ***.
var secrets = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^\s/?#@]+@`), "${1}***@"},              // scheme://user:pass@
	{regexp.MustCompile(`(^|[\s'"(=])[^\s'"(=/:@]+:[^\s@/]*@(tcp|unix)\(`), "${1}***@${2}("}, // MySQL DSN user:pass@tcp(
	{regexp.MustCompile(`(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+`), "${1} ***"},
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{8,}`), "sk-***"},
	{regexp.MustCompile(`(?i)\b((?:api[_-]?)?key|token|access_token|password|passwd|pwd|secret)=[^&\s"'<>]+`), "${1}=***"},
}

func redactSecrets(s string) string {
	for _, sec := range secrets {
		s = sec.re.ReplaceAllString(s, sec.repl)
	}
	return s
}
