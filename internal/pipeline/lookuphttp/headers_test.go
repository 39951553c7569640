package lookuphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http/httpguts"

	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/secret"
)

const testToken = "tok-3f9a1c77e2"

func testEnv(k string) (string, bool) {
	switch k {
	case "SVC_TOKEN":
		return testToken, true
	case "TENANT":
		return "acme", true
	}
	return "", false
}

// authServer serves NewHandler(fakePipeline) behind a check of the
// Authorization header, records the headers of each request by path, and
// answers a wrong token with a 401 that echoes it, as some servers do.
type authServer struct {
	mu   sync.Mutex
	seen map[string][]http.Header // path → headers
	host map[string]string        // path → Host
}

func newAuthServer(t *testing.T) (*authServer, *httptest.Server) {
	a := &authServer{seen: map[string][]http.Header{}, host: map[string]string{}}
	h := NewHandler(&fakePipeline{}, HandlerOptions{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.seen[r.URL.Path] = append(a.seen[r.URL.Path], r.Header.Clone())
		a.host[r.URL.Path] = r.Host
		a.mu.Unlock()
		if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error": "invalid credentials [%s]"}`, got)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return a, srv
}

// TestHeadersSent: the headers reach GET /healthz and POST /v1/lookup.
func TestHeadersSent(t *testing.T) {
	a, srv := newAuthServer(t)
	var secrets secret.Set
	h, err := ParseHeaders([]string{"Authorization: Bearer ${SVC_TOKEN}", "x-tenant:${TENANT}", "Host: svc.internal"}, testEnv, &secrets)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{BaseURL: srv.URL, Header: h, Secrets: &secrets}
	if err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval", TopK: 2}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{HealthPath, LookupPath} {
		hs := a.seen[path]
		if len(hs) != 1 {
			t.Fatalf("%s: %d requests, want 1: %v", path, len(hs), hs)
		}
		if got := hs[0].Get("Authorization"); got != "Bearer "+testToken {
			t.Errorf("%s: Authorization %q, want %q", path, got, "Bearer "+testToken)
		}
		if got := hs[0].Get("X-Tenant"); got != "acme" {
			t.Errorf("%s: X-Tenant %q, want acme", path, got)
		}
		if a.host[path] != "svc.internal" {
			t.Errorf("%s: host %q, want svc.internal", path, a.host[path])
		}
		if path == LookupPath && hs[0].Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type %q", path, hs[0].Get("Content-Type"))
		}
	}
	if d, _ := json.Marshal(c.Describe()); strings.Contains(string(d), testToken) {
		t.Errorf("Describe holds the token: %s", d)
	}

	// Without the header the server refuses, and its echo names nothing
	// secret: there was none to send.
	bare := &Client{BaseURL: srv.URL}
	if err := bare.Health(context.Background()); err == nil || !strings.Contains(err.Error(), `401 Unauthorized: invalid credentials []`) {
		t.Errorf("no header: %v", err)
	}
}

// TestRedactedErrors: a server echoing the token in an error body, a 200
// answer or its /healthz description puts ${SVC_TOKEN} there, never the
// token; the error types stay reachable.
func TestRedactedErrors(t *testing.T) {
	var status int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == HealthPath:
			fmt.Fprintf(w, `{"status": "ok", "pipeline": {"name": "svc", "version": %q}}`, tok)
		case status != 200:
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error": "token %s refused"}`, tok)
		default:
			fmt.Fprintf(w, `{"lookupResult": {"found": true, "evidenceBlocks": [{"rank": 1, "source": "s", "excerpt": "echo: %s"}], "retrievalTrace": {"selectedAttempt": %q}}}`, tok, tok)
		}
	}))
	defer srv.Close()
	var secrets secret.Set
	h, err := ParseHeaders([]string{"Authorization: Bearer ${SVC_TOKEN}"}, testEnv, &secrets)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{BaseURL: srv.URL, Header: h, Secrets: &secrets}
	if err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := c.Describe(); d.Version != "svc Bearer ${SVC_TOKEN}" {
		t.Errorf("Describe version %q", d.Version)
	}
	status = 200
	lr, err := c.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lr.EvidenceBlocks[0].Excerpt, "echo: Bearer ${SVC_TOKEN}"; got != want {
		t.Errorf("excerpt %q, want %q", got, want)
	}
	if got, want := lr.RetrievalTrace.SelectedAttempt, "Bearer ${SVC_TOKEN}"; got != want {
		t.Errorf("selectedAttempt %q, want %q", got, want)
	}
	for _, tc := range []struct {
		status    int
		transient bool
	}{{500, false}, {503, true}, {401, false}} {
		status = tc.status
		_, err := c.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
		want := fmt.Sprintf("POST %s/v1/lookup: %d %s: token Bearer ${SVC_TOKEN} refused", srv.URL, tc.status, http.StatusText(tc.status))
		var se *StatusError
		if err == nil || err.Error() != want || pipeline.Transient(err) != tc.transient || !errors.As(err, &se) || strings.Contains(se.Message, testToken) {
			t.Errorf("%d: got %v (transient %v), want %s (transient %v)", tc.status, err, pipeline.Transient(err), want, tc.transient)
		}
	}
}

