package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/testkit/eq"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
)

// cannedPipeline answers each query with a fixed result, built from the
// query and its entry in excerpt (so a test can change one case's result).
// fail makes a query fail: the number of failures before it succeeds (-1:
// always), and whether the failure is transient (500) or not (400).
type cannedPipeline struct {
	mu        sync.Mutex
	excerpt   map[string]string
	fail      map[string]int
	permanent map[string]bool
	delay     map[string]time.Duration
	latency   int64
	version   string // Describe's version; "" means "1"
	calls     map[string]int
	inFlight  int
	maxFlight int
}

func newCanned() *cannedPipeline {
	return &cannedPipeline{excerpt: map[string]string{}, fail: map[string]int{}, permanent: map[string]bool{},
		delay: map[string]time.Duration{}, calls: map[string]int{}, latency: 3}
}

func (c *cannedPipeline) Lookup(ctx context.Context, req pipeline.Request) (*contract.LookupResult, error) {
	c.mu.Lock()
	c.calls[req.Query]++
	c.inFlight++
	c.maxFlight = max(c.maxFlight, c.inFlight)
	defer func() {
		c.mu.Lock()
		c.inFlight--
		c.mu.Unlock()
	}()
	n := c.fail[req.Query]
	if n != 0 {
		c.fail[req.Query]--
		if n < 0 {
			c.fail[req.Query] = -1
		}
	}
	permanent, delay, excerpt, latency := c.permanent[req.Query], c.delay[req.Query], c.excerpt[req.Query], c.latency
	c.mu.Unlock()
	if delay > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
	if n != 0 {
		if permanent {
			return nil, fmt.Errorf("%w: refused %q", pipeline.ErrInvalidRequest, req.Query)
		}
		// A backing service that cannot be reached: transient in process
		// (snapshot.Transient) and over HTTP (503, retried).
		return nil, shardDown{req.Query}
	}
	if excerpt == "" {
		excerpt = "about " + req.Query
	}
	src := strings.Fields(req.Query)[0]
	return &contract.LookupResult{
		Found: true, EvidenceStatus: contract.EvidenceSufficient,
		EvidenceBlocks: []contract.EvidenceBlock{{
			Rank: 1, EvidenceKey: req.KBScope + "/" + src + "#0", DocID: req.KBScope + "/" + src, Source: src,
			Breadcrumb: "Docs > " + src, Category: "ops", Excerpt: excerpt, QualityScore: 0.5, RelevanceLevel: "medium",
			DenseDistance: 1, FusedScore: 0.016393, ScoreLabel: "RRF",
		}},
		ContextPack: contract.ContextPack{Sources: []string{src}, BlockCount: 1, UsedChars: len(excerpt), BudgetChars: 3000, PackedText: excerpt},
		RetrievalTrace: contract.RetrievalTrace{
			SearchMode: string(req.SearchMode), KBScope: req.KBScope,
			Attempts:        []contract.Attempt{{Name: contract.AttemptUnfiltered, Filter: contract.Filter{KBScope: req.KBScope}, Candidates: 1, BestQuality: 0.5, LatencyMs: latency}},
			SelectedAttempt: contract.AttemptUnfiltered,
		},
		RerankTrace: contract.RerankTrace{Model: "none", TopSource: src},
	}, nil
}

func (c *cannedPipeline) Describe() contract.Pipeline {
	c.mu.Lock()
	version := c.version
	c.mu.Unlock()
	if version == "" {
		version = "1"
	}
	return contract.Pipeline{Name: "canned", Version: version, Store: "memory", Embedder: "none", Dim: 4,
		Params: &contract.PipelineParams{TopK: 5, CandidateK: 20, Rerank: "none", ContextBudget: 3000}}
}

// count returns the calls for query q, or for all queries when q is "".
func (c *cannedPipeline) count(q string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if q != "" {
		return c.calls[q]
	}
	n := 0
	for _, v := range c.calls {
		n += v
	}
	return n
}

func (c *cannedPipeline) set(f func(c *cannedPipeline)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(c)
}

// serve serves p over a real HTTP server and returns a client of it.
func serve(t *testing.T, p pipeline.Lookuper) *lookuphttp.Client {
	t.Helper()
	srv := httptest.NewServer(lookuphttp.NewHandler(p, lookuphttp.HandlerOptions{}))
	t.Cleanup(srv.Close)
	return &lookuphttp.Client{BaseURL: srv.URL, Timeout: 10 * time.Second}
}

const goldenJSON = `{
  "version": 1, "kbScope": "rag-eval", "k": 5,
  "cases": [
    {"caseId": "disk", "scenario": "aiops", "query": "disk full", "expectedSources": ["disk"]},
    {"caseId": "pool", "scenario": "chat", "query": "pool exhausted", "expectedSources": ["pool"]},
    {"caseId": "cert", "scenario": "chat", "query": "cert expired", "expectedSources": ["cert"]}
  ]
}`

