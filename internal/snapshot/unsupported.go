//go:build !unix

package snapshot

// rag-snapshot needs a Unix. It locks directories with flock(2): the
// parent while it swaps, and each live run's staging directory. It swaps a
// fixture directory by renaming directories that readers may have open.
// Windows and other systems without these are not supported, and the
// package refuses to build there rather than swap fixture directories
// without a lock.
var _ = rag_snapshot_needs_a_Unix_system__Windows_is_not_supported
