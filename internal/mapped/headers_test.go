package mapped

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/lookup"
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
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 6 || ce.Field != "headers.Authorization" ||
		!strings.Contains(err.Error(), "control character") || strings.Contains(err.Error(), "efgh") {
		t.Errorf("got %v", err)
	}
}

// TestHostHeader: a Host header is the request's Host (net/http ignores
// Header["Host"]).
func TestHostHeader(t *testing.T) {
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, []byte(`{"hits": []}`) })
	cfg := strings.Replace(leakConfig, "  Authorization: Bearer ${SVC_TOKEN}\n", "  Authorization: Bearer ${SVC_TOKEN}\n  host: search.internal\n", 1)
	p := openConfig(t, writeConfig(t, cfg), map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": "tok-1234"})
	if _, err := p.Lookup(context.Background(), lookup.Request{Query: "q", KBScope: "k"}); err != nil {
		t.Fatal(err)
	}
	if r := api.requests(); len(r) != 1 || r[0].Host != "search.internal" || r[0].Header.Get("Authorization") != "Bearer tok-1234" {
		t.Errorf("got %+v", r)
	}
}
