package usem3

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

func sameBits(a, b []float32) bool {
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

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// variant returns a copy of e with other batching parameters (same model).
func variant(e *Embedder, maxRows, workers int) *Embedder {
	return &Embedder{tok: e.tok, w: e.w, maxRows: maxRows, workers: workers}
}

func TestEmbedContract(t *testing.T) {
	e := loadModel(t)
	if e.Name() != "use-multilingual-v3" {
		t.Fatalf("Name() = %q, want use-multilingual-v3", e.Name())
	}
	if e.Dim() != 512 {
		t.Fatalf("Dim() = %d, want 512", e.Dim())
	}
	texts := []string{"数据库连接池满了怎么办", "", "hello world", "   "}
	vecs, err := e.Embed(context.Background(), kb.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := embed.Check(e.Name(), e.Dim(), len(texts), vecs); err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if n := math.Sqrt(dot(v, v)); math.Abs(n-1) > 1e-6 {
			t.Errorf("vector %d has norm %v", i, n)
		}
	}
	// The model embeds queries and passages alike.
	queries, err := e.Embed(context.Background(), kb.Query, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !sameBits(queries[i], vecs[i]) {
			t.Errorf("%q: query and passage vectors differ", texts[i])
		}
	}
	if out, err := e.Embed(context.Background(), kb.Passage, nil); err != nil || len(out) != 0 {
		t.Errorf("Embed(nil) = %v, %v", out, err)
	}
}

// TestEmbedBatchIndependent checks that a text's vector is the same bits
// whatever the batch: alone, among others, with other batch sizes (which
// cut the long text into segments differently) and other numbers of
// goroutines.
func TestEmbedBatchIndependent(t *testing.T) {
	e := loadModel(t)
	cases := loadReference(t)
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.Text
	}
	ctx := context.Background()
	want, err := e.Embed(ctx, kb.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []*Embedder{
		variant(e, 384, 1), variant(e, 384, 3), variant(e, 40, 2), variant(e, 17, 1), variant(e, 1000, 2),
	} {
		got, err := v.Embed(ctx, kb.Passage, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			if !sameBits(got[i], want[i]) {
				t.Errorf("maxRows %d, %d workers: vector of %q differs", v.maxRows, v.workers, texts[i])
			}
		}
	}
	for _, i := range []int{0, len(texts) - 1} {
		got, err := e.Embed(ctx, kb.Passage, texts[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(got[0], want[i]) {
			t.Errorf("vector of %q alone differs from in the batch", texts[i])
		}
	}
}

// TestEmbedKernels checks that every matrix kernel of this machine gives
// the same vectors: bit for bit among the fused kernels, within rounding
// for the portable one.
func TestEmbedKernels(t *testing.T) {
	e := loadModel(t)
	texts := seedParagraphs(t)[:40]
	var first [][]float32
	var firstName string
	for _, k := range kernels() {
		var got [][]float32
		var err error
		withKernel(k, func() { got, err = e.Embed(context.Background(), kb.Passage, texts) })
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first, firstName = got, k.name
			continue
		}
		for i := range texts {
			if k.name != "generic" && !sameBits(got[i], first[i]) {
				t.Errorf("kernels %s and %s differ on %q", k.name, firstName, texts[i])
			}
			if c := dot(got[i], first[i]); c < 0.999999 {
				t.Errorf("kernels %s and %s: cosine %v on %q", k.name, firstName, c, texts[i])
			}
		}
	}
}

func TestEmbedConcurrent(t *testing.T) {
	e := loadModel(t)
	texts := seedParagraphs(t)[:60]
	want, err := e.Embed(context.Background(), kb.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			// Each goroutine embeds a different rotation of the texts.
			rot := append(append([]string{}, texts[g*7:]...), texts[:g*7]...)
			got, err := e.Embed(context.Background(), kb.Passage, rot)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range rot {
				if !sameBits(got[i], want[(i+g*7)%len(texts)]) {
					t.Errorf("goroutine %d: vector %d differs", g, i)
				}
			}
		})
	}
	wg.Wait()
}

