package mapped

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// TestHeaderValueControlChar: a variable whose value would make a header
// value net/http refuses (a newline) is a config error naming the file,
// line and field when the pipeline is built, not a lookup error that
// looks like an unreachable service and is retried.
func TestHeaderValueControlChar(t *testing.T) {
	cfg, err := Load(writeConfig(t, leakConfig))
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(cfg, Options{LookupEnv: envOf(map[string]string{"SVC_URL": "http://127.0.0.1:1", "SVC_TOKEN": "abcd\nefgh"})})
	var ce *diag.Error
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *diag.Error", err)
	}
	if ce.Line != 6 {
		t.Errorf("error %v: line %d, want 6", err, ce.Line)
	}
	if ce.Where != "headers.Authorization" {
		t.Errorf("error %v: where %q, want headers.Authorization", err, ce.Where)
	}
	if !strings.Contains(err.Error(), "control character") {
		t.Errorf("error %v does not say control character", err)
	}
	if strings.Contains(err.Error(), "efgh") {
		t.Errorf("error %v shows part of the token", err)
	}
}

// TestHostHeader: a Host header is the request's Host (net/http ignores
// Header["Host"]).
func TestHostHeader(t *testing.T) {
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, []byte(`{"hits": []}`) })
	cfg := strings.Replace(leakConfig, "  Authorization: Bearer ${SVC_TOKEN}\n", "  Authorization: Bearer ${SVC_TOKEN}\n  host: search.internal\n", 1)
	p := openConfig(t, writeConfig(t, cfg), map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": "tok-1234"})
	if _, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"}); err != nil {
		t.Fatal(err)
	}
	r := api.requests()
	if len(r) != 1 {
		t.Fatalf("%d requests, want 1: %+v", len(r), r)
	}
	if r[0].Host != "search.internal" {
		t.Errorf("Host %q, want search.internal", r[0].Host)
	}
	if got := r[0].Header.Get("Authorization"); got != "Bearer tok-1234" {
		t.Errorf("Authorization %q, want Bearer tok-1234", got)
	}
}

// TestURLUserInfo: user info written out in the config's URL is sent as
// basic authentication but shown nowhere: not in pipeline.store, not in
// an error.
func TestURLUserInfo(t *testing.T) {
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		if u, p, ok := (&http.Request{Header: r.Header}).BasicAuth(); !ok || u != "svc" || p != "pw-5e1d9a" {
			return 401, []byte(`{"error": "who are you"}`)
		}
		return 500, []byte(`{"error": "boom"}`)
	})
	url := strings.Replace(api.URL, "http://", "http://svc:pw-5e1d9a@", 1)
	cfg := strings.Replace(leakConfig, "${SVC_URL}/search", url+"/search?x=1", 1)
	cfg = strings.Replace(cfg, "headers:\n  Authorization: Bearer ${SVC_TOKEN}\n", "", 1)
	p := openConfig(t, writeConfig(t, cfg), nil)
	_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
	if want := "POST " + api.URL + "/search: 500 Internal Server Error"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got  %v\nwant %s…", err, want)
	}
	if d := p.Describe(); d.Store != api.URL+"/search" {
		t.Errorf("store %q", d.Store)
	}
}
