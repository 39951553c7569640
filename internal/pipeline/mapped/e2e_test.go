package mapped

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// endToEnd is one run of a config: snapshot every case of a golden file
// through it into a fixture directory, then judge the directory.
type endToEnd struct {
	Config  string            // config file
	Env     map[string]string // the environment the config reads (server URLs, tokens)
	Golden  string            // golden file; "" means the shipped eval set
	Dir     string            // fixture directory; "" means a new temporary one
	Embed   kb.Embedder       // the query embedder; nil means local-hash-v1
	Retries int               // snapshot.Options.Retries (0: its default)
	TopK    int               // snapshot.Options.TopK (0: the config's)
	Partial bool
}

// shippedGolden is the shipped eval set's golden file.
var shippedGolden = filepath.Join("..", "..", "..", "eval", "rag-retrieval", "cases", "golden-cases.json")

// run snapshots and judges, as rag-snapshot does, and returns the
// snapshot's summary, the judge's result (nil when the snapshot
// failed) and the snapshot's error. A real-server test is a few lines over it:
//
//	url := kbtest.ServiceEnv(t, "CHROMA_URL")
//	// … load the corpus into the server …
//	sum, res, err := endToEnd{Config: shipped("chroma.yaml"), Env: map[string]string{"CHROMA_URL": url},
//		Embed: useEmbedder(t)}.run(t)
//	// assert on err, sum.Written, res.Cases[i].Status …
func (e endToEnd) run(t testing.TB) (*snapshot.Summary, *judge.Result, error) {
	t.Helper()
	golden := e.Golden
	if golden == "" {
		golden = shippedGolden
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	g, err := contract.ParseGolden(golden, data)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(e.Config)
	if err != nil {
		t.Fatal(err)
	}
	emb := e.Embed
	if emb == nil {
		emb = localEmbedder(t)
	}
	p, err := New(cfg, Options{Embedder: emb, LookupEnv: envOf(e.Env), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	dir := e.Dir
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "fixtures")
	}
	sum, serr := snapshot.Run(context.Background(), snapshot.Options{
		Cases: g, CasesPath: golden, FixturesDir: dir, Lookuper: p,
		Concurrency: 2, Retries: e.Retries, TopK: e.TopK, Backoff: time.Millisecond, Timeout: 10 * time.Second, Partial: e.Partial,
		Now: func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) },
	})
	if serr != nil {
		return sum, nil, serr
	}
	res, err := judge.Run(g, dir, judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sum, res, nil
}

