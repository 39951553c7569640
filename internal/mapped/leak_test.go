package mapped

import (
	"context"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/lookup"
)

const leakConfig = `
name: svc
searchMode: bm25
capabilities: []
headers:
  Authorization: Bearer ${SVC_TOKEN}
request:
  url: ${SVC_URL}/search
  body: '{q: .query}'
response:
  errorIf: .error != null
  blocks: '.hits | map({source: .id, score})'
score: {kind: similarity, quality: minmax}
thresholds: {lowQuality: 0.5, minQuality: 0, levels: {high: 0.75, medium: 0.5}}
`

// TestTruncatedSecretsStayOut: a message that quotes the start of what
// the service sent, cut to a length, must not keep the start of a secret
// that the cut split (which no later replacement would recognise).
func TestTruncatedSecretsStayOut(t *testing.T) {
	const tok = "tok-7f3a9c51e2b84d06aa11bb22"
	prefix := tok[:8]
	cases := map[string]struct {
		status int
		body   string
	}{
		// A 500 whose body puts the token across the 200-character cut.
		"status excerpt": {500, `{"detail": "` + strings.Repeat("x", bodyExcerptLen-30) + ` token ` + tok + `"}`},
		// A 200 that is not JSON, likewise.
		"not JSON": {200, strings.Repeat("y", bodyExcerptLen-12) + tok},
		// errorIf true, no errorMessage: the body's start is quoted.
		"errorIf excerpt": {200, `{"error": "` + strings.Repeat("z", bodyExcerptLen-23) + tok + `"}`},
		// A block field of the wrong type quotes the value, cut to 60.
		"block field": {200, `{"hits": [{"id": "a", "score": "` + strings.Repeat("w", 40) + tok + `"}]}`},
		// A jq error previews the value it failed on, cut by gojq.
		"jq preview": {200, `{"hits": "Bearer ` + tok + `"}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			api := newFakeAPI(t, func(recorded) (int, []byte) { return c.status, []byte(c.body) })
			p := openConfig(t, writeConfig(t, leakConfig), map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": tok})
			_, err := p.Lookup(context.Background(), lookup.Request{Query: "q", KBScope: "k"})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), prefix) {
				t.Errorf("the error keeps the start of the token: %v", err)
			}
			if !strings.Contains(err.Error(), "${SVC_TOK") {
				t.Errorf("the error does not name the variable: %v", err)
			}
		})
	}
}

// TestJQErrorOnlyWithTheSecret: a program that fails only because of a
// secret's value gives a message that quotes neither it nor its start.
func TestJQErrorOnlyWithTheSecret(t *testing.T) {
	const tok = "tok-7f3a9c51e2b84d06aa11bb22"
	cfg := strings.Replace(leakConfig, `'.hits | map({source: .id, score})'`,
		`'.hits | map({source: .id, score: (if (.id | startswith("tok-")) then .id | tonumber else .score end)})'`, 1)
	api := newFakeAPI(t, func(recorded) (int, []byte) {
		return 200, []byte(`{"hits": [{"id": "` + tok + `", "score": 1}]}`)
	})
	p := openConfig(t, writeConfig(t, cfg), map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": tok})
	_, err := p.Lookup(context.Background(), lookup.Request{Query: "q", KBScope: "k"})
	if err == nil || strings.Contains(err.Error(), tok[:8]) || !strings.Contains(err.Error(), "response.blocks: jq: failed on a value holding a secret") {
		t.Errorf("got %v", err)
	}
}