func golden(t *testing.T, data string) *contract.GoldenFile {
	t.Helper()
	g, err := contract.ParseGolden("golden-cases.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// clock returns a Now that advances by a minute on every call.
func clock(start string) func() time.Time {
	var mu sync.Mutex
	t, _ := time.Parse(time.RFC3339, start)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Minute)
		return t
	}
}

type fileState struct {
	data  string
	mtime time.Time
}

// dirState reads every file under dir (nil when dir does not exist).
func dirState(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]fileState{}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = fileState{string(data), fi.ModTime()}
	}
	return m
}

// ageFiles sets every file's mtime an hour back, so a rewrite shows.
func ageFiles(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if err := os.Chtimes(filepath.Join(dir, e.Name()), old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func assertNoStaging(t *testing.T, parent string) {
	t.Helper()
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".staging-") {
			t.Errorf("staging directory %s left behind", e.Name())
		}
	}
}

func baseOptions(t *testing.T, l pipeline.Lookuper, dir string) Options {
	return Options{
		Cases: golden(t, goldenJSON), CasesPath: "golden-cases.json", FixturesDir: dir,
		Lookuper: l, Now: clock("2026-11-29T12:00:00Z"), Backoff: time.Millisecond,
	}
}

func TestFirstRun(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, serve(t, p), dir)
	var progress []int
	opts.Progress = func(done, total int) {
		if total != 3 {
			t.Errorf("progress total %d", total)
		}
		progress = append(progress, done)
	}
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "summary.Written", sum.Written, 3)
	eq.Check(t, "summary.Changed", sum.Changed, 3)
	eq.Check(t, "summary.Added", sum.Added, 3)
	eq.Check(t, "summary.Unchanged", sum.Unchanged, 0)
	eq.Check(t, "summary.Failed", sum.Failed, 0)
	eq.Check(t, "summary.ManifestWritten", sum.ManifestWritten, true)
	if !slices.Equal(progress, []int{0, 1, 2, 3}) {
		t.Errorf("progress %v", progress)
	}
	files := dirState(t, dir)
	if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, []string{"_snapshot.json", "cert.json", "disk.json", "pool.json"}) {
		t.Fatalf("files %v", got)
	}
	f, err := contract.ParseFixture("disk.json", []byte(files["disk.json"].data))
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "fixture.CaseID", f.CaseID, "disk")
	eq.Check(t, "fixture.Query", f.Query, "disk full")
	eq.Check(t, "fixture.SearchMode", f.SearchMode, "hybrid")
	eq.Check(t, "fixture.KBScope", f.KBScope, "rag-eval")
	if !strings.HasPrefix(f.RetrievedAt, "2026-11-29T12:") || !strings.HasSuffix(f.RetrievedAt, ":00Z") {
		t.Errorf("fixture.RetrievedAt = %q, want 2026-11-29T12:MM:00Z", f.RetrievedAt)
	}
	// The file is exactly what EncodeFixture writes for it.
	want, _ := contract.EncodeFixture(&contract.Fixture{
		CaseID: "disk", Query: "disk full", RetrievedAt: f.RetrievedAt, SearchMode: "hybrid", KBScope: "rag-eval",
		Pipeline: &contract.Pipeline{Name: "http", Version: "canned 1", Store: opts.Lookuper.(*lookuphttp.Client).BaseURL, Embedder: "none", Dim: 4,
			Params: &contract.PipelineParams{TopK: 5, CandidateK: 20, Rerank: "none", ContextBudget: 3000}},
		LookupResult: mustLookup(t, p, "disk full"),
	})
	if files["disk.json"].data != string(want) {
		t.Errorf("disk.json:\n%s\nwant:\n%s", files["disk.json"].data, want)
	}
	m, err := contract.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "manifest.Status", m.Status, "available")
	eq.Check(t, "manifest.Cases", m.Cases, 3)
	eq.Check(t, "manifest.Written", m.Written, 3)
	eq.Check(t, "manifest.Changed", m.Changed, 3)
	eq.Check(t, "manifest.Unchanged", m.Unchanged, 0)
	eq.Check(t, "len(manifest.Failed)", len(m.Failed), 0)
	eq.Check(t, "manifest.SearchMode", m.SearchMode, "hybrid")
	eq.Check(t, "manifest.KBScope", m.KBScope, "rag-eval")
	eq.Check(t, "manifest.Pipeline.Name", m.Pipeline.Name, "http")
	eq.Check(t, "manifest.Embedder", m.Embedder, "none")
	eq.Check(t, "manifest.Started", m.Started, "2026-11-29T12:01:00Z")
	if m.Finished <= m.Started {
		t.Errorf("manifest.Finished = %q, want after Started %q", m.Finished, m.Started)
	}
	if !strings.Contains(files["_snapshot.json"].data, `"failed": []`) {
		t.Errorf("manifest without failed: []:\n%s", files["_snapshot.json"].data)
	}
	assertNoStaging(t, filepath.Dir(dir))
}