// twoCases is a golden file of two cases for the protocol tests.
func twoCases(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "golden.json")
	const g = `{"version": 1, "kbScope": "rag-eval", "k": 5, "cases": [
  {"caseId": "pool", "scenario": "chat", "query": "too many connections", "expectedSources": ["mysql-connection-pool"], "expectedFound": true},
  {"caseId": "memory", "scenario": "chat", "query": "maxmemory", "expectedSources": ["redis-memory"], "expectedFound": true}
]}`
	if err := os.WriteFile(p, []byte(g), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// secretConfig sends a token in a header and a key in the query string.
const secretConfig = `name: svc
version: "1"
searchMode: bm25
capabilities: [qualityScore, evidenceStatus]
headers:
  Authorization: Bearer ${SVC_TOKEN}
request:
  url: ${SVC_URL}/search?key=${SVC_KEY}
  body: '{q: .query, k: .topK, scope: .kbScope}'
response:
  errorIf: .error != null
  errorMessage: .error
  blocks: '[.hits[] | {docId: .id, source: .id, excerpt: .text, score: .score}]'
score: {kind: similarity, quality: identity, range: [0, 1], label: SVC}
thresholds: {lowQuality: 0.3, minQuality: 0.1, levels: {high: 0.7, medium: 0.3}}
`

const (
	token = "tok-7f3a9c51e2b84d06"
	key   = "key-9d2e41c7"
)

// TestSecretsStayOut: the header and the query key reach the server
// expanded, but neither they nor the server's address appear in any file
// the snapshot writes nor in any error, even when the server echoes them.
func TestSecretsStayOut(t *testing.T) {
	echo := false
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		if r.Header.Get("Authorization") != "Bearer "+token || !strings.Contains(r.RawQuery, "key="+key) {
			return 401, []byte(`{"error": "unauthorized"}`)
		}
		if echo {
			return 500, []byte(`{"error": "boom for Bearer ` + token + ` and key ` + key + `"}`)
		}
		return 200, []byte(`{"hits": [{"id": "mysql-connection-pool", "text": "max_connections", "score": 0.8},
			{"id": "redis-memory", "text": "maxmemory", "score": 0.4}]}`)
	})
	env := map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": token, "SVC_KEY": key}
	host := strings.TrimPrefix(api.URL, "http://")
	secrets := []string{token, key, host}
	cfg := writeConfig(t, secretConfig)
	dir := filepath.Join(t.TempDir(), "fixtures")

	sum, res, err := endToEnd{Config: cfg, Env: env, Golden: twoCases(t), Dir: dir}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Written != 2 {
		t.Fatalf("written %d, want 2", sum.Written)
	}
	for i, c := range res.Cases {
		if c.Status != judge.StatusPass {
			t.Fatalf("case %d is %s, want %s", i, c.Status, judge.StatusPass)
		}
	}
	checkNoSecret(t, dir, secrets)
	m, err := os.ReadFile(filepath.Join(dir, contract.ManifestName))
	if err != nil {
		t.Errorf("manifest: %v", err)
	} else if !strings.Contains(string(m), `"store": "${SVC_URL}/search"`) {
		t.Errorf("the manifest does not name the URL as the config writes it, ${SVC_URL}/search:\n%s", m)
	}

	// The server fails and echoes the secrets: the errors, and the
	// manifest --partial writes with them, are scrubbed.
	api.mu.Lock()
	echo = true
	api.mu.Unlock()
	_, _, err = endToEnd{Config: cfg, Env: env, Golden: twoCases(t), Dir: dir, Retries: -1, Partial: true}.run(t)
	var fe *snapshot.FailedError
	if !errors.As(err, &fe) || len(fe.Failures) != 2 {
		t.Fatalf("got %v, want a *snapshot.FailedError with 2 failures", err)
	}
	for _, f := range fe.Failures {
		want := "POST ${SVC_URL}/search: 500 Internal Server Error: boom for Bearer ${SVC_TOKEN} and key ${SVC_KEY}"
		if f.Error != want {
			t.Errorf("failure %s:\ngot  %s\nwant %s", f.CaseID, f.Error, want)
		}
	}
	checkNoSecret(t, dir, secrets)
	for _, s := range secrets {
		if strings.Contains(err.Error(), s) {
			t.Errorf("the error names %s: %v", s, err)
		}
	}

	// Unreachable: the transport's message names the address; scrubbed.
	api.Close()
	lookuphttp.DefaultClient.CloseIdleConnections()
	_, _, err = endToEnd{Config: cfg, Env: env, Golden: twoCases(t), Dir: dir, Retries: -1, Partial: true}.run(t)
	if !errors.As(err, &fe) {
		t.Errorf("got %v, want a *snapshot.FailedError", err)
	} else if want := "POST ${SVC_URL}/search unreachable: dial tcp ${SVC_URL}: connect: connection refused"; !strings.Contains(fe.Failures[0].Error, want) {
		t.Errorf("failure %s\nwant it to contain %s", fe.Failures[0].Error, want)
	}
	checkNoSecret(t, dir, secrets)
}

// checkNoSecret fails when a file under dir contains one of secrets.
func checkNoSecret(t testing.TB, dir string, secrets []string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains %q", p, s)
			}
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walk %s: %d files, %v", dir, n, err)
	}
}

// TestServerDiesMidSnapshot: a service that stops answering after some
// lookups fails the run (after its retries) and leaves the fixture
// directory of the previous run exactly as it was.
func TestServerDiesMidSnapshot(t *testing.T) {
	calls := 0
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		calls++
		return 200, []byte(`{"hits": [{"id": "mysql-connection-pool", "text": "max_connections ` + strings.Repeat("x", calls) + `", "score": 0.8}]}`)
	})
	env := map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": token, "SVC_KEY": key}
	cfg := writeConfig(t, secretConfig)
	dir := filepath.Join(t.TempDir(), "fixtures")
	if _, _, err := (endToEnd{Config: cfg, Env: env, Golden: twoCases(t), Dir: dir}).run(t); err != nil {
		t.Fatal(err)
	}
	before := snapshotDir(t, dir)

	// Each lookup now changes the excerpt (so the run would rewrite every
	// fixture), and the server dies during the second lookup: that
	// connection drops, and nothing listens any more.
	var once sync.Once
	api.mu.Lock()
	api.answer = func(r recorded) (int, []byte) {
		calls++
		if calls >= 4 {
			once.Do(func() { api.Listener.Close() })
			return 0, nil
		}
		return 200, []byte(`{"hits": [{"id": "mysql-connection-pool", "text": "changed ` + strings.Repeat("y", calls) + `", "score": 0.8}]}`)
	}
	api.mu.Unlock()
	_, _, err := endToEnd{Config: cfg, Env: env, Golden: twoCases(t), Dir: dir, Retries: 2}.run(t)
	var fe *snapshot.FailedError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v", err)
	}
	t.Logf("failures: %v", fe.Failures)
	if after := snapshotDir(t, dir); after != before {
		t.Errorf("the fixture directory changed:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshotDir renders every file of dir with its bytes and modification
// time.
func snapshotDir(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e.Name() + " " + fi.ModTime().String() + "\n" + string(data) + "\n")
	}
	return b.String()
}

