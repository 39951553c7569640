package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
)

// shutdownGrace is how long in-flight requests get to finish after SIGINT
// or SIGTERM.
const shutdownGrace = 10 * time.Second

type serveOptions struct {
	IO           *cmdutil.Streams
	Addr         string
	KBScope      string
	MaxBodyBytes int64
	Fusion       string
	Config       config.Config
}

// newCmdServe builds rag-snapshot serve: it parses the flags into
// serveOptions and calls runF, or serveRun when runF is nil.
func newCmdServe(f *cmdutil.Streams, runF func(context.Context, *serveOptions) error) *cobra.Command {
	o := &serveOptions{IO: f, Config: config.Defaults()}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the builtin lookup pipeline over HTTP",
		Long: `serve runs the builtin lookup pipeline on the store of --store and answers
  POST /v1/lookup  {"query": "…", "kbScope": "rag-eval", "searchMode": "hybrid", "topK": 5}
                   → {"lookupResult": {…}}  (the lookupResult of a fixture)
  GET  /healthz    → {"status": "ok", "pipeline": {…}}
A lookup must be sent as Content-Type: application/json. Errors are
{"error": "…"} with status 400 (bad request: malformed JSON, an unknown or
duplicate field, an empty query, a kbScope that --kb-scope would refuse, a
topK out of range), 404, 405, 413 (body over --max-body-bytes), 415 (not
application/json), 500 (lookup failed; not worth a retry), 503 (a service is
unreachable) or 504 (over --timeout). Each 5xx is logged to stderr on one
line, with the query cut to 64 characters and credentials masked; a 4xx is
only answered, not logged.

SIGINT or SIGTERM stops accepting connections and lets the requests in flight
finish (up to 10s). An embedded data dir is opened by one process at a time:
a sidecar served from the embedded store needs its own --data-dir.`,
		Example: `  rag-snapshot serve --addr 127.0.0.1:8080
  curl -s -H 'Content-Type: application/json' \
    -d '{"query":"连接池满了","kbScope":"rag-eval"}' http://127.0.0.1:8080/v1/lookup

  # a second store as the sidecar of a snapshot
  rag-snapshot serve --addr 127.0.0.1:8081 --data-dir /tmp/sidecar-store &
  rag-snapshot --sidecar-url http://127.0.0.1:8081`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return serveRun(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "host:port to listen on (port 0 picks a free one)")
	fs.StringVar(&o.KBScope, "kb-scope", "rag-eval", "kbScope of requests that do not give one; the store must hold it")
	fs.Int64Var(&o.MaxBodyBytes, "max-body-bytes", lookuphttp.DefaultMaxBodyBytes, "largest request body accepted (larger: 413)")
	fusionVar(fs, &o.Fusion)
	o.Config.BindFlags(fs)
	fs.Lookup("timeout").Usage = "timeout of each lookup (then 504), and of each call to a service"
	return cmd
}

func serveRun(ctx context.Context, o *serveOptions) error {
	stderr := o.IO.ErrOut
	if err := config.ValidKBScope(o.KBScope); err != nil {
		return cmdutil.Usage(err)
	}
	if o.MaxBodyBytes < 1 {
		return cmdutil.Usagef("--max-body-bytes must be positive")
	}
	if o.Config.Timeout <= 0 {
		return cmdutil.Usagef("--timeout must be positive")
	}
	b, err := openBuiltin(ctx, o.Config, o.KBScope, kb.Fusion(o.Fusion), stderr)
	if err != nil {
		return err
	}
	defer b.Close()

	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return cmdutil.Usagef("listen on %s: %w", o.Addr, err)
	}
	errLog := log.New(stderr, "rag-snapshot serve: ", log.LstdFlags)
	// Requests run under baseCtx, cancelled when the grace period ends, and
	// are counted, so the store is closed only after the last one returned.
	baseCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	var inflight sync.WaitGroup
	defer inflight.Wait() // runs before the deferred b.Close
	handler := lookuphttp.NewHandler(b.Pipeline, lookuphttp.HandlerOptions{
		Timeout: o.Config.Timeout, MaxBodyBytes: o.MaxBodyBytes, DefaultKBScope: o.KBScope, ErrorLog: errLog,
	})
	srv := &http.Server{
		BaseContext: func(net.Listener) context.Context { return baseCtx },
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inflight.Add(1)
			defer inflight.Done()
			handler.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      o.Config.Timeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          errLog,
	}
	fmt.Fprintf(stderr, "rag-snapshot: serving the builtin pipeline (%s) on http://%s: POST %s, GET %s\n",
		o.Config.Describe(), ln.Addr(), lookuphttp.LookupPath, lookuphttp.HealthPath)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "rag-snapshot: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		// Grace period over: abort the lookups still running.
		cancelRequests()
		srv.Close()
		<-served
		return fmt.Errorf("shutdown: %w (in-flight lookups were cancelled)", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
