package lookuphttp

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/secret"
)

// The servers of these tests answer as the reliability review's hostile
// services did (docs/reliability.md, "What a server sends").

// serve answers every request with status, Content-Type ct and body.
func serve(t *testing.T, status int, ct, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var lookupReq = pipeline.Request{Query: "q", KBScope: "rag-eval"}

// TestEchoedTokenRedacted is the repro: a service that answers 401
// echoing the token with / as \/ and + as \u002B, as PHP and .NET escape
// them, in a body that is not {"error": …}. The token is in no message, in
// that form, decoded from an {"error": …} message, in base64, in /healthz
// or in a result's strings.
func TestEchoedTokenRedacted(t *testing.T) {
	const token = "AKIAabc/def+ghi123"
	var secrets secret.Set
	h, err := ParseHeaders([]string{"X-Token: ${SVC_TOKEN}"}, func(k string) (string, bool) { return token, k == "SVC_TOKEN" }, &secrets)
	if err != nil {
		t.Fatal(err)
	}
	escaped := `AKIAabc\/def\u002Bghi123`
	for _, tc := range []struct {
		name, path string
		status     int
		body       string
		want       string
	}{
		{"detail", LookupPath, 401, `{"detail":"invalid token ` + escaped + `"}`, `401 Unauthorized: {"detail":"invalid token ${SVC_TOKEN}"}`},
		{"error message", LookupPath, 401, `{"error":"invalid token ` + escaped + `"}`, `401 Unauthorized: invalid token ${SVC_TOKEN}`},
		{"error message escaped twice", LookupPath, 500, `{"error":"upstream: {\"detail\": \"` + strings.ReplaceAll(escaped, `\`, `\\`) + `\"}"}`, `500 Internal Server Error: upstream: {"detail": "${SVC_TOKEN}"}`},
		{"base64", LookupPath, 403, `{"detail":"bad credentials ` + base64.StdEncoding.EncodeToString([]byte("user:"+token)) + `"}`, `403 Forbidden: {"detail":"bad credentials dXNlcjp${SVC_TOKEN}"}`},
		{"health", HealthPath, 401, `{"detail":"invalid token ` + escaped + `"}`, `401 Unauthorized: {"detail":"invalid token ${SVC_TOKEN}"}`},
		{"not JSON", LookupPath, 200, `oops ` + escaped, `response is not JSON (invalid character 'o' at start of value (byte 0)): oops ${SVC_TOKEN}`},
		{"not JSON, in a key", LookupPath, 200, `{"lookupResult": {"` + escaped + `": oops}}`, `response is not JSON (invalid character 'o' at start of value (byte 46)): {"lookupResult": {"${SVC_TOKEN}": oops}}`},
		{"a value out of the contract", LookupPath, 200, `{"lookupResult": {"found": true, "evidenceStatus": "` + strings.Repeat("x", 90) + escaped + `", "evidenceBlocks": []}}`, `lookupResult.evidenceStatus: must be sufficient, weak or none, got "` + strings.Repeat("x", 90) + `${SVC_TOKEN}"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tc.path {
					http.NotFound(w, r)
					return
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := &Client{BaseURL: srv.URL, Header: h, Secrets: &secrets}
			var err error
			if tc.path == HealthPath {
				err = c.Health(context.Background())
			} else {
				_, err = c.Lookup(context.Background(), lookupReq)
			}
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant it to end %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "AKIA") {
				t.Errorf("error %v shows the token", err)
			}
		})
	}

	t.Run("result", func(t *testing.T) {
		srv := serve(t, 200, "application/json", `{"lookupResult": {"found": true, "evidenceBlocks": [{"rank": 1, "excerpt": "token `+escaped+` and %41KIAabc%2Fdef%2Bghi123"}]}}`)
		c := &Client{BaseURL: srv.URL, Header: h, Secrets: &secrets}
		lr, err := c.Lookup(context.Background(), lookupReq)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := lr.EvidenceBlocks[0].Excerpt, "token ${SVC_TOKEN} and ${SVC_TOKEN}"; got != want {
			t.Errorf("excerpt %q, want %q", got, want)
		}
	})
}

