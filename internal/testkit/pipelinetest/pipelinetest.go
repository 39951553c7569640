// Package pipelinetest holds the contract test suite that every
// implementation of pipeline.Lookuper runs, as kbtest holds the kb
// backends' suites. The builtin pipeline runs it on the embedded store. The
// HTTP client runs it against the builtin pipeline served by
// lookuphttp.NewHandler and against a minimal server of the protocol. The
// mapped pipeline runs it against fakes of the services of shipped configs.
// Each subtest of RunLookuperTests checks one promise of package
// pipeline's documentation. An implementation's test says what it declares
// of itself in a Config and hands the suite a constructor.
//
// NewBuiltin gives the builtin pipeline over a small corpus seeded into the
// embedded store with the local embedder, for the builtin run and for the
// HTTP client's run against it.
package pipelinetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
)

// Config is what the suite needs of an implementation and what the
// implementation declares of itself.
type Config struct {
	// New returns the pipeline under test with its service up. It is
	// called once per subtest, and more than once in some. It must return
	// a new pipeline each time, with no setup run and no cache filled.
	New func(t *testing.T) pipeline.Lookuper
	// Request is a request the pipeline answers with at least two evidence
	// blocks at its default topK. Its TopK must be 0 and its SearchMode
	// empty: the suite sets them.
	Request pipeline.Request
	// Name, SearchMode and Capabilities are what Describe must say, once
	// Health succeeded for a pipeline that has one. A nil Capabilities
	// means not declared, that is every part. An empty list means no part.
	Name         string
	SearchMode   string
	Capabilities []string
	// Accepts names the requests of Refusals that the pipeline does not
	// refuse, each with the reason. The suite checks that every other one
	// is refused with an error wrapping pipeline.ErrInvalidRequest.
	Accepts map[string]string
	// Unreachable returns the pipeline with its service down, on a port
	// nothing listens on. Nil skips the subtest, and is right only for a
	// pipeline that calls no service.
	Unreachable func(t *testing.T) pipeline.Lookuper
	// HealthCallsNothing says that Health makes no call, as for a mapped
	// config without setup steps. Health then succeeds with the service
	// down, and the first lookup is what finds the service unreachable.
	HealthCallsNothing bool
}

// A Refusal is a request a pipeline refuses: Config.Request changed by
// Edit.
type Refusal struct {
	Name string
	Edit func(*pipeline.Request)
}

// Refusals are the requests that the builtin and mapped pipelines refuse
// by the rules of builtin.ResolveRequest, and an HTTP pipeline's server
// may refuse.
var Refusals = []Refusal{
	{"empty query", func(r *pipeline.Request) { r.Query = " \t\n" }},
	{"query not UTF-8", func(r *pipeline.Request) { r.Query = "pool \xff\xfe size" }},
	{"query too long", func(r *pipeline.Request) { r.Query = strings.Repeat("字", builtin.MaxQueryChars+1) }},
	{"no kbScope", func(r *pipeline.Request) { r.KBScope = "" }},
	{"kbScope not UTF-8", func(r *pipeline.Request) { r.KBScope = "rag-\xff" }},
	{"unknown search mode", func(r *pipeline.Request) { r.SearchMode = "sparse" }},
	{"negative topK", func(r *pipeline.Request) { r.TopK = -1 }},
	{"topK over the maximum", func(r *pipeline.Request) { r.TopK = builtin.MaxTopK + 1 }},
}

// RunLookuperTests runs the pipeline.Lookuper contract on the pipelines
// c.New returns.
func RunLookuperTests(t *testing.T, c Config) {
	if c.Request.TopK != 0 || c.Request.SearchMode != "" {
		t.Fatalf("Config.Request %+v: leave TopK and SearchMode to the suite", c.Request)
	}
	for name := range c.Accepts {
		if !slices.ContainsFunc(Refusals, func(r Refusal) bool { return r.Name == name }) {
			t.Fatalf("Config.Accepts: %q is not one of Refusals", name)
		}
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, c *Config)
	}{
		{"Health", testHealth},
		{"Describe", testDescribe},
		{"Refused", testRefused},
		{"Result", testResult},
		{"TopK", testTopK},
		{"Deterministic", testDeterministic},
		{"Concurrent", testConcurrent},
		{"Cancelled", testCancelled},
		{"Deadline", testDeadline},
		{"Unreachable", testUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, &c) })
	}
}

