package mapped

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// bodyExcerptLen is how much of a body a message quotes
// (lookuphttp.Excerpt).
const bodyExcerptLen = 200

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
			_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
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
	_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), tok[:8]) {
		t.Errorf("error %v shows part of the token", err)
	}
	if want := "response.blocks: jq: failed on a value holding a secret"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to say %s", err, want)
	}
}

// TestResultsKeepNames: a value read into a URL's path (an index name) is
// not a credential: a result holding it keeps it (replacing it would turn
// source "runbooks-mysql" into "${OPENSEARCH_INDEX}-mysql", and fail the
// case), while messages still name the variable. A header's value, a value
// in the query string and a URL's user info are replaced in results too.
func TestResultsKeepNames(t *testing.T) {
	echo := `see the runbooks index; Bearer tok-5d1e77a0 key-33c9b1e4 pw-0a9f`
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		if r.Path != "/runbooks/_search" {
			return 404, []byte(`{"error": {"reason": "no such index [` + strings.TrimSuffix(strings.TrimPrefix(r.Path, "/"), "/_search") + `]"}}`)
		}
		return 200, []byte(`{"hits": {"hits": [{"_score": 3, "_source": {"docId": "k/runbooks-mysql", "source": "runbooks-mysql", "text": "` + echo + `"}}]}}`)
	})
	cfg := strings.Replace(readConfig(t, shipped("opensearch-bm25.yaml")), "/_search\n", "/_search?key=${SVC_KEY}\n  headers: {Authorization: 'Bearer ${SVC_TOKEN}'}\n", 1)
	url := strings.Replace(api.URL, "http://", "http://svc:pw-0a9f@", 1)
	env := map[string]string{"OPENSEARCH_URL": url, "OPENSEARCH_INDEX": "runbooks", "SVC_TOKEN": "tok-5d1e77a0", "SVC_KEY": "key-33c9b1e4"}
	p := openConfig(t, writeConfig(t, cfg), env)
	lr := lookupOK(t, p, "q")
	b := lr.EvidenceBlocks[0]
	if b.Source != "runbooks-mysql" {
		t.Errorf("block source %q, want runbooks-mysql", b.Source)
	}
	if b.DocID != "k/runbooks-mysql" {
		t.Errorf("block docId %q, want k/runbooks-mysql", b.DocID)
	}
	if want := "see the runbooks index; Bearer ${SVC_TOKEN} ${SVC_KEY} ${OPENSEARCH_URL}"; b.Excerpt != want {
		t.Errorf("block excerpt %q\nwant          %q", b.Excerpt, want)
	}
	env["OPENSEARCH_INDEX"] = "other-index"
	p = openConfig(t, writeConfig(t, cfg), env)
	_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
	if err == nil || !strings.HasSuffix(err.Error(), "404 Not Found: no such index [${OPENSEARCH_INDEX}]") {
		t.Errorf("got %v", err)
	}
}

func readConfig(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