// TestDecodedMessageCut: the message of an {"error": …} answer is cut like
// an excerpt, to one line of answerMsgLen characters, and so is every
// other text of the server that an error quotes.
func TestDecodedMessageCut(t *testing.T) {
	huge := strings.Repeat("é", 5<<20/2) // 5 MB
	for _, tc := range []struct {
		name, path, body string
		status           int
	}{
		{"error message", LookupPath, `{"error": "line one\nline two ` + huge + `"}`, 500},
		{"unknown capability", HealthPath, `{"pipeline": {"capabilities": ["` + huge + `"]}}`, 200},
		{"unknown search mode", HealthPath, `{"pipeline": {"searchMode": "` + huge + `"}}`, 200},
		{"evidenceStatus", LookupPath, `{"lookupResult": {"found": true, "evidenceStatus": "` + huge + `", "evidenceBlocks": []}}`, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, tc.status, "application/json", tc.body)
			c := &Client{BaseURL: srv.URL}
			var err error
			if tc.path == HealthPath {
				err = c.Health(context.Background())
			} else {
				_, err = c.Lookup(context.Background(), lookupReq)
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if n := utf8.RuneCountInString(msg); n > answerMsgLen+100 {
				t.Errorf("error of %d characters: %.200s…", n, msg)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %.200q… has a line break", msg)
			}
		})
	}
}

