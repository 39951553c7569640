package judge

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// Result is the judgement of a golden file against a fixture directory.
type Result struct {
	Golden *contract.GoldenFile
	// Fixtures is the fixture directory that was judged.
	Fixtures string
	// FlagK is --k, 0 when unset.
	FlagK int
	// Cases are in golden-file order.
	Cases []CaseResult
	// Warnings are problems that did not stop the run (orphan fixtures).
	Warnings []error
	// Manifest is the directory's _snapshot.json, read in the same
	// snapshot of the directory as the fixtures: what made these fixtures.
	// It is nil when there is none or it cannot be read.
	Manifest *contract.Manifest
}

// Options tune a run.
type Options struct {
	// FlagK is --k, 0 when unset.
	FlagK int
	// Workers is the number of cases judged at once. 0 means GOMAXPROCS.
	Workers int
	// Evidence keeps, for the HTML report, each top candidate's excerpt in
	// Candidate.Excerpt and each judged case's retrieval trace in
	// CaseResult.Trace. It is off by default: on 10,000 cases the excerpts
	// are tens of megabytes that no other report shows.
	Evidence bool
}

// FixturePath returns where the fixture of caseID lives in dir.
func FixturePath(dir, caseID string) string {
	return filepath.Join(dir, caseID+".json")
}

// maxReadAttempts bounds how often Run starts over when the fixture
// directory was replaced while it read it.
const maxReadAttempts = 5

// afterRead, when set, is called by Run after it read every fixture and
// before it checks that the directory is still the one it opened. It is a
// test hook.
var afterRead func()

// Run judges every case of g against the fixtures in dir. A missing fixture
// makes its case not_run and a broken one makes it error. Neither stops the
// run. Run fails only when dir itself cannot be read, as when it does not
// exist or is not a directory.
// Run also fails when contract.ReadFixtureFile refuses a fixture or the
// manifest: a symbolic link, a file that is not a regular file, or one
// over the cap. Such a file is no retrieval result but a broken fixture
// directory. The error (errors.Is contract.ErrRefused) names the first in
// golden-file order.
//
// rag-snapshot replaces a fixture directory as a whole: it swaps a new
// directory in under the same name. Fixtures read by name could thus come
// from two snapshots if a swap happened while Run read them. Run notes the
// directory it opened. When another one is under the name once every
// fixture was read, it starts over, up to maxReadAttempts times, so a
// result never mixes two snapshots of a directory. Where the file system
// has no atomic exchange, the swap is two renames. The directory is then
// missing for an instant, with the previous one beside it as
// .<dir>.staging-*.old, and Run waits a little and tries again. When it
// stays missing, because a rag-snapshot was killed there, the error says
// so.
//
// When dir has a manifest (_snapshot.json), every fixture's searchMode,
// kbScope and pipeline are checked against it, with one warning per kind
// of disagreement (manifest.go).
func Run(g *contract.GoldenFile, dir string, opts Options) (*Result, error) {
	if _, err := contract.MaxFixtureBytes(); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		res, again, err := runOnce(g, dir, opts)
		switch {
		case !again && err != nil:
			return nil, err
		case !again:
			return res, nil
		case attempt < maxReadAttempts:
			time.Sleep(time.Duration(attempt) * 5 * time.Millisecond)
		case err != nil:
			return nil, err
		default:
			return nil, fmt.Errorf("read fixtures: %s was replaced %d times while it was read; is a rag-snapshot writing it again and again?", dir, attempt)
		}
	}
}

