package lookuphttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/snapshot"
)

// snapshotOnce snapshots one golden case through a Client of baseURL, as
// rag-snapshot --pipeline http does, with 2 retries, and returns the error
// of the case ("" when it succeeded).
func snapshotOnce(t *testing.T, baseURL string) string {
	t.Helper()
	g, err := contract.ParseGolden("golden-cases.json", []byte(`{"version": 1, "kbScope": "rag-eval", "k": 5,
  "cases": [{"caseId": "pool", "scenario": "chat", "query": "pool exhausted", "expectedSources": ["pool"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = snapshot.Run(context.Background(), snapshot.Options{
		Cases: g, FixturesDir: filepath.Join(t.TempDir(), "fixtures"),
		Lookuper: &lookuphttp.Client{BaseURL: baseURL, Timeout: 5 * time.Second},
		Retries:  2, Backoff: time.Millisecond, Timeout: 5 * time.Second,
	})
	var fe *snapshot.FailedError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &fe) && len(fe.Failures) == 1:
		return fe.Failures[0].Error
	}
	t.Fatalf("snapshot: %v", err)
	return ""
}

// TestRetriesByStatus runs a snapshot against a real HTTP server answering
// /v1/lookup with each status, and counts the requests it saw: 502, 503,
// 504 and 429 are retried (3 requests), a 500, another 4xx or 5xx is not
// (1 request).
func TestRetriesByStatus(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   int32
	}{
		{400, 1}, {404, 1}, {413, 1}, {415, 1}, {429, 3},
		{500, 1}, {501, 1}, {502, 3}, {503, 3}, {504, 3}, {505, 1},
	} {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == lookuphttp.HealthPath {
					return
				}
				n.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				fmt.Fprintf(w, `{"error": "status %d"}`, tt.status)
			}))
			defer srv.Close()
			msg := snapshotOnce(t, srv.URL)
			if got := n.Load(); got != tt.want {
				t.Errorf("server saw %d lookups, want %d (error %q)", got, tt.want, msg)
			}
			if want := fmt.Sprintf("%d %s: status %d", tt.status, http.StatusText(tt.status), tt.status); !strings.Contains(msg, want) {
				t.Errorf("error %q lacks %q", msg, want)
			}
			if tt.want > 1 && !strings.HasSuffix(msg, "(after 3 attempts)") {
				t.Errorf("error %q, want it to end with (after 3 attempts)", msg)
			}
		})
	}
}

// TestRetriesConnectionDropped: a server that closes the connection
// without answering is retried like an unreachable one.
func TestRetriesConnectionDropped(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == lookuphttp.HealthPath {
			return
		}
		n.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	defer srv.Close()
	msg := snapshotOnce(t, srv.URL)
	if got := n.Load(); got != 3 || !strings.Contains(msg, "unreachable") || !strings.HasSuffix(msg, "(after 3 attempts)") {
		t.Errorf("server saw %d lookups, error %q; want 3 and an unreachable error after 3 attempts", got, msg)
	}
}

// milvusErr is the error index/milvus returns for a search that failed
// with a gRPC status.
func milvusErr(code codes.Code, msg string) error {
	return fmt.Errorf("lookup: dense search: %w", &milvus.Error{Addr: "127.0.0.1:19530", Collection: "rag_eval", Op: "search dense", Err: status.Error(code, msg)})
}

// transientErr says itself whether it is transient.
type transientErr struct{ transient bool }

func (e transientErr) Error() string   { return fmt.Sprintf("shard down (transient: %v)", e.transient) }
func (e transientErr) Transient() bool { return e.transient }

// failing is a pipeline whose every lookup fails with err, counting them.
type failing struct {
	err error
	n   atomic.Int32
}

func (f *failing) Lookup(ctx context.Context, _ pipeline.Request) (*contract.LookupResult, error) {
	f.n.Add(1)
	if f.err == nil { // stall until the handler's timeout
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, f.err
}

func (f *failing) Describe() contract.Pipeline { return contract.Pipeline{Name: "failing"} }

// TestRetriesThroughHandler: served by NewHandler, a pipeline error is
// retried over HTTP exactly when pipeline.Transient would retry it in
// process: a failed lookup is a 500 and tried once; a service that cannot
// be reached is a 503 and a lookup over the time limit a 504, both retried.
// The Milvus rows pin how index/milvus' errors are classified.
func TestRetriesThroughHandler(t *testing.T) {
	for _, tt := range []struct {
		name   string
		err    error
		status int
		want   int32
	}{
		{"failed lookup", errors.New("index: collection has dimension 64, the embedder 512"), 500, 1},
		{"invalid request", fmt.Errorf("lookup: %w: query longer than 4096 characters", pipeline.ErrInvalidRequest), 400, 1},
		{"connection refused", fmt.Errorf("catalog: dial tcp 127.0.0.1:3306: %w", syscall.ECONNREFUSED), 503, 3},
		{"connection reset", fmt.Errorf("embed: read: %w", syscall.ECONNRESET), 503, 3},
		{"Milvus: gRPC Unavailable", milvusErr(codes.Unavailable, "connection error"), 503, 3},
		{"Milvus: gRPC DeadlineExceeded", milvusErr(codes.DeadlineExceeded, "context deadline exceeded"), 504, 3},
		{"Milvus: gRPC ResourceExhausted", milvusErr(codes.ResourceExhausted, "rate limit exceeded"), 503, 3},
		{"Milvus: gRPC Aborted", milvusErr(codes.Aborted, "aborted"), 503, 3},
		{"Milvus: gRPC InvalidArgument", milvusErr(codes.InvalidArgument, "bad filter"), 500, 1},
		{"Milvus: Unavailable inside a Milvus answer", &milvus.Error{Addr: "127.0.0.1:19530", Collection: "rag_eval", Op: "search dense",
			Err: errors.New("fail to search on QueryNode 3: rpc error: code = Unavailable desc = node is down")}, 503, 3},
		{"Milvus: the caller's deadline", &milvus.Error{Addr: "127.0.0.1:19530", Collection: "rag_eval", Op: "load collection", Err: context.DeadlineExceeded}, 504, 3},
		{"gRPC text in an untyped error", errors.New("search: rpc error: code = Unavailable desc = connection error"), 500, 1},
		{"broken pipe", fmt.Errorf("rerank: write: %w", syscall.EPIPE), 503, 3},
		{"unexpected EOF", fmt.Errorf("catalog: %w", io.ErrUnexpectedEOF), 503, 3},
		{"says it is transient", fmt.Errorf("index: %w", transientErr{true}), 503, 3},
		{"says it is not transient", fmt.Errorf("index: %w", transientErr{false}), 500, 1},
		{"over the time limit", nil, 504, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &failing{err: tt.err}
			var opts lookuphttp.HandlerOptions // a lookup that fails at once is never late
			if tt.err == nil {
				opts.Timeout = 20 * time.Millisecond
			}
			srv := httptest.NewServer(lookuphttp.NewHandler(p, opts))
			defer srv.Close()
			msg := snapshotOnce(t, srv.URL)
			if got := p.n.Load(); got != tt.want || !strings.Contains(msg, fmt.Sprintf(": %d %s: ", tt.status, http.StatusText(tt.status))) {
				t.Errorf("%d lookups, error %q; want %d and status %d", got, msg, tt.want, tt.status)
			}
			if tt.err != nil {
				if inProcess := pipeline.Transient(tt.err); inProcess != (tt.want > 1) {
					t.Errorf("pipeline.Transient in process = %v, but over HTTP the lookup ran %d times", inProcess, tt.want)
				}
			}
		})
	}
}
