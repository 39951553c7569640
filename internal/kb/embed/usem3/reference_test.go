package usem3

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// The model is not in the repository: `make models` (scripts/models.sh)
// installs it into ModelDir(). Tests that need it skip when it is absent,
// unless RAG_REQUIRE_MODEL=1.

var (
	modelOnce sync.Once
	model     *Embedder
	modelErr  error
)

// loadModel returns the installed model, or skips (fails with
// RAG_REQUIRE_MODEL=1) when it is not installed.
func loadModel(t testing.TB) *Embedder {
	t.Helper()
	modelOnce.Do(func() {
		model, modelErr = LoadDefault()
	})
	if modelErr != nil {
		var missing *MissingModelError
		if errors.As(modelErr, &missing) && os.Getenv("RAG_REQUIRE_MODEL") != "1" {
			t.Skipf("model not installed (run `make models`, or set RAG_REQUIRE_MODEL=1 to fail instead): %v", modelErr)
		}
		t.Fatal(modelErr)
	}
	return model
}

type referenceCase struct {
	Text   string    `json:"text"`
	IDs    []int32   `json:"ids"`
	Vector []float64 `json:"vector"`
}

func loadReference(t testing.TB) []referenceCase {
	t.Helper()
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Dim   int             `json:"dim"`
		Cases []referenceCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Dim != Dim {
		t.Fatalf("reference has dim %d, want %d", doc.Dim, Dim)
	}
	if len(doc.Cases) < 50 {
		t.Fatalf("reference has %d cases, want at least 50", len(doc.Cases))
	}
	return doc.Cases
}

func cosine(a []float32, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * b[i]
		aa += float64(a[i]) * float64(a[i])
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

// TestReference checks the port against the reference implementation
// (scripts/usem3_reference.py): the same token ids, and vectors within
// cosine 0.99999.
func TestReference(t *testing.T) {
	cases := loadReference(t)
	e := loadModel(t)
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = c.Text
	}
	vecs, err := e.Embed(context.Background(), kb.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	minCos, minText, maxDiff := 2.0, "", 0.0
	for i, c := range cases {
		if got := e.Tokenizer().Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q) = %v, want %v", c.Text, got, c.IDs)
		}
		if len(vecs[i]) != Dim || len(c.Vector) != Dim {
			t.Fatalf("%q: vector of %d values, reference %d", c.Text, len(vecs[i]), len(c.Vector))
		}
		cos := cosine(vecs[i], c.Vector)
		if cos < minCos {
			minCos, minText = cos, c.Text
		}
		for k, x := range vecs[i] {
			maxDiff = max(maxDiff, math.Abs(float64(x)-c.Vector[k]))
		}
		if !(cos >= 1-1e-9) {
			t.Errorf("%q: cosine with the reference 1 - %.3g < 1 - 1e-9", c.Text, 1-cos)
		}
	}
	// The reference vectors are written with 7 significant digits. Every
	// kernel measured stays within 4.8e-7 of them.
	if maxDiff > 1e-6 {
		t.Errorf("max |difference| with the reference %.3g > 1e-6", maxDiff)
	}
	t.Logf("kernel %s, %d texts: min cosine with the reference 1 - %.2g (%q), max |difference| %.2g",
		e.Kernel(), len(cases), 1-minCos, minText, maxDiff)
}
