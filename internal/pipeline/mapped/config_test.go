package mapped

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// minimal is a valid config; the bad cases below replace one line each.
const minimal = `name: svc
version: 2
searchMode: bm25
capabilities: [qualityScore, evidenceStatus]
headers:
  Authorization: Bearer ${TOKEN}
request:
  url: ${SVC_URL}/search/{kbScope}
  params:
    k: .topK
  body: '{q: .query}'
response:
  errorIf: .error != null
  errorMessage: .error
  blocks: '.hits[] | {docId: .id, excerpt: .text, score: .score}'
score:
  kind: similarity
  quality: minmax
thresholds:
  lowQuality: 0.4
  minQuality: 0
  levels: {high: 0.8, medium: 0.4}
`

func TestParseMinimal(t *testing.T) {
	c, err := Parse("svc.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("name", c.Name, "svc")
	check("version", c.Version, "2")
	check("searchMode", c.SearchMode, "bm25")
	check("topK", c.TopK, 5)
	check("embedQuery", c.EmbedQuery, false)
	// Capabilities come out in the contract's order.
	if got := strings.Join(c.Capabilities, ","); got != "evidenceStatus,qualityScore" {
		t.Errorf("capabilities %s", got)
	}
	check("request method", c.Request.Method, "POST")
	check("request", c.Request.where(), "POST ${SVC_URL}/search/{kbScope}")
	if c.Thresholds == nil {
		t.Fatal("thresholds nil")
	}
	check("thresholds lowQuality", c.Thresholds.LowQuality, 0.4)
	check("thresholds levels.high", c.Thresholds.Levels.High, 0.8)
}

// TestParseJSON: a JSON config is read as the YAML it also is, tabs and
// all, and its errors have lines too.
func TestParseJSON(t *testing.T) {
	good := "{\n\t\"name\": \"j\",\n\t\"searchMode\": \"dense\",\n\t\"capabilities\": [],\n\t\"request\": {\"url\": \"http://h/q\", \"body\": \"{q: .query}\"},\n\t\"response\": {\"blocks\": \".[]\"}\n}\n"
	c, err := Parse("c.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "j" {
		t.Errorf("name %q, want j", c.Name)
	}
	if c.Score.Quality != QualityNone {
		t.Errorf("score quality %v, want %v", c.Score.Quality, QualityNone)
	}
	if c.Capabilities == nil || len(c.Capabilities) != 0 {
		t.Errorf("capabilities %#v, want the declared []", c.Capabilities)
	}
	bad := strings.Replace(good, `"dense"`, `"vector"`, 1)
	_, err = Parse("c.json", []byte(bad))
	if err == nil || !strings.HasPrefix(err.Error(), `c.json:3: searchMode: "vector", want one of`) {
		t.Errorf("got %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		old, repl string // replace old by repl in minimal ("" old: append repl)
		want      string
	}{
		{"unknown top-level field", "", "colour: blue\n", "svc.yaml:23: colour: unknown field"},
		{"name missing", "name: svc\n", "", "svc.yaml:1: name: required"},
		{"name a number", "name: svc", "name: 12", "svc.yaml:1: name: want a string, got a number (quote it)"},
		{"bad search mode", "searchMode: bm25", "searchMode: sparse", `svc.yaml:3: searchMode: "sparse", want one of hybrid, dense, bm25, other`},
		{"builtin-only capability", "[qualityScore, evidenceStatus]", "[qualityScore, trace]", "svc.yaml:4: capabilities[1]: a mapped pipeline cannot produce trace"},
		{"unknown capability", "[qualityScore, evidenceStatus]", "[score]", `svc.yaml:4: capabilities[0]: unknown capability "score"`},
		{"capabilities missing", "capabilities: [qualityScore, evidenceStatus]\n", "", "svc.yaml:1: capabilities: required"},
		{"bad env reference", "Bearer ${TOKEN}", "Bearer ${TO-KEN}", "svc.yaml:6: headers.Authorization: ${TO-KEN}: not an environment variable name"},
		{"unterminated env", "Bearer ${TOKEN}", "Bearer ${TOKEN", "svc.yaml:6: headers.Authorization: unterminated ${"},
		{"header set by the client", "  Authorization:", "  content-length:", "svc.yaml:6: headers.content-length: set by the client, not by the config"},
		{"bad header name", "  Authorization:", "  Auth orization:", "svc.yaml:6: headers.Auth orization: not a valid HTTP header name"},
		{"unknown placeholder", "/search/{kbScope}", "/search/{scope}", "svc.yaml:8: request.url: {scope}: unknown placeholder (known here: query, topK, kbScope, searchMode)"},
		{"url scheme", "${SVC_URL}/search", "ftp://h/search", "svc.yaml:8: request.url: want an http:// or https:// URL"},
		{"jq syntax in body", "body: '{q: .query}'", "body: '{q: .query'", "svc.yaml:11: request.body: jq: unexpected EOF"},
		{"jq left unquoted", "body: '{q: .query}'", "body: {q: .query}", "svc.yaml:11: request.body: want a jq program (a string), got a mapping: quote it ('{q: .query}') or write it as a block (body: |)"},
		{"jq unknown variable", "body: '{q: .query}'", "body: '{q: $collection}'", "svc.yaml:11: request.body: jq: variable not defined: $collection (no variables here)"},
		{"jq unknown function", "errorIf: .error != null", "errorIf: frob(.error)", "svc.yaml:13: response.errorIf: jq: function not defined: frob/1"},
		{"blocks missing", "  blocks: '.hits[] | {docId: .id, excerpt: .text, score: .score}'\n", "", "svc.yaml:13: response.blocks: required"},
		{"GET with a body", "  url: ${SVC_URL}", "  method: GET\n  url: ${SVC_URL}", "svc.yaml:8: request.method: a GET request has no body"},
		{"bad method", "  url: ${SVC_URL}", "  method: DELETE\n  url: ${SVC_URL}", `svc.yaml:8: request.method: "DELETE", want one of GET, POST, PUT, PATCH`},
		{"score kind", "kind: similarity", "kind: relevance", `svc.yaml:17: score.kind: "relevance", want similarity`},
		{"quality of the wrong kind", "quality: minmax", "quality: 1-d", `svc.yaml:18: score.quality: "1-d" is not a conversion of a similarity`},
		{"range order", "quality: minmax", "quality: minmax\n  range: [1, 0]", "svc.yaml:19: score.range: min 1 is not below max 0"},
		{"threshold out of range", "lowQuality: 0.4", "lowQuality: 1.4", "svc.yaml:20: thresholds.lowQuality: 1.4, want 0..1"},
		{"floor above the gate", "minQuality: 0", "minQuality: 0.5", "svc.yaml:21: thresholds.minQuality: 0.5 is above lowQuality 0.4"},
		{"levels order", "{high: 0.8, medium: 0.4}", "{high: 0.3, medium: 0.4}", "svc.yaml:22: thresholds.levels.medium: 0.4 is above high 0.3"},
		{"floor with minmax", "lowQuality: 0.4\n  minQuality: 0", "lowQuality: 0.4\n  minQuality: 0.1", "svc.yaml:21: thresholds.minQuality: 0.1 with score.quality minmax"},
		{"embedder thresholds without embedding", "thresholds:\n  lowQuality: 0.4\n  minQuality: 0\n  levels: {high: 0.8, medium: 0.4}\n", "thresholds: embedder\n", `svc.yaml:19: thresholds: "embedder" takes the thresholds of the embedder, which needs embedQuery: true`},
		{"quality capability without score", "score:\n  kind: similarity\n  quality: minmax\nthresholds:\n  lowQuality: 0.4\n  minQuality: 0\n  levels: {high: 0.8, medium: 0.4}\n", "", "svc.yaml:4: capabilities[0]: qualityScore needs a score"},
		{"topK range", "", "topK: 0\n", "svc.yaml:23: topK: 0, want 1..1000"},
		{"duplicate key", "", "name: again\n", "svc.yaml:23: name: defined twice"},
		{"duplicate header", "  Authorization: Bearer ${TOKEN}\n", "  Authorization: Bearer ${TOKEN}\n  authorization: x\n", "svc.yaml:7: headers.authorization: defined twice"},
		{"not a mapping", "request:\n  url: ${SVC_URL}/search/{kbScope}\n  params:\n    k: .topK\n  body: '{q: .query}'\n", "request: 3\n", "svc.yaml:7: request: want a mapping, got a number"},
		{"yaml syntax", "name: svc", "name: [svc", "svc.yaml:1: did not find expected ',' or ']'"},
		{"yaml indentation", "  url: ${SVC_URL}/search/{kbScope}\n", "  url: ${SVC_URL}/search/{kbScope}\n   x: 1\n", "svc.yaml:9: mapping values are not allowed in this context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := minimal + tc.repl
			if tc.old != "" {
				if !strings.Contains(minimal, tc.old) {
					t.Fatalf("%q is not in the config", tc.old)
				}
				src = strings.Replace(minimal, tc.old, tc.repl, 1)
			}
			_, err := Parse("svc.yaml", []byte(src))
			if err == nil {
				t.Fatalf("no error for\n%s", src)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got  %v\nwant %s…", err, tc.want)
			}
			var ce *diag.Error
			if !errors.As(err, &ce) {
				t.Errorf("%T is not a *diag.Error", err)
			} else if ce.File != "svc.yaml" {
				t.Errorf("diag.Error.File %q, want svc.yaml", ce.File)
			}
		})
	}
}

func TestSetupSteps(t *testing.T) {
	src := `name: s
searchMode: dense
capabilities: []
setup:
  - name: coll
    request: {url: "http://h/c/byname"}
    response: {value: .id}
  - name: shard
    request: {url: "http://h/c/{coll}/shard"}
    response: {value: .shard}
request:
  url: http://h/c/{coll}/{shard}/q
  body: '{q: .query, c: $coll, s: $shard}'
response:
  blocks: '[.[] | {docId: ($coll + .)}]'
`
	c, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Setup) != 2 {
		t.Fatalf("setup %+v, want 2 steps", c.Setup)
	}
	if c.Setup[0].Method != "GET" {
		t.Errorf("setup step 0: method %q, want GET", c.Setup[0].Method)
	}
	if c.Setup[1].Name != "shard" {
		t.Errorf("setup step 1: name %q, want shard", c.Setup[1].Name)
	}
	for _, tc := range []struct{ old, repl, want string }{
		// A step may use only the steps before it.
		{"http://h/c/{coll}/shard", "http://h/c/{shard}/shard", "s.yaml:9: setup[1].request.url: {shard}: unknown placeholder (known here: coll)"},
		{"name: shard", "name: coll", `s.yaml:8: setup[1].name: "coll" is the name of an earlier step`},
		{"name: shard", "name: query", `s.yaml:8: setup[1].name: "query" is reserved`},
		{"name: shard", "name: 2nd", `s.yaml:8: setup[1].name: "2nd", want a name`},
		{"response: {value: .shard}", "response: {}", "s.yaml:10: setup[1].response.value: required"},
		// A setup step has no request input: no {query}.
		{"http://h/c/byname", "http://h/c/{query}", "s.yaml:6: setup[0].request.url: {query}: unknown placeholder (none here)"},
	} {
		_, err := Parse("s.yaml", []byte(strings.Replace(src, tc.old, tc.repl, 1)))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s → %s:\ngot  %v\nwant %s…", tc.old, tc.repl, err, tc.want)
		}
	}
}

