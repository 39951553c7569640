package snapshot

import (
	"errors"
	"net"
	"syscall"

	"github.com/ragbaseline/ragbaseline/internal/lookup"
)

// The package sees a pipeline's errors only through methods that the
// backends' error types implement (lookuphttp's, index/milvus'); it needs
// none of those types, nor gRPC.
type (
	// TransientError is an error saying itself whether retrying may help
	// (lookuphttp's errors, index/milvus' *Error); Transient asks it when
	// the error is no failure of the transport.
	TransientError interface {
		error
		Transient() bool
	}
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

// Transient reports whether retrying err may help: lookup.Transient, the
// one rule rag-snapshot retries by and serve answers 503 by. A failure of
// the transport (a deadline, a refused or dropped connection) is
// transient; else an error with a Transient() bool method says itself
// (lookuphttp: no response, a timeout, 502, 503, 504, 429; index/milvus:
// the gRPC codes Unavailable, DeadlineExceeded, ResourceExhausted,
// Aborted).
func Transient(err error) bool { return lookup.Transient(err) }

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
