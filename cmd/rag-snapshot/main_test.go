package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
	"github.com/ragbaseline/ragbaseline/internal/testkit/scripttest"
)

// update rewrites what the tests compare against from what rag-snapshot does
// now: the scripts' cmp files (testscript's UpdateScripts) and the manual
// in doc.go (TestManual). Review the diff before committing it.
var update = flag.Bool("update", false, "rewrite the scripts' expected files and the manual from the binary's output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"rag-snapshot": main})
}

// run runs rag-snapshot in this process under ctx and returns its exit
// code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) cmdutil.ExitCode {
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr}
	return tool.Run(ctx, tool.Command(f, version), args)
}

// ragEnv are the variables of config.Defaults. The tests clear them, so
// that a sourced services.env does not switch them to the server stack.
var ragEnv = []string{"RAG_STORE", "RAG_DATA_DIR", "RAG_EMBEDDER", "RAG_EMBED_DIM", "RAG_EMBED_MODEL", "RAG_EMBED_INPUT_TYPE",
	"RAG_MYSQL_DSN", "RAG_MILVUS_ADDR", "RAG_MILVUS_COLLECTION", "RAG_REDIS_ADDR", "OPENAI_BASE_URL", "OPENAI_API_KEY"}

// TestScript runs testdata/script/*.txtar on the embedded store. Scripts
// get commands of their own. "seed DOCS [DATADIR]" loads DOCS into the
// embedded store through internal/ingest, because rag-seed is not in this
// test binary. "waitfor URL" waits until URL answers 200. "lookupserver"
// is a service with canned answers. From package scripttest, "status N"
// pins an exit status, and "mask" writes an output with its elapsed times
// and the test servers' addresses masked, so that cmp compares it whole.
// $SIDECAR_ADDR is a free loopback address for rag-snapshot serve.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			for _, k := range ragEnv {
				env.Setenv(k, "")
			}
			// The "seed" command seeds with the lexical embedder (no
			// model), and so do the scripts.
			env.Setenv("RAG_EMBEDDER", "local")
			env.Setenv("NO_COLOR", "1")
			addr, err := freeAddr()
			if err != nil {
				return err
			}
			env.Setenv("SIDECAR_ADDR", addr)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"seed":         cmdSeed,
			"status":       scripttest.Status,
			"mask":         scripttest.Mask,
			"waitfor":      cmdWaitFor,
			"lookupserver": cmdLookupServer,
			"mkfifo":       scripttest.Mkfifo,
			"sparse":       scripttest.Sparse,
		},
	})
}

func cmdSeed(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: seed DOCS [DATADIR]")
	}
	dataDir := ".ragbaseline"
	if len(args) == 2 {
		dataDir = args[1]
	}
	n, err := seed(ts.MkAbs(args[0]), ts.MkAbs(dataDir))
	ts.Check(err)
	ts.Logf("seeded %d documents into %s", n, dataDir)
}

// seed loads docs into the embedded store in dataDir, as rag-seed does,
// with the lexical embedder.
func seed(docs, dataDir string) (int, error) { return seedWith(docs, dataDir, config.EmbedderLocal) }

// seedWith is seed with another embedder.
func seedWith(docs, dataDir, embedder string) (int, error) {
	ctx := context.Background()
	cfg := config.Config{Store: config.StoreEmbedded, DataDir: dataDir, Embedder: embedder,
		MilvusCollection: "rag_eval", Timeout: 30 * time.Second}
	stack, err := config.Open(ctx, cfg)
	if err != nil {
		return 0, err
	}
	defer stack.Close()
	ds, err := corpus.LoadDir(docs, "rag-eval")
	if err != nil {
		return 0, err
	}
	_, err = ingest.Seed(ctx, ds, ingest.Backends{Catalog: stack.Catalog, Index: stack.Index, Embedder: stack.Embedder}, ingest.Options{
		KBScope: "rag-eval", KnowledgeDir: cfg.KnowledgeDir(),
		Chunk: corpus.ChunkOptions{MaxChars: corpus.DefaultMaxChars, Overlap: corpus.DefaultOverlap},
	})
	return len(ds), err
}

