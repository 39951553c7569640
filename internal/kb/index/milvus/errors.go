package milvus

import (
	"fmt"
	"strings"
)

// Error is a failed call to the Milvus server on a collection. Its message
// names the server with its password hidden, the collection and the call:
//
//	milvus at 127.0.0.1:19530: collection rag_eval: dense search: no answer within 30s: rpc error: code = DeadlineExceeded desc = context deadline exceeded
//
// Callers see what kind of failure it was through its methods, without
// knowing gRPC. Transient says whether retrying may help. DeadlineExceeded
// says whether Milvus ran out of time.
type Error struct {
	Addr       string // the server address, password hidden
	Collection string
	Op         string // the call: "dense search", "upsert 256 chunks", …
	Err        error
}

func (e *Error) Error() string {
	return fmt.Sprintf("milvus at %s: collection %s: %s: %v", e.Addr, e.Collection, e.Op, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// transientCodes are the gRPC status codes worth a retry. Unavailable means
// the server or a node behind it is down or restarting. DeadlineExceeded
// means it ran out of time. ResourceExhausted means it is rate limiting.
// Aborted means a concurrent change got in the way.
var transientCodes = []string{"code = Unavailable", "code = DeadlineExceeded", "code = ResourceExhausted", "code = Aborted"}

// Transient reports whether retrying the call may help. It does when the
// call failed with one of the gRPC status codes Unavailable,
// DeadlineExceeded, ResourceExhausted or Aborted. The code is read from the
// message, not from a status the client could inspect. Milvus passes a
// failure between its own nodes on as text in its answer, such as "fail to
// search on QueryNode 3: rpc error: code = Unavailable …".
//
// A failure of the transport under the client is an error of the standard
// library in Err, for the caller to recognise like any other network
// call's. The caller's deadline and a refused connection are such failures.
func (e *Error) Transient() bool {
	msg := e.cause()
	for _, code := range transientCodes {
		if strings.Contains(msg, code) {
			return true
		}
	}
	return false
}

// DeadlineExceeded reports whether Milvus ran out of time: the gRPC status
// DeadlineExceeded (the call's Timeout or the caller's deadline passed
// while Milvus worked on it).
func (e *Error) DeadlineExceeded() bool {
	return strings.Contains(e.cause(), "code = DeadlineExceeded")
}

// cause is the message of the failure itself, without the server,
// collection and call names (a collection may be named "Aborted").
func (e *Error) cause() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}
