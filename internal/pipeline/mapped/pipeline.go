package mapped

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/sync/semaphore"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/secret"
)

// DefaultMaxResponseBytes bounds a response body.
const DefaultMaxResponseBytes = 64 << 20

// DefaultMaxDecodedBytes bounds what the decoded answers take, all
// lookups in flight together (Options.MaxDecodedBytes).
const DefaultMaxDecodedBytes = 256 << 20

// Options are what a pipeline needs besides its config.
type Options struct {
	// Embedder embeds the query, as a kb.Query, when the config says
	// embedQuery. It is not used otherwise.
	Embedder kb.Embedder
	// HTTPClient sends the requests. Nil means lookuphttp.DefaultClient:
	// pooled connections, redirects within the host called only, and no
	// overall timeout, since Timeout bounds each call.
	HTTPClient *http.Client
	// Timeout bounds each HTTP call, on top of the caller's context. 0
	// means none.
	Timeout time.Duration
	// LookupEnv reads the environment for ${NAME}. Nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// MaxResponseBytes bounds a response body. 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxDecodedBytes bounds the memory the decoded answers take, as the
	// decoder reckons it, all lookups in flight together: a lookup waits
	// for the memory of the others' answers, and an answer that alone
	// would take more is refused. 0 means DefaultMaxDecodedBytes.
	MaxDecodedBytes int64
	// MaxJQTime bounds each evaluation of a jq program. 0 means
	// DefaultMaxJQTime, or half of Timeout when that is shorter, so that
	// an endless program is stopped as such before the lookup's own
	// deadline.
	MaxJQTime time.Duration
	// MaxJQMemory stops an evaluation of a jq program during which the
	// process's heap grows by more. 0 means DefaultMaxJQMemory.
	MaxJQMemory int64
}

// Pipeline runs lookups through the HTTP API a Config describes. It
// implements pipeline.Lookuper and pipeline.HealthChecker, whose Health
// runs the setup steps. It is safe for concurrent use.
type Pipeline struct {
	cfg        *Config
	opt        Options
	thresholds builtin.Thresholds
	warnings   []error
	// secrets are every value read from the environment, replaced in
	// messages. credentials are those of them that are credentials,
	// replaced in the text of results too (template.resolve).
	secrets     secret.Set
	credentials secret.Set

	headers []resolvedHeader
	setup   []resolvedCall
	request resolvedCall

	jq       jqLimits
	decoding *semaphore.Weighted // the bytes decoded answers may take

	mu   sync.Mutex
	vars map[string]any // the setup values, once the setup ran
}

var _ pipeline.Lookuper = (*Pipeline)(nil)

type resolvedHeader struct {
	name  string
	value string
}

type resolvedCall struct {
	c       *call
	url     *resolved
	headers []resolvedHeader
}

