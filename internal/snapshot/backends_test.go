package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/mysql"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/cache/rediscache"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed/openai"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// The backends' errors implement the interfaces snapshot sees them
// through.
var (
	_ interface{ Transient() bool } = (*milvus.Error)(nil) // what pipeline.Transient asks
	_ interface{ Transient() bool } = (*lookuphttp.StatusError)(nil)
	_ interface{ Transient() bool } = (*lookuphttp.UnreachableError)(nil)
	_ interface{ Transient() bool } = (*lookuphttp.TimeoutError)(nil)
	_ snapshot.UnreachableError     = (*lookuphttp.UnreachableError)(nil)
	_ snapshot.NoEndpointError      = (*lookuphttp.StatusError)(nil)
)

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestTransientByBackend pins, backend by backend, which of the errors a
// lookup can fail with rag-snapshot retries (and serve answers 503). The
// errors are the backends' own, made by their code where that needs no
// running service. snapshot sees them only through the standard library's
// transport errors and their Transient methods.
func TestTransientByBackend(t *testing.T) {
	type row struct {
		name string
		err  error
		want bool
	}
	var rows []row
	add := func(backend string, err error, want bool) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", backend)
		}
		rows = append(rows, row{backend, fmt.Errorf("lookup: dense search: %w", err), want})
	}

	// index/milvus: gRPC codes, by its *Error's Transient method; its
	// connection refused at Open, by the transport rule.
	merr := func(err error) error {
		return &milvus.Error{Addr: "127.0.0.1:19530", Collection: "rag_eval", Op: "search dense", Err: err}
	}
	add("milvus Unavailable", merr(status.Error(codes.Unavailable, "connection error")), true)
	add("milvus DeadlineExceeded", merr(fmt.Errorf("no answer within 30s: %w", status.Error(codes.DeadlineExceeded, "context deadline exceeded"))), true)
	add("milvus ResourceExhausted", merr(status.Error(codes.ResourceExhausted, "rate limit exceeded")), true)
	add("milvus Aborted", merr(status.Error(codes.Aborted, "aborted")), true)
	add("milvus Unavailable between its nodes", merr(errors.New("fail to search on QueryNode 3: rpc error: code = Unavailable desc = node is down")), true)
	add("milvus the caller's deadline", merr(context.DeadlineExceeded), true)
	add("milvus InvalidArgument", merr(status.Error(codes.InvalidArgument, "bad filter")), false)
	add("milvus Internal", merr(status.Error(codes.Internal, "segment not loaded")), false)
	add("milvus Canceled", merr(status.Error(codes.Canceled, "context canceled")), false)
	_, err := milvus.Open(context.Background(), milvus.Config{Addr: closedAddr(t), ConnectTimeout: 2 * time.Second})
	add("milvus connection refused", err, true)

	// lookuphttp: its errors' Transient methods.
	for code, want := range map[int]bool{429: true, 502: true, 503: true, 504: true, 500: false, 501: false, 400: false, 404: false} {
		add(fmt.Sprintf("lookuphttp %d", code), &lookuphttp.StatusError{URL: "POST http://sidecar/v1/lookup", StatusCode: code}, want)
	}
	_, err = (&lookuphttp.Client{BaseURL: "http://" + closedAddr(t)}).Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval", SearchMode: kb.Hybrid, TopK: 5})
	add("lookuphttp connection refused", err, true)
	add("lookuphttp timeout", &lookuphttp.TimeoutError{URL: "POST http://sidecar/v1/lookup", Timeout: time.Second}, true)
	add("lookuphttp not the lookup JSON", &lookuphttp.ProtocolError{URL: "POST http://sidecar/v1/lookup", Msg: "response is not JSON"}, false)

	// catalog/mysql: a refused connection is a transport error; an SQL
	// error is not transient.
	_, err = mysql.Open("rag:pw@tcp(" + closedAddr(t) + ")/ragbaseline?timeout=2s")
	add("mysql connection refused", err, true)
	add("mysql SQL error", fmt.Errorf("mysql catalog ragbaseline at 127.0.0.1:3306: l0 terms: %w", &gomysql.MySQLError{Number: 1146, Message: "Table 'ragbaseline.chunks' doesn't exist"}), false)

	// embed/cache/rediscache: a refused connection is a transport error.
	_, err = rediscache.Open(closedAddr(t), rediscache.WithTimeout(2*time.Second))
	add("redis connection refused", err, true)

	// embed/openai retries 429, 408, 5xx and network errors itself
	// (MaxRetries); once it gives up, the lookup is not retried again. Only
	// the caller's deadline, cutting its retries short, is transient.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error": {"message": "overloaded"}}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	noSleep := func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	emb := func(baseURL string) *openai.Embedder {
		e, err := openai.New(openai.Options{BaseURL: baseURL, Model: "multilingual-e5-small", MaxRetries: 1, Sleep: noSleep, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	_, err = emb(srv.URL).Embed(context.Background(), kb.Query, []string{"q"})
	add("openai 503 after its retries", err, false)
	_, err = emb("http://"+closedAddr(t)).Embed(context.Background(), kb.Query, []string{"q"})
	add("openai connection refused after its retries", err, false)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err = emb(srv.URL).Embed(ctx, kb.Query, []string{"q"})
	add("openai the caller's deadline", err, true)

	for _, r := range rows {
		if got := pipeline.Transient(r.err); got != r.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", r.name, r.err, got, r.want)
		}
	}
}
