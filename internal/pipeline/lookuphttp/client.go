package lookuphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
	"github.com/ragbaseline/ragbaseline/internal/secret"
)

// PipelineName is the name Client.Describe gives the pipelines it calls.
const PipelineName = "http"

// DefaultMaxResponseBytes bounds a response body read by Client.
const DefaultMaxResponseBytes = 64 << 20

// bodyExcerptLen is how much of an unexpected response body an error quotes.
const bodyExcerptLen = 200

// Client calls a pipeline served by NewHandler, or anything speaking the
// same JSON. It implements pipeline.Lookuper and pipeline.HealthChecker,
// and is safe for concurrent use.
//
// User info in BaseURL is sent as HTTP basic authentication, but never
// appears in Describe or in an error. Nor do the query string or fragment.
// Header is sent with every request: rag-snapshot's --lookup-header and
// --sidecar-header, parsed by ParseHeaders. The values in Secrets, the ones
// ParseHeaders read from the environment, are replaced by ${NAME} in every
// error Health and Lookup return. They are replaced in every string of a
// result and of the pipeline the server describes too, so a server echoing
// a token cannot put it into a message or a fixture.
//
// What a server sends is bounded and checked, whoever it is. An answer is
// read as a stream, at most MaxResponseBytes of it. Of its evidence
// blocks the first pipeline.MaxBlocks(topK) are kept and the others
// counted in the result's DroppedBlocks, and any other array is refused
// past MaxArrayLen elements. A body in a charset its Content-Type declares
// is decoded from it, and a body that is not UTF-8 otherwise is refused. A
// field of the wrong type, or with a value the contract does not allow,
// is a *ProtocolError naming it, in a lookupResult and in the pipeline
// /healthz describes. A server's text in an error is cut to one line of
// 1,000 characters, after the secrets are replaced.
//
// Client sends each call once. Retrying is the caller's: internal/snapshot
// retries an error whose Transient method says true. An *UnreachableError
// (no response: a refused, reset or dropped connection) and a
// *TimeoutError are transient. A *StatusError is transient for 502, 503,
// 504 and 429 only, so a 500 (the lookup failed) or a 4xx (the request is
// wrong) fails at once. The *StatusError of a lookup answered 400 wraps
// pipeline.ErrInvalidRequest: the server refused the request. A
// *ProtocolError, a 2xx that is not the lookup JSON, is not transient. The
// caller needs none of these types: it asks the methods (Transient,
// Unreachable, NoEndpoint) through interfaces of its own.
type Client struct {
	// BaseURL is the server's root, e.g. http://127.0.0.1:8080. A URL
	// ending in /v1/lookup is accepted too.
	BaseURL string
	// HTTPClient sends the requests. Nil means DefaultClient: pooled
	// connections, redirects within the host called only, and no overall
	// timeout, since Timeout bounds each request.
	HTTPClient *http.Client
	// Timeout bounds each request, on top of the caller's context. 0 means
	// none.
	Timeout time.Duration
	// MaxResponseBytes bounds a response body. 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// SearchMode and Capabilities, when set, are what the pipeline
	// declares of itself (contract.Pipeline's SearchMode and
	// Capabilities), in place of what the server reports at GET /healthz.
	// Capabilities is set when it is not nil, even empty. rag-snapshot
	// sets them from --pipeline-search-mode and --pipeline-capabilities.
	SearchMode   string
	Capabilities []string
	// Header is sent with every request, GET /healthz and POST
	// /v1/lookup. It is set after the client's Content-Type and Accept,
	// which it can replace. A Host entry is the request's Host.
	Header http.Header
	// Secrets are removed from errors, results and Describe, as said
	// above. Nil removes nothing.
	Secrets *secret.Set

	mu     sync.Mutex
	remote *contract.Pipeline // from the last successful Health
}

var _ pipeline.Lookuper = (*Client)(nil)

