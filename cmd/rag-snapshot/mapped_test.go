package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/testkit/eq"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// TestMappedPipeline runs rag-snapshot --pipeline mapped against a fake
// GraphQL-style service. The token of a ${ENV} header reaches the service
// but never a fixture, the manifest, stdout or stderr. An error in a 200
// answer fails the run with the service's message and leaves the fixtures
// as they were.
func TestMappedPipeline(t *testing.T) {
	for _, k := range ragEnv {
		t.Setenv(k, "")
	}
	t.Setenv("RAG_EMBEDDER", "local")
	const token = "tok-cli-5e1f0a9b77c3"
	var mu sync.Mutex
	failing := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(401)
			return
		}
		if failing {
			w.Write([]byte(`{"data": {"Get": {"Doc": null}}, "errors": [{"message": "Cannot query field \"sorce\" on type \"Doc\" (token ` + token + `)"}]}`))
			return
		}
		w.Write([]byte(`{"data": {"Get": {"Doc": [
			{"docId": "rag-eval/a", "source": "a", "breadcrumb": "A > Intro", "text": "alpha", "_additional": {"score": "0.9"}},
			{"docId": "rag-eval/b", "source": "b", "breadcrumb": "B", "text": "beta", "_additional": {"score": "0.2"}}]}}}`))
	}))
	defer srv.Close()
	t.Setenv("SVC_URL", srv.URL)
	t.Setenv("SVC_TOKEN", token)
	secrets := []string{token, strings.TrimPrefix(srv.URL, "http://")}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "svc.yaml")
	os.WriteFile(cfg, []byte(`name: svc
version: "3"
searchMode: hybrid
capabilities: [qualityScore, evidenceStatus, breadcrumb]
headers: {Authorization: 'Bearer ${SVC_TOKEN}'}
request:
  url: ${SVC_URL}/graphql
  body: '{query: "{ Get { Doc(hybrid: {query: \(.query | tojson)}, limit: \(.topK)) { docId } } }"}'
response:
  errorIf: (.errors // []) | length > 0
  errorMessage: '[.errors[].message] | join("; ")'
  blocks: '.data.Get.Doc | map({docId, source, breadcrumb, excerpt: .text, score: (._additional.score | tonumber)})'
score: {kind: similarity, quality: identity, range: [0, 1]}
thresholds: {lowQuality: 0.5, minQuality: 0.1, levels: {high: 0.8, medium: 0.5}}
`), 0o644)
	cases := filepath.Join(dir, "cases.json")
	os.WriteFile(cases, []byte(`{"kbScope": "rag-eval", "cases": [
  {"caseId": "a", "scenario": "s", "query": "alpha?", "expectedSources": ["a"], "expectedBreadcrumbs": ["A > Intro"], "expectedEvidenceStatus": "sufficient"},
  {"caseId": "b", "scenario": "s", "query": "beta?", "expectedSources": ["b"]}]}`), 0o644)
	fx := filepath.Join(dir, "fixtures")
	args := []string{"--pipeline-config", cfg, "--cases", cases, "--fixtures", fx}

	var out, errb bytes.Buffer
	if code := run(context.Background(), args, &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, s := range secrets {
		if strings.Contains(out.String()+errb.String(), s) {
			t.Errorf("the output names %q:\n%s%s", s, out.String(), errb.String())
		}
	}
	if !strings.Contains(out.String(), "rag-snapshot: 2 written") {
		t.Errorf("stdout lacks the summary \"rag-snapshot: 2 written\":\n%s", out.String())
	}
	if !strings.Contains(out.String(), "judge of "+fx) {
		t.Errorf("stdout lacks the judge of %s:\n%s", fx, out.String())
	}
	noSecretIn(t, fx, secrets)
	data, err := os.ReadFile(filepath.Join(fx, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f contract.Fixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	p := f.Pipeline
	eq.Field(t, "pipeline", "Name", p.Name, "mapped")
	eq.Field(t, "pipeline", "Version", p.Version, "svc 3")
	eq.Field(t, "pipeline", "Store", p.Store, "${SVC_URL}/graphql")
	eq.Field(t, "pipeline", "SearchMode", p.SearchMode, "hybrid")
	eq.Field(t, "pipeline", "Capabilities", strings.Join(p.Capabilities, ","), "evidenceStatus,qualityScore,breadcrumb")
	eq.Field(t, "pipeline", "Params.MinQuality", p.Params.MinQuality, 0.1)
	lr := f.LookupResult
	eq.Field(t, "lookupResult", "EvidenceStatus", lr.EvidenceStatus, "sufficient")
	if len(lr.EvidenceBlocks) != 2 {
		t.Fatalf("lookupResult: %d evidence blocks, want 2", len(lr.EvidenceBlocks))
	}
	eq.Field(t, "lookupResult", "EvidenceBlocks[0].RelevanceLevel", lr.EvidenceBlocks[0].RelevanceLevel, "high")
	eq.Field(t, "lookupResult", "EvidenceBlocks[1].QualityScore", lr.EvidenceBlocks[1].QualityScore, 0.2)
	before := dirState(t, fx)

	// An error inside a 200 answer: exit 1, the service's message, no
	// secret, the fixtures untouched.
	mu.Lock()
	failing = true
	mu.Unlock()
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), args, &out, &errb); code != cmdutil.ExitFail {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	want := `rag-snapshot: failed: a: POST ${SVC_URL}/graphql: the service answered 200 with an error: Cannot query field "sorce" on type "Doc" (token ${SVC_TOKEN})`
	if !strings.Contains(errb.String(), want+"\n") {
		t.Errorf("stderr lacks\n%s\n%s", want, errb.String())
	}
	for _, s := range secrets {
		if strings.Contains(out.String()+errb.String(), s) {
			t.Errorf("the output names %q:\n%s%s", s, out.String(), errb.String())
		}
	}
	if after := dirState(t, fx); after != before {
		t.Errorf("the fixtures changed")
	}
}

func noSecretIn(t *testing.T, dir string, secrets []string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains %q", p, s)
			}
		}
		return nil
	})
}

func dirState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, _ := d.Info()
		data, _ := os.ReadFile(p)
		b.WriteString(p + " " + fi.ModTime().String() + "\n" + string(data))
		return nil
	})
	return b.String()
}