func mustLookup(t *testing.T, p pipeline.Lookuper, q string) *contract.LookupResult {
	lr, err := p.Lookup(context.Background(), pipeline.Request{Query: q, KBScope: "rag-eval", SearchMode: kb.Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	return lr
}

// TestRerunUnchanged: a rerun whose results differ only in retrievedAt and
// latencyMs keeps every file, manifest included, byte for byte and mtime.
func TestRerunUnchanged(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, serve(t, p), dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, dir)
	before := dirState(t, dir)

	p.set(func(c *cannedPipeline) { c.latency = 97 })
	opts.Now = clock("2027-01-01T00:00:00Z")
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "summary.Written", sum.Written, 3)
	eq.Check(t, "summary.Unchanged", sum.Unchanged, 3)
	eq.Check(t, "summary.Changed", sum.Changed, 0)
	eq.Check(t, "summary.ManifestWritten", sum.ManifestWritten, false)
	if after := dirState(t, dir); !maps.Equal(before, after) {
		t.Errorf("files changed on an unchanged rerun:\nbefore %v\nafter  %v", before, after)
	}
	assertNoStaging(t, filepath.Dir(dir))
}

// TestChangedFixture: one changed result rewrites that file and the
// manifest, and nothing else.
func TestChangedFixture(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, serve(t, p), dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, dir)
	before := dirState(t, dir)

	p.set(func(c *cannedPipeline) { c.excerpt["pool exhausted"] = "a better chunk about the pool" })
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "summary.Changed", sum.Changed, 1)
	eq.Check(t, "summary.Added", sum.Added, 0)
	eq.Check(t, "summary.Unchanged", sum.Unchanged, 2)
	eq.Check(t, "summary.ManifestWritten", sum.ManifestWritten, true)
	after := dirState(t, dir)
	for name, st := range before {
		rewritten := name == "pool.json" || name == contract.ManifestName
		if (after[name] != st) != rewritten {
			t.Errorf("%s rewritten = %v, want %v", name, after[name] != st, rewritten)
		}
	}
	if !strings.Contains(after["pool.json"].data, "a better chunk about the pool") {
		t.Errorf("pool.json not updated:\n%s", after["pool.json"].data)
	}
	m, _ := contract.ReadManifest(dir)
	eq.Check(t, "manifest.Changed", m.Changed, 1)
	eq.Check(t, "manifest.Unchanged", m.Unchanged, 2)
	eq.Check(t, "manifest.Written", m.Written, 3)
}

// TestFailureLeavesDirUntouched: one failing case, and nothing moves in,
// though another case changed; --partial moves the successes in.
func TestFailureLeavesDirUntouched(t *testing.T) {
	for _, permanent := range []bool{false, true} {
		t.Run(fmt.Sprintf("permanent=%v", permanent), func(t *testing.T) {
			p := newCanned()
			dir := filepath.Join(t.TempDir(), "fixtures")
			opts := baseOptions(t, serve(t, p), dir)
			if _, err := Run(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			ageFiles(t, dir)
			before := dirState(t, dir)

			p.set(func(c *cannedPipeline) {
				c.excerpt["pool exhausted"] = "changed"
				c.fail["cert expired"] = -1
				c.permanent["cert expired"] = permanent
				c.calls = map[string]int{}
			})
			sum, err := Run(context.Background(), opts)
			var fe *FailedError
			if !errors.As(err, &fe) || len(fe.Failures) != 1 || fe.Failures[0].CaseID != "cert" || fe.Moved {
				t.Fatalf("err = %v, want one failure of cert, nothing moved", err)
			}
			if !strings.Contains(err.Error(), "1 of 3 lookups failed; "+dir+" was left untouched") {
				t.Errorf("error %q", err)
			}
			wantCalls, wantMsg := 3, "index: rpc error: code = Unavailable desc = shard for \"cert expired\" is down (after 3 attempts)"
			if permanent {
				wantCalls, wantMsg = 1, "400 Bad Request: invalid lookup request: refused \"cert expired\""
			}
			if p.count("cert expired") != wantCalls || !strings.Contains(fe.Failures[0].Error, wantMsg) {
				t.Errorf("%d calls, error %q; want %d calls and %q", p.count("cert expired"), fe.Failures[0].Error, wantCalls, wantMsg)
			}
			eq.Check(t, "summary.Failed", sum.Failed, 1)
			eq.Check(t, "summary.Moved", sum.Moved, false)
			eq.Check(t, "summary.ManifestWritten", sum.ManifestWritten, false)
			if after := dirState(t, dir); !maps.Equal(before, after) {
				t.Errorf("fixture dir touched by a failed run:\nbefore %v\nafter  %v", before, after)
			}
			assertNoStaging(t, filepath.Dir(dir))

			// --partial: the successes move in, the failed case keeps its
			// old fixture, the manifest lists the failure.
			opts.Partial = true
			sum, err = Run(context.Background(), opts)
			if !errors.As(err, &fe) || !fe.Moved || !strings.Contains(err.Error(), "the successes were moved into") {
				t.Fatalf("partial: err = %v, want a *FailedError with Moved saying the successes were moved into %s", err, dir)
			}
			eq.Check(t, "partial: summary.Moved", sum.Moved, true)
			eq.Check(t, "partial: summary.ManifestWritten", sum.ManifestWritten, true)
			eq.Check(t, "partial: summary.Failed", sum.Failed, 1)
			after := dirState(t, dir)
			for _, name := range []string{"cert.json", "disk.json"} {
				if after[name] != before[name] {
					t.Errorf("partial: %s rewritten, want it kept", name)
				}
			}
			if after["pool.json"] == before["pool.json"] {
				t.Error("partial: pool.json kept, want it rewritten")
			}
			m, _ := contract.ReadManifest(dir)
			if len(m.Failed) != 1 || m.Failed[0].CaseID != "cert" {
				t.Errorf("partial: manifest.Failed = %+v, want only cert", m.Failed)
			}
			eq.Check(t, "partial: manifest.Written", m.Written, 2)
			eq.Check(t, "partial: manifest.Changed", m.Changed, 1)
			assertNoStaging(t, filepath.Dir(dir))
		})
	}
}

// TestFailureOnFirstRun: a failure when there is no fixture dir yet does
// not create it.
func TestFailureOnFirstRun(t *testing.T) {
	p := newCanned()
	p.fail["disk full"] = -1
	p.permanent["disk full"] = true
	dir := filepath.Join(t.TempDir(), "fixtures")
	_, err := Run(context.Background(), baseOptions(t, serve(t, p), dir))
	if err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fixture dir created by a failed run: %v", err)
	}
}