// TestHealthDeclarationTyped: a /healthz field of the wrong type, or outside
// its range, is a protocol error naming it, which stops the run, instead of
// dropping the whole declaration. What is absent or null declares nothing,
// and a body that is not JSON, such as "ok", is a health check passed.
func TestHealthDeclarationTyped(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"lowQuality a string", `{"status": "ok", "pipeline": {"name": "svc", "params": {"lowQuality": "NaN"}}}`, "pipeline.params.lowQuality: expected a number, got string"},
		{"capabilities a string", `{"pipeline": {"capabilities": "breadcrumb"}}`, "pipeline.capabilities: expected an array, got string; --pipeline-capabilities overrides them"},
		{"pipeline an array", `{"pipeline": [1,2]}`, "pipeline is not an object: [1,2]"},
		{"a bare string", `"ok"`, `the body is a string, not an object with the pipeline: "ok"`},
		{"an array", `[{"pipeline": {}}]`, `the body is an array, not an object with the pipeline: [{"pipeline": {}}]`},
		{"searchMode a number", `{"pipeline": {"searchMode": 3}}`, "pipeline.searchMode: expected a string, got number; --pipeline-search-mode overrides it"},
		{"unknown searchMode", `{"pipeline": {"searchMode": "fuzzy"}}`, `pipeline.searchMode: unknown search mode "fuzzy" (known: hybrid, dense, bm25, other); --pipeline-search-mode overrides it`},
		{"unknown capability", `{"pipeline": {"capabilities": ["trace", "vectors"]}}`, `pipeline.capabilities: unknown capability "vectors" (known: evidenceStatus, qualityScore, breadcrumb, contextPack, trace, fallback, rerank); --pipeline-capabilities overrides them`},
		{"dim a string", `{"pipeline": {"dim": "512"}}`, "pipeline.dim: expected an integer, got string"},
		{"dim a fraction", `{"pipeline": {"dim": 1.5}}`, "pipeline.dim: expected an integer, got number 1.5"},
		{"name a number", `{"pipeline": {"name": 7}}`, "pipeline.name: expected a string, got number"},
		{"params an array", `{"pipeline": {"params": []}}`, "pipeline.params is not an object: []"},
		{"levels a number", `{"pipeline": {"params": {"levels": 1}}}`, "pipeline.params.levels is not an object: 1"},
		{"level out of range", `{"pipeline": {"params": {"levels": {"high": 1.5}}}}`, "pipeline.params.levels.high: must be from 0 to 1, got 1.5"},
		{"threshold negative", `{"pipeline": {"params": {"minQuality": -1e308}}}`, "pipeline.params.minQuality: must be from 0 to 1, got -1e+308"},
		{"topK too large", `{"pipeline": {"params": {"topK": 1000000000000}}}`, "pipeline.params.topK: must be from 0 to 1000, got 1000000000000"},
		{"topK negative", `{"pipeline": {"params": {"topK": -5}}}`, "pipeline.params.topK: must be from 0 to 1000, got -5"},
		{"broken JSON", `{"pipeline": {"name": "svc"`, "the body is not JSON: {\"pipeline\": {\"name\": \"svc\""},
		{"not UTF-8", "{\"pipeline\": {\"name\": \"caf\xe9\"}}", "response is not valid UTF-8 (byte 26)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{BaseURL: serve(t, 200, "application/json", tc.body).URL}
			err := c.Health(context.Background())
			var pe *ProtocolError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Health: %v\nwant a *ProtocolError containing %s", err, tc.want)
			}
			if d := c.Describe(); d.Version != "" || d.Params != nil || d.SearchMode != "" || d.Capabilities != nil {
				t.Errorf("Describe after a failed health check: %+v, want nothing declared", d)
			}
		})
	}

	params := &contract.PipelineParams{TopK: 7, LowQuality: 0.2, Levels: contract.Levels{High: 1}}
	for _, tc := range []struct {
		name, ct, body string
		searchMode     string
		caps           []string
		want           contract.Pipeline
	}{
		{"text", "text/plain", "ok\n", "", nil, contract.Pipeline{}},
		{"text, not UTF-8", "text/plain", "gesund \xfc", "", nil, contract.Pipeline{}},
		{"empty", "", "", "", nil, contract.Pipeline{}},
		{"null", "application/json", "null", "", nil, contract.Pipeline{}},
		{"status only", "application/json", `{"status": "ok"}`, "", nil, contract.Pipeline{}},
		{"status of another type", "application/json", `{"status": 1, "pipeline": {"name": "svc"}}`, "", nil, contract.Pipeline{Version: "svc"}},
		{"null pipeline", "application/json", `{"pipeline": null}`, "", nil, contract.Pipeline{}},
		{"null fields", "application/json", `{"pipeline": {"name": "svc", "version": null, "params": null, "searchMode": null, "capabilities": null}}`, "", nil, contract.Pipeline{Version: "svc"}},
		{"null params fields", "application/json", `{"pipeline": {"params": {"topK": 7, "lowQuality": 0.2, "minQuality": null, "levels": {"high": 1, "medium": null}}}}`, "", nil, contract.Pipeline{Params: params}},
		{"overridden", "application/json", `{"pipeline": {"searchMode": 3, "capabilities": "x"}}`, "bm25", []string{}, contract.Pipeline{SearchMode: "bm25", Capabilities: []string{}}},
		{"latin-1", "application/json; charset=ISO-8859-1", "{\"pipeline\": {\"name\": \"caf\xe9\"}}", "", nil, contract.Pipeline{Version: "café"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{BaseURL: serve(t, 200, tc.ct, tc.body).URL, SearchMode: tc.searchMode, Capabilities: tc.caps}
			if err := c.Health(context.Background()); err != nil {
				t.Fatalf("Health: %v, want none", err)
			}
			d := c.Describe()
			tc.want.Name, tc.want.Store = PipelineName, c.RedactedURL()
			show := func(p contract.Pipeline) string {
				params := p.Params
				p.Params = nil
				return fmt.Sprintf("%+v %+v", p, params)
			}
			if got, want := show(d), show(tc.want); got != want {
				t.Errorf("Describe\n got  %s\n want %s", got, want)
			}
		})
	}
}