// ready returns a new pipeline after its health check, as rag-snapshot
// calls it before any lookup. A pipeline answering that it has no health
// endpoint is ready too: its lookups will tell.
func (c *Config) ready(t *testing.T) pipeline.Lookuper {
	t.Helper()
	l := c.New(t)
	if err := health(context.Background(), l); err != nil {
		t.Fatalf("Health of a pipeline whose service is up: %v", err)
	}
	return l
}

// health runs l's health check, if it has one. An error saying the
// endpoint does not exist counts as none.
func health(ctx context.Context, l pipeline.Lookuper) error {
	hc, ok := l.(pipeline.HealthChecker)
	if !ok {
		return nil
	}
	err := hc.Health(ctx)
	var ne interface{ NoEndpoint() bool }
	if errors.As(err, &ne) && ne.NoEndpoint() {
		return nil
	}
	return err
}

func (c *Config) request(mode kb.SearchMode, topK int) pipeline.Request {
	r := c.Request
	r.SearchMode, r.TopK = mode, topK
	return r
}

func lookup(t *testing.T, l pipeline.Lookuper, req pipeline.Request) *contract.LookupResult {
	t.Helper()
	res, err := l.Lookup(context.Background(), req)
	if err != nil {
		t.Fatalf("Lookup(%+v): %v", req, err)
	}
	if res == nil {
		t.Fatalf("Lookup(%+v): no result and no error", req)
	}
	return res
}

func testHealth(t *testing.T, c *Config) {
	l := c.New(t)
	if _, ok := l.(pipeline.HealthChecker); !ok {
		t.Skipf("%T has no health check", l)
	}
	for i := range 2 {
		if err := health(context.Background(), l); err != nil {
			t.Fatalf("Health #%d: %v", i+1, err)
		}
	}
	// A lookup after the health check works, and the check works after it.
	lookup(t, l, c.request("", 0))
	if err := health(context.Background(), l); err != nil {
		t.Errorf("Health after a lookup: %v", err)
	}
}

func testDescribe(t *testing.T, c *Config) {
	l := c.ready(t)
	d := l.Describe()
	if d.Name != c.Name {
		t.Errorf("Describe().Name = %q, want %q", d.Name, c.Name)
	}
	if d.SearchMode != c.SearchMode {
		t.Errorf("Describe().SearchMode = %q, want %q", d.SearchMode, c.SearchMode)
	}
	if err := contract.ValidPipelineSearchMode(d.SearchMode); err != nil {
		t.Errorf("Describe().SearchMode: %v", err)
	}
	if (d.Capabilities == nil) != (c.Capabilities == nil) || !slices.Equal(d.Capabilities, c.Capabilities) {
		t.Errorf("Describe().Capabilities = %s, want %s", capList(d.Capabilities), capList(c.Capabilities))
	}
	if err := contract.ValidCapabilities(d.Capabilities); err != nil {
		t.Errorf("Describe().Capabilities: %v", err)
	}
	if !slices.Equal(d.Capabilities, contract.NormalizeCapabilities(d.Capabilities)) {
		t.Errorf("Describe().Capabilities = %q, not in the order of contract.Capabilities", d.Capabilities)
	}
	if d.Params != nil && (d.Params.TopK < 1 || d.Params.TopK > builtin.MaxTopK) {
		t.Errorf("Describe().Params.TopK = %d, want 1..%d", d.Params.TopK, builtin.MaxTopK)
	}
	want := clonePipeline(d)

	// Stable: again, and after lookups.
	if again := l.Describe(); !reflect.DeepEqual(again, want) {
		t.Errorf("Describe changed between two calls:\n first %s\nsecond %s", pipelineJSON(want), pipelineJSON(again))
	}
	lookup(t, l, c.request(kb.Hybrid, 0))
	lookup(t, l, c.request(kb.Dense, 1))
	if after := l.Describe(); !reflect.DeepEqual(after, want) {
		t.Errorf("Describe changed after lookups:\nbefore %s\n after %s", pipelineJSON(want), pipelineJSON(after))
	}

	// The value is the caller's: changing it changes nothing in the
	// pipeline (rag-snapshot sets params.topK to the requested topK).
	if d.Params != nil {
		d.Params.TopK++
		d.Params.Rerank += "-changed"
	}
	for i := range d.Capabilities {
		d.Capabilities[i] = "changed"
	}
	if after := l.Describe(); !reflect.DeepEqual(after, want) {
		t.Errorf("changing the value Describe returned changed the pipeline's:\nbefore %s\n after %s", pipelineJSON(want), pipelineJSON(after))
	}
}