// cmdLookupServer is "lookupserver FILE [VAR]": a loopback HTTP server
// speaking the /v1/lookup protocol with canned answers, as a team's own
// service would, until the script ends. Its base URL is $VAR, by default
// $LOOKUP_URL. FILE is {"healthz": {…}, "answers": {"<query>":
// {lookupResult}}, "requireHeaders": {"<name>": "<value>"}}. A query
// without an answer gets a 500. A request lacking one of requireHeaders
// gets a 401, on /healthz too. Both errors echo the required headers as
// the request sent them, as a careless service would.
func cmdLookupServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: lookupserver FILE [VAR]")
	}
	urlVar := "LOOKUP_URL"
	if len(args) == 2 {
		urlVar = args[1]
	}
	var canned struct {
		Healthz        json.RawMessage            `json:"healthz"`
		Answers        map[string]json.RawMessage `json:"answers"`
		RequireHeaders map[string]string          `json:"requireHeaders"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &canned))
	// sent lists the required headers as r sent them, sorted by name.
	sent := func(r *http.Request) string {
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(canned.RequireHeaders)) {
			fmt.Fprintf(&b, " (%s: %s)", name, r.Header.Get(name))
		}
		return b.String()
	}
	fail := func(w http.ResponseWriter, status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		b, _ := json.Marshal(map[string]string{"error": msg})
		w.Write(b)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(canned.Healthz)
	})
	mux.HandleFunc("POST /v1/lookup", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query string `json:"query"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req) // a bad request has no answer
		answer, ok := canned.Answers[req.Query]
		if !ok {
			fail(w, http.StatusInternalServerError, fmt.Sprintf("no answer for %q%s", req.Query, sent(r)))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"lookupResult": %s}`, answer)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for name, want := range canned.RequireHeaders {
			if r.Header.Get(name) != want {
				fail(w, http.StatusUnauthorized, "unauthorized:"+sent(r))
				return
			}
		}
		mux.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(urlVar, srv.URL)
}

func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfor URL")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(args[0])
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not answer 200 within 20s: %v", args[0], err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// shippedCaseCount is the number of golden cases of the shipped eval set.
func shippedCaseCount(t *testing.T) int {
	t.Helper()
	g, err := contract.LoadGolden("../../eval/rag-retrieval/cases/golden-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	return len(g.Cases)
}

// TestShippedCorpus snapshots the shipped golden cases on the shipped
// corpus with the neural embedder (use-multilingual-v3), hybrid and dense,
// twice each: the second run changes nothing.
func TestShippedCorpus(t *testing.T) {
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
	t.Setenv("RAG_MODEL_DIR", kbtest.ModelBase(t))
	dataDir := t.TempDir()
	if _, err := seedWith("../../eval/rag-retrieval/seed-docs", dataDir, config.EmbedderUSE); err != nil {
		t.Fatal(err)
	}
	n := shippedCaseCount(t)
	for _, mode := range []string{"hybrid", "dense"} {
		t.Run(mode, func(t *testing.T) {
			fixtures := filepath.Join(t.TempDir(), "fixtures")
			args := []string{"--cases", "../../eval/rag-retrieval/cases/golden-cases.json", "--fixtures", fixtures,
				"--data-dir", dataDir, "--search-mode", mode, "--embedder", config.EmbedderUSE}
			for i, want := range []string{
				fmt.Sprintf(" %d written (%d changed, 0 unchanged), 0 failed, 0 removed", n, n),
				fmt.Sprintf(" %d written (0 changed, %d unchanged), 0 failed, 0 removed", n, n),
			} {
				var out, errb strings.Builder
				if code := run(context.Background(), args, &out, &errb); code != 0 {
					t.Fatalf("run %d: exit %d: %s", i+1, code, errb.String())
				}
				for _, want := range []string{want, "judge of " + fixtures + ":\n"} {
					if !strings.Contains(out.String(), want) {
						t.Errorf("run %d: %q lacks %q", i+1, out.String(), want)
					}
				}
			}
			data, err := os.ReadFile(filepath.Join(fixtures, "chat-mysql-pool.json"))
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("\"searchMode\": %q", mode); !strings.Contains(string(data), want) {
				t.Errorf("fixture lacks %s:\n%s", want, data)
			}
		})
	}
}

// TestExitCodes pins the exit status of each kind of error. The lexical
// embedder, which needs no model, lets the builtin pipeline get as far as
// the store.
func TestExitCodes(t *testing.T) {
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
	t.Setenv("RAG_EMBEDDER", config.EmbedderLocal)
	dir := t.TempDir()
	badCases := filepath.Join(dir, "bad.json")
	os.WriteFile(badCases, []byte(`{"cases": [{"caseId": "x", "scenario": "s", "query": "q", "expectedSorces": ["a"]}]}`), 0o644)
	cases := "--cases=../../eval/rag-retrieval/cases/golden-cases.json"
	tests := []struct {
		args []string
		code cmdutil.ExitCode
		msg  string
	}{
		{[]string{"--version"}, 0, ""},
		{[]string{"--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"--search-mode", "sparse"}, 2, `--search-mode must be hybrid or dense, got "sparse"`},
		{[]string{"--pipeline", "http"}, 2, "--pipeline http needs --lookup-url"},
		{[]string{"--pipeline", "builtin", "--lookup-url", "http://x"}, 2, "--lookup-url is for --pipeline http"},
		{[]string{"--lookup-url", "ftp://x"}, 2, "must start with http:// or https://"},
		{[]string{"--sidecar-fixtures", "x"}, 2, "--sidecar-fixtures needs --sidecar-url"},
		{[]string{"--concurrency", "0"}, 2, "--concurrency must be at least 1"},
		{[]string{"--kb-scope", "../x"}, 2, `--kb-scope "../x" must start with a letter or digit`},
		{[]string{"--cases", badCases}, 2, `field "expectedSorces": unknown field`},
		{[]string{"--cases", filepath.Join(dir, "missing.json")}, 2, "load golden cases"},
		{[]string{cases, "--store", "nosql"}, 2, "--store must be embedded or server"},
		{[]string{cases, "--data-dir", filepath.Join(dir, "empty"), "--fixtures", filepath.Join(dir, "f")}, 1, "catalog.db is missing); run rag-seed first"},
		{[]string{cases, "--lookup-url", "http://127.0.0.1:1", "--retries", "0", "--fixtures", filepath.Join(dir, "f")}, 1, "pipeline health check failed; nothing was written: GET http://127.0.0.1:1/healthz unreachable"},
		{[]string{"serve", "--kb-scope", ""}, 2, "--kb-scope"},
		{[]string{"serve", "--addr", "256.0.0.1:http", "--data-dir", filepath.Join(dir, "empty")}, 1, "run rag-seed first"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb strings.Builder
			code := run(context.Background(), tt.args, &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if !strings.Contains(errb.String(), tt.msg) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.msg)
			}
			if _, err := os.Stat(filepath.Join(dir, "f")); err == nil {
				t.Error("a failed run created the fixture dir")
			}
		})
	}
}