// TestValuesOutsideTheContract: a rank, score or level outside what the
// contract allows is a protocol error naming the field, never written to a
// fixture. A score that only its rounding puts outside [0, 1] is set to
// the bound.
func TestValuesOutsideTheContract(t *testing.T) {
	answer := func(block, rest string) string {
		return `{"lookupResult": {"found": true, "evidenceBlocks": [{"rank": 1}, ` + block + `]` + rest + `}}`
	}
	const b1 = "lookupResult.evidenceBlocks[1]."
	for _, tc := range []struct{ name, body, want string }{
		{"score negative", answer(`{"qualityScore": -3.5}`, ""), b1 + "qualityScore: must be from 0 to 1, got -3.5"},
		{"score over 1", answer(`{"qualityScore": 42}`, ""), b1 + "qualityScore: must be from 0 to 1, got 42"},
		{"score -1e308", answer(`{"qualityScore": -1e308}`, ""), b1 + "qualityScore: must be from 0 to 1, got -1e+308"},
		{"unknown level", answer(`{"relevanceLevel": "ultra"}`, ""), b1 + `relevanceLevel: must be high, medium or low, got "ultra"`},
		{"level in capitals", answer(`{"relevanceLevel": "High"}`, ""), b1 + `relevanceLevel: must be high, medium or low, got "High"`},
		{"rank -1", answer(`{"rank": -1}`, ""), b1 + "rank: must be from 1 to 2147483647, got -1"},
		{"rank 0", answer(`{"rank": 0}`, ""), b1 + "rank: must be from 1 to 2147483647, got 0"},
		{"rank 10^12", answer(`{"rank": 1000000000000}`, ""), b1 + "rank: must be from 1 to 2147483647, got 1000000000000"},
		{"rank 2.5", answer(`{"rank": 2.5}`, ""), b1 + "rank: expected an integer, got number 2.5"},
		{"unknown evidenceStatus", `{"lookupResult": {"found": true, "evidenceStatus": "great", "evidenceBlocks": []}}`, `lookupResult.evidenceStatus: must be sufficient, weak or none, got "great"`},
		{"attempt's bestQuality", answer(`{}`, `, "retrievalTrace": {"attempts": [{"name": "A", "bestQuality": 0.5}, {"name": "B", "bestQuality": 7}]}`), "lookupResult.retrievalTrace.attempts[1].bestQuality: must be from 0 to 1, got 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := (&Client{BaseURL: serve(t, 200, "application/json", tc.body).URL}).Lookup(context.Background(), lookupReq)
			var pe *ProtocolError
			if !errors.As(err, &pe) || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("Lookup: %v\nwant a *ProtocolError ending %s", err, tc.want)
			}
		})
	}
	body := answer(`{"rank": 2147483647, "qualityScore": 1.0000001, "relevanceLevel": "low"}, {"qualityScore": -0.0000004}, {"qualityScore": 0}`, "")
	lr, err := (&Client{BaseURL: serve(t, 200, "application/json", body).URL}).Lookup(context.Background(), lookupReq)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`"rank": 2147483647`, `"qualityScore": 1,`, `"qualityScore": 0 `, `"qualityScore": 0 `} {
		_ = i
		if s := encodeResult(t, lr); !strings.Contains(strings.ReplaceAll(s, "\n", " "), want) {
			t.Errorf("fixture lacks %s:\n%s", want, s)
		}
	}
}

