// Package snapshot runs every golden case's query through a lookup
// pipeline, a pipeline.Lookuper, and freezes each result as a fixture,
// fixtures/<caseId>.json (docs/fixtures.md). The pipeline is the builtin
// one, an HTTP one or a mapped one, and the package sees only the
// interface. cmd/rag-snapshot is its command line, and Run is the whole
// job.
//
// # All or nothing
//
// Before any lookup, the manifest and the old fixture of every case must
// be files contract.ReadFixtureFile reads: no symbolic link, no file that
// is not a regular file, none over the cap. Otherwise Run returns an input
// error (ErrUsage) naming the first, and writes nothing. The comparison
// with an old fixture would run out of memory on a link to /dev/zero, or
// block on a named pipe.
//
// Every changed or new fixture is first written, and synced, into a
// staging directory beside the fixture directory DIR, on the same file
// system: .DIR.staging-PID-RAND. When a case fails after its retries, DIR
// is left exactly as it was: no fixture, no manifest, no removal. The
// failures are returned in a *FailedError and the staging directory is
// removed. An interrupted run, whose ctx is cancelled, moves nothing in,
// even with Options.Partial.
//
// Only when every case succeeded, or with Options.Partial, is the snapshot
// moved in, and then as a whole. The staging directory is completed into
// the full new state of DIR. The unchanged fixtures, the old fixtures of
// failed cases (with Partial), and every file and directory that is not a
// fixture are carried over as hard links: README, .gitkeep, _*.json,
// subdirectories, symbolic links. A hard link is the same file, with its
// bytes, mode and modification time, and a file is copied where the file
// system refuses links. The fixtures of removed cases are left out. The
// manifest is written. Then the two directories are swapped:
//
//   - on Linux, with renameat2(RENAME_EXCHANGE), one atomic step: at every
//     instant DIR is the complete old directory or the complete new one,
//     each with its own manifest.
//   - elsewhere, or on a file system that cannot exchange, such as NFS and
//     some FUSE and overlay file systems, with two renames: DIR to
//     .DIR.staging-PID-RAND.old, then the staging directory to DIR. For
//     an instant between them DIR does not exist. A reader gets "no such
//     file or directory", never a mix.
//
// The previous directory is then removed. When no fixture changed and none
// was removed, DIR is not swapped at all. At most its manifest is
// replaced, atomically, on its own. DIR's mode is kept. A symbolic link at
// DIR stays a link, and the directory it points to is swapped. Ownership,
// ACLs and extended attributes of DIR itself are not carried over. A file
// that is not a regular file, a directory or a symbolic link, such as a
// FIFO or a socket, cannot be carried over: the run fails before anything
// was moved.
//
// A reader that opens files of DIR one by one, as the judge does, can
// still read some from the old directory and some from the new one if a
// swap happens while it reads. judge.Run detects that, because the
// directory under the name is no longer the one it opened, and reads
// again.
//
// # Crashes and leftovers
//
// A run killed at any point, by kill -9 or a power loss after the syncs,
// leaves DIR complete, old or new. The exception is the two-rename window,
// where it leaves the old directory at .DIR.staging-T.old and the complete
// new one at .DIR.staging-T. The next run repairs and cleans up before
// anything else (recoverLeftovers). It holds an flock on the parent
// directory meanwhile, which every run holds while it recovers, cleans up
// or swaps, so two runs never swap the same directory at once:
//
//   - DIR missing, .old and its staging directory present, with a
//     manifest: the swap is finished.
//   - DIR missing, only .old present: it is put back.
//   - a .old beside an existing DIR is the previous state of a completed
//     swap: removed.
//   - a staging directory is removed when its lock can be taken. Each run
//     holds an flock on its own staging directory from creation to exit,
//     and the kernel drops it however the run ends. So a locked one
//     belongs to a live run and is left alone, and an unlocked one to a
//     dead run. Where file locks are not supported, none is removed. The
//     staging directories of older rag-snapshot versions
//     (.DIR.staging-RAND) were never locked and are removed.
//
// What was done is reported in one line among the Summary's warnings.
// Leftovers of other directories in the same parent are left to their own
// runs.
//
// A run refuses to swap when DIR was replaced by another process while it
// looked its cases up, since its comparison with the old fixtures would be
// stale. Nothing is moved in, and running again is the fix.
//
// # Unchanged stays unchanged
//
// A new fixture that equals the existing file once retrievedAt and every
// latencyMs are removed, both compared as canonical JSON, is not written.
// The old file is kept byte for byte, modification time included. When no
// fixture was written or removed and the manifest would only differ in its
// run-specific fields (started, finished and the counts), _snapshot.json
// is not rewritten either. So a rerun without retrieval changes leaves no
// git diff.
//
// # Fixtures of removed cases
//
// A *.json file in the fixture directory that is a valid fixture but
// matches no golden case is removed when the snapshot is moved in, and
// counted as Removed. The match ignores letter case, for case-insensitive
// file systems. The fixture directory mirrors the golden file, and the
// judge would only warn about such a file as an orphan. Files starting
// with "_" and files that are not fixtures are never touched.
//
// # Retries
//
// Each lookup attempt gets Options.Timeout. A transient failure, one for
// which pipeline.Transient reports true, is retried up to Options.Retries
// times, after Backoff·2^attempt with ±50% jitter. Such failures are a
// timeout, a network error, a 502, 503, 504 or 429 from an HTTP pipeline,
// and a Milvus call failing with gRPC Unavailable. Other errors fail the
// case at once. The package knows no backend's error types. It asks an
// error's methods, Transient, Unreachable and NoEndpoint (see
// UnreachableError), which the backends' errors implement. When
// Options.MaxConsecutiveFailures lookups in a row (default 5) failed with
// transient errors, the service is taken to be down. The remaining cases
// are not run and fail with "not run: gave up after …", instead of each
// waiting out its timeouts and retries: a Milvus that dies mid-run makes
// every call wait for its deadline.
//
// # Sidecar
//
// With Options.Sidecar the same cases also go to a second pipeline,
// written to Options.SidecarDir with the same rules. The sidecar is
// unavailable when its health check fails, or when its first failure is a
// connection error before any success. A 404 or 405 from the health check
// means it has none, which is fine. SidecarDir then gets only a manifest
// with "status": "unavailable" and the reason. Its old fixtures are left
// alone and are ignored by the comparison, and the current path is still
// written. A reachable sidecar whose cases fail is a failure like any
// other, and its directory is left untouched, but it does not stop the
// current path.
//
// # Platforms
//
// The package runs on a Unix: Linux, macOS and the BSDs. The locks above
// are flock(2) on directories, and the swap renames directories that
// readers may have open, atomically with renameat2 on Linux and with two
// renames elsewhere. Windows is not supported. The package does not build
// there (unsupported.go) rather than swap fixture directories unlocked.
//
// # Manifest
//
// _snapshot.json holds manifestVersion, tool, status, reason, searchMode,
// kbScope, pipeline, store, embedder, seed, started, finished, cases,
// written, changed, unchanged, removed, failed and droppedBlocks, as
// docs/fixtures.md says. status is available or unavailable, and failed
// lists the {caseId, error} of each failed case. droppedBlocks adds up
// the results' DroppedBlocks over the cases written, and is absent when
// 0. A warning names the cases whose blocks were dropped. pipeline is the
// pipeline's Describe, and store and embedder repeat its own. seed is
// Options.Seed: chunkSize, chunkOverlap, documents and corpusSha256. It is
// the current directory's only, and absent when not known. started and
// finished are RFC 3339 UTC seconds. written = changed + unchanged, and a
// new fixture counts as changed. A seed record that changed, after a
// re-seed with other chunk sizes or another corpus, rewrites the manifest
// even when no fixture changed.
package snapshot
