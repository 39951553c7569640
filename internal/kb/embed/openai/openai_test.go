package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/cache/sqlitecache"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

const testKey = "sk-test-9f8e7d6c5b4a-SECRET"

// newTestEmbedder returns an embedder for srv with instant, recorded
// sleeps and a fixed jitter draw of 0.5.
func newTestEmbedder(t *testing.T, srv *fakeServer, opts Options) (*Embedder, *recorder) {
	t.Helper()
	rec := &recorder{}
	if opts.BaseURL == "" {
		opts.BaseURL = srv.baseURL()
	}
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	if opts.Model == "" {
		opts.Model = "text-embedding-3-small"
	}
	if opts.Sleep == nil {
		opts.Sleep = rec.sleep
	}
	if opts.Rand == nil {
		opts.Rand = func() float64 { return 0.5 }
	}
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e, rec
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("text number %d 连接池 %d", i, i*i)
	}
	return out
}

func TestBatchingOrderAndEncodings(t *testing.T) {
	for _, format := range []string{"", EncodingFloat, EncodingBase64} {
		t.Run("format="+format, func(t *testing.T) {
			srv := newFakeServer(t, testKey, 1536)
			srv.reverse = true // data out of order: the client must use "index"
			e, _ := newTestEmbedder(t, srv, Options{Dim: 256, BatchSize: 64, EncodingFormat: format})
			in := texts(150)
			got, err := e.Embed(context.Background(), "", in)
			if err != nil {
				t.Fatal(err)
			}
			if err := embed.Check(e.Name(), 256, len(in), got); err != nil {
				t.Fatal(err)
			}
			for i, text := range in {
				if !bitsEqual(got[i], wantVector(text, 256)) {
					t.Fatalf("vector %d is not the (normalised) vector of its text", i)
				}
			}
			reqs := srv.recorded()
			if len(reqs) != 3 { // ceil(150/64)
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			var sizes []int
			for _, r := range reqs {
				sizes = append(sizes, len(r.Input))
				if r.Model != "text-embedding-3-small" || r.Dimensions == nil || *r.Dimensions != 256 {
					t.Errorf("request model %q dimensions %v, want text-embedding-3-small, 256", r.Model, r.Dimensions)
				}
				if format == "" && r.EncodingFormat != nil {
					t.Errorf("encoding_format %q sent, want none", *r.EncodingFormat)
				}
				if format != "" && (r.EncodingFormat == nil || *r.EncodingFormat != format) {
					t.Errorf("encoding_format %v, want %s", r.EncodingFormat, format)
				}
				if r.Auth != "Bearer "+testKey {
					t.Errorf("Authorization %q, want the Bearer key", r.Auth)
				}
			}
			slices.Sort(sizes)
			if !reflect.DeepEqual(sizes, []int{22, 64, 64}) {
				t.Errorf("batch sizes %v, want [22 64 64]", sizes)
			}
			s := e.Stats()
			if s.Requests != 3 {
				t.Errorf("stats: %d requests, want 3", s.Requests)
			}
			if s.Retries != 0 {
				t.Errorf("stats: %d retries, want 0", s.Retries)
			}
			if s.Texts != 150 {
				t.Errorf("stats: %d texts, want 150", s.Texts)
			}
			if s.PromptTokens == 0 {
				t.Error("stats: no prompt tokens, want the server's usage")
			}
		})
	}
}

func TestBatchCountSequential(t *testing.T) {
	for _, tc := range []struct{ n, batch, want int }{{1, 64, 1}, {64, 64, 1}, {65, 64, 2}, {10, 3, 4}, {200, 1, 200}} {
		srv := newFakeServer(t, testKey, 8)
		e, _ := newTestEmbedder(t, srv, Options{Model: "bge-small", Dim: 8, BatchSize: tc.batch, Concurrency: 1})
		in := texts(tc.n)
		got, err := e.Embed(context.Background(), "", in)
		if err != nil {
			t.Fatal(err)
		}
		reqs := srv.recorded()
		if len(reqs) != tc.want {
			t.Errorf("%d texts, batch %d: %d requests, want %d", tc.n, tc.batch, len(reqs), tc.want)
		}
		// Sequential: the requests carry the texts in order.
		var sent []string
		for _, r := range reqs {
			sent = append(sent, r.Input...)
		}
		if !reflect.DeepEqual(sent, in) {
			t.Errorf("texts sent out of order or incomplete")
		}
		for i := range in {
			if !bitsEqual(got[i], wantVector(in[i], 8)) {
				t.Fatalf("vector %d wrong", i)
			}
		}
	}
}

func TestDimensionsParam(t *testing.T) {
	for _, tc := range []struct {
		model string
		mode  DimensionsMode
		send  bool
	}{
		{"text-embedding-3-small", "", true},
		{"openai/text-embedding-3-large", DimensionsAuto, true},
		{"text-embedding-3-small", DimensionsNever, false},
		{"bge-m3", DimensionsAuto, false},
		{"jina-matryoshka", DimensionsAlways, true},
		{"text-embedding-ada-002", DimensionsAuto, false},
	} {
		t.Run(tc.model+"/"+string(tc.mode), func(t *testing.T) {
			srv := newFakeServer(t, testKey, 64)
			e, _ := newTestEmbedder(t, srv, Options{Model: tc.model, Dim: 64, Dimensions: tc.mode})
			if e.SendsDimensions() != tc.send {
				t.Errorf("SendsDimensions = %v, want %v", e.SendsDimensions(), tc.send)
			}
			if _, err := e.Embed(context.Background(), "", []string{"hello"}); err != nil {
				t.Fatal(err)
			}
			r := srv.recorded()[0]
			if (r.Dimensions != nil) != tc.send || (tc.send && *r.Dimensions != 64) {
				t.Errorf("dimensions sent: %v, want sent=%v", r.Dimensions, tc.send)
			}
		})
	}
}

func TestDimensionMismatch(t *testing.T) {
	srv := newFakeServer(t, testKey, 768) // the server's model gives 768
	e, _ := newTestEmbedder(t, srv, Options{Model: "bge-base", Dim: 1024})
	_, err := e.Embed(context.Background(), "", []string{"a", "b"})
	var de *embed.DimensionError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T), want *embed.DimensionError", err, err)
	}
	if de.Model != "openai:bge-base" {
		t.Errorf("DimensionError.Model = %q, want openai:bge-base", de.Model)
	}
	if de.Want != 1024 {
		t.Errorf("DimensionError.Want = %d, want 1024", de.Want)
	}
	if de.Got != 768 {
		t.Errorf("DimensionError.Got = %d, want 768", de.Got)
	}
	for _, want := range []string{"openai:bge-base", "1024", "768", "RAG_EMBED_DIM"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if n := len(srv.recorded()); n != 1 {
		t.Errorf("%d requests, want 1 (a wrong dimension is not retried)", n)
	}

	// Asking for dimensions the server does not honour is caught the same way.
	srv2 := newFakeServer(t, testKey, 1536)
	srv2.wrongDim = 1536
	e2, _ := newTestEmbedder(t, srv2, Options{Model: "text-embedding-3-small", Dim: 512})
	if _, err := e2.Embed(context.Background(), "", []string{"a"}); !errors.As(err, &de) {
		t.Errorf("server ignoring dimensions: %v, want *embed.DimensionError", err)
	} else {
		if de.Got != 1536 {
			t.Errorf("server ignoring dimensions: DimensionError.Got = %d, want 1536", de.Got)
		}
		if de.Want != 512 {
			t.Errorf("server ignoring dimensions: DimensionError.Want = %d, want 512", de.Want)
		}
	}
}

