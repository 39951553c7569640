//go:build !unix

package embedded

// The embedded index needs a Unix: flock(2) keeps a second writer, or a
// writer and its readers, apart (lock_unix.go), and its crash safety rests
// on Unix rename and fsync semantics (a synced file renamed over
// index.snap). Windows and other systems without these are not supported,
// and the package refuses to build there rather than run without a lock.
var _ = the_embedded_index_needs_a_Unix_system__Windows_is_not_supported