// New builds the pipeline: it reads the environment variables the config
// refers to (an unset one without a default is an error naming the file,
// line and field) and resolves the thresholds. Nothing is sent yet.
func New(cfg *Config, opt Options) (*Pipeline, error) {
	if cfg.EmbedQuery && opt.Embedder == nil {
		return nil, fmt.Errorf("%s: embedQuery is true but no embedder was given", cfg.File)
	}
	if opt.LookupEnv == nil {
		opt.LookupEnv = os.LookupEnv
	}
	if opt.MaxResponseBytes <= 0 {
		opt.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opt.HTTPClient == nil {
		opt.HTTPClient = lookuphttp.DefaultClient
	}
	if opt.MaxDecodedBytes <= 0 {
		opt.MaxDecodedBytes = DefaultMaxDecodedBytes
	}
	if opt.MaxJQTime <= 0 {
		opt.MaxJQTime = DefaultMaxJQTime
		if opt.Timeout > 0 {
			opt.MaxJQTime = min(opt.MaxJQTime, opt.Timeout/2)
		}
	}
	if opt.MaxJQMemory <= 0 {
		opt.MaxJQMemory = DefaultMaxJQMemory
	}
	p := &Pipeline{cfg: cfg, opt: opt, jq: jqLimits{time: opt.MaxJQTime, memory: opt.MaxJQMemory},
		decoding: semaphore.NewWeighted(opt.MaxDecodedBytes)}
	resolveT := func(t *template) (*resolved, error) {
		r, err := t.resolve(opt.LookupEnv, &p.secrets, &p.credentials)
		if err != nil {
			return nil, &diag.Error{File: cfg.File, Line: t.line, Where: t.field, Msg: err.Error()}
		}
		return r, nil
	}
	resolveH := func(hs []header) ([]resolvedHeader, error) {
		var out []resolvedHeader
		for _, h := range hs {
			r, err := resolveT(h.value)
			if err != nil {
				return nil, err
			}
			v := r.expand(nil, false)
			if !httpguts.ValidHeaderFieldValue(v) {
				// Sent, it would fail every call as if the service were
				// unreachable.
				return nil, &diag.Error{File: cfg.File, Line: h.value.line, Where: h.value.field,
					Msg: "the value holds a control character (a newline?) once its ${…} references are expanded"}
			}
			out = append(out, resolvedHeader{h.name, v})
		}
		return out, nil
	}
	resolveC := func(c *call) (resolvedCall, error) {
		u, err := resolveT(c.URL)
		if err != nil {
			return resolvedCall{}, err
		}
		hs, err := resolveH(c.Headers)
		if err != nil {
			return resolvedCall{}, err
		}
		return resolvedCall{c: c, url: u, headers: hs}, nil
	}
	var err error
	if p.headers, err = resolveH(cfg.Headers); err != nil {
		return nil, err
	}
	for _, s := range cfg.Setup {
		rc, err := resolveC(&s.call)
		if err != nil {
			return nil, err
		}
		p.setup = append(p.setup, rc)
	}
	if p.request, err = resolveC(cfg.Request); err != nil {
		return nil, err
	}

	switch {
	case cfg.Score.Quality == QualityNone:
	case cfg.Thresholds != nil:
		p.thresholds = *cfg.Thresholds
	case cfg.ThresholdsFromEmbedder:
		t, ok := builtin.ThresholdsFor(opt.Embedder.Name())
		p.thresholds = t
		if !ok {
			p.warnings = append(p.warnings, fmt.Errorf("%s: thresholds: embedder %s is not calibrated: using lowQuality %g, minQuality %g, levels high %g / medium %g; run rag-eval calibrate on the fixtures and declare them",
				cfg.File, opt.Embedder.Name(), t.LowQuality, t.MinQuality, t.Levels.High, t.Levels.Medium))
		}
	default:
		t := builtin.UncalibratedThresholds
		p.thresholds = t
		p.warnings = append(p.warnings, fmt.Errorf("%s: no thresholds declared: using lowQuality %g, minQuality %g, levels high %g / medium %g; run rag-eval calibrate on the fixtures and declare them",
			cfg.File, t.LowQuality, t.MinQuality, t.Levels.High, t.Levels.Medium))
	}
	return p, nil
}

// Warnings are what does not stop lookups but should be said (thresholds
// that are not calibrated).
func (p *Pipeline) Warnings() []error { return p.warnings }

// Describe says what produces the results: name "mapped", version the
// config's name and version, store the config's store or the request URL
// as written in the config (never expanded), the embedder when the query
// is embedded, the thresholds as params, and the declared search mode and
// capabilities.
func (p *Pipeline) Describe() contract.Pipeline {
	c := p.cfg
	d := contract.Pipeline{
		Name:       DefaultName,
		Version:    strings.TrimSpace(c.Name + " " + c.Version),
		Store:      c.Store,
		SearchMode: c.SearchMode,
		Params: &contract.PipelineParams{
			TopK:       c.TopK,
			CandidateK: c.TopK,
			LowQuality: contract.Float6(p.thresholds.LowQuality),
			MinQuality: contract.Float6(p.thresholds.MinQuality),
			Levels:     contract.Levels{High: contract.Float6(p.thresholds.Levels.High), Medium: contract.Float6(p.thresholds.Levels.Medium)},
		},
		Capabilities: append([]string{}, c.Capabilities...),
	}
	if d.Store == "" {
		d.Store = c.Request.URL.shown()
	}
	if c.EmbedQuery {
		d.Embedder, d.Dim = p.opt.Embedder.Name(), p.opt.Embedder.Dim()
	}
	return d
}

// Health runs the setup steps, once: rag-snapshot calls it (with its
// retries) before the first lookup, so an unreachable service or a missing
// collection is reported before any case runs. Without setup steps it
// does nothing.
func (p *Pipeline) Health(ctx context.Context) error {
	_, err := p.setupVars(ctx)
	return p.secrets.Redact(err)
}

// setupVars returns the setup values, running the steps the first time
// (and again after a failure).
func (p *Pipeline) setupVars(ctx context.Context) (map[string]any, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.vars != nil {
		return p.vars, nil
	}
	vars := map[string]any{}
	for i, s := range p.cfg.Setup {
		resp, release, err := p.do(ctx, &p.setup[i], nil, vars)
		if err != nil {
			return nil, &SetupError{msg: fmt.Sprintf("%s: %s (%s): %v", p.cfg.File, s.field, s.Name, err), err: err}
		}
		v, err := p.one(ctx, s.Value, resp, vars)
		release()
		if err == nil {
			err = s.check(v)
		}
		if err != nil {
			return nil, &SetupError{msg: fmt.Sprintf("%s: %v", p.cfg.File, err), err: err}
		}
		vars[s.Name] = v
	}
	p.vars = vars
	return vars, nil
}

// Lookup runs one lookup: the request is checked as the builtin pipeline
// checks it (builtin.ResolveRequest), the setup runs if it has not, the
// query is embedded when the config says so, the request is sent, the
// response checked and mapped to blocks, the scores turned into
// qualityScore and graded by the thresholds, and the blocks cut to topK.
func (p *Pipeline) Lookup(ctx context.Context, req pipeline.Request) (*contract.LookupResult, error) {
	lr, err := p.lookup(ctx, req)
	return lr, p.secrets.Redact(err)
}

func (p *Pipeline) lookup(ctx context.Context, req pipeline.Request) (*contract.LookupResult, error) {
	mode, topK, err := builtin.ResolveRequest(req, p.cfg.TopK)
	if err != nil {
		return nil, err
	}
	vars, err := p.setupVars(ctx)
	if err != nil {
		return nil, err
	}
	input := map[string]any{"query": req.Query, "topK": topK, "kbScope": req.KBScope, "searchMode": string(mode), "vector": nil}
	if p.cfg.EmbedQuery {
		emb := p.opt.Embedder
		vecs, err := emb.Embed(ctx, kb.Query, []string{req.Query})
		if err != nil {
			return nil, fmt.Errorf("embed query: %w", err)
		}
		if len(vecs) != 1 || len(vecs[0]) != emb.Dim() {
			return nil, fmt.Errorf("embed query: embedder %s returned %d vectors, want 1 of dimension %d", emb.Name(), len(vecs), emb.Dim())
		}
		vec := make([]any, len(vecs[0]))
		for i, x := range vecs[0] {
			vec[i] = float64(x)
		}
		input["vector"] = vec
	}
	env := make(map[string]any, len(vars)+1)
	for k, v := range vars {
		env[k] = v
	}
	env["request"] = input
	resp, release, err := p.do(ctx, &p.request, input, env)
	if err != nil {
		return nil, err
	}
	defer release()
	out, err := p.run(ctx, p.cfg.Blocks, resp, env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.cfg.File, err)
	}
	blocks, dropped, err := p.toBlocks(out, pipeline.MaxBlocks(topK))
	if err != nil {
		return nil, fmt.Errorf("%s: response.blocks: %w", p.cfg.File, err)
	}
	lr := p.result(blocks, topK)
	lr.DroppedBlocks = dropped
	return lr, nil
}

