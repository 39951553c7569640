package mapped

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// TestSetupValueType: a setup value of null, or one a URL needs that is
// an object, was sent as "" (the request went to /ok//search). It is an
// error naming the step and the value's type, and nothing more is sent.
func TestSetupValueType(t *testing.T) {
	for _, tc := range []struct{ value, url, want string }{
		{".missing", "{coll}", "setup[0].response.value: the value of coll is null (a field the answer lacks?), want a string, number or boolean"},
		{".", "{coll}", "setup[0].response.value: the value of coll is an object, want a string, number or boolean for {coll} in request.url"},
		{"[.id]", "{coll}", "setup[0].response.value: the value of coll is an array, want a string, number or boolean for {coll} in request.url"},
		{".missing", "x", "setup[0].response.value: the value of coll is null"},
	} {
		api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, []byte(`{"id": "c1", "hits": []}`) })
		cfg := `name: t
searchMode: other
capabilities: []
setup:
  - name: coll
    request: {url: '${U}/byname'}
    response: {value: '` + tc.value + `'}
request: {url: '${U}/ok/` + tc.url + `/search', body: '{q: .query, c: $coll}'}
response:
  blocks: '.hits'
`
		p := openConfig(t, writeConfig(t, cfg), map[string]string{"U": api.URL})
		err := p.Health(context.Background())
		var se *SetupError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) || pipeline.Transient(err) {
			t.Errorf("value %s: got %v, want a setup error …%s… (not transient)", tc.value, err, tc.want)
		}
		if _, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"}); err == nil {
			t.Errorf("value %s: the lookup succeeded", tc.value)
		}
		for _, r := range api.requests() {
			if r.Path != "/byname" {
				t.Errorf("value %s: a request went to %s", tc.value, r.Path)
			}
		}
	}
	// A setup value that is an object serves jq, where no URL needs it.
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		return 200, []byte(`{"id": "c1", "hits": [{"docId": "a"}]}`)
	})
	cfg := "name: t\nsearchMode: other\ncapabilities: []\nsetup:\n  - name: coll\n    request: {url: '${U}/byname'}\n    response: {value: '.'}\n" +
		"request: {url: '${U}/ok/search', body: '{q: .query, c: $coll.id}'}\nresponse:\n  blocks: '.hits'\n"
	p := openConfig(t, writeConfig(t, cfg), map[string]string{"U": api.URL})
	if lr := lookupOK(t, p, "q"); len(lr.EvidenceBlocks) != 1 {
		t.Errorf("%d blocks, want 1", len(lr.EvidenceBlocks))
	}
}