func testRefused(t *testing.T, c *Config) {
	l := c.ready(t)
	for _, r := range Refusals {
		t.Run(r.Name, func(t *testing.T) {
			if why, ok := c.Accepts[r.Name]; ok {
				t.Skipf("accepted: %s", why)
			}
			req := c.request("", 0)
			r.Edit(&req)
			res, err := l.Lookup(context.Background(), req)
			switch {
			case err == nil:
				t.Fatalf("Lookup(%s) = %d blocks, want an error wrapping pipeline.ErrInvalidRequest", r.Name, len(res.EvidenceBlocks))
			case !errors.Is(err, pipeline.ErrInvalidRequest):
				t.Errorf("Lookup(%s) = %v (%T), want an error wrapping pipeline.ErrInvalidRequest", r.Name, err, err)
			case pipeline.Transient(err):
				t.Errorf("Lookup(%s) = %v: a refused request is not transient (it would be retried)", r.Name, err)
			}
			if res != nil {
				t.Errorf("Lookup(%s) returned a result with its error", r.Name)
			}
		})
	}
	// The refusals leave the pipeline working.
	lookup(t, l, c.request("", 0))
}

func testResult(t *testing.T, c *Config) {
	l := c.ready(t)
	d := l.Describe()
	for _, mode := range []kb.SearchMode{"", kb.Hybrid, kb.Dense} {
		t.Run("mode="+string(mode), func(t *testing.T) {
			req := c.request(mode, 0)
			res := lookup(t, l, req)
			if len(res.EvidenceBlocks) < 2 {
				t.Fatalf("Config.Request gets %d blocks, want at least 2", len(res.EvidenceBlocks))
			}
			checkResult(t, &d, res)
			checkFixture(t, req, &d, res)
		})
	}
}