// TestTransientRetried: a 503 is retried by the snapshot's one retry
// rule; the lookup then succeeds.
func TestTransientRetried(t *testing.T) {
	calls := 0
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		calls++
		if calls%2 == 1 {
			return 503, []byte(`{"error": "warming up"}`)
		}
		return 200, []byte(`{"hits": [{"id": "mysql-connection-pool", "text": "t", "score": 0.8}]}`)
	})
	env := map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": token, "SVC_KEY": key}
	g := filepath.Join(t.TempDir(), "one.json")
	os.WriteFile(g, []byte(`{"version": 1, "kbScope": "rag-eval", "cases": [{"caseId": "pool", "scenario": "chat", "query": "q", "expectedSources": ["mysql-connection-pool"]}]}`), 0o644)
	sum, _, err := endToEnd{Config: writeConfig(t, secretConfig), Env: env, Golden: g, Retries: 2}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Written != 1 {
		t.Errorf("written %d, want 1", sum.Written)
	}
	if calls != 2 {
		t.Errorf("%d calls, want 2", calls)
	}
}

// TestUnsetVariable: a variable the config needs and the environment
// lacks is named with the file, line and field, before anything is sent.
func TestUnsetVariable(t *testing.T) {
	path := writeConfig(t, secretConfig)
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(cfg, Options{LookupEnv: envOf(map[string]string{"SVC_URL": "http://127.0.0.1:1", "SVC_KEY": key})})
	if want := path + ":6: headers.Authorization: environment variable SVC_TOKEN is not set"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestSetupFailureStopsTheRun: a setup step answered 404 (Chroma without
// the collection) fails the health check, so nothing runs and nothing is
// written; a 503 of the setup step is retried like any transient error.
func TestSetupFailureStopsTheRun(t *testing.T) {
	calls := 0
	status := 404
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		calls++
		if r.Method == "GET" {
			if status == 503 && calls == 1 {
				return 503, []byte(`{"error": "starting"}`)
			}
			if status != 200 && status != 503 {
				return status, readResponse(t, "chroma-404.json")
			}
			return 200, readResponse(t, "chroma-collection.json")
		}
		return 200, readResponse(t, "chroma-query.json")
	})
	dir := filepath.Join(t.TempDir(), "fixtures")
	run := func() (*snapshot.Summary, error) {
		sum, _, err := endToEnd{Config: shipped("chroma.yaml"), Env: map[string]string{"CHROMA_URL": api.URL}, Golden: twoCases(t), Dir: dir, Retries: 2}.run(t)
		return sum, err
	}
	_, err := run()
	want := "pipeline health check failed; nothing was written: ../../../deploy/mapped/chroma.yaml: setup[0] (collection): GET ${CHROMA_URL}/api/v2/tenants/default_tenant/databases/default_database/collections/${CHROMA_COLLECTION:-rag-chunks}: 404 Not Found: Collection [rag-chunks] does not exist"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if calls != 1 {
		t.Errorf("%d calls: a 404 is not retried and no lookup runs", calls)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the fixture directory was created: %v", err)
	}

	calls, status = 0, 503
	sum, err := run()
	// A 503 of the setup is retried.
	if err != nil {
		t.Fatal(err)
	}
	if sum.Written != 2 {
		t.Errorf("written %d, want 2", sum.Written)
	}
	if calls != 4 {
		t.Errorf("%d calls, want 4", calls)
	}
}

