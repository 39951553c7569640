package lookuphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/lookup"
)

// PipelineName is the name Client.Describe gives the pipelines it calls.
const PipelineName = "http"

// DefaultMaxResponseBytes bounds a response body read by Client.
const DefaultMaxResponseBytes = 64 << 20

// bodyExcerptLen is how much of an unexpected response body an error quotes.
const bodyExcerptLen = 200

// Client calls a pipeline served by NewHandler (or anything speaking the
// same JSON). It implements lookup.Lookuper and is safe for concurrent use.
//
// User info in BaseURL is sent as HTTP basic authentication, but never
// appears in Describe or in an error; nor do the query string or fragment.
//
// Client sends each call once; retrying is the caller's (internal/snapshot
// retries an error whose Transient method says true). Its errors: an
// *UnreachableError (no response: refused, reset or dropped connection) and
// a *TimeoutError are transient; a *StatusError is transient for 502, 503,
// 504 and 429 only, so a 500 (the lookup failed) or a 4xx (the request is
// wrong) fails at once; a *ProtocolError (a 2xx that is not the lookup
// JSON) is not transient. The caller needs none of these types: it asks
// the methods (Transient, Unreachable, NoEndpoint) through interfaces of
// its own.
type Client struct {
	// BaseURL is the server's root, e.g. http://127.0.0.1:8080; a URL
	// ending in /v1/lookup is accepted too.
	BaseURL string
	// HTTPClient sends the requests; nil means a client with the default
	// transport and no overall timeout (Timeout bounds each request).
	HTTPClient *http.Client
	// Timeout bounds each request, on top of the caller's context; 0 means
	// none.
	Timeout time.Duration
	// MaxResponseBytes bounds a response body; 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64

	mu     sync.Mutex
	remote *contract.Pipeline // from the last successful Health
}

var _ lookup.Lookuper = (*Client)(nil)

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

// TimeoutError is a request that got no complete response in time (the
// client's Timeout or the caller's deadline). It wraps
// context.DeadlineExceeded and is transient.
type TimeoutError struct {
	URL     string
	Timeout time.Duration // the client's Timeout; 0 when it has none
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
// embedder, dimension and parameters are those the server reported.
func (c *Client) Describe() contract.Pipeline {
	p := contract.Pipeline{Name: PipelineName, Store: c.RedactedURL()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.remote; r != nil {
		p.Version = strings.TrimSpace(r.Name + " " + r.Version)
		p.Embedder, p.Dim, p.Params = r.Embedder, r.Dim, r.Params
	}
	return p
}

// Health calls GET /healthz. A server answering 2xx is healthy; the
// pipeline it describes, if any, is used by Describe.
func (c *Client) Health(ctx context.Context) error {
	u, err := c.endpoint(HealthPath)
	if err != nil {
		return err
	}
	body, err := c.do(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	var h healthResponse
	if json.Unmarshal(body, &h) == nil && h.Pipeline != nil {
		c.mu.Lock()
		c.remote = h.Pipeline
		c.mu.Unlock()
	}
	return nil
}

// Lookup posts req to /v1/lookup and decodes the lookupResult. The result
// must have found, evidenceStatus and evidenceBlocks; other absent fields
// are left zero, and unknown fields are dropped.
func (c *Client) Lookup(ctx context.Context, req lookup.Request) (*contract.LookupResult, error) {
	u, err := c.endpoint(LookupPath)
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	body, err := c.do(ctx, http.MethodPost, u, payload)
	if err != nil {
		return nil, err
	}
	where := "POST " + redact(u)
	var resp struct {
		LookupResult json.RawMessage `json:"lookupResult"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, &ProtocolError{where, fmt.Sprintf("response is not JSON (%v): %s", err, excerpt(body))}
	}
	if len(resp.LookupResult) == 0 || string(resp.LookupResult) == "null" {
		return nil, &ProtocolError{where, "response has no lookupResult: " + excerpt(body)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(resp.LookupResult, &fields); err != nil {
		return nil, &ProtocolError{where, "lookupResult is not an object: " + excerpt(resp.LookupResult)}
	}
	for _, k := range []string{"found", "evidenceStatus", "evidenceBlocks"} {
		if _, ok := fields[k]; !ok {
			return nil, &ProtocolError{where, "lookupResult has no " + k}
		}
	}
	var lr contract.LookupResult
	if err := json.Unmarshal(resp.LookupResult, &lr); err != nil {
		return nil, &ProtocolError{where, "invalid lookupResult: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	return &lr, nil
}

// do sends one request and returns the body of a 2xx response.
func (c *Client) do(ctx context.Context, method string, u *url.URL, payload []byte) ([]byte, error) {
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
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	hc := c.HTTPClient
	if hc == nil {
		hc = defaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, where, err)
	}
	defer resp.Body.Close()
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, c.transportError(ctx, where, err)
	}
	if int64(len(body)) > limit {
		return nil, &ProtocolError{where, fmt.Sprintf("response larger than %d bytes", limit)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &StatusError{URL: where, StatusCode: resp.StatusCode, Message: errorMessage(body)}
	}
	return body, nil
}

// transportError classifies an error that left no complete response.
func (c *Client) transportError(ctx context.Context, where string, err error) error {
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err // its message repeats the URL, credentials aside
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &TimeoutError{URL: where, Timeout: c.Timeout}
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", where, ctx.Err())
	}
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{URL: where}
	}
	return &UnreachableError{URL: where, Err: err}
}

// errorMessage returns the message of an {"error": …} body, else an
// excerpt of the body.
func errorMessage(body []byte) string {
	var e errorResponse
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	return excerpt(body)
}

// excerpt returns the start of b as one line of valid UTF-8.
func excerpt(b []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if utf8.RuneCountInString(s) <= bodyExcerptLen {
		return s
	}
	r := []rune(s)
	return string(r[:bodyExcerptLen]) + "…"
}

// defaultClient has the default transport's connection pooling with more
// idle connections per host, since a snapshot calls one host concurrently.
var defaultClient = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t}
}()
