//go:build !unix

package snapshot

import "os"

// tryLock: without flock, locks are not supported on this platform; a run
// then never removes a staging directory it cannot tell is abandoned.
func tryLock(*os.File) error { return errLockUnsupported }