func TestJQErrorLineInBlock(t *testing.T) {
	src := strings.Replace(minimal, "  blocks: '.hits[] | {docId: .id, excerpt: .text, score: .score}'\n",
		"  blocks: |\n    .hits[]\n    | {docId: .id,\n       excerpt: .text score: .score}\n", 1)
	_, err := Parse("svc.yaml", []byte(src))
	if err == nil || !strings.HasPrefix(err.Error(), "svc.yaml:18: response.blocks: jq:") {
		t.Errorf("got %v", err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("got %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxConfigBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("got %v", err)
	}
}

func TestCapabilitiesAreContractOnes(t *testing.T) {
	for _, c := range Capabilities {
		found := false
		for _, k := range contract.Capabilities {
			found = found || k == c
		}
		if !found {
			t.Errorf("%s is not a contract capability", c)
		}
	}
}

// FuzzParse: whatever the bytes, Parse returns a config or a
// *diag.Error naming the file, and never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte("{}"))
	f.Add([]byte("name: x\nsearchMode: dense\ncapabilities: []\nrequest: {url: 'http://h/{query}${A:-b}$$'}\nresponse: {blocks: .}\n"))
	files, _ := filepath.Glob("../../../deploy/mapped/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				panic(fmt.Sprintf("Parse hangs on %q", data))
			}
		}()
		defer close(done)
		c, err := Parse("f.yaml", data)
		if err != nil {
			var ce *diag.Error
			if !errors.As(err, &ce) {
				t.Fatalf("%T %v is not a *diag.Error", err, err)
			}
			if ce.File != "f.yaml" {
				t.Fatalf("%v: diag.Error.File %q, want f.yaml", err, ce.File)
			}
			if lines := yamlLines(data); ce.Line < 0 || ce.Line > lines {
				t.Fatalf("%v: line %d of a file of %d lines", err, ce.Line, lines)
			}
			return
		}
		// A config that parses has its required parts.
		if c.Request == nil {
			t.Fatalf("no request: %+v", c)
		}
		if c.Blocks == nil {
			t.Fatalf("no response.blocks: %+v", c)
		}
		if c.Name == "" {
			t.Fatalf("no name: %+v", c)
		}
		if c.Capabilities == nil {
			t.Fatalf("no capabilities: %+v", c)
		}
	})
}

// yamlLines counts the lines of data as YAML does: its line breaks are
// \n, \r\n, \r, NEL, LS and PS.
func yamlLines(data []byte) int {
	nl := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	n := 1
	for _, r := range string(nl) {
		switch r {
		case '\n', '\r', '\u0085', '\u2028', '\u2029':
			n++
		}
	}
	return n
}