func TestRetryThenSuccess(t *testing.T) {
	p := newCanned()
	p.fail["disk full"] = 2
	dir := filepath.Join(t.TempDir(), "fixtures")
	sum, err := Run(context.Background(), baseOptions(t, serve(t, p), dir))
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, `lookups of "disk full"`, p.count("disk full"), 3)
	eq.Check(t, "summary.Written", sum.Written, 3)
}

func TestTimeoutRetried(t *testing.T) {
	p := newCanned()
	p.delay["disk full"] = 5 * time.Second
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, serve(t, p), dir)
	opts.Timeout = 50 * time.Millisecond
	opts.Retries = 1
	_, err := Run(context.Background(), opts)
	var fe *FailedError
	if !errors.As(err, &fe) || len(fe.Failures) != 1 {
		t.Fatalf("err = %v, want a *FailedError with one failure", err)
	}
	if msg := fe.Failures[0].Error; !strings.Contains(msg, "(after 2 attempts)") || !strings.Contains(msg, "no response") {
		t.Errorf("failure %q, want no response (after 2 attempts)", msg)
	}
	if p.count("disk full") != 2 {
		t.Errorf("%d calls, want 2", p.count("disk full"))
	}
}

// TestRemovedCase: the fixture of a case no longer in the golden file is
// removed; files that are not fixtures, or start with _, stay.
func TestRemovedCase(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, serve(t, p), dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`["not a fixture"]`), 0o644)
	os.WriteFile(filepath.Join(dir, "_baseline.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte(`hi`), 0o644)
	ageFiles(t, dir)
	before := dirState(t, dir)

	opts.Cases = golden(t, strings.Replace(goldenJSON, `,
    {"caseId": "cert", "scenario": "chat", "query": "cert expired", "expectedSources": ["cert"]}`, "", 1))
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "summary.Removed", sum.Removed, 1)
	eq.Check(t, "summary.Unchanged", sum.Unchanged, 2)
	eq.Check(t, "summary.ManifestWritten", sum.ManifestWritten, true)
	after := dirState(t, dir)
	if _, ok := after["cert.json"]; ok {
		t.Error("cert.json not removed")
	}
	for _, name := range []string{"notes.json", "_baseline.json", "README.md", "disk.json", "pool.json"} {
		if after[name] != before[name] {
			t.Errorf("%s touched", name)
		}
	}
	if want := "notes.json matches no golden case but is not a fixture"; len(sum.Warnings) != 1 || !strings.Contains(sum.Warnings[0].Error(), want) {
		t.Errorf("warnings %v, want one saying %s", sum.Warnings, want)
	}
	m, _ := contract.ReadManifest(dir)
	eq.Check(t, "manifest.Removed", m.Removed, 1)
	eq.Check(t, "manifest.Cases", m.Cases, 2)
}