// UnreachableError is returned when no HTTP response came back: connection
// refused, unknown host, connection reset. It is transient, and says the
// pipeline is unreachable (internal/snapshot takes a sidecar that is
// unreachable before any success to be unavailable).
type UnreachableError struct {
	URL string // without credentials
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s unreachable: %v", e.URL, e.Err)
}
func (e *UnreachableError) Unwrap() error     { return e.Err }
func (e *UnreachableError) Transient() bool   { return true }
func (e *UnreachableError) Unreachable() bool { return true }

// StatusError is a response with a status other than 2xx. Message is the
// server's {"error": …} message, else an excerpt of the body.
type StatusError struct {
	URL        string // without credentials
	StatusCode int
	Message    string
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s: %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Transient reports whether retrying may help: 502 Bad Gateway, 503
// Service Unavailable, 504 Gateway Timeout (the pipeline, or a proxy in
// front of it, could not reach a service, or ran out of time) and 429 Too
// Many Requests. A 500 is a lookup that failed and would fail the same way
// again, another 4xx is the request's fault, and other 5xx (501, 505, …)
// will not change either: none of them is retried.
func (e *StatusError) Transient() bool {
	switch e.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		return true
	}
	return false
}

// NoEndpoint reports whether the server serves no such endpoint: 404 Not
// Found or 405 Method Not Allowed (a pipeline that speaks only POST
// /v1/lookup answers its health check so).
func (e *StatusError) NoEndpoint() bool {
	return e.StatusCode == http.StatusNotFound || e.StatusCode == http.StatusMethodNotAllowed
}

// refusedError is a lookup the server answered 400 Bad Request: a request
// it refuses. It is that *StatusError, and wraps pipeline.ErrInvalidRequest
// as the error of any pipeline's refused request does.
type refusedError struct{ *StatusError }

func (e *refusedError) Unwrap() []error { return []error{e.StatusError, pipeline.ErrInvalidRequest} }

// TimeoutError is a request that got no complete response in time (the
// client's Timeout or the caller's deadline). It wraps
// context.DeadlineExceeded and is transient.
type TimeoutError struct {
	URL     string
	Timeout time.Duration // the client's Timeout, 0 when it has none
}

func (e *TimeoutError) Error() string {
	if e.Timeout > 0 {
		return fmt.Sprintf("%s: no response within %s", e.URL, e.Timeout)
	}
	return fmt.Sprintf("%s: no response before the deadline", e.URL)
}
func (e *TimeoutError) Unwrap() error   { return context.DeadlineExceeded }
func (e *TimeoutError) Transient() bool { return true }

// ProtocolError is a 2xx response that is not the lookup JSON.
type ProtocolError struct {
	URL string
	Msg string
}

func (e *ProtocolError) Error() string { return fmt.Sprintf("%s: %s", e.URL, e.Msg) }

// Validate checks BaseURL.
func (c *Client) Validate() error {
	_, err := c.endpoint(LookupPath)
	return err
}

// RedactedURL returns BaseURL without user info, query or fragment.
func (c *Client) RedactedURL() string {
	u, err := url.Parse(strings.TrimSpace(c.BaseURL))
	if err != nil {
		return "(invalid URL)"
	}
	return redact(u)
}

func redact(u *url.URL) string {
	r := *u
	r.User = nil
	r.RawQuery, r.ForceQuery, r.Fragment, r.RawFragment = "", false, "", ""
	return r.String()
}

