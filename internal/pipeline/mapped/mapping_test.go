package mapped

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/pipeline"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/lookuphttp"
	"github.com/ragbaseline/ragbaseline/internal/secret"
)

// The shipped configs against responses written by hand in the shape of
// each server's API (testdata/responses), served by a fake that also
// records the request the config built.

// weaviateAPI is a fake Weaviate: the class's schema (the setup step) at
// GET /v1/schema/RagChunk, graphql's answer at POST /v1/graphql.
func weaviateAPI(t testing.TB, graphql func() (int, []byte)) *fakeAPI {
	return newFakeAPI(t, func(r recorded) (int, []byte) {
		switch {
		case r.Method == "GET" && r.Path == "/v1/schema/RagChunk":
			return 200, readResponse(t, "weaviate-schema.json")
		case r.Method == "POST" && r.Path == "/v1/graphql":
			return graphql()
		}
		return 404, nil
	})
}

func TestWeaviateMapping(t *testing.T) {
	api := weaviateAPI(t, func() (int, []byte) { return 200, readResponse(t, "weaviate-hybrid.json") })
	p := openConfig(t, shipped("weaviate.yaml"), map[string]string{"WEAVIATE_URL": api.URL})
	// Quotes, a backslash, a newline and braces: the GraphQL string must
	// carry them through unharmed.
	query := "too many \"connections\" \\ 连接池\n{ Get }"
	lr := lookupOK(t, p, query)

	reqs := api.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want the setup step, then the query: %+v", len(reqs), reqs)
	}
	if reqs[0].Path != "/v1/schema/RagChunk" {
		t.Fatalf("first request to %s, want the setup step to /v1/schema/RagChunk", reqs[0].Path)
	}
	var body struct{ Query string }
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatalf("body %s: %v", reqs[1].Body, err)
	}
	qj, _ := json.Marshal(query)
	for _, want := range []string{"{ Get { RagChunk(hybrid: {", "query: " + string(qj) + ",", "limit: 5,", `valueText: "rag-eval"`, `properties: ["text"]`,
		"alpha: 0.5,", "maxVectorDistance: 0.84,", "_additional { score }"} {
		if !strings.Contains(body.Query, want) {
			t.Errorf("GraphQL query lacks %s:\n%.600s", want, body.Query)
		}
	}
	vec := regexp.MustCompile(`vector: \[([^\]]*)\]`).FindStringSubmatch(body.Query)
	if vec == nil {
		t.Errorf("the query has no vector: %.300s", body.Query)
	} else if n := strings.Count(vec[1], ",") + 1; n != 512 {
		t.Errorf("the query vector has %d numbers, want 512: %.300s", n, body.Query)
	}

	want := []blockView{
		{1, "rag-eval/mysql-connection-pool", "mysql-connection-pool", "rag-eval/mysql-connection-pool#Connection Pool", "Database > MySQL > Connection Pool",
			"## Connection Pool\n\nToo many connections: raise max_connections 或 缩小连接池.", 0.918033, true, "high", "WEAVIATE_HYBRID", 0, 0.918033},
		{2, "rag-eval/postgres-connections", "postgres-connections", "rag-eval/postgres-connections#Connections", "Database > PostgreSQL > Connections",
			"## Connections\n\nmax_connections in postgresql.conf.", 0.41, true, "low", "WEAVIATE_HYBRID", 0, 0.41},
		{3, "rag-eval/redis-memory", "redis-memory", "rag-eval/redis-memory#Memory", "", "maxmemory", 0.12, true, "low", "WEAVIATE_HYBRID", 0, 0.12},
	}
	if got := viewOf(lr.EvidenceBlocks); !reflect.DeepEqual(got, want) {
		t.Errorf("blocks\n got %+v\nwant %+v", got, want)
	}
	if !lr.Found {
		t.Error("found false, want true")
	}
	if lr.EvidenceStatus != contract.EvidenceSufficient {
		t.Errorf("evidenceStatus %q, want %q", lr.EvidenceStatus, contract.EvidenceSufficient)
	}
	// What the pipeline does not produce stays absent.
	if lr.Has&(contract.HasContextSources|contract.HasSelectedAttempt|contract.HasFallbackReason|contract.HasRerankTopSource) != 0 {
		t.Errorf("Has %b claims parts a mapped pipeline does not produce", lr.Has)
	}
	d := p.Describe()
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("describe name", d.Name, "mapped")
	check("describe version", d.Version, "weaviate-hybrid 2")
	check("describe store", d.Store, "${WEAVIATE_URL}/v1/graphql")
	check("describe searchMode", d.SearchMode, "hybrid")
	check("describe embedder", d.Embedder, "local-hash-v1")
	check("describe dim", d.Dim, 512)
	check("describe capabilities", strings.Join(d.Capabilities, ","), "evidenceStatus,qualityScore,breadcrumb")
	check("describe params topK", d.Params.TopK, 5)
	check("describe params lowQuality", float64(d.Params.LowQuality), 0.0)
	check("describe params levels.high", float64(d.Params.Levels.High), 0.75)
}

