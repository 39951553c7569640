package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// fill checks the options and sets the defaults.
func (o *Options) fill() error {
	switch {
	case o.Cases == nil:
		return usagef("no golden cases")
	case o.Lookuper == nil:
		return usagef("no pipeline to run the lookups")
	case strings.TrimSpace(o.FixturesDir) == "":
		return usagef("no fixture directory")
	case o.Sidecar != nil && strings.TrimSpace(o.SidecarDir) == "":
		return usagef("a sidecar needs a sidecar fixture directory")
	case o.Sidecar == nil && o.SidecarDir != "":
		return usagef("a sidecar fixture directory needs a sidecar pipeline")
	case o.TopK < 0:
		return usagef("topK must be positive, got %d", o.TopK)
	case o.Concurrency < 0:
		return usagef("concurrency must be positive, got %d", o.Concurrency)
	case o.Timeout < 0:
		return usagef("timeout must be positive, got %s", o.Timeout)
	}
	if o.Sidecar != nil && sameDir(o.FixturesDir, o.SidecarDir) {
		return usagef("the sidecar fixture directory %s is the fixture directory", o.SidecarDir)
	}
	if o.KBScope == "" {
		o.KBScope = o.Cases.KBScope
	}
	if strings.TrimSpace(o.KBScope) == "" {
		return usagef("no kbScope: the golden cases set none and none was given")
	}
	switch o.SearchMode {
	case "":
		o.SearchMode = kb.Hybrid
	case kb.Hybrid, kb.Dense:
	default:
		return usagef("search mode must be %s or %s, got %q", kb.Hybrid, kb.Dense, o.SearchMode)
	}
	seen := make(map[string]string, len(o.Cases.Cases))
	for i := range o.Cases.Cases {
		id := o.Cases.Cases[i].CaseID
		if !contract.ValidCaseID(id) {
			return usagef("caseId %q cannot name a fixture file", id)
		}
		if prev, ok := seen[strings.ToLower(id)]; ok {
			return usagef("caseIds %q and %q would name the same fixture file", prev, id)
		}
		seen[strings.ToLower(id)] = id
	}
	if _, err := contract.MaxFixtureBytes(); err != nil {
		return &usageError{err.Error()}
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.MaxConsecutiveFailures <= 0 {
		o.MaxConsecutiveFailures = DefaultMaxConsecutiveFailures
	}
	switch {
	case o.Retries == 0:
		o.Retries = DefaultRetries
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// sameDir reports whether a and b name one directory: the same path, or
// two paths to one directory (a symbolic link, another spelling on a file
// system that ignores letter case).
func sameDir(a, b string) bool {
	abs := func(p string) string {
		if q, err := filepath.Abs(p); err == nil {
			return q
		}
		return filepath.Clean(p)
	}
	if abs(a) == abs(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// prepare recovers t.dir from an interrupted run and removes the
// leftovers of killed ones (see recoverLeftovers), checks that t.dir can be
// written and creates the staging directory beside it.
func (t *target) prepare(cases *contract.GoldenFile, casesPath string) error {
	t.results = make([]caseOutcome, len(cases.Cases))
	if err := t.resolve(); err != nil {
		return err
	}
	if err := os.MkdirAll(t.parent, 0o755); err != nil {
		return fmt.Errorf("fixture directory %s: %w", t.dir, err)
	}
	unlock, err := lockParent(t.parent)
	if err != nil {
		return err
	}
	defer unlock()
	note, err := t.recoverLeftovers()
	if note != "" {
		t.warnings = append(t.warnings, errors.New(note))
	}
	if err != nil {
		return err
	}
	if fi, err := os.Stat(t.real); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("fixture directory %s is not a directory", t.dir)
		}
		// Fail now, not after every lookup, when the directory is read-only.
		f, err := os.CreateTemp(t.real, probePrefix+"*")
		if err != nil {
			return fmt.Errorf("fixture directory %s is not writable: %w", t.dir, err)
		}
		f.Close()
		os.Remove(f.Name())
		t.ident = fi
		if err := t.checkFiles(cases, casesPath); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fixture directory: %w", err)
	}
	return t.createStaging()
}

// checkFiles refuses, before any lookup, a fixture directory whose
// manifest or the fixture of a case is a file that
// contract.ReadFixtureFile refuses to read: a symbolic link, a file that
// is not a regular file, or one over the cap. Reading it to compare it
// with the new fixture would fail, or block on a named pipe. Nor may one
// of them be the golden cases file, casesPath, which the run would
// replace. The error is an input error (ErrUsage): exit 2.
func (t *target) checkFiles(cases *contract.GoldenFile, casesPath string) error {
	names := make([]string, 0, len(cases.Cases)+1)
	names = append(names, contract.ManifestName)
	for i := range cases.Cases {
		names = append(names, cases.Cases[i].CaseID+".json")
	}
	var casesFile os.FileInfo
	if casesPath != "" {
		casesFile, _ = os.Stat(casesPath)
	}
	for _, name := range names {
		path := filepath.Join(t.dir, name)
		if err := contract.CheckFixtureFile(path); err != nil {
			return &inputError{fmt.Errorf("%w; nothing was looked up or written", err)}
		}
		if fi, err := os.Lstat(path); err == nil && casesFile != nil && os.SameFile(fi, casesFile) {
			return usagef("the golden cases file %s is %s of the fixture directory %s, which this run would replace; nothing was looked up or written", casesPath, name, t.dir)
		}
	}
	return nil
}

// unavailable returns why the sidecar is unavailable, or "" when it is not:
// found unreachable, and not one of its lookups succeeded.
func (t *target) unavailable() string {
	if r := t.unreachable.Load(); r != nil && t.successes.Load() == 0 {
		return *r
	}
	return ""
}

// checkHealth runs l's health check, if it has one, with retries. A
// pipeline answering that it has no such endpoint (an HTTP 404 or 405: it
// only speaks POST /v1/lookup) has no health check: its lookups will tell.
func (o *Options) checkHealth(ctx context.Context, l pipeline.Lookuper) error {
	hc, ok := l.(pipeline.HealthChecker)
	if !ok {
		return nil
	}
	err := o.retry(ctx, hc.Health)
	if noEndpoint(err) {
		return nil
	}
	return err
}

// describe returns l's description with the topK of the lookups.
func describe(l pipeline.Lookuper, topK int) contract.Pipeline {
	p := l.Describe()
	if topK > 0 && p.Params != nil && p.Params.TopK != topK {
		params := *p.Params
		params.TopK = topK
		p.Params = &params
	}
	return p
}

// effectiveTopK is the number of blocks a lookup returns.
func effectiveTopK(o *Options, p contract.Pipeline) int {
	switch {
	case o.TopK > 0:
		return o.TopK
	case p.Params != nil && p.Params.TopK > 0:
		return p.Params.TopK
	}
	return DefaultTopK
}

// kWarnings warns about golden cases whose K exceeds topK: ranks past topK
// can never be hit.
func kWarnings(o *Options, p contract.Pipeline) []error {
	topK := effectiveTopK(o, p)
	byK := map[int][]string{}
	for i := range o.Cases.Cases {
		c := &o.Cases.Cases[i]
		if k := o.Cases.ResolveK(c, 0); k > topK {
			byK[k] = append(byK[k], c.CaseID)
		}
	}
	ks := make([]int, 0, len(byK))
	for k := range byK {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var ws []error
	for _, k := range ks {
		ids := byK[k]
		ws = append(ws, fmt.Errorf("golden K %d is larger than topK %d for %d case(s), so ranks %d..%d cannot count: %s",
			k, topK, len(ids), topK+1, k, diag.Join(ids, 10)))
	}
	return ws
}

// runAll runs every case on every available target, each target with
// o.Concurrency lookups in flight.
func (o *Options) runAll(ctx context.Context, targets []*target) {
	var run []*target
	for _, t := range targets {
		if t.unavailable() == "" {
			run = append(run, t)
		}
	}
	n := len(o.Cases.Cases)
	total := n * len(run)
	var progressMu sync.Mutex
	done := 0
	tick := func() {
		if o.Progress == nil {
			return
		}
		progressMu.Lock()
		defer progressMu.Unlock()
		done++
		o.Progress(done, total)
	}
	if o.Progress != nil {
		o.Progress(0, total)
	}
	var wg sync.WaitGroup
	for _, t := range run {
		wg.Go(func() {
			// At most o.Concurrency lookups of t in flight. A case that has
			// not started when ctx is done is not run (it stays pending).
			var g errgroup.Group
			g.SetLimit(o.Concurrency)
			for i := range n {
				if ctx.Err() != nil {
					break
				}
				g.Go(func() error {
					if ctx.Err() == nil {
						t.results[i] = o.runCase(ctx, t, &o.Cases.Cases[i])
						tick()
					}
					return nil // a failed case is an outcome, not the group's error
				})
			}
			g.Wait()
		})
	}
	wg.Wait()
}

// runCase looks one case up on t and stages its fixture.
func (o *Options) runCase(ctx context.Context, t *target, c *contract.Case) caseOutcome {
	if t.unreachable.Load() != nil && t.successes.Load() == 0 {
		return caseOutcome{kind: skipped, err: errors.New("not run: " + *t.unreachable.Load())}
	}
	if r := t.aborted.Load(); r != nil {
		return caseOutcome{kind: skipped, err: errors.New("not run: " + *r)}
	}
	req := pipeline.Request{Query: c.Query, KBScope: o.KBScope, SearchMode: o.SearchMode, TopK: o.TopK}
	res, err := o.lookup(ctx, t.l, req)
	if err != nil {
		if t.name != "" && t.successes.Load() == 0 && unreachable(err) {
			reason := "unreachable: " + err.Error()
			t.unreachable.CompareAndSwap(nil, &reason)
		}
		if pipeline.Transient(err) {
			if n := t.consecutive.Add(1); n >= int64(o.MaxConsecutiveFailures) {
				reason := fmt.Sprintf("gave up after %d lookups in a row failed with transient errors (the last: %v)", n, err)
				t.aborted.CompareAndSwap(nil, &reason)
			}
		}
		return caseOutcome{kind: failed, err: err}
	}
	t.consecutive.Store(0)
	t.successes.Add(1)
	f := contract.Fixture{
		FixtureVersion: contract.FixtureVersion,
		CaseID:         c.CaseID,
		Query:          c.Query,
		RetrievedAt:    o.Now().UTC().Truncate(time.Second).Format(time.RFC3339),
		SearchMode:     string(o.SearchMode),
		KBScope:        o.KBScope,
		Pipeline:       &t.desc,
		LookupResult:   res,
	}
	data, err := contract.EncodeFixture(&f)
	if err != nil {
		return caseOutcome{kind: failed, err: err}
	}
	name := c.CaseID + ".json"
	old, err := contract.ReadFixtureFile(filepath.Join(t.real, name), nil)
	kind := changed
	switch {
	case errors.Is(err, fs.ErrNotExist):
		kind = added
	case err != nil:
		return caseOutcome{kind: failed, err: fmt.Errorf("read old fixture: %w", err)}
	case Same(old, data):
		return caseOutcome{kind: unchanged, empty: len(res.EvidenceBlocks) == 0, dropped: res.DroppedBlocks}
	}
	if err := writeSynced(filepath.Join(t.staging, name), data); err != nil {
		return caseOutcome{kind: failed, err: fmt.Errorf("stage fixture: %w", err)}
	}
	return caseOutcome{kind: kind, empty: len(res.EvidenceBlocks) == 0, dropped: res.DroppedBlocks}
}

// lookup runs one lookup with retries (see retry).
func (o *Options) lookup(ctx context.Context, l pipeline.Lookuper, req pipeline.Request) (*contract.LookupResult, error) {
	var res *contract.LookupResult
	err := o.retry(ctx, func(ctx context.Context) error {
		r, err := l.Lookup(ctx, req)
		if err == nil && r == nil {
			err = errors.New("the pipeline returned no result")
		}
		res = r
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// retry calls fn with a timeout per attempt, retrying transient failures
// with exponential backoff and jitter.
func (o *Options) retry(ctx context.Context, fn func(context.Context) error) error {
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, o.Timeout)
		err := fn(actx)
		timedOut := actx.Err() != nil
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if timedOut && !errors.Is(err, context.DeadlineExceeded) {
			err = &timeoutError{err: err, d: o.Timeout}
		}
		if attempt >= o.Retries || !pipeline.Transient(err) {
			if attempt > 0 {
				err = fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return err
		}
		d := o.Backoff << attempt
		d = d/2 + rand.N(d) // ±50%
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
	}
}

// count turns t's outcomes into ds, with a warning when blocks were
// dropped.
func (t *target) count(g *contract.GoldenFile, ds *DirSummary) {
	var dropped []string // the cases
	for i, r := range t.results {
		if r.empty {
			ds.Empty++
		}
		if r.dropped > 0 {
			ds.DroppedBlocks += r.dropped
			dropped = append(dropped, g.Cases[i].CaseID)
		}
		switch r.kind {
		case unchanged:
			ds.Unchanged++
		case added:
			ds.Added++
			ds.Changed++
		case changed:
			ds.Changed++
		case failed, skipped, pending:
			err := r.err
			if err == nil {
				err = errors.New("not run")
			}
			ds.Failures = append(ds.Failures, contract.CaseError{CaseID: g.Cases[i].CaseID, Error: err.Error()})
		}
	}
	ds.Written = ds.Changed + ds.Unchanged
	ds.Failed = len(ds.Failures)
	if len(dropped) > 0 {
		who := "the pipeline"
		if t.name != "" {
			who = "the " + t.name
		}
		t.warnings = append(t.warnings, fmt.Errorf("%s sent more evidence blocks than the %d × topK kept of an answer, for %d case(s): %d dropped, counted as droppedBlocks in %s: %s",
			who, pipeline.BlocksPerTopK, len(dropped), ds.DroppedBlocks, filepath.Join(t.dir, contract.ManifestName), diag.Join(dropped, 10)))
	}
}

// moveIn makes the staged snapshot t.dir's new state, in one atomic swap
// of the whole directory (see swap). The staging directory already holds
// the changed and added fixtures. Everything else t.dir keeps is carried
// over into it first (see carryOver): unchanged fixtures, the old fixtures
// of failed cases with --partial, files that are not fixtures, and
// subdirectories. The fixtures of cases no longer in the golden file are
// not. Then the manifest is written into it, and the two directories are
// swapped. When no fixture changed nor was removed, t.dir is not swapped.
// At most its manifest is replaced, atomically, on its own.
func (t *target) moveIn(o *Options, ds *DirSummary, start time.Time) error {
	reach("lookups-done")
	unlock, err := lockParent(t.parent)
	if err != nil {
		return err
	}
	defer unlock()
	fi, err := os.Stat(t.real)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fixture directory: %w", err)
	}
	if exists != (t.ident != nil) || exists && !os.SameFile(fi, t.ident) {
		return fmt.Errorf("%s was replaced by another process while this run looked its cases up; nothing was moved in: run again", t.dir)
	}
	var orphans []string
	var entries []os.DirEntry // t.real's, read once for orphans and carrying over
	if exists {
		if entries, err = os.ReadDir(t.real); err != nil {
			return fmt.Errorf("fixture directory: %w", err)
		}
		var warnings []error
		orphans, warnings = t.orphans(o.Cases, entries)
		t.warnings = append(t.warnings, warnings...)
	}
	ds.Removed = len(orphans)
	m := o.manifest(t, ds, start)
	if exists && ds.Changed+ds.Removed == 0 {
		written, err := writeManifest(t.real, m, false)
		ds.Moved, ds.ManifestWritten = err == nil, written
		return err
	}

	skip := make(map[string]bool, len(orphans)+1)
	skip[contract.ManifestName] = true
	for _, name := range orphans {
		skip[name] = true
	}
	if exists {
		err := carryOver(t.real, entries, t.staging, func(name string) bool {
			return skip[name] || strings.HasPrefix(name, probePrefix) || strings.HasPrefix(name, "."+contract.ManifestName+".tmp-")
		})
		if err != nil {
			return fmt.Errorf("carry the files %s keeps over into the staging directory (nothing was moved in): %w", t.dir, err)
		}
	}
	data, err := encodeManifest(m)
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	if err := writeSynced(filepath.Join(t.staging, contract.ManifestName), data); err != nil {
		return fmt.Errorf("stage manifest (nothing was moved in): %w", err)
	}
	if exists {
		if err := os.Chmod(t.staging, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
			return fmt.Errorf("staging directory: %w", err)
		}
	}
	syncDir(t.staging)
	if err := t.swap(exists); err != nil {
		return err
	}
	ds.Moved, ds.ManifestWritten = true, true
	return nil
}

// orphans lists the fixtures among entries, t.dir's, that match no golden
// case. Files that are not fixtures are left alone, with a warning.
func (t *target) orphans(g *contract.GoldenFile, entries []os.DirEntry) (names []string, warnings []error) {
	known := make(map[string]bool, len(g.Cases))
	for i := range g.Cases {
		known[strings.ToLower(g.Cases[i].CaseID+".json")] = true
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") ||
			!strings.HasSuffix(name, ".json") || known[strings.ToLower(name)] {
			continue
		}
		path := filepath.Join(t.dir, name)
		data, err := contract.ReadFixtureFile(path, nil)
		if err == nil {
			_, err = contract.ParseFixture(path, data)
		}
		if err != nil {
			warnings = append(warnings, fmt.Errorf("%s matches no golden case but is not a fixture, left in place: %v", path, err))
			continue
		}
		names = append(names, name)
	}
	return names, warnings
}

// writeSynced writes a new file in the private staging directory and syncs
// it, so that once the staging directory is swapped in it is whole even
// after a crash. (No temporary name is needed: nobody reads the staging
// directory.)
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// timeoutError is a lookup that failed because its attempt's timeout ran
// out. It is a context.DeadlineExceeded, so it is transient.
type timeoutError struct {
	err error
	d   time.Duration
}

func (e *timeoutError) Error() string   { return fmt.Sprintf("no result within %s: %v", e.d, e.err) }
func (e *timeoutError) Unwrap() []error { return []error{e.err, context.DeadlineExceeded} }
func (e *timeoutError) Transient() bool { return true }