// TestAbsentStaysAbsent: what the mapping does not give is absent from the
// fixture (no zero scores, no empty breadcrumbs, no context pack or traces
// of the builtin pipeline), and the judge skips the checks on the parts
// the config declares it lacks.
func TestAbsentStaysAbsent(t *testing.T) {
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		return 200, []byte(`{"hits": [{"id": "mysql-connection-pool", "text": "max_connections", "score": 0.8}]}`)
	})
	env := map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": token, "SVC_KEY": key}
	g := filepath.Join(t.TempDir(), "one.json")
	os.WriteFile(g, []byte(`{"version": 1, "kbScope": "rag-eval", "cases": [{"caseId": "pool", "scenario": "chat", "query": "q",
  "expectedSources": ["mysql-connection-pool"], "expectedSelectedAttempt": "FILTERED_VECTOR", "expectedContextSources": ["mysql-connection-pool"]}]}`), 0o644)
	dir := filepath.Join(t.TempDir(), "fixtures")
	_, res, err := endToEnd{Config: writeConfig(t, secretConfig), Env: env, Golden: g, Dir: dir}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "pool.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		LookupResult map[string]any `json:"lookupResult"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"contextPack", "retrievalTrace", "rerankTrace"} {
		if _, ok := f.LookupResult[k]; ok {
			t.Errorf("lookupResult has %s:\n%s", k, data)
		}
	}
	block := f.LookupResult["evidenceBlocks"].([]any)[0].(map[string]any)
	var keys []string
	for k := range block {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got := strings.Join(keys, ","); got != "docId,excerpt,fusedScore,qualityScore,rank,relevanceLevel,scoreLabel,source" {
		t.Errorf("block fields %s", got)
	}
	c := res.Cases[0]
	if c.Status != judge.StatusPass {
		t.Errorf("case %s, want %s", c.Status, judge.StatusPass)
	}
	if got := strings.Join(c.SkippedChecks, ","); got != "selected_attempt,context_sources" {
		t.Errorf("skipped %s, want selected_attempt,context_sources", got)
	}
}

// TestHugeErrorMessageCut: a service whose errorMessage is megabytes long,
// in a failed answer or in a 200 that errorIf marks as an error, gives a
// failure of one line cut at lookuphttp.MaxMessageChars characters. The
// secrets are replaced before the cut, so a cut never keeps the start of
// one, and the manifest that --partial writes stays small.
func TestHugeErrorMessageCut(t *testing.T) {
	huge := strings.Repeat("x", 2<<20)
	status := 500
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		// The token sits where the cut falls: only its start would be kept
		// if the cut came before the scrubbing.
		msg := strings.Repeat("y", lookuphttp.MaxMessageChars-5) + " " + token + " " + huge
		return status, []byte(`{"error": "` + msg + `"}`)
	})
	env := map[string]string{"SVC_URL": api.URL, "SVC_TOKEN": token, "SVC_KEY": key}
	cfg := writeConfig(t, secretConfig)
	for _, st := range []int{500, 200} {
		status = st
		dir := filepath.Join(t.TempDir(), "fixtures")
		_, _, err := endToEnd{Config: cfg, Env: env, Golden: twoCases(t), Dir: dir, Retries: -1, Partial: true}.run(t)
		var fe *snapshot.FailedError
		if !errors.As(err, &fe) || len(fe.Failures) != 2 {
			t.Fatalf("status %d: got %v, want a *snapshot.FailedError with 2 failures", st, err)
		}
		for _, f := range fe.Failures {
			if n := utf8.RuneCountInString(f.Error); n > lookuphttp.MaxMessageChars+200 {
				t.Errorf("status %d: failure %s is %d characters, want at most %d and the URL", st, f.CaseID, n, lookuphttp.MaxMessageChars)
			}
			if !strings.HasSuffix(f.Error, "…") {
				t.Errorf("status %d: failure %s does not end in …: it ends %q", st, f.CaseID, f.Error[len(f.Error)-80:])
			}
			if strings.Contains(f.Error, token[:6]) {
				t.Errorf("status %d: failure %s keeps the start of the token", st, f.CaseID)
			}
		}
		m, err := os.ReadFile(filepath.Join(dir, contract.ManifestName))
		if err != nil {
			t.Fatalf("status %d: manifest: %v", st, err)
		}
		if len(m) > 16<<10 {
			t.Errorf("status %d: the manifest is %d bytes, want at most 16 KiB", st, len(m))
		}
	}
}