func TestWeaviateErrorIn200(t *testing.T) {
	api := weaviateAPI(t, func() (int, []byte) { return 200, readResponse(t, "weaviate-error.json") })
	p := openConfig(t, shipped("weaviate.yaml"), map[string]string{"WEAVIATE_URL": api.URL})
	_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
	want := "POST ${WEAVIATE_URL}/v1/graphql: the service answered 200 with an error: explorer: get class: vector search:"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "vector lengths don't match: 384 vs 512") {
		t.Fatalf("got %v\nwant %s…", err, want)
	}
	var se *ServiceError
	if !errors.As(err, &se) {
		t.Errorf("%T, want a *ServiceError", err)
	}
	if pipeline.Transient(err) {
		t.Errorf("%v is transient, want a service error never to be", err)
	}
}

func TestOpenSearchBM25Mapping(t *testing.T) {
	api := newFakeAPI(t, func(r recorded) (int, []byte) { return 200, readResponse(t, "opensearch-hits.json") })
	p := openConfig(t, shipped("opensearch-bm25.yaml"), map[string]string{"OPENSEARCH_URL": api.URL})
	lr := lookupOK(t, p, "max_connections")
	r := api.requests()[0]
	if r.Method != "POST" || r.Path != "/rag-chunks/_search" {
		t.Errorf("request %s %s, want POST /rag-chunks/_search", r.Method, r.Path)
	}
	wantBody := `{"_source":{"excludes":["embedding"]},"query":{"bool":{"filter":{"term":{"kbScope":"rag-eval"}},"must":{"match":{"text":"max_connections"}}}},"size":5}`
	if string(r.Body) != wantBody {
		t.Errorf("body\n got %s\nwant %s", r.Body, wantBody)
	}
	// minmax over 7.25, 3.5, 1.25; the raw score kept as fusedScore.
	want := []blockView{
		{1, "rag-eval/mysql-connection-pool", "mysql-connection-pool", "rag-eval/mysql-connection-pool#Connection Pool", "Database > MySQL > Connection Pool", "max_connections", 1, true, "high", "BM25", 0, 7.25},
		{2, "rag-eval/postgres-connections", "postgres-connections", "rag-eval/postgres-connections#Connections", "Database > PostgreSQL > Connections", "postgresql.conf", 0.375, true, "low", "BM25", 0, 3.5},
		{3, "rag-eval/redis-memory", "redis-memory", "rag-eval/redis-memory#Memory", "", "maxmemory", 0, true, "low", "BM25", 0, 1.25},
	}
	if got := viewOf(lr.EvidenceBlocks); !reflect.DeepEqual(got, want) {
		t.Errorf("blocks\n got %+v\nwant %+v", got, want)
	}
	// A BM25 config embeds nothing.
	d := p.Describe()
	if d.Embedder != "" {
		t.Errorf("describe embedder %q, want none", d.Embedder)
	}
	if d.Dim != 0 {
		t.Errorf("describe dim %d, want 0", d.Dim)
	}
	if d.SearchMode != "bm25" {
		t.Errorf("describe searchMode %q, want bm25", d.SearchMode)
	}
}