// checkResult checks what every result says of itself.
func checkResult(t *testing.T, d *contract.Pipeline, res *contract.LookupResult) {
	t.Helper()
	need := contract.HasFound | contract.HasEvidenceBlocks
	switch {
	case !res.Partial && res.Has != contract.HasAll:
		t.Errorf("a complete result (Partial false) has Has %b, want HasAll", res.Has)
	case res.Has&need != need:
		t.Errorf("Has %b lacks found or evidenceBlocks, which every result carries", res.Has)
	}
	if res.Found != (len(res.EvidenceBlocks) > 0) {
		t.Errorf("found %v with %d blocks", res.Found, len(res.EvidenceBlocks))
	}
	if res.Has&contract.HasEvidenceStatus != 0 && !slices.Contains([]string{contract.EvidenceSufficient, contract.EvidenceWeak, contract.EvidenceNone}, res.EvidenceStatus) {
		t.Errorf("evidenceStatus %q", res.EvidenceStatus)
	}
	for i := range res.EvidenceBlocks {
		b := &res.EvidenceBlocks[i]
		if b.HasRank && b.Rank != i+1 {
			t.Errorf("block %d: rank %d, want %d", i, b.Rank, i+1)
		}
		if res.BlockHas(b, contract.BlockHasRelevanceLevel) && b.RelevanceLevel != "" &&
			!slices.Contains([]string{contract.LevelHigh, contract.LevelMedium, contract.LevelLow}, b.RelevanceLevel) {
			t.Errorf("block %d: relevanceLevel %q", i, b.RelevanceLevel)
		}
		if b.HasQuality && (b.QualityScore < 0 || b.QualityScore > 1) {
			t.Errorf("block %d: qualityScore %v, want 0..1", i, b.QualityScore)
		}
	}
	// What the pipeline declares it lacks, its result does not carry.
	for _, lack := range lacked {
		if !d.Lacks(lack.capability) {
			continue
		}
		if got := res.Has & lack.fields; got != 0 {
			t.Errorf("Describe declares no %s, but the result carries %s", lack.capability, fieldPaths(got))
		}
		for i := range res.EvidenceBlocks {
			b := &res.EvidenceBlocks[i]
			if lack.blockFields != 0 && res.BlockHas(b, lack.blockFields) || lack.quality && b.HasQuality {
				t.Errorf("Describe declares no %s, but block %d carries it", lack.capability, i)
			}
		}
	}
}

// lacked are the fields of each part a pipeline can declare it lacks.
var lacked = []struct {
	capability  string
	fields      contract.Presence
	blockFields contract.BlockPresence
	quality     bool
}{
	{capability: contract.CapEvidenceStatus, fields: contract.HasEvidenceStatus},
	{capability: contract.CapQualityScore, blockFields: contract.BlockHasRelevanceLevel, quality: true},
	{capability: contract.CapBreadcrumb, blockFields: contract.BlockHasBreadcrumb},
	{capability: contract.CapContextPack, fields: contract.HasContextSources | contract.HasContextBlockCount | contract.HasContextUsedChars |
		contract.HasContextBudgetChars | contract.HasContextTruncated | contract.HasContextPackedText},
	{capability: contract.CapTrace, fields: contract.HasTraceAttempts | contract.HasSelectedAttempt},
	{capability: contract.CapFallback, fields: contract.HasFallbackReason},
	{capability: contract.CapRerank, fields: contract.HasRerankEnabled | contract.HasRerankModel | contract.HasRerankInputOrder |
		contract.HasRerankOutputOrder | contract.HasRerankTopSource | contract.HasRerankFallback},
}

func fieldPaths(p contract.Presence) string {
	var paths []string
	for bit := contract.Presence(1); bit != 0 && bit <= p; bit <<= 1 {
		if p&bit != 0 {
			paths = append(paths, bit.FieldPath())
		}
	}
	return strings.Join(paths, ", ")
}