// result grades the blocks by the thresholds and builds the lookup result
// with the parts the config declares.
func (p *Pipeline) result(blocks []contract.EvidenceBlock, topK int) *contract.LookupResult {
	status := ""
	if p.cfg.Score.Quality != QualityNone {
		blocks, status = builtin.Grade(blocks, p.thresholds)
	}
	if len(blocks) > topK {
		blocks = blocks[:topK]
	}
	for i := range blocks {
		blocks[i].Rank = i + 1
		blocks[i].HasRank = true
		if blocks[i].HasQuality {
			blocks[i].Has |= contract.BlockHasRelevanceLevel
		}
	}
	// Partial: what the mapping did not give stays absent in the fixture.
	lr := &contract.LookupResult{
		Found:          len(blocks) > 0,
		EvidenceBlocks: blocks,
		Has:            contract.HasFound | contract.HasEvidenceBlocks,
		Partial:        true,
	}
	if contains(p.cfg.Capabilities, contract.CapEvidenceStatus) {
		lr.EvidenceStatus = status
		lr.Has |= contract.HasEvidenceStatus
	}
	return lr
}

// do makes one call and returns the decoded JSON of its 2xx response,
// with the function to call once the caller is done with it, which gives
// the memory it takes back to the other lookups (Options.MaxDecodedBytes).
// input is the request input object, nil for a setup step, and env the jq
// variables.
func (p *Pipeline) do(ctx context.Context, rc *resolvedCall, input any, env map[string]any) (any, func(), error) {
	c := rc.c
	where := c.where()
	values := map[string]string{}
	if in, ok := input.(map[string]any); ok {
		for k, v := range in {
			if s, ok := scalarString(v); ok {
				values[k] = s
			}
		}
	}
	for k, v := range env {
		if s, ok := scalarString(v); ok {
			values[k] = s
		}
	}
	u := rc.url.expand(values, true)
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return nil, nil, fmt.Errorf("%s: %s.url is not an http(s) URL once expanded", where, c.field)
	}
	if len(c.Params) > 0 {
		q := parsed.Query()
		for _, pm := range c.Params {
			v, err := p.one(ctx, pm.prog, input, env)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", where, err)
			}
			if v == nil {
				continue
			}
			s, ok := scalarString(v)
			if !ok {
				return nil, nil, fmt.Errorf("%s: %s: want a string, number or boolean, got %s", where, pm.prog.field, typeOf(v))
			}
			q.Set(pm.name, s)
		}
		parsed.RawQuery = q.Encode()
	}
	var payload []byte
	if c.Body != nil {
		v, err := p.one(ctx, c.Body, input, env)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", where, err)
		}
		if payload, err = gojqMarshal(v); err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %v", where, c.Body.field, err)
		}
	}

	if p.opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.opt.Timeout)
		defer cancel()
	}
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	hreq, err := http.NewRequestWithContext(ctx, c.Method, parsed.String(), rd)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", where, err)
	}
	if payload != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	hreq.Header.Set("Accept", "application/json")
	for _, hs := range [][]resolvedHeader{p.headers, rc.headers} {
		for _, h := range hs {
			if http.CanonicalHeaderKey(h.name) == "Host" {
				hreq.Host = h.value // net/http ignores Header["Host"]
				continue
			}
			hreq.Header.Set(h.name, h.value)
		}
	}
	hresp, err := p.opt.HTTPClient.Do(hreq)
	if err != nil {
		return nil, nil, lookuphttp.TransportError(ctx, where, p.opt.Timeout, err)
	}
	defer hresp.Body.Close()
	body, err := readBody(hresp, p.opt.MaxResponseBytes)
	if err != nil {
		return nil, nil, lookuphttp.TransportError(ctx, where, p.opt.Timeout, err)
	}
	if int64(len(body)) > p.opt.MaxResponseBytes {
		return nil, nil, &lookuphttp.ProtocolError{URL: where, Msg: fmt.Sprintf("response larger than %d bytes", p.opt.MaxResponseBytes)}
	}
	text, terr := lookuphttp.Text(hresp.Header.Get("Content-Type"), body)
	ok := hresp.StatusCode >= 200 && hresp.StatusCode <= 299
	if terr != nil && ok {
		return nil, nil, &lookuphttp.ProtocolError{URL: where, Msg: terr.Error()}
	}
	if terr == nil {
		body = text
	}
	doc, release, jerr := p.decode(ctx, where, body)
	if !ok {
		msg := p.excerpt(body)
		if jerr == nil {
			if c.ErrorMessage != nil {
				if m, err := p.message(ctx, c.ErrorMessage, doc, env); err == nil && m != "" {
					msg = m
				}
			}
			release()
		}
		return nil, nil, &lookuphttp.StatusError{URL: where, StatusCode: hresp.StatusCode, Message: msg}
	}
	if jerr != nil {
		return nil, nil, jerr
	}
	if c.ErrorIf != nil {
		v, err := p.one(ctx, c.ErrorIf, doc, env)
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("%s: %w", where, err)
		}
		if truthy(v) {
			msg := p.excerpt(body)
			if c.ErrorMessage != nil {
				m, err := p.message(ctx, c.ErrorMessage, doc, env)
				if err != nil {
					release()
					return nil, nil, fmt.Errorf("%s: the service answered %d with an error (%s is true), and %w", where, hresp.StatusCode, c.ErrorIf.field, err)
				}
				msg = m
			}
			release()
			return nil, nil, &ServiceError{Where: where, Status: hresp.StatusCode, Message: msg}
		}
	}
	return doc, release, nil
}

