package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// hostileCases writes a golden file of the given queries, case ids q1, q2, …
func hostileCases(t *testing.T, dir string, queries ...string) string {
	t.Helper()
	var cs []string
	for i, q := range queries {
		cs = append(cs, fmt.Sprintf(`{"caseId": "q%d", "scenario": "s", "query": %q, "expectedSources": ["s0000001"]}`, i+1, q))
	}
	path := filepath.Join(dir, "cases.json")
	if err := os.WriteFile(path, []byte(`{"version": 1, "kbScope": "rag-eval", "cases": [`+strings.Join(cs, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// hostileService serves /healthz with health (404 when it is ""), and
// answers a lookup with what answer returns for its query.
func hostileService(t *testing.T, health string, answer func(w http.ResponseWriter, query string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			if health == "" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, health)
		case "/v1/lookup":
			var req struct{ Query string }
			json.NewDecoder(r.Body).Decode(&req)
			w.Header().Set("Content-Type", "application/json")
			answer(w, req.Query)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func clearRAGEnv(t *testing.T) {
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
}

const okAnswer = `{"lookupResult": {"found": true, "evidenceBlocks": [{"rank": 1, "source": "s0000001"}]}}`

// TestEchoedTokenNotCommitted is the repro of issue 28's first item: a
// service answers 401 echoing the token of --lookup-header with / as \/
// and + as \u002B. With --partial the failures go to the manifest, which
// teams commit, and to stderr: neither holds the token.
func TestEchoedTokenNotCommitted(t *testing.T) {
	clearRAGEnv(t)
	const token = "AKIAabc/def+ghi123"
	t.Setenv("SVC_TOKEN", token)
	srv := hostileService(t, "", func(w http.ResponseWriter, q string) {
		if q == "ok" {
			io.WriteString(w, okAnswer)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"detail":"invalid token AKIAabc\/def\u002Bghi123"}`)
	})
	dir := t.TempDir()
	fx := filepath.Join(dir, "fx")
	args := []string{"--lookup-url", srv.URL, "--lookup-header", "X-Token: ${SVC_TOKEN}", "--cases", hostileCases(t, dir, "ok", "a", "b", "c"),
		"--fixtures", fx, "--partial", "--skip-eval", "--retries", "0"}
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != cmdutil.ExitFail {
		t.Fatalf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	manifest, err := os.ReadFile(filepath.Join(fx, contract.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"_snapshot.json": string(manifest), "stderr": errb.String(), "stdout": out.String()} {
		if n := strings.Count(text, "AKIAabc"); n > 0 {
			t.Errorf("%s holds the token %d times:\n%s", name, n, text)
		}
	}
	if n := strings.Count(string(manifest), `invalid token ${SVC_TOKEN}`); n != 3 {
		t.Errorf("_snapshot.json names ${SVC_TOKEN} %d times, want 3 (one per failed case):\n%s", n, manifest)
	}
}

// TestHugeErrorBounded: a service answering {"error": "<5 MB>"} to 3
// cases writes a bounded stderr and a bounded _snapshot.json.
func TestHugeErrorBounded(t *testing.T) {
	clearRAGEnv(t)
	huge := strings.Repeat("x", 5<<20)
	srv := hostileService(t, "", func(w http.ResponseWriter, q string) {
		if q == "ok" {
			io.WriteString(w, okAnswer)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error": "`+huge+`"}`)
	})
	dir := t.TempDir()
	fx := filepath.Join(dir, "fx")
	args := []string{"--lookup-url", srv.URL, "--cases", hostileCases(t, dir, "ok", "a", "b", "c"), "--fixtures", fx, "--partial", "--skip-eval"}
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != cmdutil.ExitFail {
		t.Fatalf("exit %d, want 1\n%.2000s", code, errb.String())
	}
	manifest, err := os.ReadFile(filepath.Join(fx, contract.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if n := errb.Len(); n > 8<<10 {
		t.Errorf("stderr of %d bytes for 3 failed cases", n)
	}
	if n := len(manifest); n > 8<<10 {
		t.Errorf("_snapshot.json of %d bytes for 3 failed cases", n)
	}
	if want := "500 Internal Server Error: " + strings.Repeat("x", 100); !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks the start of the message:\n%.500s", errb.String())
	}
}

// TestManyBlocksDropped: of answers of 1,000 blocks with --top-k 5, the
// fixtures keep 4 × 5 = 20, and the manifest counts the others as
// droppedBlocks, with a warning on stderr.
func TestManyBlocksDropped(t *testing.T) {
	clearRAGEnv(t)
	srv := hostileService(t, "", func(w http.ResponseWriter, q string) {
		bw := bufio.NewWriter(w)
		bw.WriteString(`{"lookupResult": {"found": true, "evidenceBlocks": [`)
		for i := 1; i <= 1000; i++ {
			if i > 1 {
				bw.WriteString(",")
			}
			fmt.Fprintf(bw, `{"rank": %d, "source": "s%07d"}`, i, i)
		}
		bw.WriteString(`]}}`)
		bw.Flush()
	})
	dir := t.TempDir()
	fx := filepath.Join(dir, "fx")
	args := []string{"--lookup-url", srv.URL, "--cases", hostileCases(t, dir, "a", "b"), "--fixtures", fx, "--top-k", "5", "--skip-eval"}
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	data, err := os.ReadFile(filepath.Join(fx, "q1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f contract.Fixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if n := len(f.LookupResult.EvidenceBlocks); n != 20 {
		t.Errorf("q1.json has %d blocks, want 20", n)
	}
	var m contract.Manifest
	if data, err = os.ReadFile(filepath.Join(fx, contract.ManifestName)); err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil || m.DroppedBlocks != 2*980 {
		t.Errorf("manifest droppedBlocks %d (%v), want %d", m.DroppedBlocks, err, 2*980)
	}
	want := "rag-snapshot: warning: the pipeline sent more evidence blocks than the 4 × topK kept of an answer, for 2 case(s): 1960 dropped, counted as droppedBlocks in " + filepath.Join(fx, contract.ManifestName) + ": q1, q2\n"
	if !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks\n%s\n%s", want, errb.String())
	}
}

// TestHealthTypeErrorStops: a /healthz declaration with a field of the
// wrong type stops the run, naming the field, as an unknown searchMode
// does, and nothing is written.
func TestHealthTypeErrorStops(t *testing.T) {
	clearRAGEnv(t)
	for _, tc := range []struct{ health, want string }{
		{`{"pipeline": {"name": "svc", "params": {"lowQuality": "NaN"}}}`, "pipeline.params.lowQuality: expected a number, got string"},
		{`{"pipeline": {"capabilities": "breadcrumb"}}`, "pipeline.capabilities: expected an array, got string; --pipeline-capabilities overrides them"},
		{`{"pipeline": [1,2]}`, "pipeline is not an object: [1,2]"},
		{`"healthy"`, `the body is a string, not an object with the pipeline: "healthy"`},
	} {
		srv := hostileService(t, tc.health, func(w http.ResponseWriter, q string) { io.WriteString(w, okAnswer) })
		dir := t.TempDir()
		fx := filepath.Join(dir, "fx")
		args := []string{"--lookup-url", srv.URL, "--cases", hostileCases(t, dir, "a"), "--fixtures", fx, "--skip-eval", "--retries", "0"}
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &out, &errb)
		want := "rag-snapshot: pipeline health check failed; nothing was written: GET " + srv.URL + "/healthz: " + tc.want + "\n"
		if code != cmdutil.ExitFail || errb.String() != want {
			t.Errorf("%s: exit %d, stderr\n%s\nwant exit 1 and\n%s", tc.health, code, errb.String(), want)
		}
		if _, err := os.Stat(fx); err == nil {
			t.Errorf("%s: %s was created", tc.health, fx)
		}
	}
}

// TestValueOutsideContractFails: a block with a qualityScore outside [0, 1]
// fails its case, naming the field; the fixture is not written.
func TestValueOutsideContractFails(t *testing.T) {
	clearRAGEnv(t)
	srv := hostileService(t, "", func(w http.ResponseWriter, q string) {
		io.WriteString(w, `{"lookupResult": {"found": true, "evidenceBlocks": [{"rank": 1, "qualityScore": 42}]}}`)
	})
	dir := t.TempDir()
	fx := filepath.Join(dir, "fx")
	args := []string{"--lookup-url", srv.URL, "--cases", hostileCases(t, dir, "a"), "--fixtures", fx, "--skip-eval"}
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	want := "rag-snapshot: failed: q1: POST " + srv.URL + "/v1/lookup: lookupResult.evidenceBlocks[0].qualityScore: must be from 0 to 1, got 42\n"
	if code != cmdutil.ExitFail || !strings.HasPrefix(errb.String(), want) {
		t.Errorf("exit %d, stderr\n%s\nwant exit 1 and\n%s", code, errb.String(), want)
	}
	if _, err := os.Stat(filepath.Join(fx, "q1.json")); err == nil {
		t.Errorf("q1.json was written")
	}
}