func Test429ThenSuccess(t *testing.T) {
	srv := newFakeServer(t, testKey, 16)
	srv.hook = func(n int, w http.ResponseWriter, _ recordedRequest) bool {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "2")
			writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests")
			return true
		case 2:
			writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests")
			return true
		}
		return false
	}
	e, rec := newTestEmbedder(t, srv, Options{Model: "m", Dim: 16, InitialBackoff: 100 * time.Millisecond, MaxBackoff: 10 * time.Second})
	got, err := e.Embed(context.Background(), "", []string{"hello", "world"})
	if err != nil {
		t.Fatalf("Embed after two 429s: %v", err)
	}
	if !bitsEqual(got[1], wantVector("world", 16)) {
		t.Error("wrong vector after retries")
	}
	if s := e.Stats(); s.Requests != 3 || s.Retries != 2 {
		t.Errorf("stats %+v, want 3 requests, 2 retries", s)
	}
	// The first wait honours Retry-After, 2 s. The second is the backoff of
	// retry 2: 200 ms drawn from [100, 200) with jitter 0.5 = 150 ms.
	if w := rec.got(); !reflect.DeepEqual(w, []time.Duration{2 * time.Second, 150 * time.Millisecond}) {
		t.Errorf("waits %v, want [2s 150ms]", w)
	}
}