func TestOpenSearchKNNMapping(t *testing.T) {
	api := newFakeAPI(t, func(r recorded) (int, []byte) { return 200, readResponse(t, "opensearch-knn.json") })
	p := openConfig(t, shipped("opensearch-knn.yaml"), map[string]string{"OPENSEARCH_URL": api.URL})
	lr := lookupOK(t, p, "max_connections")
	var body struct {
		Size  int
		Query struct {
			KNN struct {
				Embedding struct {
					Vector []float64
					K      int
					Filter map[string]map[string]string
				}
			}
		}
	}
	if err := json.Unmarshal(api.requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	e := body.Query.KNN.Embedding
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("knn body size", body.Size, 5)
	check("knn body k", e.K, 100)
	check("knn body vector length", len(e.Vector), 512)
	check("knn body filter term.kbScope", e.Filter["term"]["kbScope"], "rag-eval")
	// 2s − 1: 0.8 → 0.6 (high for local-hash-v1: ≥ 0.3), 0.55 → 0.1,
	// below its minQuality 0.13: dropped, as the builtin pipeline drops
	// such candidates.
	want := []blockView{
		{1, "rag-eval/mysql-connection-pool", "mysql-connection-pool", "rag-eval/mysql-connection-pool#Connection Pool", "Database > MySQL > Connection Pool", "max_connections", 0.6, true, "high", "KNN_COSINESIMIL", 0, 0.8},
	}
	if got := viewOf(lr.EvidenceBlocks); !reflect.DeepEqual(got, want) {
		t.Errorf("blocks\n got %+v\nwant %+v", got, want)
	}
	// The embedder gives local-hash-v1's calibrated thresholds.
	d := p.Describe()
	if d.Params.LowQuality != 0.15 {
		t.Errorf("params lowQuality %v, want 0.15", d.Params.LowQuality)
	}
	if d.Params.MinQuality != 0.13 {
		t.Errorf("params minQuality %v, want 0.13", d.Params.MinQuality)
	}
	if w := p.Warnings(); len(w) != 0 {
		t.Errorf("warnings %v, want none", w)
	}
}

func TestOpenSearchErrors(t *testing.T) {
	status, resp := 200, "opensearch-shard-failure.json"
	api := newFakeAPI(t, func(recorded) (int, []byte) { return status, readResponse(t, resp) })
	p := openConfig(t, shipped("opensearch-knn.yaml"), map[string]string{"OPENSEARCH_URL": api.URL})
	_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
	want := "POST ${OPENSEARCH_URL}/${OPENSEARCH_INDEX:-rag-chunks}/_search: the service answered 200 with an error: 1 shards failed: failed to create query: Field 'embedding' is not knn_vector type."
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	// timed_out with no failed shard: the message says so, not "0 shards failed".
	api2 := newFakeAPI(t, func(recorded) (int, []byte) {
		return 200, []byte(`{"took": 10001, "timed_out": true, "_shards": {"total": 1, "successful": 1, "failed": 0}, "hits": {"hits": []}}`)
	})
	p2 := openConfig(t, shipped("opensearch-bm25.yaml"), map[string]string{"OPENSEARCH_URL": api2.URL})
	_, err = p2.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
	if want := "POST ${OPENSEARCH_URL}/${OPENSEARCH_INDEX:-rag-chunks}/_search: the service answered 200 with an error: the search timed out"; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	status, resp = 404, "opensearch-400.json"
	_, err = p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
	want = "POST ${OPENSEARCH_URL}/${OPENSEARCH_INDEX:-rag-chunks}/_search: 404 Not Found: no such index [rag-chunks]"
	var se *lookuphttp.StatusError
	if err == nil || err.Error() != want || !errors.As(err, &se) || pipeline.Transient(err) {
		t.Errorf("got %v (%T)\nwant %s, not transient", err, err, want)
	}
}

func TestChromaMapping(t *testing.T) {
	const base = "/api/v2/tenants/default_tenant/databases/default_database/collections/"
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		switch {
		case r.Method == "GET" && r.Path == base+"rag-chunks":
			return 200, readResponse(t, "chroma-collection.json")
		case r.Method == "POST" && r.Path == base+"5b1c8a4e-2f0d-4a57-9a4e-0c6f2b1d9e37/query":
			return 200, readResponse(t, "chroma-query.json")
		}
		return 404, readResponse(t, "chroma-404.json")
	})
	p := openConfig(t, shipped("chroma.yaml"), map[string]string{"CHROMA_URL": api.URL})
	if err := p.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	lookupOK(t, p, "first")
	lr := lookupOK(t, p, "max_connections")
	reqs := api.requests()
	// The setup runs once, then one query per lookup.
	var methods []string
	for _, r := range reqs {
		methods = append(methods, r.Method)
	}
	if want := []string{"GET", "POST", "POST"}; !slices.Equal(methods, want) {
		t.Fatalf("requests %v, want %v: %+v", methods, want, reqs)
	}
	var body struct {
		QueryEmbeddings [][]float64 `json:"query_embeddings"`
		NResults        int         `json:"n_results"`
		Where           map[string]map[string]string
		Include         []string
	}
	if err := json.Unmarshal(reqs[2].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.QueryEmbeddings) != 1 || len(body.QueryEmbeddings[0]) != 512 {
		t.Errorf("query body: query_embeddings not one vector of 512 numbers: %s", reqs[2].Body)
	}
	if body.NResults != 5 {
		t.Errorf("query body: n_results %d, want 5", body.NResults)
	}
	if got := body.Where["kbScope"]["$eq"]; got != "rag-eval" {
		t.Errorf("query body: where kbScope $eq %q, want rag-eval", got)
	}
	if got := strings.Join(body.Include, ","); got != "documents,metadatas,distances" {
		t.Errorf("query body: include %s, want documents,metadatas,distances", got)
	}
	// The parallel arrays zipped; 1 − d; a null metadata leaves the
	// block's fields absent; the raw distance kept as denseDistance.
	want := []blockView{
		{1, "rag-eval/mysql-connection-pool", "mysql-connection-pool", "rag-eval/mysql-connection-pool#Connection Pool", "Database > MySQL > Connection Pool", "max_connections", 0.65, true, "high", "COSINE_DISTANCE", 0.35, 0},
		{2, "rag-eval/redis-memory", "redis-memory", "rag-eval/redis-memory#Memory", "", "maxmemory", 0.2, true, "medium", "COSINE_DISTANCE", 0.8, 0},
		{3, "", "", "", "", "postgresql.conf", 0.15, true, "low", "COSINE_DISTANCE", 0.85, 0},
	}
	if got := viewOf(lr.EvidenceBlocks); !reflect.DeepEqual(got, want) {
		t.Errorf("blocks\n got %+v\nwant %+v", got, want)
	}
	d := p.Describe()
	if want := "${CHROMA_URL}/api/v2/tenants/default_tenant/databases/default_database/collections/{collection}/query"; d.Store != want {
		t.Errorf("describe store %q\nwant           %q", d.Store, want)
	}
	if d.SearchMode != "dense" {
		t.Errorf("describe searchMode %q, want dense", d.SearchMode)
	}
}

