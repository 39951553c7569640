package pipeline

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// Transient reports whether retrying err may help:
//   - a failure of the transport, whichever backend it comes from: a
//     deadline (the per-request timeout), a net.Error, a refused, reset or
//     aborted connection, a broken pipe or an unexpected EOF;
//   - else an error with a Transient() bool method says so itself: the
//     lookuphttp errors (no response, a timeout, a 502, 503, 504 or 429
//     status; a plain 500 is not retried), index/milvus' *Error (the gRPC
//     codes Unavailable, DeadlineExceeded, ResourceExhausted and Aborted).
//
// Anything else — a bad request, a wrong embedding dimension, a result that
// cannot be encoded — fails the case at once. The package needs no backend's
// error types (nor gRPC): the backends' errors answer for themselves.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var t interface{ Transient() bool }
	return errors.As(err, &t) && t.Transient()
}
