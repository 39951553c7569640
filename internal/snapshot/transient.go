package snapshot

import (
	"errors"
	"net"
	"syscall"

	"github.com/ragbaseline/ragbaseline/internal/lookup"
	"github.com/ragbaseline/ragbaseline/internal/lookuphttp"
)

// Transient reports whether retrying err may help: lookup.Transient, the
// one rule rag-snapshot retries by and serve answers 503 by.
func Transient(err error) bool { return lookup.Transient(err) }

// unreachable reports whether err says the pipeline could not be reached
// at all (no HTTP response), as opposed to a failed or slow lookup.
func unreachable(err error) bool {
	var ue *lookuphttp.UnreachableError
	if errors.As(err, &ue) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial" || errors.Is(err, syscall.ECONNREFUSED)
}
