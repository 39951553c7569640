package lookup

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// Transient reports whether retrying err may help:
//   - an error with a Transient() bool method says so itself (the
//     lookuphttp errors: no response, a timeout, a 502, 503, 504 or 429
//     status; a plain 500 is not retried);
//   - a deadline (the per-request timeout), a net.Error, a refused or reset
//     connection, a broken pipe or an unexpected EOF;
//   - a gRPC status Unavailable, DeadlineExceeded, ResourceExhausted or
//     Aborted (Milvus), recognised by its message ("code = Unavailable"), so
//     the lookup package needs no gRPC dependency.
//
// Anything else — a bad request, a wrong embedding dimension, a result that
// cannot be encoded — fails the case at once.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	var t interface{ Transient() bool }
	if errors.As(err, &t) {
		return t.Transient()
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
	msg := err.Error()
	for _, code := range []string{"code = Unavailable", "code = DeadlineExceeded", "code = ResourceExhausted", "code = Aborted"} {
		if strings.Contains(msg, code) {
			return true
		}
	}
	return false
}