func TestParseHeaders(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"Authorization Bearer x"}, `want "Name: value", got an entry without a colon`},
		{[]string{"X Key: v"}, `"X Key" is not an HTTP header name (want "Name: value", the name without spaces)`},
		{[]string{": v"}, `"" is not an HTTP header name`},
		{[]string{"X-Key:  "}, "X-Key: no value"},
		{[]string{"content-length: 3"}, "Content-Length: set by the client, not by a header flag"},
		{[]string{"Authorization: Bearer ${MISSING}"}, "Authorization: environment variable MISSING is not set"},
		{[]string{"Authorization: Bearer ${SVC_TOKEN"}, "Authorization: unterminated ${ at byte 7"},
		{[]string{"Authorization: Bearer ${SVC-TOKEN}"}, "Authorization: ${SVC-TOKEN}: not an environment variable name"},
		{[]string{"X-A: 1", "x-a: 2"}, "X-A: given twice (header names ignore case)"},
		{[]string{"X-A: a\x01b"}, "X-A: the value holds a control character"},
	} {
		_, err := ParseHeaders(tc.in, testEnv, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s", tc.in, err, tc.want)
		}
	}
	var secrets secret.Set
	h, err := ParseHeaders([]string{"X-Literal:  a b  ", "X-Dollar: $$5 ${UNSET:-none} $x"}, testEnv, &secrets)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Get("X-Literal"); got != "a b" {
		t.Errorf("X-Literal %q, want %q", got, "a b")
	}
	if got := h.Get("X-Dollar"); got != "$5 none $x" {
		t.Errorf("X-Dollar %q, want %q", got, "$5 none $x")
	}
	if n := secrets.Len(); n != 0 {
		t.Errorf("%d secrets, want 0", n)
	}
	// A variable's value with a newline cannot be sent; the error does
	// not quote it.
	_, err = ParseHeaders([]string{"X-Key: ${K}"}, func(string) (string, bool) { return "line1\nline2", true }, nil)
	if err == nil || strings.Contains(err.Error(), "line1") {
		t.Errorf("newline in value: %v", err)
	}
}

// FuzzParseHeaders: never panics; what it accepts net/http can send; an
// error never quotes the value of a variable.
func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer ${SVC_TOKEN}", "X: ${A:-b}", "x-a:$$", "no colon", "X: ${", ": v", "Host: h"} {
		f.Add(s, "s3cret-value")
	}
	f.Fuzz(func(t *testing.T, entry, value string) {
		// The value starts with a character no message holds, so that a
		// value such as "valu" is not taken for a quote of it in a message
		// that says "value".
		value = "§" + value
		env := func(k string) (string, bool) { return value, k == "SVC_TOKEN" || k == "A" }
		var secrets secret.Set
		h, err := ParseHeaders([]string{entry}, env, &secrets)
		if err != nil {
			if len(value) >= secret.MinLen && !strings.Contains(entry, value) && strings.Contains(err.Error(), value) {
				t.Fatalf("%q: error %q quotes the value", entry, err)
			}
			return
		}
		if len(h) != 1 {
			t.Fatalf("%q: %d headers", entry, len(h))
		}
		for name, vs := range h {
			if !httpguts.ValidHeaderFieldName(name) || len(vs) != 1 || !httpguts.ValidHeaderFieldValue(vs[0]) || vs[0] == "" && !strings.Contains(entry, "$") {
				t.Fatalf("%q: accepted %q: %q", entry, name, vs)
			}
		}
	})
}

// TestRedactedBeforeTheCut: a message quotes the start of what the server
// sent, cut to a length; the token is replaced before the cut, so a token
// the cut splits does not keep its start.
func TestRedactedBeforeTheCut(t *testing.T) {
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(body, "500") {
			w.WriteHeader(500)
			body = body[3:]
		}
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	var secrets secret.Set
	h, err := ParseHeaders([]string{"Authorization: Bearer ${SVC_TOKEN}"}, testEnv, &secrets)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{BaseURL: srv.URL, Header: h, Secrets: &secrets}
	pad := func(n int) string { return strings.Repeat("x", n) }
	tok := "Bearer " + testToken
	for name, b := range map[string]string{
		"status":          "500" + pad(bodyExcerptLen-10) + tok,
		"not JSON":        pad(bodyExcerptLen-10) + tok,
		"no lookupResult": `{"other": "` + pad(bodyExcerptLen-20) + tok + `"}`,
		"block":           `{"lookupResult": {"found": true, "evidenceBlocks": ["` + pad(bodyExcerptLen-10) + tok + `"]}}`,
	} {
		body = b
		_, err := c.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(err.Error(), testToken[:4]) {
			t.Errorf("%s: error %v shows part of the token", name, err)
		}
		if !strings.Contains(err.Error(), "Bearer ${") {
			t.Errorf("%s: error %v, want the token's place shown as Bearer ${…}", name, err)
		}
	}
}

// A redirect to another host is refused, not followed with the headers,
// and is no transient error (it is not retried); one within the host is
// followed.
func TestRedirectStaysOnHost(t *testing.T) {
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			leaked.Store(true)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			http.Redirect(w, r, other.URL+"/healthz", http.StatusFound)
		case "/v1/lookup":
			http.Redirect(w, r, "/v2/lookup", http.StatusTemporaryRedirect)
		case "/v2/lookup":
			if r.Header.Get("X-Api-Key") != "k-123456" {
				http.Error(w, "no key", http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"lookupResult": {"found": false, "evidenceBlocks": []}}`)
		}
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Header: http.Header{"X-Api-Key": {"k-123456"}}}
	err := c.Health(context.Background())
	var re *RedirectError
	if !errors.As(err, &re) {
		t.Fatalf("Health through a redirect to another host: %v, want a *RedirectError", err)
	}
	if leaked.Load() {
		t.Fatal("the header reached the other host")
	}
	if pipeline.Transient(err) {
		t.Errorf("a refused redirect is transient: %v", err)
	}
	if _, err := c.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "s"}); err != nil {
		t.Fatalf("Lookup through a redirect within the host: %v", err)
	}
}