// readBody reads at most max+1 bytes of r's body. A body of a known
// length is read into a buffer of that size, rather than one grown as it
// fills, which holds the old and the new buffer while it grows.
func readBody(r *http.Response, max int64) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= max {
		b := make([]byte, n)
		if _, err := io.ReadFull(r.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return io.ReadAll(io.LimitReader(r.Body, max+1))
}

// decode decodes a body for jq once the memory its values take is free
// (Options.MaxDecodedBytes), and returns the function that frees it. An
// answer that alone would take more than the limit is a protocol error,
// and so is a body that is not JSON.
func (p *Pipeline) decode(ctx context.Context, where string, body []byte) (any, func(), error) {
	s, err := scan(body)
	if err != nil {
		return nil, nil, &lookuphttp.ProtocolError{URL: where, Msg: fmt.Sprintf("response is not JSON (%v): %s", err, p.excerpt(body))}
	}
	if s.cost > p.opt.MaxDecodedBytes {
		return nil, nil, &lookuphttp.ProtocolError{URL: where, Msg: fmt.Sprintf(
			"response of %d bytes would take about %d MB decoded for jq, more than the %s the answers in flight may take together: ask the service for fewer or smaller results",
			len(body), (s.cost+500_000)/1_000_000, mib(p.opt.MaxDecodedBytes))}
	}
	if err := p.decoding.Acquire(ctx, s.cost); err != nil {
		return nil, nil, fmt.Errorf("%s: waiting for the memory to decode the response: %w", where, err)
	}
	var once sync.Once
	return build(body, s), func() { once.Do(func() { p.decoding.Release(s.cost) }) }, nil
}

// message evaluates an errorMessage program: a string as it is, anything
// else as compact JSON. The message is scrubbed of the secrets, then cut
// as lookuphttp cuts a decoded message (lookuphttp.Message), so a service
// that answers with megabytes of text writes a bounded error.
func (p *Pipeline) message(ctx context.Context, prog *program, doc any, env map[string]any) (string, error) {
	out, err := p.run(ctx, prog, doc, env)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(out))
	for _, v := range out {
		if s, ok := v.(string); ok {
			parts = append(parts, s)
			continue
		}
		s, err := compact(v)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return lookuphttp.Message(p.secrets.Scrub(oneLine(strings.Join(parts, "; ")))), nil
}

// SetupError is a setup step that failed. It answers the snapshot's
// questions itself rather than through the error it wraps. It is transient
// and unreachable as that error is, but never "no such endpoint", so a
// setup step answered 404 (a missing collection) stops the run at its
// health check instead of passing for a service without one. Err and
// Unwrap return the cause, so a cancelled or expired context shows through
// errors.Is.
type SetupError struct {
	msg string
	err error
}

func (e *SetupError) Error() string { return e.msg }

// Err is the step's error.
func (e *SetupError) Err() error        { return e.err }
func (e *SetupError) Unwrap() error     { return e.err }
func (e *SetupError) Transient() bool   { return pipeline.Transient(e.err) }
func (e *SetupError) Unreachable() bool { return unreachable(e.err) }
func (e *SetupError) NoEndpoint() bool  { return false }

// unreachable reports whether err says no response came back.
func unreachable(err error) bool {
	var u interface{ Unreachable() bool }
	return errors.As(err, &u) && u.Unreachable()
}

// ServiceError is a 2xx answer that the config's errorIf says is an error
// (GraphQL's errors array). It is not transient: the same request fails
// the same way.
type ServiceError struct {
	Where   string
	Status  int
	Message string
}

func (e *ServiceError) Error() string {
	return fmt.Sprintf("%s: the service answered %d with an error: %s", e.Where, e.Status, e.Message)
}

// scalarString formats a string, number or boolean for a URL.
func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int, float64:
		s, err := compact(x)
		return s, err == nil
	}
	if s, err := compact(v); err == nil && isNumberType(v) {
		return s, true
	}
	return "", false
}

