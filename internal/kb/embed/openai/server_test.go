package openai

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

// fakeServer is a real HTTP server speaking the OpenAI embeddings protocol,
// POST /v1/embeddings. It is strict the way api.openai.com is. Unknown
// request fields, an empty input string, a wrong API key, and dimensions
// for a model without them are 4xx errors in the OpenAI error format. With
// inputTypes set it also takes "input_type", query or passage, as e5
// servers do.
type fakeServer struct {
	*httptest.Server
	key       string // the Bearer token it accepts
	nativeDim int    // dimension when the request has no "dimensions"

	mu       sync.Mutex
	requests []recordedRequest

	// Behaviour switches, set before use.
	reverse  bool          // return data in reverse order
	delay    time.Duration // wait before answering (until the client hangs up)
	wrongDim int           // answer with vectors of this dimension
	// inputTypes makes it take "input_type", "query" or "passage". The
	// vector is then that of "<type>: <text>", as an e5 server's.
	inputTypes bool
	// hook, when set, may answer request number n (1-based) itself and
	// return true.
	hook func(n int, w http.ResponseWriter, req recordedRequest) bool
}

type recordedRequest struct {
	Auth           string
	Input          []string
	Model          string
	Dimensions     *int
	EncodingFormat *string
	InputType      *string
}

func newFakeServer(t *testing.T, key string, nativeDim int) *fakeServer {
	s := &fakeServer{key: key, nativeDim: nativeDim}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/embeddings", s.embeddings)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) baseURL() string { return s.URL + "/v1" }

func (s *fakeServer) recorded() []recordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recordedRequest(nil), s.requests...)
}

func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code,
	}})
}

func (s *fakeServer) embeddings(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "method not allowed")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "content type must be application/json, got "+ct)
		return
	}
	var body struct {
		Input          json.RawMessage `json:"input"`
		Model          string          `json:"model"`
		Dimensions     *int            `json:"dimensions"`
		EncodingFormat *string         `json:"encoding_format"`
		User           *string         `json:"user"`
		InputType      *string         `json:"input_type"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	rec := recordedRequest{Auth: r.Header.Get("Authorization"), Model: body.Model, Dimensions: body.Dimensions, EncodingFormat: body.EncodingFormat, InputType: body.InputType}
	var one string
	if err := json.Unmarshal(body.Input, &rec.Input); err != nil {
		if err := json.Unmarshal(body.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "'input' must be a string or an array of strings")
			return
		}
		rec.Input = []string{one}
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	n := len(s.requests)
	s.mu.Unlock()

	if rec.Auth != "Bearer "+s.key {
		given := strings.TrimPrefix(rec.Auth, "Bearer ")
		// Echo the key, as a careless gateway would, to prove the client
		// scrubs it.
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: "+given+".")
		return
	}
	if s.hook != nil && s.hook(n, w, rec) {
		return
	}
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	if body.Model == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "you must provide a model parameter")
		return
	}
	prefix := ""
	if body.InputType != nil {
		if !s.inputTypes {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "Unrecognized request argument supplied: input_type")
			return
		}
		if *body.InputType != "query" && *body.InputType != "passage" {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "input_type must be query or passage")
			return
		}
		prefix = *body.InputType + ": "
	}
	if len(rec.Input) == 0 || len(rec.Input) > 2048 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "'input' must have between 1 and 2048 items")
		return
	}
	for i, in := range rec.Input {
		if in == "" {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("'$.input[%d]' is invalid: empty string", i))
			return
		}
	}
	dim := s.nativeDim
	if body.Dimensions != nil {
		if !strings.HasPrefix(baseModel(body.Model), "text-embedding-3") && !strings.Contains(body.Model, "matryoshka") {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "This model does not support specifying dimensions.")
			return
		}
		dim = *body.Dimensions
	}
	if s.wrongDim > 0 {
		dim = s.wrongDim
	}
	format := "float"
	if body.EncodingFormat != nil {
		format = *body.EncodingFormat
	}
	if format != "float" && format != "base64" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "encoding_format must be float or base64")
		return
	}

	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	data := make([]item, len(rec.Input))
	tokens := 0
	for i, in := range rec.Input {
		v := rawVector(prefix+in, dim)
		var emb any = v
		if format == "base64" {
			emb = base64.StdEncoding.EncodeToString(embed.EncodeVector(v))
		}
		data[i] = item{Object: "embedding", Index: i, Embedding: emb}
		tokens += len(strings.Fields(in))
	}
	if s.reverse {
		for i, j := 0, len(data)-1; i < j; i, j = i+1, j-1 {
			data[i], data[j] = data[j], data[i]
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   data,
		"model":  body.Model,
		"usage":  map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// rawVector is the server's deterministic, deliberately not normalised
// embedding of text (norm about 3).
func rawVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	seed := sha256.Sum256([]byte(text))
	for i := range v {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:], uint32(i))
		copy(b[4:], seed[:4])
		h := sha256.Sum256(append(seed[:], b[:]...))
		v[i] = float32(int32(binary.LittleEndian.Uint32(h[:]))) / math.MaxInt32 * 5
	}
	return v
}

// wantVector is what the client must return for text: rawVector,
// normalised.
func wantVector(text string, dim int) []float32 {
	v := rawVector(text, dim)
	embed.Normalize(v)
	return v
}

// checkError reports each way oe differs from a failure with the last
// status status after attempts requests, retryable or not.
func checkError(t *testing.T, oe *Error, status, attempts int, retryable bool) {
	t.Helper()
	if oe.StatusCode != status {
		t.Errorf("error %v: StatusCode = %d, want %d", oe, oe.StatusCode, status)
	}
	if oe.Attempts != attempts {
		t.Errorf("error %v: Attempts = %d, want %d", oe, oe.Attempts, attempts)
	}
	if oe.Retryable() != retryable {
		t.Errorf("error %v: Retryable() = %v, want %v", oe, oe.Retryable(), retryable)
	}
}

func bitsEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// recorder is an Options.Sleep that returns at once and records the waits.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *recorder) got() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Duration(nil), r.waits...)
}
