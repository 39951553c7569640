package mapped

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// TestEnvValuesEscapedInURL: a ${VAR} in the path is one path segment
// and one in the query string one parameter value, whatever it holds: a
// space broke the request line, and & or + changed the query. A value
// that is the URL's start (its scheme and host) goes in as it is, and
// cannot hold a space.
func TestEnvValuesEscapedInURL(t *testing.T) {
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, []byte(`{"hits": []}`) })
	cfg := writeConfig(t, "name: t\nsearchMode: other\ncapabilities: []\n"+
		"request: {url: '${U}/idx/${IDX}/search?key=${KEY}&q={query}', body: '{q: .query}'}\nresponse:\n  blocks: '.hits'\n")
	for _, tc := range []struct{ idx, key string }{
		{"my index", "a b"},
		{"a&b+c", "p&q=r+s"},
		{"x/y?z#w", "%2B+/?#"},
	} {
		p := openConfig(t, cfg, map[string]string{"U": api.URL, "IDX": tc.idx, "KEY": tc.key})
		before := len(api.requests())
		if _, err := p.Lookup(context.Background(), pipeline.Request{Query: "c++ & more", KBScope: "k"}); err != nil {
			t.Errorf("%q, %q: %v", tc.idx, tc.key, err)
			continue
		}
		r := api.requests()[before]
		if want := "/idx/" + url.PathEscape(tc.idx) + "/search"; r.Path != "/idx/"+tc.idx+"/search" || r.EscapedPath != want {
			t.Errorf("path %q sent as %q, want %q", r.Path, r.EscapedPath, want)
		}
		q, err := url.ParseQuery(r.RawQuery)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Get("key"); got != tc.key || len(q["key"]) != 1 {
			t.Errorf("key %q, want %q (query %s)", q["key"], tc.key, r.RawQuery)
		}
		if got := q.Get("q"); got != "c++ & more" || len(q) != 2 {
			t.Errorf("q %q, want %q and 2 parameters (query %s)", got, "c++ & more", r.RawQuery)
		}
	}

	// A service echoing the query string it got, in an error, has the key
	// replaced in its escaped form too.
	echo := newFakeAPI(t, func(r recorded) (int, []byte) { return 401, []byte(`{"detail": "bad key in ` + r.RawQuery + `"}`) })
	p := openConfig(t, cfg, map[string]string{"U": echo.URL, "IDX": "i", "KEY": "p&q=r+s"})
	_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
	if err == nil || !strings.Contains(err.Error(), "key=${KEY}&q=q") {
		t.Errorf("got %v, want the key replaced by ${KEY}", err)
	}

	// The value that starts the URL is a URL: as it is, without white space.
	path := writeConfig(t, "name: t\nsearchMode: other\ncapabilities: []\nrequest: {url: '${U}/search', body: '{q: .query}'}\nresponse:\n  blocks: '.hits'\n")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(c, Options{LookupEnv: envOf(map[string]string{"U": api.URL + " x"})})
	want := path + ":4: request.url: ${U} holds white space or a control character"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), api.URL) {
		t.Errorf("got %v, want %s…, without the value", err, want)
	}
}