func TestEmbedCancel(t *testing.T) {
	e := loadModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, kb.Passage, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error = %v", err)
	}
	// Cancel while a large call is running: it stops at the next batch.
	texts := seedParagraphs(t)
	for len(texts) < 5000 {
		texts = append(texts, texts...)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.Embed(ctx, kb.Passage, texts)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled mid-way: error = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestSimilarity is a sanity check of the model's meaning: a query is
// closer to its answer, across languages, than to an unrelated text.
func TestSimilarity(t *testing.T) {
	e := loadModel(t)
	vecs, err := e.Embed(context.Background(), kb.Passage, []string{
		"数据库连接池满了怎么办",
		"MySQL connection pool exhausted: too many connections",
		"今天天气很好，我们去公园散步吧",
		"How do I fix a pod in CrashLoopBackOff?",
		"Kubernetes 容器反复重启 CrashLoopBackOff 排查",
	})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := dot(vecs[0], vecs[1]), dot(vecs[0], vecs[2]); a <= b+0.1 {
		t.Errorf("pool query: related %.3f, unrelated %.3f", a, b)
	}
	if a, b := dot(vecs[3], vecs[4]), dot(vecs[3], vecs[2]); a <= b+0.1 {
		t.Errorf("crashloop query: related %.3f, unrelated %.3f", a, b)
	}
}

func TestModelDir(t *testing.T) {
	t.Setenv("RAG_MODEL_DIR", "/models")
	if d, err := ModelDir(); err != nil || d != filepath.Join("/models", "use-multilingual-v3") {
		t.Errorf("ModelDir() = %q, %v", d, err)
	}
	t.Setenv("RAG_MODEL_DIR", "")
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	if d, err := ModelDir(); err != nil || d != filepath.Join(cache, "ragbaseline", "models", "use-multilingual-v3") {
		t.Errorf("ModelDir() = %q, %v", d, err)
	}
}

func TestLoadMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "use-multilingual-v3")
	for _, setup := range []func(){
		func() {},
		func() { os.MkdirAll(dir, 0o755) },
		func() { os.WriteFile(filepath.Join(dir, "sp.model"), nil, 0o644) },
	} {
		setup()
		_, err := Load(dir)
		var missing *MissingModelError
		if !errors.As(err, &missing) {
			t.Fatalf("Load(%s) error = %v, want a *MissingModelError", dir, err)
		}
		for _, want := range []string{dir, "make models", "RAG_MODEL_DIR", "weights.npz"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	}
}

func TestLoadCorrupt(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "weights.npz"), []byte("not a zip file"), 0o644)
	os.WriteFile(filepath.Join(dir, "sp.model"), []byte{0x0a, 0x05, 1, 2}, 0o644)
	_, err := Load(dir)
	var corrupt *CorruptModelError
	if !errors.As(err, &corrupt) || corrupt.Path != filepath.Join(dir, "sp.model") {
		t.Fatalf("error = %v, want a *CorruptModelError for sp.model", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(dir, "sp.model")) {
		t.Errorf("error %q does not name the file", err)
	}
	os.WriteFile(filepath.Join(dir, "sp.model"), testModelBytes(), 0o644)
	_, err = Load(dir)
	if !errors.As(err, &corrupt) || corrupt.Path != filepath.Join(dir, "weights.npz") {
		t.Fatalf("error = %v, want a *CorruptModelError for weights.npz", err)
	}
	// An npz that lacks arrays.
	data := npzBytes(t, map[string][]byte{"bits.npy": npyBytes("|i1", "False", "(1,)", []byte{6}, false)}, "bits.npy")
	os.WriteFile(filepath.Join(dir, "weights.npz"), data, 0o644)
	_, err = Load(dir)
	if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), "array q1 is missing") {
		t.Fatalf("error = %v, want a *CorruptModelError about q1", err)
	}
}

func TestPlan(t *testing.T) {
	lens := []int{3, 50, 700, 30, 30, 384, 385, 5}
	tokens := make([][]int32, len(lens))
	for i, n := range lens {
		tokens[i] = make([]int32, n)
	}
	for _, budget := range []int{96, 384} {
		covered := make([][]bool, len(lens))
		jobOf := make([]int, len(lens))
		for i, n := range lens {
			covered[i] = make([]bool, n)
			jobOf[i] = -1
		}
		for ji, j := range plan(tokens, budget) {
			for _, b := range j.batches {
				rows := 0
				for _, s := range b {
					rows += s.hi - s.lo
					n := lens[s.text]
					if want := max(s.coreLo-halo, 0); s.lo != want {
						t.Errorf("budget %d: segment %+v of a text of %d tokens starts at %d, want %d, its core less the halo", budget, s, n, s.lo, want)
					}
					if want := min(s.coreHi+halo, n); s.hi != want {
						t.Errorf("budget %d: segment %+v of a text of %d tokens ends at %d, want %d, its core and the halo", budget, s, n, s.hi, want)
					}
					if s.coreLo >= s.coreHi {
						t.Errorf("budget %d: segment %+v of a text of %d tokens has an empty core", budget, s, n)
					}
					if jobOf[s.text] != -1 && jobOf[s.text] != ji {
						t.Errorf("budget %d: text %d in two jobs", budget, s.text)
					}
					jobOf[s.text] = ji
					for p := s.coreLo; p < s.coreHi; p++ {
						if covered[s.text][p] {
							t.Errorf("budget %d: token %d of text %d pooled twice", budget, p, s.text)
						}
						if p > 0 && !covered[s.text][p-1] {
							t.Errorf("budget %d: token %d of text %d pooled before token %d", budget, p, s.text, p-1)
						}
						covered[s.text][p] = true
					}
				}
				if rows > budget {
					t.Errorf("budget %d: batch of %d rows", budget, rows)
				}
			}
		}
		for i, c := range covered {
			for p, ok := range c {
				if !ok {
					t.Errorf("budget %d: token %d of text %d not pooled", budget, p, i)
				}
			}
		}
	}
}