// endpoint returns the URL of path under BaseURL.
func (c *Client) endpoint(path string) (*url.URL, error) {
	raw := strings.TrimSpace(c.BaseURL)
	if raw == "" {
		return nil, errors.New("no pipeline URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid pipeline URL: %v", errors.Unwrap(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("pipeline URL %s must start with http:// or https://", redact(u))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("pipeline URL %s has no host", redact(u))
	}
	e := *u
	base := strings.TrimSuffix(strings.TrimSuffix(e.Path, "/"), LookupPath)
	e.Path = strings.TrimSuffix(base, "/") + path
	e.RawPath = ""
	return &e, nil
}

// Describe says the results come from an HTTP pipeline: name "http", store
// the URL without credentials. After a successful Health, the version,
// embedder, dimension, parameters, search mode and capabilities are those
// the server reported. The client's SearchMode and Capabilities override
// the last two. The value is the caller's to change.
func (c *Client) Describe() contract.Pipeline {
	p := contract.Pipeline{Name: PipelineName, Store: c.RedactedURL()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.remote; r != nil {
		p.Version = strings.TrimSpace(r.Name + " " + r.Version)
		p.Embedder, p.Dim = r.Embedder, r.Dim
		if r.Params != nil {
			params := *r.Params
			p.Params = &params
		}
		p.SearchMode, p.Capabilities = r.SearchMode, contract.NormalizeCapabilities(r.Capabilities)
	}
	if c.SearchMode != "" {
		p.SearchMode = c.SearchMode
	}
	if c.Capabilities != nil {
		p.Capabilities = contract.NormalizeCapabilities(c.Capabilities)
	}
	return p
}

// Health calls GET /healthz. A server answering 2xx is healthy, and the
// pipeline it describes, if any, is what Describe reports. A body that is
// not JSON, such as "ok", describes nothing. A JSON body that is not an
// object, a field of the pipeline of the wrong type or out of its range,
// and a searchMode or a capability that is not one of
// contract.PipelineSearchModes or contract.Capabilities are a
// *ProtocolError naming the field. The client's own SearchMode and
// Capabilities replace the server's, which are then not read.
func (c *Client) Health(ctx context.Context) error {
	return c.redact(c.health(ctx))
}

func (c *Client) health(ctx context.Context) error {
	u, err := c.endpoint(HealthPath)
	if err != nil {
		return err
	}
	where := "GET " + redact(u)
	var p *contract.Pipeline
	err = c.do(ctx, http.MethodGet, u, nil, func(b *bodyReader) error {
		data, err := io.ReadAll(b)
		if err != nil {
			return err
		}
		if p, err = c.decodeHealth(data, b); err != nil {
			return &ProtocolError{where, err.Error()}
		}
		return nil
	})
	if err != nil || p == nil {
		return err
	}
	if c.Secrets.Len() > 0 {
		scrubStrings(reflect.ValueOf(p), c.Secrets)
	}
	c.mu.Lock()
	c.remote = p
	c.mu.Unlock()
	return nil
}

// Lookup posts req to /v1/lookup and decodes the lookupResult
// (DecodeResult): it must have found and evidenceBlocks, and what the
// server did not send stays absent in the fixture. The server decides what
// it refuses: a 400 answer is a *StatusError that wraps
// pipeline.ErrInvalidRequest. The client itself refuses only a query or
// kbScope that is not valid UTF-8, which JSON would send as another text.
func (c *Client) Lookup(ctx context.Context, req pipeline.Request) (*contract.LookupResult, error) {
	lr, err := c.lookup(ctx, req)
	if err != nil {
		return nil, c.redact(err)
	}
	if c.Secrets.Len() > 0 {
		scrubStrings(reflect.ValueOf(lr), c.Secrets)
	}
	return lr, nil
}

func (c *Client) lookup(ctx context.Context, req pipeline.Request) (*contract.LookupResult, error) {
	u, err := c.endpoint(LookupPath)
	if err != nil {
		return nil, err
	}
	where := "POST " + redact(u)
	for _, f := range []struct{ name, value string }{{"query", req.Query}, {"kbScope", req.KBScope}} {
		if !utf8.ValidString(f.value) {
			return nil, fmt.Errorf("%s: %w: %s is not valid UTF-8", where, pipeline.ErrInvalidRequest, f.name)
		}
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var lr *contract.LookupResult
	err = c.do(ctx, http.MethodPost, u, payload, func(b *bodyReader) error {
		b.strict = true
		var err error
		lr, err = readResponse(b, c.maxBlocks(req), c.excerpt)
		switch {
		case err == nil:
			return nil
		case b.err != nil:
			return err // do says what went wrong with the body
		case errors.Is(err, errNoResult), errors.Is(err, errNotObject):
			err = fmt.Errorf("%v: %s", err, b.excerpt(c.scrub))
		case errors.As(err, new(*notJSONError)):
			err = fmt.Errorf("response is not JSON (%v): %s", err, b.excerpt(c.scrub))
		}
		return &ProtocolError{where, err.Error()}
	})
	if se := (*StatusError)(nil); errors.As(err, &se) && se.StatusCode == http.StatusBadRequest {
		return nil, &refusedError{se}
	}
	if err != nil {
		return nil, err
	}
	return lr, nil
}

// maxBlocks is how many evidence blocks of the answer to req are kept:
// pipeline.MaxBlocks of the request's topK, else of the params.topK the
// server declared at /healthz, else of builtin.DefaultTopK.
func (c *Client) maxBlocks(req pipeline.Request) int {
	topK := req.TopK
	if topK <= 0 {
		c.mu.Lock()
		if c.remote != nil && c.remote.Params != nil {
			topK = c.remote.Params.TopK
		}
		c.mu.Unlock()
	}
	if topK <= 0 {
		topK = builtin.DefaultTopK
	}
	return pipeline.MaxBlocks(topK)
}

// DecodeResult decodes the lookupResult of a /v1/lookup answer
// (docs/fixtures.md), keeping track of what it carries. The result is
// Partial. A field that is missing or null stays absent in the fixture
// instead of being written as a zero. fallbackReason is the exception,
// whose null means no retry. The result must have found and
// evidenceBlocks. A known field of the wrong type, or with a value the
// contract does not allow, is an error naming it, and unknown fields are
// dropped. DecodeResult keeps every block: Client keeps at most
// pipeline.MaxBlocks of them.
func DecodeResult(raw []byte) (*contract.LookupResult, error) {
	dec := newDecoder(bytes.NewReader(raw))
	lr, err, synErr := decodeStream(dec, math.MaxInt, Excerpt)
	if synErr == nil {
		synErr = atEOF(dec)
	}
	switch {
	case synErr != nil:
		return nil, fmt.Errorf("lookupResult is not JSON (%v): %s", &notJSONError{synErr}, Excerpt(raw))
	case err != nil:
		return nil, err
	case lr == nil:
		return nil, fmt.Errorf("lookupResult is not an object: %s", Excerpt(raw))
	}
	return lr, nil
}

// do sends one request and passes the body of a 2xx response to read,
// which reads it within the request's time. An error of the body itself,
// whatever read makes of it, is do's to say: one over MaxResponseBytes or
// not UTF-8 is a *ProtocolError, one the transport gave is classified by
// transportError. The body of any other status is read whole into a
// *StatusError.
func (c *Client) do(ctx context.Context, method string, u *url.URL, payload []byte, read func(*bodyReader) error) error {
	where := method + " " + redact(u)
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	for name, values := range c.Header {
		if http.CanonicalHeaderKey(name) == "Host" && len(values) > 0 {
			req.Host = values[0]
			continue
		}
		req.Header[http.CanonicalHeaderKey(name)] = values
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return c.transportError(ctx, where, err)
	}
	defer resp.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	body, charsetErr := newBodyReader(resp, limit)
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if ok && charsetErr != nil {
		return &ProtocolError{where, charsetErr.Error()}
	}
	if ok {
		err = read(body)
	} else {
		var data []byte
		if data, err = io.ReadAll(body); err == nil {
			return &StatusError{URL: where, StatusCode: resp.StatusCode, Message: c.errorMessage(data)}
		}
	}
	var nu *notUTF8Error
	switch {
	case body.err == nil:
		return err
	case errors.Is(body.err, errTooLarge):
		return &ProtocolError{where, fmt.Sprintf("response larger than %d bytes", limit)}
	case errors.As(body.err, &nu):
		return &ProtocolError{where, nu.Error()}
	}
	return c.transportError(ctx, where, body.err)
}

// redact returns err with the values of Secrets replaced by ${NAME} in its
// message. The error it wraps stays reachable for errors.As, which the
// Transient, Unreachable and NoEndpoint questions need. The server's text
// in a *StatusError or *ProtocolError it wraps, made by this call, is
// scrubbed too, then cut to one line of answerMsgLen characters, whatever
// the server sent.
func (c *Client) redact(err error) error {
	if err == nil {
		return nil
	}
	if se := (*StatusError)(nil); errors.As(err, &se) {
		se.Message = clip(c.scrub(se.Message), answerMsgLen)
	}
	if pe := (*ProtocolError)(nil); errors.As(err, &pe) {
		pe.Msg = clip(c.scrub(pe.Msg), answerMsgLen)
	}
	if c.Secrets.Len() == 0 {
		return err
	}
	return c.Secrets.Redact(err)
}

// scrubStrings replaces the secrets in every string reachable from v
// through structs, pointers and slices. The types of package contract
// have no maps.
func scrubStrings(v reflect.Value, s *secret.Set) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			scrubStrings(v.Elem(), s)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				scrubStrings(v.Field(i), s)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			scrubStrings(v.Index(i), s)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(s.Scrub(v.String()))
		}
	}
}

// transportError classifies an error that left no complete response.
func (c *Client) transportError(ctx context.Context, where string, err error) error {
	return TransportError(ctx, where, c.Timeout, err)
}

// TransportError classifies err, from a call to where (method and URL
// without credentials) that left no complete response, ctx being the
// call's context and timeout its own bound (0 none): a *TimeoutError when
// the deadline passed or the network timed out, the context's error when
// it was cancelled, else an *UnreachableError. The mapped pipeline shares
// it.
func TransportError(ctx context.Context, where string, timeout time.Duration, err error) error {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err // its message repeats the URL, credentials aside
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &TimeoutError{URL: where, Timeout: timeout}
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", where, ctx.Err())
	}
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{URL: where}
	}
	if re := (*RedirectError)(nil); errors.As(err, &re) {
		return fmt.Errorf("%s: %w", where, re)
	}
	return &UnreachableError{URL: where, Err: err}
}