// runOnce judges dir once. again reports that dir was replaced meanwhile
// (res must not be used), or that it is missing while a swap moved it
// aside (err says so): worth another try.
func runOnce(g *contract.GoldenFile, dir string, opts Options) (res *Result, again bool, err error) {
	d, err := os.Open(dir)
	if err != nil {
		// A missing or unreadable directory is an input error, not a set of
		// not_run cases: a mistyped --fixtures must not replace a report.
		hint := movedAside(dir, err)
		return nil, hint != "", fmt.Errorf("read fixtures: %w%s", err, hint)
	}
	defer d.Close()
	opened, err := d.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("read fixtures: %w", err)
	}
	replaced := func() bool {
		now, err := os.Stat(dir)
		return err != nil || !os.SameFile(opened, now)
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		// The directory opened was swapped out and removed meanwhile.
		if replaced() {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("read fixtures: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	m, mErr := contract.ReadManifest(dir)
	mc, mcWarning := manifestCheckOf(m, mErr)
	res = &Result{Golden: g, Fixtures: dir, FlagK: opts.FlagK, Cases: make([]CaseResult, len(g.Cases))}
	if mErr == nil {
		res.Manifest = m
	}
	// A fixture without a pipeline of its own (written by hand) is judged
	// with the capabilities the manifest's pipeline declares.
	var declared *contract.Pipeline
	if mErr == nil && m.Status == contract.StatusAvailable {
		declared = m.Pipeline
	}
	var metas []fixtureMeta
	if mc != nil {
		metas = make([]fixtureMeta, len(g.Cases))
	}

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	refused := make([]error, len(g.Cases)) // by case, what judgeFile refused to read
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(len(g.Cases), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // reused for every fixture this worker reads
			var cache pipelineCache
			for {
				i := int(next.Add(1)) - 1
				if i >= len(g.Cases) {
					return
				}
				c := &g.Cases[i]
				var meta *fixtureMeta
				if mc != nil {
					meta = &metas[i]
				}
				res.Cases[i], buf, refused[i] = judgeFile(c, g.ResolveK(c, opts.FlagK), FixturePath(dir, c.CaseID), g.KBScope, buf, mc, meta, &cache, declared, opts.Evidence)
			}
		}()
	}
	wg.Wait()
	if afterRead != nil {
		afterRead()
	}
	if replaced() {
		return nil, true, nil
	}
	if errors.Is(mErr, contract.ErrRefused) {
		return nil, false, fmt.Errorf("read fixtures: %w", mErr)
	}
	if err := firstRefused(refused); err != nil {
		return nil, false, err
	}

	// Orphans: fixtures that match no case.
	known := make(map[string]bool, len(g.Cases))
	for i := range g.Cases {
		known[g.Cases[i].CaseID+".json"] = true
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, "_") || !strings.HasSuffix(name, ".json") || known[name] {
			continue
		}
		res.Warnings = append(res.Warnings, fmt.Errorf("orphan fixture %s matches no golden case", filepath.Join(dir, name)))
	}
	if mcWarning != nil {
		res.Warnings = append(res.Warnings, mcWarning)
	}
	if mc != nil {
		res.Warnings = append(res.Warnings, mc.warnings(dir, res.Cases, metas)...)
	}
	return res, false, nil
}

// movedAside explains a missing fixture directory that an interrupted
// rag-snapshot moved aside (the two-rename swap, where an atomic exchange
// is not available): "" when there is no such directory.
func movedAside(dir string, err error) string {
	if !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	abs, aerr := filepath.Abs(dir)
	if aerr != nil {
		return ""
	}
	entries, _ := os.ReadDir(filepath.Dir(abs))
	for _, e := range entries {
		if name := e.Name(); e.IsDir() && contract.IsMovedAside(filepath.Base(abs), name) {
			return fmt.Sprintf(" (an interrupted rag-snapshot was replacing it: run rag-snapshot again to finish, or move %s back)",
				filepath.Join(filepath.Dir(dir), name))
		}
	}
	return ""
}

// firstRefused returns the first fixture refused in golden-file order,
// saying how many more were, or nil when none was.
func firstRefused(refused []error) error {
	var first error
	more := 0
	for _, err := range refused {
		switch {
		case err == nil:
		case first == nil:
			first = err
		default:
			more++
		}
	}
	switch {
	case first == nil:
		return nil
	case more > 0:
		return fmt.Errorf("read fixtures: %w (and %d more %s)", first, more, plural(more, "fixture", "fixtures"))
	}
	return fmt.Errorf("read fixtures: %w", first)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// judgeFile judges the fixture at path. A fixture that
// contract.ReadFixtureFile refuses is returned as refused, and the run
// stops on it.
func judgeFile(c *contract.Case, k int, path, kbScope string, buf []byte, mc *manifestCheck, meta *fixtureMeta, cache *pipelineCache, declared *contract.Pipeline, evidence bool) (res CaseResult, _ []byte, refused error) {
	// Reusing one buffer per worker spares allocating and zeroing a fresh
	// one for every fixture.
	data, err := contract.ReadFixtureFile(path, buf)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notRun(c, k, "no fixture at "+path), data, nil
	case errors.Is(err, contract.ErrRefused):
		return broken(c, k, err.Error()), data, err
	case err != nil:
		return broken(c, k, fmt.Sprintf("read fixture: %v", err)), data, nil
	}
	// data is this worker's reused buffer. The fixture does not alias it.
	f, err := contract.ParseFixture(path, data)
	if err != nil {
		return broken(c, k, fmt.Sprintf("invalid fixture: %v", err)), data, nil
	}
	if mc != nil {
		*meta = mc.meta(f, contract.TrimBOM(data), cache)
	}
	if f.Pipeline == nil {
		f.Pipeline = declared
	}
	res = JudgeFixture(c, k, f, kbScope)
	if evidence {
		KeepEvidence(&res, f)
	}
	return res, data, nil
}