// gojqMarshal encodes a jq value as JSON.
func gojqMarshal(v any) ([]byte, error) {
	s, err := compact(v)
	return []byte(s), err
}

// excerpt is excerpt of b with the secrets replaced first: replaced after
// the cut, a secret the cut split would keep its start.
func (p *Pipeline) excerpt(b []byte) string {
	if p.secrets.Len() == 0 {
		return lookuphttp.Excerpt(b)
	}
	return lookuphttp.Excerpt([]byte(p.secrets.Scrub(string(b))))
}

// run runs prog. When it fails, its message is made again from a copy of
// its input and variables with the secrets replaced: gojq quotes the value
// it failed on cut to 30 bytes, which could keep the start of a secret
// (a token the service echoed) that no later replacement recognises.
func (p *Pipeline) run(ctx context.Context, prog *program, input any, env map[string]any) ([]any, error) {
	out, err := prog.run(ctx, input, env, p.jq)
	var le *JQLimitError
	if err == nil || p.secrets.Len() == 0 || ctx.Err() != nil || errors.As(err, &le) {
		// A program stopped by a limit quotes nothing, and would take as
		// long again.
		return out, err
	}
	senv := make(map[string]any, len(env))
	for k, v := range env {
		senv[k] = p.scrubValue(v)
	}
	if _, err := prog.run(ctx, p.scrubValue(input), senv, p.jq); err != nil {
		return nil, err
	}
	// Without the secrets it does not fail: its message would quote one.
	return nil, fmt.Errorf("%s: jq: failed on a value holding a secret read from the environment (the message is withheld)", prog.field)
}

// one is run wanting exactly one value, as program.one.
func (p *Pipeline) one(ctx context.Context, prog *program, input any, env map[string]any) (any, error) {
	out, err := p.run(ctx, prog, input, env)
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, fmt.Errorf("%s: jq: want one result, got %d", prog.field, len(out))
	}
	return out[0], nil
}

// scrubValue returns a copy of the jq value v with the secrets replaced
// in every string and object key.
func (p *Pipeline) scrubValue(v any) any {
	switch x := v.(type) {
	case string:
		return p.secrets.Scrub(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = p.scrubValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[p.secrets.Scrub(k)] = p.scrubValue(e)
		}
		return out
	}
	return v
}

// oneLine is s on one line of valid UTF-8, its runs of white space one
// space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}
