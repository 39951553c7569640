package snapshot

import (
	"errors"
	"net"
	"syscall"
)

// The package sees a pipeline's errors only through methods that the
// backends' error types implement, lookuphttp's and index/milvus'. It
// needs none of those types, nor gRPC. Whether retrying may help is
// pipeline.Transient's one rule, the one serve answers 503 by too.
type (
	// UnreachableError is an error saying the pipeline could not be reached
	// at all: no response came back (lookuphttp.UnreachableError). A
	// sidecar whose first failure is one, before any success, is
	// unavailable.
	UnreachableError interface {
		error
		Unreachable() bool
	}
	// NoEndpointError is an error saying the server serves no such endpoint
	// (lookuphttp.StatusError for a 404 or 405). A pipeline whose health
	// check fails with one has no health check, which is fine: its lookups
	// will tell.
	NoEndpointError interface {
		error
		NoEndpoint() bool
	}
)

// unreachable reports whether err says the pipeline could not be reached
// at all (no HTTP response), as opposed to a failed or slow lookup.
func unreachable(err error) bool {
	var ue UnreachableError
	if errors.As(err, &ue) && ue.Unreachable() {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial" || errors.Is(err, syscall.ECONNREFUSED)
}

// noEndpoint reports whether err says the server serves no such endpoint.
func noEndpoint(err error) bool {
	var ne NoEndpointError
	return errors.As(err, &ne) && ne.NoEndpoint()
}