func Test5xxExhaustsRetries(t *testing.T) {
	srv := newFakeServer(t, testKey, 16)
	srv.hook = func(n int, w http.ResponseWriter, _ recordedRequest) bool {
		if n%2 == 0 {
			w.WriteHeader(http.StatusBadGateway) // a proxy's empty 502
			return true
		}
		writeError(w, http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request.")
		return true
	}
	e, rec := newTestEmbedder(t, srv, Options{Model: "m", Dim: 16, MaxRetries: 3, InitialBackoff: 100 * time.Millisecond, Rand: func() float64 { return 0 }})
	_, err := e.Embed(context.Background(), "", []string{"hello"})
	var oe *Error
	if !errors.As(err, &oe) {
		t.Fatalf("error %v (%T), want *Error", err, err)
	}
	checkError(t, oe, http.StatusBadGateway, 4, true)
	for _, want := range []string{"gave up after 4 attempts", "openai:m", srv.URL} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := len(srv.recorded()); n != 4 {
		t.Errorf("%d requests, want 4 (1 + MaxRetries 3)", n)
	}
	// Exponential: 100, 200, 400 ms, each drawn at the bottom of [d/2, d).
	if w := rec.got(); !reflect.DeepEqual(w, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}) {
		t.Errorf("waits %v", w)
	}
}

func TestBackoffCapped(t *testing.T) {
	e, err := New(Options{Model: "m", Dim: 4, InitialBackoff: time.Second, MaxBackoff: 5 * time.Second, Rand: func() float64 { return 0.999 }})
	if err != nil {
		t.Fatal(err)
	}
	for attempt, want := range []time.Duration{999500 * time.Microsecond, 1999 * time.Millisecond, 3998 * time.Millisecond, 4997500 * time.Microsecond, 4997500 * time.Microsecond} {
		if got := e.backoff(attempt, 0); got.Round(time.Microsecond) != want {
			t.Errorf("backoff(%d) = %v, want %v", attempt, got, want)
		}
	}
	if got := e.backoff(0, time.Hour); got != 5*time.Second {
		t.Errorf("a Retry-After of 1h waits %v, want MaxBackoff 5s", got)
	}
}

func Test400NotRetried(t *testing.T) {
	srv := newFakeServer(t, testKey, 16)
	// bge does not take "dimensions": the server answers 400.
	e, rec := newTestEmbedder(t, srv, Options{Model: "bge", Dim: 16, Dimensions: DimensionsAlways})
	_, err := e.Embed(context.Background(), "", []string{"hello"})
	var oe *Error
	if !errors.As(err, &oe) {
		t.Fatalf("error %#v, want *Error", err)
	}
	checkError(t, oe, 400, 1, false)
	if t.Failed() {
		t.FailNow()
	}
	for _, want := range []string{"does not support specifying dimensions", "not retried"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q: it does not carry the server's message", err, want)
		}
	}
	if n := len(srv.recorded()); n != 1 || len(rec.got()) != 0 {
		t.Errorf("%d requests, %d waits; want 1, 0", n, len(rec.got()))
	}
}

