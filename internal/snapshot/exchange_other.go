//go:build !linux

package snapshot

// exchange: an atomic exchange of two directories is Linux only
// (renameat2). Elsewhere the swap is two renames.
func exchange(a, b string) error { return errExchangeUnsupported }