// TestSidecarUnreachable: the sidecar dir gets an "unavailable" manifest
// and nothing else; the current path is written.
func TestSidecarUnreachable(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	root := t.TempDir()
	dir, sideDir := filepath.Join(root, "fixtures"), filepath.Join(root, "fixtures-sidecar")
	opts := baseOptions(t, serve(t, newCanned()), dir)
	opts.Sidecar = &lookuphttp.Client{BaseURL: downURL}
	opts.SidecarDir = sideDir
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "summary.Written", sum.Written, 3)
	if sum.Sidecar == nil || sum.Sidecar.Status != contract.StatusUnavailable {
		t.Fatalf("summary.Sidecar = %+v, want status %s", sum.Sidecar, contract.StatusUnavailable)
	}
	if got := slices.Sorted(maps.Keys(dirState(t, sideDir))); !slices.Equal(got, []string{contract.ManifestName}) {
		t.Errorf("sidecar dir holds %v, want only the manifest", got)
	}
	m, err := contract.ReadManifest(sideDir)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "sidecar manifest.Status", m.Status, "unavailable")
	if want := "health check failed: GET " + downURL + "/healthz unreachable"; !strings.Contains(m.Reason, want) {
		t.Errorf("sidecar manifest.Reason = %q, want it to contain %q", m.Reason, want)
	}
	eq.Check(t, "sidecar manifest.Written", m.Written, 0)
	eq.Check(t, "sidecar manifest.Cases", m.Cases, 3)
	eq.Check(t, "sidecar manifest.Pipeline.Name", m.Pipeline.Name, "http")
	eq.Check(t, "sidecar manifest.Store", m.Store, downURL)
	if len(dirState(t, dir)) != 4 {
		t.Errorf("current path not written: %v", dirState(t, dir))
	}
	assertNoStaging(t, root)

	// Still down: nothing changes, not even the manifest.
	ageFiles(t, sideDir)
	before := dirState(t, sideDir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if after := dirState(t, sideDir); !maps.Equal(before, after) {
		t.Errorf("sidecar manifest rewritten while still unavailable")
	}
}

// TestSidecarNoHealthEndpoint: a sidecar without a health check that
// refuses connections is unavailable after its first lookup.
func TestSidecarDiesBeforeFirstLookup(t *testing.T) {
	root := t.TempDir()
	opts := baseOptions(t, serve(t, newCanned()), filepath.Join(root, "fixtures"))
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	opts.Sidecar = noHealth{&lookuphttp.Client{BaseURL: downURL}}
	opts.SidecarDir = filepath.Join(root, "sidecar")
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "sidecar.Status", sum.Sidecar.Status, contract.StatusUnavailable)
	if !strings.Contains(sum.Sidecar.Reason, "unreachable") {
		t.Errorf("sidecar.Reason = %q, want it to say unreachable", sum.Sidecar.Reason)
	}
}

type noHealth struct{ l pipeline.Lookuper }

func (n noHealth) Lookup(ctx context.Context, r pipeline.Request) (*contract.LookupResult, error) {
	return n.l.Lookup(ctx, r)
}
func (n noHealth) Describe() contract.Pipeline { return n.l.Describe() }

func TestSidecarAvailable(t *testing.T) {
	root := t.TempDir()
	side := newCanned()
	side.excerpt["disk full"] = "the sidecar's answer"
	opts := baseOptions(t, serve(t, newCanned()), filepath.Join(root, "fixtures"))
	opts.Sidecar, opts.SidecarDir = serve(t, side), filepath.Join(root, "sidecar")
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "summary.Written", sum.Written, 3)
	eq.Check(t, "sidecar.Written", sum.Sidecar.Written, 3)
	eq.Check(t, "sidecar.Status", sum.Sidecar.Status, contract.StatusAvailable)
	if t.Failed() {
		t.FailNow()
	}
	data, _ := os.ReadFile(filepath.Join(root, "sidecar", "disk.json"))
	if !strings.Contains(string(data), "the sidecar's answer") {
		t.Errorf("sidecar fixture:\n%s", data)
	}

	// A sidecar case failing does not stop the current path.
	side.set(func(c *cannedPipeline) { c.fail["pool exhausted"], c.permanent["pool exhausted"] = -1, true })
	opts.Cases.Cases[0].Query = "disk is full"
	sum, err = Run(context.Background(), opts)
	var fe *FailedError
	if !errors.As(err, &fe) || len(fe.Failures) != 1 || fe.Failures[0].CaseID != "sidecar:pool" {
		t.Fatalf("err = %v, want a *FailedError with one failure, of sidecar:pool", err)
	}
	eq.Check(t, "summary.Moved", sum.Moved, true)
	eq.Check(t, "summary.Changed", sum.Changed, 1)
	eq.Check(t, "sidecar.Moved", sum.Sidecar.Moved, false)
}