func TestTimeout(t *testing.T) {
	srv := newFakeServer(t, testKey, 16)
	srv.delay = 5 * time.Second
	e, _ := newTestEmbedder(t, srv, Options{Model: "m", Dim: 16, Timeout: 50 * time.Millisecond, MaxRetries: 1})
	start := time.Now()
	_, err := e.Embed(context.Background(), "", []string{"hello"})
	if err == nil {
		t.Fatal("Embed against a server that does not answer succeeded")
	}
	for _, want := range []string{"timed out after 50ms", "2 attempts"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v; the per-request timeout is 50ms", d)
	}
	if n := len(srv.recorded()); n != 2 {
		t.Errorf("%d requests, want 2 (a timeout is retried)", n)
	}
}

func TestNetworkErrorRetried(t *testing.T) {
	srv := newFakeServer(t, testKey, 16)
	srv.Close() // nobody listens any more
	e, rec := newTestEmbedder(t, srv, Options{Model: "m", Dim: 16, MaxRetries: 2})
	_, err := e.Embed(context.Background(), "", []string{"hello"})
	var oe *Error
	if !errors.As(err, &oe) || oe.StatusCode != 0 || oe.Attempts != 3 {
		t.Fatalf("error %v, want a network error after 3 attempts", err)
	}
	if !strings.Contains(err.Error(), "refused") {
		t.Errorf("error %q does not say the connection was refused", err)
	}
	if len(rec.got()) != 2 {
		t.Errorf("waits %v, want 2", rec.got())
	}
}

func TestAPIKeyNeverShown(t *testing.T) {
	// The server rejects the key and echoes it back.
	srv := newFakeServer(t, "sk-the-right-one", 16)
	logs := &kbtest.SyncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e, _ := newTestEmbedder(t, srv, Options{Model: "m", Dim: 16, Logger: logger})
	_, err := e.Embed(context.Background(), "", []string{"hello"})
	if err == nil {
		t.Fatal("a wrong key was accepted")
	}
	if got := srv.recorded()[0].Auth; got != "Bearer "+testKey {
		t.Errorf("Authorization %q, want Bearer <key>", got)
	}
	if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), testKey) {
		t.Errorf("error shows the API key: %v", err)
	}
	if !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("error %q: want the 401 and the scrubbed server message", err)
	}

	// A 5xx echoing the key is logged on retry: the log is scrubbed too.
	srv2 := newFakeServer(t, testKey, 16)
	srv2.hook = func(n int, w http.ResponseWriter, r recordedRequest) bool {
		if n == 1 {
			writeError(w, 503, "server_error", "", "overloaded while serving "+strings.TrimPrefix(r.Auth, "Bearer "))
			return true
		}
		return false
	}
	e2, _ := newTestEmbedder(t, srv2, Options{Model: "m", Dim: 16, Logger: logger})
	if _, err := e2.Embed(context.Background(), "", []string{"hello"}); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if !strings.Contains(out, "retrying") {
		t.Errorf("no retry logged: %q", out)
	}
	if strings.Contains(out, testKey) {
		t.Errorf("log shows the API key: %s", out)
	}

	// A key in the base URL (some gateways take it as a query parameter or
	// user info) is not shown either.
	e3, err := New(Options{BaseURL: "http://user:" + testKey + "@127.0.0.1:1/v1", APIKey: testKey, Model: "m", Dim: 4, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e3.Embed(context.Background(), "", []string{"x"})
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("error %v shows the key or is nil", err)
	}
}

