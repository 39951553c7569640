package mapped

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// The tests of the bounds on what a config's jq programs take: a program
// that never ends or takes all the memory.

// hitsConfig maps answers {"hits": [{"docId", "score"}, …]} with the
// blocks program given.
func hitsConfig(blocks string) string {
	return "name: t\nsearchMode: other\ncapabilities: []\nrequest: {url: '${U}/q', body: '{q: .query, k: .topK}'}\n" +
		"response:\n  blocks: '" + blocks + "'\nscore: {kind: similarity, quality: identity}\n" +
		"thresholds: {lowQuality: 0, minQuality: 0, levels: {high: 0.8, medium: 0.5}}\n"
}

// peakHeap runs f and returns by how much the heap in use grew at most
// while it ran, sampled every millisecond. The collector runs at 10%
// growth meanwhile, so that the heap in use is close to the live heap.
func peakHeap(f func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := int64(ms.HeapAlloc)
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak.Store(max(peak.Load(), int64(m.HeapAlloc)-base))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return peak.Load()
}

// loopGolden is a golden file of one case.
func loopGolden(t *testing.T) string {
	g := filepath.Join(t.TempDir(), "one.json")
	if err := os.WriteFile(g, []byte(`{"version": 1, "kbScope": "rag-eval", "cases": [{"caseId": "pool", "scenario": "chat", "query": "q", "expectedSources": ["a"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestJQEndlessLoop: a jq program that never ends failed as "context
// deadline exceeded", naming no program, and was retried as transient.
// It is stopped within half the lookup's timeout, by an error naming its
// config field, and not retried.
func TestJQEndlessLoop(t *testing.T) {
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, []byte(`{"hits": []}`) })
	for _, tc := range []struct{ field, config string }{
		{"response.blocks", hitsConfig("until(false; .)")},
		{"request.body", strings.Replace(hitsConfig(".hits"), "{q: .query, k: .topK}", "def f: [f]; f", 1)},
	} {
		before := len(api.requests())
		cfg, err := Load(writeConfig(t, tc.config))
		if err != nil {
			t.Fatal(err)
		}
		const timeout = time.Second
		p, err := New(cfg, Options{LookupEnv: envOf(map[string]string{"U": api.URL}), Timeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		g := loopGolden(t)
		data, _ := os.ReadFile(g)
		gf, err := contract.ParseGolden(g, data)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = snapshot.Run(context.Background(), snapshot.Options{
			Cases: gf, CasesPath: g, FixturesDir: filepath.Join(t.TempDir(), "fx"), Lookuper: p,
			Concurrency: 1, Retries: 2, Backoff: time.Millisecond, Timeout: timeout,
		})
		took := time.Since(start)
		var fe *snapshot.FailedError
		if !errors.As(err, &fe) || len(fe.Failures) != 1 {
			t.Fatalf("%s: got %v, want one failed case", tc.field, err)
		}
		msg := fe.Failures[0].Error
		want := tc.field + ": jq: did not finish within 500ms"
		if !strings.Contains(msg, want) || strings.Contains(msg, "attempts") || strings.Contains(msg, "no result within") {
			t.Errorf("%s: failed with %q, want …%s…, not retried", tc.field, msg, want)
		}
		if tc.field == "response.blocks" && len(api.requests())-before != 1 {
			t.Errorf("%s: %d requests, want 1 (no retry)", tc.field, len(api.requests())-before)
		}
		if took > 3*timeout {
			t.Errorf("%s: took %s", tc.field, took)
		}
	}
}

// TestJQMemoryBound: [range(1e15)] reached 3.4 GB in 30 s. A jq program
// during which the heap grows by more than Options.MaxJQMemory is
// stopped by an error naming its field, not transient.
func TestJQMemoryBound(t *testing.T) {
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, []byte(`{"hits": []}`) })
	cfg, err := Load(writeConfig(t, hitsConfig("[range(1e15)] | .[:0]")))
	if err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 20
	p, err := New(cfg, Options{LookupEnv: envOf(map[string]string{"U": api.URL}), MaxJQMemory: limit, MaxJQTime: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var lerr error
	start := time.Now()
	peak := peakHeap(func() {
		_, lerr = p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
	})
	t.Logf("%s, %d MB at most: %v", time.Since(start), peak>>20, lerr)
	var le *JQLimitError
	want := "response.blocks: jq: stopped when the heap had grown by more than 64 MiB while it ran"
	if !errors.As(lerr, &le) || !strings.Contains(lerr.Error(), want) || pipeline.Transient(lerr) {
		t.Errorf("got %v, want a *JQLimitError …%s… (not transient)", lerr, want)
	}
	// The watch looks every 5 ms; the array doubles as it grows.
	if peak > 4*limit {
		t.Errorf("the heap grew by %d MB, want at most %d MB", peak>>20, 4*limit>>20)
	}
}