func TestChromaMissingCollection(t *testing.T) {
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 404, readResponse(t, "chroma-404.json") })
	p := openConfig(t, shipped("chroma.yaml"), map[string]string{"CHROMA_URL": api.URL})
	err := p.Health(context.Background())
	want := "../../../deploy/mapped/chroma.yaml: setup[0] (collection): GET ${CHROMA_URL}/api/v2/tenants/default_tenant/databases/default_database/collections/${CHROMA_COLLECTION:-rag-chunks}: 404 Not Found: Collection [rag-chunks] does not exist"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	// A lookup runs the setup too, and fails the same way.
	if _, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("got %v", err)
	}
}

// TestBlockErrors: a mapping whose output is not blocks fails the lookup
// naming the block and the field.
func TestBlockErrors(t *testing.T) {
	for _, tc := range []struct {
		blocks, score, want string
	}{
		{`[{docId: 1}]`, "", "block 1: docId: want a string, got the number 1 (use tostring)"},
		{`[{docId: "a", score: "0.5"}]`, "similarity/identity", `block 1: score: want a number, got the string "0.5" (a number sent as a string, as Weaviate does: use tonumber)`},
		{`[{docId: "a"}, {sorce: "b"}]`, "", `block 2: unknown field "sorce" (a block has breadcrumb, category, chunkIndex, denseDistance, docId, evidenceKey, excerpt, fusedScore, score, scoreLabel, source, title)`},
		{`[1]`, "", "block 1: want an object, got the number 1"},
		{`[{docId: "a"}]`, "similarity/identity", "block 1: has no score, which score.quality identity needs"},
		{`[{score: 3}]`, "similarity/identity", "block 1: score 3 is outside the declared score.range [0, 1]"},
		{`[{score: 1}]`, "", "block 1: has a score but the config declares no score section"},
		{`[{chunkIndex: 1.5}]`, "", "block 1: chunkIndex: want an integer from 0, got 1.5"},
		{`.hits[]`, "", "response.blocks: jq: cannot iterate over: null"},
	} {
		cfg := "name: t\nsearchMode: other\ncapabilities: []\nrequest: {url: '${U}/q', body: '{q: .query}'}\nresponse:\n  blocks: '" + tc.blocks + "'\n"
		if tc.score != "" {
			kind, q, _ := strings.Cut(tc.score, "/")
			cfg += "score: {kind: " + kind + ", quality: " + q + ", range: [0, 1]}\nthresholds: {lowQuality: 0.5, minQuality: 0, levels: {high: 0.8, medium: 0.5}}\n"
		}
		api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, []byte(`{}`) })
		path := writeConfig(t, cfg)
		p := openConfig(t, path, map[string]string{"U": api.URL})
		_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "k"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s:\ngot  %v\nwant %s: …%s", tc.blocks, err, path, tc.want)
		}
	}
}