// TestCurrentFailureKeepsSidecar: when the current path fails, the sidecar
// directory is left untouched too, so it is never newer than the current
// fixtures it is compared with.
func TestCurrentFailureKeepsSidecar(t *testing.T) {
	root := t.TempDir()
	cur, side := newCanned(), newCanned()
	opts := baseOptions(t, serve(t, cur), filepath.Join(root, "fixtures"))
	opts.Sidecar, opts.SidecarDir = serve(t, side), filepath.Join(root, "sidecar")
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, opts.SidecarDir)
	before := dirState(t, opts.SidecarDir)
	side.set(func(c *cannedPipeline) { c.excerpt["disk full"] = "a new sidecar answer" })
	cur.set(func(c *cannedPipeline) { c.fail["pool exhausted"], c.permanent["pool exhausted"] = -1, true })
	sum, err := Run(context.Background(), opts)
	var fe *FailedError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *FailedError", err)
	}
	eq.Check(t, "summary.Moved", sum.Moved, false)
	eq.Check(t, "sidecar.Moved", sum.Sidecar.Moved, false)
	if t.Failed() {
		t.FailNow()
	}
	if after := dirState(t, opts.SidecarDir); !maps.Equal(before, after) {
		t.Error("the sidecar directory changed although the current path failed")
	}
}

func TestKWarning(t *testing.T) {
	g := strings.Replace(goldenJSON, `"caseId": "pool",`, `"caseId": "pool", "k": 10,`, 1)
	opts := baseOptions(t, newCanned(), filepath.Join(t.TempDir(), "f"))
	opts.Cases = golden(t, g)
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "golden K 10 is larger than topK 5 for 1 case(s), so ranks 6..10 cannot count: pool"; len(sum.Warnings) != 1 || sum.Warnings[0].Error() != want {
		t.Errorf("warnings %v, want only %s", sum.Warnings, want)
	}
	opts.TopK = 10
	if sum, _ := Run(context.Background(), opts); len(sum.Warnings) != 0 {
		t.Errorf("warnings with topK 10: %v", sum.Warnings)
	}
	var f contract.Fixture
	data, _ := os.ReadFile(filepath.Join(opts.FixturesDir, "pool.json"))
	if fx, err := contract.ParseFixture("", data); err != nil || !strings.Contains(string(data), `"topK": 10`) {
		t.Errorf("fixture params do not say topK 10 (%v %v):\n%s", fx, err, data)
	}
	_ = f
}

func TestInterrupted(t *testing.T) {
	p := newCanned()
	p.delay["pool exhausted"] = 10 * time.Second
	dir := filepath.Join(t.TempDir(), "fixtures")
	ctx, cancel := context.WithCancel(context.Background())
	opts := baseOptions(t, p, dir)
	opts.Progress = func(done, total int) {
		if done == 2 {
			cancel()
		}
	}
	_, err := Run(ctx, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Error("fixture dir created by an interrupted run")
	}
	assertNoStaging(t, filepath.Dir(dir))
}

func TestOptionErrors(t *testing.T) {
	base := func() Options { return baseOptions(t, newCanned(), filepath.Join(t.TempDir(), "f")) }
	tests := []struct {
		name string
		edit func(o *Options)
		msg  string
	}{
		{"no cases", func(o *Options) { o.Cases = nil }, "no golden cases"},
		{"no pipeline", func(o *Options) { o.Lookuper = nil }, "no pipeline"},
		{"bad mode", func(o *Options) { o.SearchMode = "sparse" }, `search mode must be hybrid or dense, got "sparse"`},
		{"same dirs", func(o *Options) { o.Sidecar, o.SidecarDir = newCanned(), o.FixturesDir }, "is the fixture directory"},
		{"traversal", func(o *Options) { o.Cases.Cases[0].CaseID = "../evil" }, `caseId "../evil" cannot name a fixture file`},
		{"long caseId", func(o *Options) { o.Cases.Cases[0].CaseID = strings.Repeat("a", contract.MaxCaseIDLen+1) }, `caseId "` + strings.Repeat("a", contract.MaxCaseIDLen+1) + `" cannot name a fixture file`},
		{"case collision", func(o *Options) { o.Cases.Cases[0].CaseID = "POOL" }, `would name the same fixture file`},
		{"no kbScope", func(o *Options) { o.Cases.KBScope = "" }, "no kbScope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base()
			tt.edit(&o)
			_, err := Run(context.Background(), o)
			if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err %v, want a usage error containing %q", err, tt.msg)
			}
		})
	}
}

func TestFixtureDirNotADirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fixtures")
	os.WriteFile(path, []byte("x"), 0o644)
	_, err := Run(context.Background(), baseOptions(t, newCanned(), path))
	if err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("err %v", err)
	}
}

func TestReadOnlyFixtureDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write into a read-only directory")
	}
	dir := filepath.Join(t.TempDir(), "fixtures")
	os.Mkdir(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	p := newCanned()
	_, err := Run(context.Background(), baseOptions(t, p, dir))
	if err == nil || !strings.Contains(err.Error(), "is not writable") || p.count("") != 0 {
		t.Errorf("err %v after %d lookups", err, p.count(""))
	}
}

