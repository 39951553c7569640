package pipeline

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// Transient reports whether retrying err may help. It is the project's
// one rule: internal/snapshot retries by it and lookuphttp's handler
// answers 503 by it.
//
// A failure of the transport is transient, whichever backend it comes
// from: a passed deadline, a net.Error, a refused, reset or aborted
// connection, a broken pipe, an unexpected EOF. Another error is transient
// when the first Transient method in its chain says so. lookuphttp's
// errors say it of no response, a timeout and the statuses 502, 503, 504
// and 429, and not of a 500. The *Error of index/milvus says it of the
// gRPC codes Unavailable, DeadlineExceeded, ResourceExhausted and Aborted.
//
// Anything else fails the case at once: a refused request, a wrong
// embedding dimension, a result that cannot be encoded. The package needs
// no backend's error types, nor gRPC, because the backends' errors answer
// for themselves.
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