func TestQualities(t *testing.T) {
	for _, tc := range []struct {
		kind, quality string
		in, want      []float64
	}{
		{Similarity, QualityIdentity, []float64{0.9, -0.2, 1.3}, []float64{0.9, 0, 1}},
		{Similarity, QualityTwoSM1, []float64{0.8, 0.25}, []float64{0.6, 0}},
		{Distance, QualityOneMinus, []float64{0.2, 1.5}, []float64{0.8, 0}},
		{Distance, QualityHalf, []float64{0.5, 2}, []float64{0.75, 0}},
		{Distance, QualityL2, []float64{1, 0}, []float64{0.5, 1}},
		{Similarity, QualityMinMax, []float64{10, 4, 2}, []float64{1, 0.25, 0}},
		{Distance, QualityMinMax, []float64{0.2, 0.4, 1}, []float64{1, 0.75, 0}},
		{Similarity, QualityMinMax, []float64{3}, []float64{1}},
	} {
		got := qualities(Score{Kind: tc.kind, Quality: tc.quality}, tc.in)
		for i := range got {
			if d := got[i] - tc.want[i]; d > 1e-12 || d < -1e-12 {
				t.Errorf("%s %s %v: got %v, want %v", tc.kind, tc.quality, tc.in, got, tc.want)
				break
			}
		}
	}
}