func TestSame(t *testing.T) {
	a := `{"caseId":"x","retrievedAt":"2026-01-01T00:00:00Z","lookupResult":{"retrievalTrace":{"attempts":[{"name":"A","latencyMs":4}]},"q":0.5}}`
	tests := []struct {
		b    string
		same bool
	}{
		{a, true},
		{`{"retrievedAt":"2027-05-05T00:00:00Z","caseId":"x","lookupResult":{"q":0.5,"retrievalTrace":{"attempts":[{"latencyMs":900,"name":"A"}]}}}`, true},
		{`{"caseId":"x","lookupResult":{"retrievalTrace":{"attempts":[{"name":"A"}]},"q":0.5}}`, true},
		{`{"caseId":"x","retrievedAt":"2026-01-01T00:00:00Z","lookupResult":{"retrievalTrace":{"attempts":[{"name":"B","latencyMs":4}]},"q":0.5}}`, false},
		{`{"caseId":"x","retrievedAt":"2026-01-01T00:00:00Z","lookupResult":{"retrievalTrace":{"attempts":[{"name":"A","latencyMs":4}]},"q":0.50001}}`, false},
		{`{"caseId":"x","lookupResult":{"retrievedAt":"nested is not ignored","retrievalTrace":{"attempts":[{"name":"A"}]},"q":0.5}}`, false},
		{`{"caseId":"x"}`, false},
		{`not json`, false},
		{a + `{}`, false},
	}
	for i, tt := range tests {
		if got := Same([]byte(a), []byte(tt.b)); got != tt.same {
			t.Errorf("%d: Same = %v, want %v", i, got, tt.same)
		}
	}
}

// shardDown is a backend's error that says itself it is transient, as
// index/milvus' *Error does for gRPC Unavailable.
type shardDown struct{ query string }

func (e shardDown) Error() string {
	return fmt.Sprintf("index: rpc error: code = Unavailable desc = shard for %q is down", e.query)
}
func (shardDown) Transient() bool { return true }

func TestTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{context.DeadlineExceeded, true},
		{fmt.Errorf("embed: %w", context.DeadlineExceeded), true},
		{&lookuphttp.StatusError{StatusCode: 503}, true},
		{&lookuphttp.StatusError{StatusCode: 429}, true},
		{&lookuphttp.StatusError{StatusCode: 400}, false},
		{&lookuphttp.UnreachableError{URL: "u", Err: errors.New("refused")}, true},
		{fmt.Errorf("search: %w", shardDown{"q"}), true},
		// The package matches no backend's message text: only the error's
		// own Transient method can say a gRPC Unavailable is transient.
		{errors.New("search: rpc error: code = Unavailable desc = connection error"), false},
		{&lookuphttp.StatusError{StatusCode: 404}, false},
		{&lookuphttp.TimeoutError{URL: "u"}, true},
		{&lookuphttp.ProtocolError{URL: "u", Msg: "not JSON"}, false},
		{fmt.Errorf("catalog: %w", syscall.ECONNREFUSED), true},
		{fmt.Errorf("catalog: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("%w: empty query", pipeline.ErrInvalidRequest), false},
		{errors.New("collection has dimension 64"), false},
		{context.Canceled, false},
	}
	for _, tt := range tests {
		if got := pipeline.Transient(tt.err); got != tt.want {
			t.Errorf("Transient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestPipelineUnreachable: the current path down is an error before any
// lookup, and nothing is written.
func TestPipelineUnreachable(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	dir := filepath.Join(t.TempDir(), "fixtures")
	_, err := Run(context.Background(), baseOptions(t, &lookuphttp.Client{BaseURL: downURL}, dir))
	if err == nil || !strings.Contains(err.Error(), "pipeline health check failed; nothing was written: GET "+downURL+"/healthz unreachable") ||
		!strings.Contains(err.Error(), "(after 3 attempts)") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Error("fixture dir created")
	}
	assertNoStaging(t, filepath.Dir(dir))
}

// TestGiveUp: after MaxConsecutiveFailures transient failures in a row the
// remaining cases are not run; permanent failures do not count.
func TestGiveUp(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"kbScope": "rag-eval", "cases": [`)
	for i := range 20 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"caseId": "c%02d", "scenario": "s", "query": "q%02d x", "expectedSources": ["a"]}`, i, i)
	}
	b.WriteString("]}")
	for _, permanent := range []bool{false, true} {
		t.Run(fmt.Sprintf("permanent=%v", permanent), func(t *testing.T) {
			p := newCanned()
			for i := range 20 {
				q := fmt.Sprintf("q%02d x", i)
				p.fail[q], p.permanent[q] = -1, permanent
			}
			opts := baseOptions(t, serve(t, p), filepath.Join(t.TempDir(), "f"))
			opts.Cases, opts.Concurrency, opts.Retries, opts.MaxConsecutiveFailures = golden(t, b.String()), 1, -1, 3
			_, err := Run(context.Background(), opts)
			var fe *FailedError
			if !errors.As(err, &fe) || len(fe.Failures) != 20 {
				t.Fatalf("err %v", err)
			}
			wantCalls := 3
			if permanent {
				wantCalls = 20
			}
			if p.count("") != wantCalls {
				t.Errorf("%d lookups, want %d", p.count(""), wantCalls)
			}
			if !permanent && !strings.HasPrefix(fe.Failures[3].Error, "not run: gave up after 3 lookups in a row failed with transient errors (the last: POST http://") {
				t.Errorf("failure %q", fe.Failures[3].Error)
			}
		})
	}
}

// TestNoHealthEndpoint: a pipeline that only serves POST /v1/lookup (404 on
// /healthz) is used, as current path and as sidecar.
func TestNoHealthEndpoint(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle(lookuphttp.LookupPath, lookuphttp.NewHandler(newCanned(), lookuphttp.HandlerOptions{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	root := t.TempDir()
	opts := baseOptions(t, &lookuphttp.Client{BaseURL: srv.URL}, filepath.Join(root, "fixtures"))
	opts.Sidecar, opts.SidecarDir = &lookuphttp.Client{BaseURL: srv.URL}, filepath.Join(root, "sidecar")
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "summary.Written", sum.Written, 3)
	eq.Check(t, "sidecar.Written", sum.Sidecar.Written, 3)
	eq.Check(t, "pipeline.Name", sum.Pipeline.Name, "http")
	eq.Check(t, "pipeline.Embedder", sum.Pipeline.Embedder, "")
}

// TestConcurrencyPerPipeline: each pipeline has Concurrency lookups in
// flight, no more.
func TestConcurrencyPerPipeline(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"kbScope": "rag-eval", "cases": [`)
	for i := range 12 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"caseId": "c%02d", "scenario": "s", "query": "q%02d x", "expectedSources": ["a"]}`, i, i)
	}
	b.WriteString("]}")
	cur, side := newCanned(), newCanned()
	for i := range 12 {
		cur.delay[fmt.Sprintf("q%02d x", i)] = 20 * time.Millisecond
		side.delay[fmt.Sprintf("q%02d x", i)] = 20 * time.Millisecond
	}
	root := t.TempDir()
	opts := baseOptions(t, cur, filepath.Join(root, "f"))
	opts.Cases, opts.Concurrency = golden(t, b.String()), 3
	opts.Sidecar, opts.SidecarDir = side, filepath.Join(root, "s")
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if cur.maxFlight != 3 || side.maxFlight != 3 {
		t.Errorf("at most %d and %d lookups in flight, want 3 each", cur.maxFlight, side.maxFlight)
	}
}

// TestSeedRecordInManifest: the current directory's manifest carries the
// seed record (the sidecar's does not); a rerun with the same record keeps
// the manifest, one with another record (a re-seed with other chunk sizes
// or another corpus) rewrites it and keeps every unchanged fixture.
func TestSeedRecordInManifest(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, serve(t, p), dir)
	opts.Seed = &contract.SeedRecord{ChunkSize: 800, ChunkOverlap: 100, Documents: 3, CorpusSHA256: strings.Repeat("ab", 32)}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	m, err := contract.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Seed == nil || *m.Seed != *opts.Seed {
		t.Fatalf("manifest seed %+v, want %+v", m.Seed, opts.Seed)
	}
	ageFiles(t, dir)
	before := dirState(t, dir)

	opts.Now = clock("2027-01-01T00:00:00Z")
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "same seed record: summary.ManifestWritten", sum.ManifestWritten, false)
	eq.Check(t, "same seed record: summary.Changed", sum.Changed, 0)
	if after := dirState(t, dir); !maps.Equal(before, after) {
		t.Errorf("files changed on an unchanged rerun")
	}

	opts.Seed = &contract.SeedRecord{ChunkSize: 120, ChunkOverlap: 20, Documents: 3, CorpusSHA256: strings.Repeat("ab", 32)}
	sum, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	eq.Check(t, "another seed record: summary.ManifestWritten", sum.ManifestWritten, true)
	eq.Check(t, "another seed record: summary.Changed", sum.Changed, 0)
	after := dirState(t, dir)
	for name, st := range before {
		if name != contract.ManifestName && after[name] != st {
			t.Errorf("%s rewritten", name)
		}
	}
	if m, err := contract.ReadManifest(dir); err != nil {
		t.Errorf("manifest after the re-seed: %v", err)
	} else if m.Seed == nil || m.Seed.ChunkSize != 120 {
		t.Errorf("manifest after the re-seed: seed %+v, want chunkSize 120", m.Seed)
	}
}

// TestManifestWithoutSeed: without a seed record (an HTTP pipeline, an
// older store) the manifest has no "seed" key, and an old manifest
// without one reads.
func TestManifestWithoutSeed(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	if _, err := Run(context.Background(), baseOptions(t, serve(t, p), dir)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, contract.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"seed"`) {
		t.Errorf("manifest without a seed record has a seed key:\n%s", data)
	}
	if m, err := contract.ReadManifest(dir); err != nil {
		t.Errorf("ReadManifest: %v", err)
	} else if m.Seed != nil {
		t.Errorf("ReadManifest: seed %+v, want none", m.Seed)
	}
}
