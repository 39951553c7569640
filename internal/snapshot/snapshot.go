package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// Defaults of Options.
const (
	DefaultConcurrency = 4
	DefaultRetries     = 2
	DefaultTimeout     = 30 * time.Second
	DefaultBackoff     = 200 * time.Millisecond
	// DefaultMaxConsecutiveFailures is Options.MaxConsecutiveFailures'
	// default.
	DefaultMaxConsecutiveFailures = 5
	// DefaultTopK is the pipeline's topK when neither Options.TopK nor the
	// pipeline's description says (docs/pipeline.md).
	DefaultTopK = 5
)

// Options configure Run.
type Options struct {
	// Cases are the parsed golden cases. CasesPath names their file in
	// messages.
	Cases     *contract.GoldenFile
	CasesPath string
	// FixturesDir receives <caseId>.json and _snapshot.json. It is created
	// if needed.
	FixturesDir string
	// KBScope of every lookup. "" means Cases.KBScope.
	KBScope string
	// SearchMode of every lookup. "" means hybrid.
	SearchMode kb.SearchMode
	// TopK of every lookup. 0 means the pipeline's default.
	TopK int
	// Lookuper runs the lookups. It must keep pipeline.Lookuper's
	// contract: Run calls it from Concurrency goroutines at once.
	Lookuper pipeline.Lookuper
	// Concurrency is the number of lookups in flight per pipeline. 0 means
	// DefaultConcurrency.
	Concurrency int
	// Retries is the number of retries of a transient failure. 0 means
	// DefaultRetries, and a negative value none.
	Retries int
	// Backoff is the delay before the first retry, doubled for each next
	// one, with ±50% jitter. 0 means DefaultBackoff.
	Backoff time.Duration
	// Timeout bounds each lookup attempt. 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxConsecutiveFailures: after this many lookups in a row failed
	// with transient errors, retries included, the service is taken to be
	// down. The remaining cases are not run, and fail with "not run". 0
	// means DefaultMaxConsecutiveFailures.
	MaxConsecutiveFailures int
	// Partial moves the successes in even when some cases failed.
	Partial bool
	// Progress, when set, is called after each lookup and its retries
	// with the number done and the total, one call at a time.
	Progress func(done, total int)
	// Now gives retrievedAt, started and finished. Nil means time.Now.
	Now func() time.Time

	// Seed, when set, is how the current path's store was seeded: what
	// rag-seed recorded for the kbScope. The current directory's manifest
	// carries it.
	Seed *contract.SeedRecord

	// Sidecar, when set, also runs every case, into SidecarDir.
	Sidecar    pipeline.Lookuper
	SidecarDir string
}

// DirSummary is what a run did to one fixture directory.
type DirSummary struct {
	Dir string
	// Status is contract.StatusAvailable, or contract.StatusUnavailable
	// for an unreachable sidecar, with Reason.
	Status, Reason string
	// Written = Changed + Unchanged: the cases with a fixture from this
	// run. Changed counts the files written, Added the new ones among them.
	Written, Changed, Added, Unchanged int
	// Removed counts fixtures of cases no longer in the golden file.
	Removed int
	// Empty counts the written cases whose lookup returned no evidence
	// block: all of them usually means the pipeline does not hold the
	// kbScope.
	Empty int
	// Failed counts the failed cases, listed in Failures in golden order.
	Failed   int
	Failures []contract.CaseError
	// DroppedBlocks counts the evidence blocks the pipeline sent past
	// those kept of each answer (pipeline.MaxBlocks), over the written
	// cases.
	DroppedBlocks int
	// Moved reports whether the fixtures were moved in. It is false when a
	// case failed without Partial. ManifestWritten reports whether
	// _snapshot.json was written or rewritten.
	Moved, ManifestWritten bool
}

// Summary is the outcome of Run. The embedded DirSummary is the current
// path's.
type Summary struct {
	DirSummary
	// Sidecar is the sidecar directory's, when Options.Sidecar was set.
	Sidecar *DirSummary
	// Cases is the number of golden cases.
	Cases int
	// Pipeline describes the current path.
	Pipeline contract.Pipeline
	// Warnings did not stop the run (a golden K above topK, a file in the
	// fixture directory that is not a fixture).
	Warnings []error
	Elapsed  time.Duration
}

// ErrUsage marks errors in Options, and a fixture directory holding a
// file that cannot be read as a fixture (exit 2 in rag-snapshot).
var ErrUsage = errors.New("invalid snapshot options")

type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// inputError is a file of a fixture directory that cannot be read as a
// fixture (exit 2 in rag-snapshot, as for bad options). It wraps the
// contract.RefusedError that says why.
type inputError struct{ err error }

func (e *inputError) Error() string        { return e.err.Error() }
func (e *inputError) Unwrap() error        { return e.err }
func (e *inputError) Is(target error) bool { return target == ErrUsage }

// FailedError is returned when some case failed. Failures lists them.
type FailedError struct {
	// Failures are the failed cases of the current path and of the sidecar
	// (whose case ids are prefixed "sidecar:").
	Failures []contract.CaseError
	// Lookups is the number of lookups run.
	Lookups int
	// Dir is the first directory with failures. Moved reports whether its
	// successes were moved in (Partial).
	Dir   string
	Moved bool
}