func TestBadResponses(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want string
	}{
		{"missing item", `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,0]}],"model":"m","usage":{}}`, "1 embeddings for 2 inputs"},
		{"repeated index", `{"object":"list","data":[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[0,1]}],"model":"m"}`, "index 0"},
		{"index out of range", `{"object":"list","data":[{"index":0,"embedding":[1,0]},{"index":5,"embedding":[0,1]}],"model":"m"}`, "index 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
			}))
			defer srv.Close()
			e, _ := newTestEmbedder(t, nil, Options{BaseURL: srv.URL + "/v1", Model: "m", Dim: 2})
			_, err := e.Embed(context.Background(), "", []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestEmptyTexts(t *testing.T) {
	srv := newFakeServer(t, testKey, 8)
	e, _ := newTestEmbedder(t, srv, Options{Model: "m", Dim: 8})
	out, err := e.Embed(context.Background(), "", nil)
	if err != nil || len(out) != 0 {
		t.Fatalf("Embed(nil) = %v, %v; want no vectors and no error", out, err)
	}
	if n := len(srv.recorded()); n != 0 {
		t.Fatalf("Embed(nil) sent %d requests, want 0", n)
	}
	out, err = e.Embed(context.Background(), "", []string{"", "a", ""})
	if err != nil {
		t.Fatal(err)
	}
	if r := srv.recorded(); len(r) != 1 || !reflect.DeepEqual(r[0].Input, []string{"a"}) {
		t.Errorf("requests %+v, want one with [a]", r)
	}
	for i, want := range [][]float32{make([]float32, 8), wantVector("a", 8), make([]float32, 8)} {
		if !bitsEqual(out[i], want) {
			t.Errorf("vector %d = %v, want %v", i, out[i], want)
		}
	}
}

func TestCanceled(t *testing.T) {
	srv := newFakeServer(t, testKey, 8)
	srv.delay = 5 * time.Second
	e, _ := newTestEmbedder(t, srv, Options{Model: "m", Dim: 8})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := e.Embed(ctx, "", []string{"a"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want the caller's deadline", err)
	}
	if n := len(srv.recorded()); n != 1 {
		t.Errorf("%d requests after the caller gave up, want 1", n)
	}
}

func TestFailureStopsOtherBatches(t *testing.T) {
	srv := newFakeServer(t, testKey, 8)
	srv.hook = func(n int, w http.ResponseWriter, _ recordedRequest) bool {
		if n == 1 {
			writeError(w, 400, "invalid_request_error", "", "bad batch")
			return true
		}
		return false
	}
	e, _ := newTestEmbedder(t, srv, Options{Model: "m", Dim: 8, BatchSize: 1, Concurrency: 1})
	if _, err := e.Embed(context.Background(), "", texts(50)); err == nil || !strings.Contains(err.Error(), "bad batch") {
		t.Fatalf("error %v", err)
	}
	if n := len(srv.recorded()); n != 1 {
		t.Errorf("%d requests, want 1: the run stops at the first failure", n)
	}
	if s := e.Stats(); s.Requests != 1 {
		t.Errorf("stats %+v, want 1 request (a batch drained after the failure is not sent)", s)
	}
}

func TestOptions(t *testing.T) {
	if _, err := New(Options{Dim: 8}); err == nil || !strings.Contains(err.Error(), "RAG_EMBED_MODEL") {
		t.Errorf("no model: %v", err)
	}
	if _, err := New(Options{Model: "bge-m3"}); err == nil || !strings.Contains(err.Error(), "RAG_EMBED_DIM") {
		t.Errorf("unknown model without a dimension: %v", err)
	}
	if _, err := New(Options{Model: "m", Dim: 8, BaseURL: "ftp://x"}); err == nil {
		t.Error("ftp base URL accepted")
	}
	if _, err := New(Options{Model: "m", Dim: 8, Dimensions: "sometimes"}); err == nil {
		t.Error("bad dimensions mode accepted")
	}
	if _, err := New(Options{Model: "m", Dim: 8, EncodingFormat: "int8"}); err == nil {
		t.Error("bad encoding accepted")
	}
	e, err := New(Options{Model: "text-embedding-3-large"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "openai:text-embedding-3-large" {
		t.Errorf("Name() = %q, want openai:text-embedding-3-large", e.Name())
	}
	if e.Dim() != 3072 {
		t.Errorf("Dim() = %d, want 3072", e.Dim())
	}
	if e.opt.BatchSize != 64 {
		t.Errorf("default BatchSize = %d, want 64", e.opt.BatchSize)
	}
	if e.opt.MaxRetries != DefaultMaxRetries {
		t.Errorf("default MaxRetries = %d, want %d", e.opt.MaxRetries, DefaultMaxRetries)
	}
	if e.opt.Timeout != DefaultTimeout {
		t.Errorf("default Timeout = %v, want %v", e.opt.Timeout, DefaultTimeout)
	}
	if e.opt.BaseURL != DefaultBaseURL {
		t.Errorf("default BaseURL = %q, want %q", e.opt.BaseURL, DefaultBaseURL)
	}
	for model, dim := range map[string]int{"multilingual-e5-small-q4": 384, "intfloat/multilingual-e5-base": 768} {
		if e, err := New(Options{Model: model}); err != nil || e.Dim() != dim || e.InputTypeMode() != InputTypeField {
			t.Errorf("New(%s) = %v; want dimension %d and input types as a field", model, err, dim)
		}
	}
	if e, _ := New(Options{Model: "m", Dim: 8, MaxRetries: -1}); e.opt.MaxRetries != 0 {
		t.Error("MaxRetries -1 does not disable retries")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":     0,
		"3":    3 * time.Second,
		"0.5":  500 * time.Millisecond,
		"-1":   0,
		"soon": 0,
		now.Add(7 * time.Second).Format(http.TimeFormat): 7 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):      0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestCachedOpenAI(t *testing.T) {
	srv := newFakeServer(t, testKey, 32)
	e, _ := newTestEmbedder(t, srv, Options{Model: "text-embedding-3-small", Dim: 32})
	c, err := sqlitecache.Open(t.TempDir() + "/store.db")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ce := embed.Cached(e, c)
	in := []string{"a", "b", "a", "c"}
	first, err := ce.Embed(context.Background(), "", in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := ce.Embed(context.Background(), "", in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, second) {
		t.Error("cached vectors differ from fresh ones")
	}
	reqs := srv.recorded()
	if len(reqs) != 1 || !reflect.DeepEqual(reqs[0].Input, []string{"a", "b", "c"}) {
		t.Errorf("requests %+v, want one with the distinct texts", reqs)
	}
}

// A key pasted with white space around it (OPENAI_API_KEY=' sk-… ') is sent
// trimmed, and neither form shows in an error, whatever the server echoes.
func TestAPIKeyTrimmedAndRedacted(t *testing.T) {
	padded := " \t" + testKey + " \n"
	srv := newFakeServer(t, testKey, 16)
	srv.hook = func(n int, w http.ResponseWriter, r recordedRequest) bool {
		// Echo the trimmed key and the padded one, as a gateway that
		// logs what it was given might.
		writeError(w, 401, "invalid_api_key", "", "bad key "+strings.TrimPrefix(r.Auth, "Bearer ")+" (raw:"+padded+")")
		return true
	}
	e, _ := newTestEmbedder(t, srv, Options{Model: "m", Dim: 16, APIKey: padded})
	_, err := e.Embed(context.Background(), "", []string{"hello"})
	if err == nil {
		t.Fatal("a wrong key was accepted")
	}
	if got := srv.recorded()[0].Auth; got != "Bearer "+testKey {
		t.Errorf("Authorization %q, want the trimmed key", got)
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error shows the API key: %q", err)
	}
	if strings.Count(err.Error(), "[redacted]") != 2 {
		t.Errorf("error %q: want both echoes redacted", err)
	}
}

// Embed conveys the input type as the mode says: a body field, an e5 text
// prefix, or not at all. Embed never does.
func TestEmbedInputTypeModes(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name      string
		model     string
		mode      InputTypeMode
		inputType kb.InputType
		resolved  InputTypeMode
		wantField *string // the input_type the server gets
		prefix    string  // put before every text sent
	}{
		{"auto e5 query", "multilingual-e5-small-q4", "", kb.Query, InputTypeField, str("query"), ""},
		{"auto e5 passage", "intfloat/multilingual-e5-base", InputTypeAuto, kb.Passage, InputTypeField, str("passage"), ""},
		{"auto other model", "bge-m3", InputTypeAuto, kb.Passage, InputTypeNone, nil, ""},
		{"auto openai", "text-embedding-3-small", InputTypeAuto, kb.Query, InputTypeNone, nil, ""},
		{"auto openai prefixed", "openai/text-embedding-ada-002", "", kb.Passage, InputTypeNone, nil, ""},
		{"field", "text-embedding-3-small", InputTypeField, kb.Passage, InputTypeField, str("passage"), ""},
		{"prefix query", "e5-base", InputTypePrefix, kb.Query, InputTypePrefix, nil, "query: "},
		{"prefix passage", "e5-base", InputTypePrefix, kb.Passage, InputTypePrefix, nil, "passage: "},
		{"none", "e5-base", InputTypeNone, kb.Query, InputTypeNone, nil, ""},
		{"untyped field", "e5-base", InputTypeField, "", InputTypeField, nil, ""},
		{"untyped prefix", "e5-base", InputTypePrefix, "", InputTypePrefix, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t, testKey, 16)
			srv.inputTypes = true
			e, _ := newTestEmbedder(t, srv, Options{Model: tc.model, Dim: 16, Dimensions: DimensionsNever, InputTypeMode: tc.mode, BatchSize: 2, Concurrency: 1})
			if e.InputTypeMode() != tc.resolved {
				t.Errorf("InputTypeMode() = %s, want %s", e.InputTypeMode(), tc.resolved)
			}
			in := []string{"连接池 exhausted", "", "too many connections", "pool"}
			got, err := e.Embed(context.Background(), tc.inputType, in)
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.recorded()
			if len(reqs) != 2 { // 3 non-empty texts in batches of 2
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			var sent []string
			for _, r := range reqs {
				sent = append(sent, r.Input...)
				if !reflect.DeepEqual(r.InputType, tc.wantField) {
					t.Errorf("input_type %v, want %v", deref(r.InputType), deref(tc.wantField))
				}
			}
			if want := []string{tc.prefix + in[0], tc.prefix + in[2], tc.prefix + in[3]}; !reflect.DeepEqual(sent, want) {
				t.Errorf("texts sent %q, want %q", sent, want)
			}
			// The vector is the server's for what it embedded: a typed
			// text is "<type>: <text>" either way, so field and prefix
			// agree.
			for _, i := range []int{0, 2, 3} {
				want := in[i]
				if tc.wantField != nil || tc.prefix != "" {
					want = string(tc.inputType) + ": " + in[i]
				}
				if !bitsEqual(got[i], wantVector(want, 16)) {
					t.Errorf("vector %d is not the vector of %q", i, want)
				}
			}
			if !bitsEqual(got[1], make([]float32, 16)) {
				t.Error("the empty text did not get the zero vector")
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}

// Embed sends no input type, whatever the mode, so a strict OpenAI-style
// server keeps working. Embed in field mode against such a server is a 400,
// not retried, whose message says what to change.
func TestInputTypeRejected(t *testing.T) {
	srv := newFakeServer(t, testKey, 16) // strict: no input_type
	e, rec := newTestEmbedder(t, srv, Options{Model: "bge-m3", Dim: 16, InputTypeMode: InputTypeField})
	if _, err := e.Embed(context.Background(), "", []string{"hello"}); err != nil {
		t.Fatalf("Embed: %v", err)
	}
	_, err := e.Embed(context.Background(), kb.Query, []string{"hello"})
	var oe *Error
	if !errors.As(err, &oe) || oe.StatusCode != 400 || oe.Attempts != 1 {
		t.Fatalf("error %v, want a 400 after one attempt", err)
	}
	for _, want := range []string{"Unrecognized request argument supplied: input_type", `input_type="query"`, "prefix or none", "not retried"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := len(srv.recorded()); n != 2 || len(rec.got()) != 0 {
		t.Errorf("%d requests, %d waits; want 2, 0", n, len(rec.got()))
	}
}

func TestEmbedBadInputType(t *testing.T) {
	srv := newFakeServer(t, testKey, 16)
	e, _ := newTestEmbedder(t, srv, Options{Model: "bge-m3", Dim: 16})
	for _, typ := range []kb.InputType{"document", "Query", "query: "} {
		if out, err := e.Embed(context.Background(), typ, []string{"hello"}); err == nil || out != nil || !strings.Contains(err.Error(), "input type") {
			t.Errorf("Embed(%q) = %v, %v; want an error", typ, out, err)
		}
	}
	if n := len(srv.recorded()); n != 0 {
		t.Errorf("%d requests for bad input types, want 0", n)
	}
	if _, err := New(Options{Model: "m", Dim: 8, InputTypeMode: "header"}); err == nil || !strings.Contains(err.Error(), "input type mode") {
		t.Errorf("bad input type mode: %v", err)
	}
}

// A key echoed in a plain-text error body across the 300-byte cut of the
// message is redacted whole: nothing of it is left before the cut.
func TestAPIKeyRedactedBeforeTheCut(t *testing.T) {
	srv := newFakeServer(t, testKey, 16)
	srv.hook = func(n int, w http.ResponseWriter, r recordedRequest) bool {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, strings.Repeat("x", 285)+" key "+testKey+" refused "+strings.Repeat("连", 200))
		return true
	}
	e, _ := newTestEmbedder(t, srv, Options{Model: "m", Dim: 16})
	_, err := e.Embed(context.Background(), "", []string{"hello"})
	if err == nil {
		t.Fatal("a 403 was accepted")
	}
	if strings.Contains(err.Error(), "sk-test") || !utf8.ValidString(err.Error()) {
		t.Errorf("error shows part of the key or is cut inside a character: %q", err)
	}
}

// TestCacheVariant: the embedding cache keys on how the input type is sent.
func TestCacheVariant(t *testing.T) {
	for _, tc := range []struct {
		model string
		mode  InputTypeMode
		want  string
	}{
		{"multilingual-e5-small-q4", InputTypeAuto, "input-type=field"},
		{"text-embedding-3-small", InputTypeAuto, ""},
		{"bge-m3", InputTypePrefix, "input-type=prefix"},
		{"multilingual-e5-small-q4", InputTypeNone, ""},
	} {
		e, err := New(Options{Model: tc.model, Dim: 8, InputTypeMode: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.CacheVariant(); got != tc.want {
			t.Errorf("%s %s: CacheVariant %q, want %q", tc.model, tc.mode, got, tc.want)
		}
	}
	if NameOf("m") != "openai:m" {
		t.Errorf("NameOf(m) = %q", NameOf("m"))
	}
}

// TestConcurrencyLimit: Embed keeps up to Concurrency requests in flight,
// never more, and retries a failed one without exceeding the limit. The
// first Concurrency requests wait for each other, so the limit is reached,
// then hold a little longer: a client that sent more at once would have
// another request arrive meanwhile.
func TestConcurrencyLimit(t *testing.T) {
	const limit = 3
	srv := newFakeServer(t, testKey, 8)
	var (
		mu              sync.Mutex
		inFlight, most  int
		arrived         int
		allFirst        = make(chan struct{})
		failedOnce      bool
		timedOutWaiting bool
	)
	srv.hook = func(n int, w http.ResponseWriter, _ recordedRequest) bool {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		arrived++
		if arrived == limit {
			close(allFirst)
		}
		first := arrived <= limit
		fail := n == limit+2 && !failedOnce
		failedOnce = failedOnce || fail
		mu.Unlock()
		if first {
			select {
			case <-allFirst:
				time.Sleep(100 * time.Millisecond)
			case <-time.After(10 * time.Second):
				mu.Lock()
				timedOutWaiting = true
				mu.Unlock()
			}
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		if fail {
			writeError(w, http.StatusServiceUnavailable, "server_error", "", "overloaded")
			return true
		}
		return false
	}
	e, _ := newTestEmbedder(t, srv, Options{Model: "bge-small", Dim: 8, BatchSize: 4, Concurrency: limit})
	if n := e.BatchSize(); n != 4*limit {
		t.Errorf("BatchSize = %d, want BatchSize × Concurrency = %d", n, 4*limit)
	}
	in := texts(40)
	got, err := e.Embed(context.Background(), kb.Passage, in)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range in {
		if !bitsEqual(got[i], wantVector(text, 8)) {
			t.Fatalf("vector %d is not the vector of its text", i)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if timedOutWaiting {
		t.Errorf("the first %d requests were never in flight together", limit)
	}
	if most != limit {
		t.Errorf("%d requests in flight at most, want %d", most, limit)
	}
	if s := e.Stats(); s.Requests != 11 || s.Retries != 1 {
		t.Errorf("stats %+v, want 10 batches and 1 retry", s)
	}
}