// checkFixture checks what a result becomes in a fixture: it encodes, the
// judge's decoder reads back the judged fields the result carries, with
// their values, and no other, and a field a Partial result does not carry
// is absent from the file instead of written as a zero.
func checkFixture(t *testing.T, req pipeline.Request, d *contract.Pipeline, res *contract.LookupResult) {
	t.Helper()
	data := encode(t, req, d, res)
	f, err := contract.DecodeFixture(data)
	if err != nil {
		t.Fatalf("the fixture does not decode: %v\n%s", err, data)
	}
	dec := f.LookupResult
	if got, want := dec.Has&contract.HasJudged, res.Has&contract.HasJudged; got != want {
		t.Errorf("the fixture has the judged fields %s, the result carries %s", fieldPaths(got), fieldPaths(want))
	}
	decGroups, resGroups := dec.FieldGroups(), res.FieldGroups()
	for i, g := range decGroups {
		for j, fl := range g.Fields {
			if dec.Has&fl.Bit == 0 || fl.Bit == contract.HasEvidenceBlocks {
				continue
			}
			if got, want := jsonOf(fl.Value), jsonOf(resGroups[i].Fields[j].Value); got != want {
				t.Errorf("%s: decoded %s, the result has %s", fl.Bit.FieldPath(), got, want)
			}
		}
	}
	if len(dec.EvidenceBlocks) != len(res.EvidenceBlocks) {
		t.Fatalf("the fixture decodes to %d blocks, the result has %d", len(dec.EvidenceBlocks), len(res.EvidenceBlocks))
	}
	for i := range dec.EvidenceBlocks {
		db, rb := &dec.EvidenceBlocks[i], &res.EvidenceBlocks[i]
		rf := rb.Fields()
		for j, fl := range db.Fields() {
			if !fl.Carried(db) {
				continue
			}
			if got, want := jsonOf(fl.Value), jsonOf(rf[j].Value); got != want {
				t.Errorf("evidenceBlocks[%d].%s: decoded %s, the result has %s", i, fl.Key, got, want)
			}
		}
	}

	var doc struct {
		LookupResult map[string]json.RawMessage `json:"lookupResult"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, g := range res.FieldGroups() {
		members := doc.LookupResult
		if g.Key != "" {
			members = nil
			if raw, ok := doc.LookupResult[g.Key]; ok {
				if err := json.Unmarshal(raw, &members); err != nil {
					t.Fatalf("lookupResult.%s: %v", g.Key, err)
				}
			}
		}
		for _, fl := range g.Fields {
			_, written := members[fl.Key]
			if carried := !res.Partial || res.Has&fl.Bit != 0; written != carried {
				t.Errorf("%s: written %v, carried by the result %v", fl.Bit.FieldPath(), written, carried)
			}
		}
	}
	var blocks []map[string]json.RawMessage
	if err := json.Unmarshal(doc.LookupResult["evidenceBlocks"], &blocks); err != nil || len(blocks) != len(res.EvidenceBlocks) {
		t.Fatalf("lookupResult.evidenceBlocks: %d blocks written of %d (%v)", len(blocks), len(res.EvidenceBlocks), err)
	}
	for i := range res.EvidenceBlocks {
		b := &res.EvidenceBlocks[i]
		for _, fl := range b.Fields() {
			_, written := blocks[i][fl.Key]
			if carried := !res.Partial || fl.Carried(b); written != carried {
				t.Errorf("evidenceBlocks[%d].%s: written %v, carried by the result %v", i, fl.Key, written, carried)
			}
		}
	}
}

// encode writes res as rag-snapshot writes a fixture, with every latencyMs
// 0: the one field that may differ between two identical lookups.
func encode(t *testing.T, req pipeline.Request, d *contract.Pipeline, res *contract.LookupResult) []byte {
	t.Helper()
	data, err := fixtureOf(req, d, res)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fixtureOf is encode for a goroutine other than the test's.
func fixtureOf(req pipeline.Request, d *contract.Pipeline, res *contract.LookupResult) ([]byte, error) {
	r := *res
	r.RetrievalTrace.Attempts = slices.Clone(r.RetrievalTrace.Attempts)
	for i := range r.RetrievalTrace.Attempts {
		r.RetrievalTrace.Attempts[i].LatencyMs = 0
	}
	mode := string(req.SearchMode)
	if mode == "" {
		mode = string(kb.Hybrid)
	}
	data, err := contract.EncodeFixture(&contract.Fixture{
		CaseID: "contract-case", Query: req.Query, RetrievedAt: "2026-01-01T00:00:00Z",
		SearchMode: mode, KBScope: req.KBScope, Pipeline: d, LookupResult: &r,
	})
	if err != nil {
		return nil, fmt.Errorf("the result does not encode as a fixture: %v", err)
	}
	return data, nil
}

func testTopK(t *testing.T, c *Config) {
	l := c.ready(t)
	d := l.Describe()
	def := lookup(t, l, c.request("", 0))
	if d.Params != nil && len(def.EvidenceBlocks) > d.Params.TopK {
		t.Errorf("topK 0: %d blocks, more than the default Describe records (params.topK %d)", len(def.EvidenceBlocks), d.Params.TopK)
	}
	for _, k := range []int{1, 2} {
		res := lookup(t, l, c.request("", k))
		if n := len(res.EvidenceBlocks); n > k || n == 0 {
			t.Errorf("topK %d: %d blocks, want 1..%d", k, n, k)
		}
		// The first k blocks of the default answer.
		for i := range min(k, len(res.EvidenceBlocks)) {
			if got, want := blockID(&res.EvidenceBlocks[i]), blockID(&def.EvidenceBlocks[i]); got != want {
				t.Errorf("topK %d: block %d is %s, with topK 0 it is %s", k, i, got, want)
			}
		}
	}
}

func blockID(b *contract.EvidenceBlock) string {
	return fmt.Sprintf("%s|%s|%.40q", b.EvidenceKey, b.Source, b.Excerpt)
}

func testDeterministic(t *testing.T, c *Config) {
	l := c.ready(t)
	d := l.Describe()
	for _, req := range []pipeline.Request{c.request(kb.Hybrid, 0), c.request(kb.Dense, 2)} {
		first := encode(t, req, &d, lookup(t, l, req))
		for i := range 3 {
			if again := encode(t, req, &d, lookup(t, l, req)); string(again) != string(first) {
				t.Fatalf("%s lookup #%d differs from the first (latencyMs aside):\n got %s\nwant %s", req.SearchMode, i+2, again, first)
			}
		}
		// A second pipeline from Config.New answers the same.
		if other := encode(t, req, &d, lookup(t, c.ready(t), req)); string(other) != string(first) {
			t.Fatalf("%s: a second pipeline answers differently:\n got %s\nwant %s", req.SearchMode, other, first)
		}
	}
}

// testConcurrent runs lookups from several goroutines at once, as
// rag-snapshot does with Options.Concurrency, and Describe calls between
// them. Run it with -race. Each result must be the one a lookup alone
// gets.
func testConcurrent(t *testing.T, c *Config) {
	// Sequential answers from another pipeline, so that the concurrent ones
	// are the first calls of l.
	ref := c.ready(t)
	d := ref.Describe()
	reqs := []pipeline.Request{c.request(kb.Hybrid, 0), c.request(kb.Dense, 0), c.request(kb.Hybrid, 1)}
	want := make([]string, len(reqs))
	for i, req := range reqs {
		want[i] = string(encode(t, req, &d, lookup(t, ref, req)))
	}
	l := c.New(t) // not even its health check has run
	const workers, each = 8, 4
	errs := make(chan error, workers*each)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			<-start
			for i := range each {
				j := (w + i) % len(reqs)
				res, err := l.Lookup(context.Background(), reqs[j])
				if err != nil {
					errs <- fmt.Errorf("worker %d, lookup %d (%+v): %v", w, i, reqs[j], err)
					return
				}
				if w%2 == 0 {
					l.Describe()
				}
				got, err := fixtureOf(reqs[j], &d, res)
				if err != nil {
					errs <- fmt.Errorf("worker %d, lookup %d (%+v): %v", w, i, reqs[j], err)
					return
				}
				if string(got) != want[j] {
					errs <- fmt.Errorf("worker %d, lookup %d (%+v): result differs from a lookup alone:\n got %s\nwant %s", w, i, reqs[j], got, want[j])
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testCancelled(t *testing.T, c *Config) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []struct {
		name string
		l    func(t *testing.T) pipeline.Lookuper
	}{
		{"new", c.New},
		{"after a lookup", func(t *testing.T) pipeline.Lookuper {
			l := c.ready(t)
			lookup(t, l, c.request("", 0))
			return l
		}},
	} {
		t.Run(p.name, func(t *testing.T) {
			l := p.l(t)
			res, err := l.Lookup(ctx, c.request("", 0))
			switch {
			case err == nil:
				t.Fatalf("Lookup with a cancelled context: %d blocks, want an error wrapping context.Canceled", len(res.EvidenceBlocks))
			case !errors.Is(err, context.Canceled):
				t.Errorf("Lookup with a cancelled context = %v (%T), want an error wrapping context.Canceled", err, err)
			case pipeline.Transient(err):
				t.Errorf("Lookup with a cancelled context = %v: transient, but nothing is left to retry for", err)
			}
			if res != nil {
				t.Errorf("Lookup returned a result with its error")
			}
		})
	}
}

// testDeadline checks that a lookup whose deadline passed fails with an
// error wrapping context.DeadlineExceeded, which is transient: rag-snapshot
// retries a lookup that ran out of time.
func testDeadline(t *testing.T, c *Config) {
	l := c.ready(t)
	lookup(t, l, c.request("", 0))
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	res, err := l.Lookup(ctx, c.request("", 0))
	switch {
	case err == nil:
		t.Fatalf("Lookup after its deadline: %d blocks, want an error wrapping context.DeadlineExceeded", len(res.EvidenceBlocks))
	case !errors.Is(err, context.DeadlineExceeded):
		t.Errorf("Lookup after its deadline = %v (%T), want an error wrapping context.DeadlineExceeded", err, err)
	case !pipeline.Transient(err):
		t.Errorf("Lookup after its deadline = %v: not transient", err)
	}
	if res != nil {
		t.Errorf("Lookup returned a result with its error")
	}
}

// testUnreachable checks that a pipeline whose service is down fails with
// transient errors, in its health check and its lookups, so that
// rag-snapshot retries them; and that the error says it is unreachable, so
// that a sidecar that is down is marked unavailable.
func testUnreachable(t *testing.T, c *Config) {
	if c.Unreachable == nil {
		t.Skip("the pipeline calls no service")
	}
	l := c.Unreachable(t)
	if hc, ok := l.(pipeline.HealthChecker); ok {
		err := hc.Health(context.Background())
		switch {
		case c.HealthCallsNothing:
			if err != nil {
				t.Errorf("Health, which calls nothing, = %v", err)
			}
		case err == nil || !pipeline.Transient(err) || !unreachable(err):
			t.Errorf("Health with the service down = %v (%T), want a transient error saying it is unreachable", err, err)
		}
	}
	res, err := l.Lookup(context.Background(), c.request("", 0))
	if err == nil || !pipeline.Transient(err) || !unreachable(err) {
		t.Errorf("Lookup with the service down = %v (%T), want a transient error saying it is unreachable", err, err)
	}
	if res != nil {
		t.Errorf("Lookup returned a result with its error")
	}
}

// unreachable is internal/snapshot's test: an error whose Unreachable
// method says so, a failed dial or a refused connection.
func unreachable(err error) bool {
	var u interface{ Unreachable() bool }
	if errors.As(err, &u) && u.Unreachable() {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial" || errors.Is(err, syscall.ECONNREFUSED)
}

// jsonOf is v as a fixture writes it: floats rounded to 6 decimals, a nil
// list as [].
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	if string(b) == "null" && reflect.ValueOf(v).Elem().Kind() == reflect.Slice {
		return "[]"
	}
	return string(b)
}

func clonePipeline(p contract.Pipeline) contract.Pipeline {
	if p.Params != nil {
		params := *p.Params
		p.Params = &params
	}
	if p.Capabilities != nil {
		p.Capabilities = slices.Clone(p.Capabilities)
	}
	return p
}

func pipelineJSON(p contract.Pipeline) string {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Sprintf("%+v", p)
	}
	return string(b)
}

func capList(caps []string) string {
	if caps == nil {
		return "nil (not declared)"
	}
	return fmt.Sprintf("%q", caps)
}