// errorMessage returns the message of an {"error": …} body, else an
// excerpt of the body. The secrets are replaced in the body as sent, and
// in the message once decoded from its JSON, before the cut: the message
// is cut to one line of answerMsgLen characters, the most the handler
// sends, and the excerpt to bodyExcerptLen.
func (c *Client) errorMessage(body []byte) string {
	body = []byte(c.scrub(string(body)))
	var e errorResponse
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return clip(strings.Join(strings.Fields(c.scrub(e.Error)), " "), answerMsgLen)
	}
	return Excerpt(body)
}

// scrub replaces the Secrets in s.
func (c *Client) scrub(s string) string { return c.Secrets.Scrub(s) }

// excerpt is the Excerpt of b with the Secrets replaced first: replaced
// after the cut, a secret the cut split would keep its start.
func (c *Client) excerpt(b []byte) string {
	if c.Secrets.Len() == 0 {
		return Excerpt(b)
	}
	return Excerpt([]byte(c.Secrets.Scrub(string(b))))
}

// Excerpt returns the start of b as an error message quotes a body: one
// line of valid UTF-8, cut after 200 characters. A caller replaces the
// secrets in b first. Replaced after the cut, a secret the cut split would
// keep its start.
func Excerpt(b []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	return diag.Clip(s, bodyExcerptLen, diag.Chars)
}

// DefaultClient is the HTTP client of the external pipelines (http and
// mapped): the default transport's connection pooling with more idle
// connections per host, since a snapshot calls one host concurrently, and
// redirects followed only within the host first called (at most 10): Go
// forwards headers such as X-Api-Key to any host a redirect names, and the
// headers a user configures carry tokens. A redirect elsewhere fails the
// call with a *RedirectError, which is not transient.
var DefaultClient = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t, CheckRedirect: sameHostRedirect}
}()

func sameHostRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return &RedirectError{From: first.Host, To: req.URL.Host}
	}
	return nil
}

// RedirectError is a redirect to another host (or scheme) than the one
// called, refused so that the configured headers do not follow it.
type RedirectError struct{ From, To string }

func (e *RedirectError) Error() string {
	return fmt.Sprintf("redirect from %s to %s refused: the configured headers are sent to the host called only (set the URL the redirect names)", e.From, e.To)
}