func (e *FailedError) Error() string {
	what := fmt.Sprintf("%d of %d lookups failed", len(e.Failures), e.Lookups)
	if e.Moved {
		return what + "; the successes were moved into " + e.Dir + " (--partial)"
	}
	return what + "; " + e.Dir + " was left untouched (--partial keeps the successes)"
}

// target is one fixture directory and the pipeline that fills it.
type target struct {
	name string // "" for the current path, "sidecar"
	l    pipeline.Lookuper
	dir  string // as given, for messages
	desc contract.Pipeline

	// real is dir made absolute, a symbolic link followed: the directory
	// that is swapped. parent and base split it.
	real, parent, base string
	// ident is real as prepare found it, nil when it did not exist. The
	// swap is refused if another process replaced it meanwhile.
	ident os.FileInfo
	// staging is the staging directory, "" once it is gone or swapped in.
	// stagingLock holds its lock for the run's lifetime.
	staging     string
	stagingLock *os.File

	// unreachable is the reason the sidecar is unavailable, once known.
	unreachable atomic.Pointer[string]
	successes   atomic.Int64
	// consecutive counts transient failures since the last success.
	// aborted is set when it reaches MaxConsecutiveFailures.
	consecutive atomic.Int64
	aborted     atomic.Pointer[string]

	results  []caseOutcome // by case index
	warnings []error
}

type outcomeKind int

const (
	pending outcomeKind = iota
	unchanged
	changed
	added
	failed
	skipped // not run: the sidecar is unreachable, or the target gave up
)

type caseOutcome struct {
	kind outcomeKind
	err  error
	// empty: the lookup returned no evidence block.
	empty bool
	// dropped: the result's DroppedBlocks.
	dropped int
}

// Run snapshots every case of opts.Cases. See the package documentation for
// what it writes. The error is ErrUsage-marked for bad options, a
// *FailedError when cases failed (the Summary is returned too), and
// otherwise an I/O or context error.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	start := opts.Now()
	sum := &Summary{Cases: len(opts.Cases.Cases)}

	cur := &target{l: opts.Lookuper, dir: opts.FixturesDir}
	targets := []*target{cur}
	var side *target
	if opts.Sidecar != nil {
		side = &target{name: "sidecar", l: opts.Sidecar, dir: opts.SidecarDir}
		targets = append(targets, side)
	}
	for _, t := range targets {
		if err := t.prepare(opts.Cases, opts.CasesPath); err != nil {
			for _, t := range targets {
				t.cleanup()
			}
			return nil, err
		}
		defer t.cleanup()
	}

	// The current path must be up. A sidecar that is down gets an
	// "unavailable" manifest, nothing more.
	if err := opts.checkHealth(ctx, cur.l); err != nil {
		return nil, fmt.Errorf("pipeline health check failed; nothing was written: %w", err)
	}
	if side != nil {
		if err := opts.checkHealth(ctx, side.l); err != nil && ctx.Err() == nil {
			reason := "health check failed: " + err.Error()
			side.unreachable.Store(&reason)
		}
	}
	for _, t := range targets {
		t.desc = describe(t.l, opts.TopK)
	}
	sum.Pipeline = cur.desc
	sum.Warnings = append(sum.Warnings, kWarnings(&opts, cur.desc)...)

	opts.runAll(ctx, targets)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("interrupted; nothing was moved into %s: %w", opts.FixturesDir, err)
	}

	summaries := make([]*DirSummary, len(targets))
	finish := func() *Summary {
		sum.DirSummary = *summaries[0]
		if side != nil && summaries[1] != nil {
			sum.Sidecar = summaries[1]
		}
		for _, t := range targets {
			sum.Warnings = append(sum.Warnings, t.warnings...)
		}
		sum.Elapsed = opts.Now().Sub(start)
		return sum
	}
	var failures []contract.CaseError
	var firstFailed *DirSummary
	lookups := 0
	var movable []int
	for i, t := range targets {
		ds := &DirSummary{Dir: t.dir, Status: contract.StatusAvailable}
		summaries[i] = ds
		if reason := t.unavailable(); reason != "" {
			ds.Status, ds.Reason = contract.StatusUnavailable, reason
			written, err := writeManifest(t.real, opts.manifest(t, ds, start), false)
			ds.ManifestWritten = written
			if err != nil {
				return finish(), err
			}
			continue
		}
		lookups += len(t.results)
		t.count(opts.Cases, ds)
		for _, f := range ds.Failures {
			if t.name != "" {
				f.CaseID = t.name + ":" + f.CaseID
			}
			failures = append(failures, f)
		}
		if ds.Failed > 0 && firstFailed == nil {
			firstFailed = ds
		}
		movable = append(movable, i)
	}
	// All or nothing: without --partial a pipeline with a failed case keeps
	// its directory untouched, and a failure of the current path (the first
	// target) keeps the sidecar's untouched too, so a sidecar snapshot is
	// never newer than the current one it is compared with.
	currentFailed := len(movable) > 0 && movable[0] == 0 && summaries[0].Failed > 0
	for _, i := range movable {
		if !opts.Partial && (summaries[i].Failed > 0 || currentFailed) {
			continue
		}
		if err := targets[i].moveIn(&opts, summaries[i], start); err != nil {
			return finish(), err
		}
	}
	finish()
	if len(failures) > 0 {
		return sum, &FailedError{Failures: failures, Lookups: lookups, Dir: firstFailed.Dir, Moved: firstFailed.Moved}
	}
	return sum, nil
}
