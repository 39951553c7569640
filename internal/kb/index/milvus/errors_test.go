package milvus

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestErrorClassification pins what a failed call says about itself: the
// gRPC codes worth a retry are transient, DeadlineExceeded is also a
// timeout, and everything else is neither. (A failure of the transport in
// Err, such as the caller's deadline, is for the caller to recognise.)
func TestErrorClassification(t *testing.T) {
	for _, tt := range []struct {
		name                string
		err                 error
		transient, deadline bool
	}{
		{"Unavailable", status.Error(codes.Unavailable, "connection error"), true, false},
		{"DeadlineExceeded", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), true, true},
		{"our timeout around DeadlineExceeded", fmt.Errorf("no answer within 30s: %w", status.Error(codes.DeadlineExceeded, "context deadline exceeded")), true, true},
		{"ResourceExhausted", status.Error(codes.ResourceExhausted, "rate limit exceeded"), true, false},
		{"Aborted", status.Error(codes.Aborted, "aborted"), true, false},
		{"Unavailable passed on as text", errors.New("fail to search on QueryNode 3: rpc error: code = Unavailable desc = node is down"), true, false},
		{"InvalidArgument", status.Error(codes.InvalidArgument, "bad filter"), false, false},
		{"NotFound", status.Error(codes.NotFound, "collection not found"), false, false},
		{"Canceled", status.Error(codes.Canceled, "context canceled"), false, false},
		{"Internal", status.Error(codes.Internal, "segment not loaded"), false, false},
		{"the caller's deadline", context.DeadlineExceeded, false, false},
		{"index closed", errClosed, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := &Error{Addr: "127.0.0.1:19530", Collection: "rag_eval", Op: "search dense", Err: tt.err}
			if got := e.Transient(); got != tt.transient {
				t.Errorf("Transient() = %v, want %v (%v)", got, tt.transient, e)
			}
			if got := e.DeadlineExceeded(); got != tt.deadline {
				t.Errorf("DeadlineExceeded() = %v, want %v (%v)", got, tt.deadline, e)
			}
			if !errors.Is(e, tt.err) {
				t.Errorf("errors.Is(e, Err) = false")
			}
		})
	}
}

// TestErrorMessage: the message of a failed call is what it was before
// calls had an error type of their own.
func TestErrorMessage(t *testing.T) {
	ix := &Index{cfg: Config{Addr: "http://root:secret@milvus:19530", Collection: "rag_eval"}}
	err := ix.wrap("count", status.Error(codes.Unavailable, "connection error"))
	const want = "milvus at http://root:xxxxx@milvus:19530: collection rag_eval: count: rpc error: code = Unavailable desc = connection error"
	if err.Error() != want {
		t.Errorf("wrap = %q, want %q", err, want)
	}
	ix.closed.Store(true)
	err = ix.call(context.Background(), "search dense", func(context.Context) error { return nil })
	if want := "milvus at http://root:xxxxx@milvus:19530: collection rag_eval: search dense: index is closed"; err == nil || err.Error() != want {
		t.Errorf("call on a closed index = %v, want %q", err, want)
	}
}