// TestCharset: a body in the charset its Content-Type declares is decoded
// from it. A body that is not UTF-8 without such a declaration, or in a
// charset the client does not know, is a protocol error: its text is not
// turned into U+FFFD.
func TestCharset(t *testing.T) {
	answer := "{\"lookupResult\": {\"found\": true, \"evidenceBlocks\": [{\"rank\": 1, \"excerpt\": \"caf\xe9 \x80\"}]}}"
	for _, tc := range []struct{ ct, excerpt string }{
		{"application/json; charset=iso-8859-1", "café \u0080"},
		{"application/json; charset=Windows-1252", "café €"},
		{"application/json;charset=\"latin1\"", "café \u0080"},
	} {
		lr, err := (&Client{BaseURL: serve(t, 200, tc.ct, answer).URL}).Lookup(context.Background(), lookupReq)
		if err != nil {
			t.Errorf("%s: %v", tc.ct, err)
			continue
		}
		if got := lr.EvidenceBlocks[0].Excerpt; got != tc.excerpt {
			t.Errorf("%s: excerpt %q, want %q", tc.ct, got, tc.excerpt)
		}
	}
	for _, tc := range []struct{ ct, want string }{
		{"application/json", "response is not valid UTF-8 (byte 79): JSON is UTF-8, and a server sending another encoding must name it in Content-Type's charset"},
		{"application/json; charset=utf-8", "response is not valid UTF-8 (byte 79)"},
		{"", "response is not valid UTF-8 (byte 79)"},
		{"application/json; charset=klingon", `response charset "klingon" is not one this client decodes (send UTF-8)`},
	} {
		_, err := (&Client{BaseURL: serve(t, 200, tc.ct, answer).URL}).Lookup(context.Background(), lookupReq)
		var pe *ProtocolError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v\nwant a *ProtocolError containing %s", tc.ct, err, tc.want)
		}
	}
	// Bytes split across reads are put together before they are checked.
	valid := `{"lookupResult": {"found": true, "evidenceBlocks": [{"excerpt": "` + strings.Repeat("连接池😀", 5000) + `"}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < len(valid); i += 7 {
			io.WriteString(w, valid[i:min(i+7, len(valid))])
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	if lr, err := (&Client{BaseURL: srv.URL}).Lookup(context.Background(), lookupReq); err != nil || utf8.RuneCountInString(lr.EvidenceBlocks[0].Excerpt) != 20000 {
		t.Errorf("UTF-8 in pieces of 7 bytes: %v", err)
	}
	// An error's body in latin-1 is decoded for its message.
	_, err := (&Client{BaseURL: serve(t, 500, "application/json; charset=iso-8859-1", "{\"error\": \"caf\xe9 ferm\xe9\"}").URL}).Lookup(context.Background(), lookupReq)
	if err == nil || !strings.HasSuffix(err.Error(), "500 Internal Server Error: café fermé") {
		t.Errorf("latin-1 error: %v, want it to end café fermé", err)
	}
}

// manyBlocks is the size of the answer: 10^6 blocks, about 38 MB.
const manyBlocks = 1_000_000

// blocksServer answers every lookup with n blocks of about 38 bytes each,
// written as a stream, so that the server itself allocates next to nothing.
func blocksServer(t testing.TB, n int, served *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriterSize(w, 64<<10)
		bw.WriteString(`{"lookupResult": {"found": true, "evidenceBlocks": [`)
		var num []byte
		for i := 1; i <= n; i++ {
			if i > 1 {
				bw.WriteString(", ")
			}
			bw.WriteString(`{"rank": `)
			bw.Write(strconv.AppendInt(num[:0], int64(i), 10))
			bw.WriteString(`, "source": "s`)
			bw.Write(fmt.Appendf(num[:0], "%07d", i))
			bw.WriteString(`"}`)
		}
		bw.WriteString(`], "contextPack": {"sources": ["s0000001"]}}}`)
		bw.Flush()
		if served != nil {
			served.Add(1)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestBlocksCapped: of an answer of 10^6 blocks (38 MB), the client keeps
// pipeline.MaxBlocks(topK), the first ones, counts the others, and reads
// the whole answer in bounded memory: the heap grows by a few megabytes,
// not the gigabytes the answer took when it was decoded whole.
func TestBlocksCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("a 38 MB answer")
	}
	srv := blocksServer(t, manyBlocks, nil)
	for _, tc := range []struct {
		name string
		c    *Client
		topK int
		want int
	}{
		{"the request's topK", &Client{BaseURL: srv.URL}, 5, 20},
		{"no topK", &Client{BaseURL: srv.URL}, 0, pipeline.MaxBlocks(5)},
		{"the declared topK", &Client{BaseURL: srv.URL}, 0, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == 12 {
				tc.c.remote = &contract.Pipeline{Params: &contract.PipelineParams{TopK: 3}}
			}
			req := lookupReq
			req.TopK = tc.topK
			var peak atomic.Uint64
			lr, err := measure(t, &peak, func() (*contract.LookupResult, error) { return tc.c.Lookup(context.Background(), req) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("peak heap growth %d KB", peak.Load()>>10)
			if p := peak.Load(); p > 16<<20 {
				t.Errorf("the heap grew by %d MB during the lookup, want at most 16", p>>20)
			}
			if len(lr.EvidenceBlocks) != tc.want || lr.DroppedBlocks != manyBlocks-tc.want {
				t.Fatalf("%d blocks kept, %d dropped; want %d and %d", len(lr.EvidenceBlocks), lr.DroppedBlocks, tc.want, manyBlocks-tc.want)
			}
			if b := lr.EvidenceBlocks[tc.want-1]; b.Rank != tc.want || b.Source != fmt.Sprintf("s%07d", tc.want) {
				t.Errorf("last block kept %+v, want rank %d", b, tc.want)
			}
			if got := lr.ContextPack.Sources; len(got) != 1 {
				t.Errorf("contextPack.sources after the blocks %q, want it read", got)
			}
		})
	}
}

// measure runs f and records in peak the most the heap grew above where it
// was before, sampled every millisecond.
func measure(t *testing.T, peak *atomic.Uint64, f func() (*contract.LookupResult, error)) (*contract.LookupResult, error) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	lr, err := f()
	close(done)
	<-sampled
	return lr, err
}

// TestLongArrays: an array of a result other than evidenceBlocks is
// refused past MaxArrayLen elements, naming it, whatever it is nested in.
func TestLongArrays(t *testing.T) {
	many := strings.Repeat(`"a", `, MaxArrayLen) + `"a"`
	for _, tc := range []struct{ part, want string }{
		{`"contextPack": {"sources": [` + many + `]}`, "lookupResult.contextPack.sources: more than 10000 elements"},
		{`"rerankTrace": {"inputOrder": [` + many + `]}`, "lookupResult.rerankTrace.inputOrder: more than 10000 elements"},
		{`"retrievalTrace": {"l0Hints": {"categories": [], "matchedTerms": [` + many + `]}}`, "lookupResult.retrievalTrace.l0Hints: at /matchedTerms: more than 10000 elements"},
		{`"retrievalTrace": {"attempts": [` + strings.Repeat(`{}, `, MaxArrayLen) + `{}]}`, "lookupResult.retrievalTrace.attempts: more than 10000 elements"},
	} {
		body := `{"lookupResult": {"found": true, "evidenceBlocks": [], ` + tc.part + `}}`
		_, err := (&Client{BaseURL: serve(t, 200, "application/json", body).URL}).Lookup(context.Background(), lookupReq)
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%.60s…: %v\nwant an error ending %s", tc.part, err, tc.want)
		}
	}
	body := `{"lookupResult": {"found": true, "evidenceBlocks": [], "contextPack": {"sources": [` + strings.Repeat(`"a", `, MaxArrayLen-1) + `"a"]}}}`
	if _, err := (&Client{BaseURL: serve(t, 200, "application/json", body).URL}).Lookup(context.Background(), lookupReq); err != nil {
		t.Errorf("%d sources: %v", MaxArrayLen, err)
	}
}

// TestDroppedBlocksChecked: a dropped block is still read, so an answer
// that is not JSON past the kept blocks, or whose dropped element is not an
// object, fails as before. A dropped block's fields are not read.
func TestDroppedBlocksChecked(t *testing.T) {
	kept := strings.Repeat(`{"rank": 1}, `, 20)
	for _, tc := range []struct{ body, want string }{
		{`{"lookupResult": {"found": true, "evidenceBlocks": [` + kept + `{"rank": 1}, 7]}}`, "lookupResult.evidenceBlocks[21] is not an object: 7"},
		{`{"lookupResult": {"found": true, "evidenceBlocks": [` + kept + `{"rank": 1}, {"a": }]}}`, "response is not JSON"},
		{`{"lookupResult": {"found": true, "evidenceBlocks": [` + kept + `{"rank": 1}]}} trailing`, "response is not JSON"},
	} {
		_, err := (&Client{BaseURL: serve(t, 200, "application/json", tc.body).URL}).Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "s", TopK: 5})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80s…: %v, want %s", tc.body[len(tc.body)-30:], err, tc.want)
		}
	}
	body := `{"lookupResult": {"found": true, "evidenceBlocks": [` + kept + `{"rank": "not a rank", "qualityScore": 42}]}}`
	lr, err := (&Client{BaseURL: serve(t, 200, "application/json", body).URL}).Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "s", TopK: 5})
	if err != nil || len(lr.EvidenceBlocks) != 20 || lr.DroppedBlocks != 1 {
		t.Errorf("a dropped block of the wrong types: %v, want 20 blocks and 1 dropped", err)
	}
}