// TestEmbedderThresholds: with use-multilingual-v3, the embedder of the
// shipped data model, thresholds: embedder are its calibrated ones, and
// the query vector sent has its 512 dimensions.
func TestEmbedderThresholds(t *testing.T) {
	emb := useEmbedder(t)
	api := newFakeAPI(t, func(recorded) (int, []byte) { return 200, readResponse(t, "opensearch-knn.json") })
	cfg, err := Load(shipped("opensearch-knn.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(cfg, Options{Embedder: emb, LookupEnv: envOf(map[string]string{"OPENSEARCH_URL": api.URL})})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := builtin.ThresholdsFor(builtin.USEEmbedder)
	d := p.Describe()
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("describe embedder", d.Embedder, builtin.USEEmbedder)
	check("describe dim", d.Dim, 512)
	check("describe params lowQuality", float64(d.Params.LowQuality), want.LowQuality)
	check("describe params minQuality", float64(d.Params.MinQuality), want.MinQuality)
	check("describe params levels.high", float64(d.Params.Levels.High), want.Levels.High)
	if w := p.Warnings(); len(w) != 0 {
		t.Errorf("warnings %v, want none", w)
	}
	lookupOK(t, p, "连接池满了")
	var body struct {
		Query struct {
			KNN struct{ Embedding struct{ Vector []float64 } }
		}
	}
	if err := json.Unmarshal(api.requests()[0].Body, &body); err != nil {
		t.Errorf("query body: %v", err)
	} else if n := len(body.Query.KNN.Embedding.Vector); n != 512 {
		t.Errorf("vector of %d numbers, want 512", n)
	}
}

func TestTemplates(t *testing.T) {
	parts, err := parseTemplate("$${A}${B:-x/}/p/{kbScope}?q={none", []string{"kbScope"})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &template{src: "…", parts: parts}
	var secrets secret.Set
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"B": "http://hostname:1/"}, "${A}http://hostname:1/p/a%2Fb?q={none"}, // the trailing slash before /p goes
		{map[string]string{"B": "http://hostname:1"}, "${A}http://hostname:1/p/a%2Fb?q={none"},
		{nil, "${A}x/p/a%2Fb?q={none"}, // the default
	} {
		r, err := tmpl.resolve(envOf(tc.env), &secrets, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.expand(map[string]string{"kbScope": "a/b"}, true); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.env, got, tc.want)
		}
	}
	if got := secrets.Scrub("dial tcp hostname:1: refused; GET http://hostname:1/p"); got != "dial tcp ${B}: refused; GET ${B}/p" {
		t.Errorf("scrub: %s", got)
	}

	// In the query string a placeholder is query-escaped: a query holding
	// & = + or a space stays one parameter.
	parts, err = parseTemplate("http://h/s/{query}?q={query}&k={topK}", []string{"query", "topK"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&template{src: "…", parts: parts}).resolve(envOf(nil), &secrets, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "http://h/s/c++%20&%20a=b%2Fc?q=c%2B%2B+%26+a%3Db%2Fc&k=5"
	if got := r.expand(map[string]string{"query": "c++ & a=b/c", "topK": "5"}, true); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestNoEnvironmentInJQ: jq sees no environment, and a block that echoes
// a secret has it replaced.
func TestNoEnvironmentInJQ(t *testing.T) {
	t.Setenv("HOME_SECRET", "hs-1234567890")
	api := newFakeAPI(t, func(r recorded) (int, []byte) {
		return 200, []byte(`{"echo": "` + r.Header.Get("X-Key") + `"}`)
	})
	path := writeConfig(t, `name: t
searchMode: other
capabilities: []
headers: {X-Key: '${KEY}'}
request: {url: '${U}/q', body: '{q: .query}'}
response:
  blocks: '[{docId: ($ENV | tojson), source: (env | tojson), excerpt: ("key " + .echo)}]'
`)
	p := openConfig(t, path, map[string]string{"U": api.URL, "KEY": "k-secret-42"})
	lr := lookupOK(t, p, "q")
	b := lr.EvidenceBlocks[0]
	if b.DocID != "{}" {
		t.Errorf("block docId %q, want {}", b.DocID)
	}
	if b.Source != "{}" {
		t.Errorf("block source %q, want {}", b.Source)
	}
	if b.Excerpt != "key ${KEY}" {
		t.Errorf("block excerpt %q, want %q", b.Excerpt, "key ${KEY}")
	}
}

// TestWeaviateStatusError: Weaviate's non-2xx answers carry
// {"error": [{"message"}]}; the message is quoted, and a 422 is not
// retried.
func TestWeaviateStatusError(t *testing.T) {
	api := weaviateAPI(t, func() (int, []byte) {
		return 422, []byte(`{"error":[{"message":"no graphql provider present, this is most likely because no schema is present. Import a schema first!"}]}`)
	})
	p := openConfig(t, shipped("weaviate.yaml"), map[string]string{"WEAVIATE_URL": api.URL})
	_, err := p.Lookup(context.Background(), pipeline.Request{Query: "q", KBScope: "rag-eval"})
	want := "POST ${WEAVIATE_URL}/v1/graphql: 422 Unprocessable Entity: no graphql provider present, this is most likely because no schema is present. Import a schema first!"
	if err == nil || err.Error() != want || pipeline.Transient(err) {
		t.Errorf("got  %v\nwant %s (not transient)", err, want)
	}
}
