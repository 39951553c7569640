package mapped

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// The tests of the bounds on what an answer and a config's jq programs
// take (docs/mapped-pipeline.md#limits): a huge answer, many blocks, a jq
// program that never ends or takes all the memory.

// hitsBody is an answer of n blocks, {"hits": [{"docId", "score"}, …]}: 38
// bytes a block.
func hitsBody(n int) []byte {
	var b strings.Builder
	b.Grow(38*n + 16)
	b.WriteString(`{"hits":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"docId":"doc-%07d","score":0.%03d}`, i, i%1000)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// hitsConfig maps hitsBody's answers with the blocks program given.
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

// TestMillionBlocksHeap: an answer of 10^6 blocks (38 MB) took 1.3 GB of
// RSS with blocks: .hits, decoded whole and every block converted. It is
// refused before it is decoded, since decoded it would take more than
// the limit; with a limit that lets it in, the decoded answer takes what
// the decoder reckons, and the array is refused by the blocks cap.
func TestMillionBlocksHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("a 38 MB answer")
	}
	body := hitsBody(1000000)
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, body })
	path := writeConfig(t, hitsConfig(".hits"))
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	lookup := func(opt Options) (int64, error) {
		opt.LookupEnv = envOf(map[string]string{"U": api.URL})
		p, err := New(cfg, opt)
		if err != nil {
			t.Fatal(err)
		}
		var lerr error
		peak := peakHeap(func() {
			_, lerr = p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
		})
		return peak, lerr
	}

	peak, err := lookup(Options{})
	t.Logf("default limits: %d MB at most: %v", peak>>20, err)
	var pe *lookuphttp.ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "decoded") || pipeline.Transient(err) {
		t.Errorf("got %v, want a protocol error saying the answer is too large decoded (not transient)", err)
	}
	// The body, and what reading it grew through: 2 to 3 times 38 MB.
	if limit := int64(4 * len(body)); peak > limit {
		t.Errorf("the heap grew by %d MB, want at most %d MB (4 times the body)", peak>>20, limit>>20)
	}

	s, err := scan(body)
	if err != nil {
		t.Fatal(err)
	}
	peak, err = lookup(Options{MaxDecodedBytes: 1 << 30})
	t.Logf("decoded (%d MB reckoned): %d MB at most: %v", s.cost>>20, peak>>20, err)
	if want := "response.blocks: an array of 1000000 blocks, more than 10000"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want …%s…", err, want)
	}
	if limit := s.cost + int64(4*len(body)); peak > limit {
		t.Errorf("the heap grew by %d MB, want at most %d MB (what the decoder reckons and 4 times the body)", peak>>20, limit>>20)
	}
}

// TestDecodedAnswersShareOneBudget: with 3 lookups in flight, the
// decoded answers together stay within Options.MaxDecodedBytes: a lookup
// waits for the memory another one's answer holds.
func TestDecodedAnswersShareOneBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("three 11 MB answers")
	}
	body := hitsBody(300000)
	s, err := scan(body)
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, body })
	cfg, err := Load(writeConfig(t, hitsConfig(".hits[:5]")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		budget int64
		within int64 // the decoded answers held at most
	}{
		{"room for one", s.cost + s.cost/2, s.cost},
		{"room for three", 3 * s.cost, 3 * s.cost},
	} {
		p, err := New(cfg, Options{LookupEnv: envOf(map[string]string{"U": api.URL}), MaxDecodedBytes: tc.budget})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 3)
		peak := peakHeap(func() {
			for i := range errs {
				wg.Go(func() {
					_, errs[i] = p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
				})
			}
			wg.Wait()
		})
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: %d MB at most, %d MB reckoned an answer", tc.name, peak>>20, s.cost>>20)
		// Three bodies read, with what reading each grew through.
		if limit := tc.within + int64(3*3*len(body)); peak > limit {
			t.Errorf("%s: the heap grew by %d MB, want at most %d MB", tc.name, peak>>20, limit>>20)
		}
	}
}

// TestBlocksKeptPerTopK: of an answer's blocks, 4 × topK are read and
// the rest dropped, counted in the result and in the manifest's
// droppedBlocks; more than 10,000 is an error naming response.blocks, in
// either form the program yields them.
func TestBlocksKeptPerTopK(t *testing.T) {
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		if strings.Contains(string(r.Body), `"huge"`) {
			return 200, hitsBody(10001)
		}
		return 200, hitsBody(500)
	})
	for _, blocks := range []string{".hits", ".hits[]"} {
		p := openConfig(t, writeConfig(t, hitsConfig(blocks)), map[string]string{"U": api.URL})
		lr, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k", TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(lr.EvidenceBlocks) != 3 || lr.EvidenceBlocks[2].DocID != "doc-0000002" {
			t.Errorf("%s: %d blocks, want the first 3", blocks, len(lr.EvidenceBlocks))
		}
		if lr.DroppedBlocks != 500-12 {
			t.Errorf("%s: %d blocks dropped, want %d (500 - 4 × 3)", blocks, lr.DroppedBlocks, 500-12)
		}
		_, err = p.Lookup(context.Background(), pipeline.Request{Query: "huge", KBScope: "k"})
		want := "response.blocks: an array of 10001 blocks, more than 10000"
		if blocks == ".hits[]" {
			want = "response.blocks: jq: more than 10000 results"
		}
		if err == nil || !strings.Contains(err.Error(), want) || pipeline.Transient(err) {
			t.Errorf("%s: got %v, want …%s… (not transient)", blocks, err, want)
		}
	}

	// The manifest counts the blocks dropped over the run: 2 cases of
	// topK 5, 480 each.
	dir := filepath.Join(t.TempDir(), "fixtures")
	sum, _, err := endToEnd{Config: writeConfig(t, hitsConfig(".hits")), Env: map[string]string{"U": api.URL}, Golden: twoCases(t), Dir: dir}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	m, err := contract.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.DroppedBlocks != 960 || sum.DroppedBlocks != 960 {
		t.Errorf("manifest droppedBlocks %d, summary %d, want 960", m.DroppedBlocks, sum.DroppedBlocks)
	}
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
		const timeout = 2 * time.Second
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
		want := tc.field + ": jq: did not finish within 1s"
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
