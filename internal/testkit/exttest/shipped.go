package exttest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/kb/embed/usem3"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

// ShippedSet is the eval set the repository ships, relative to its root.
const ShippedSet = "eval/rag-retrieval"

var (
	shippedOnce sync.Once
	shipped     *Corpus
	shippedErr  error
)

// RepoRoot returns the repository root: the nearest directory above the
// working directory (a test's package directory) holding go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Shipped returns the shipped eval set's corpus embedded by the default
// embedder, use-multilingual-v3, as rag-seed indexes it. It is computed
// once per test process (embedding takes a few seconds). Without the
// model the test is skipped, or fails when RAG_REQUIRE_MODEL=1
// (kbtest.ModelBase).
func Shipped(t testing.TB) *Corpus {
	t.Helper()
	kbtest.ModelBase(t)
	shippedOnce.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			shippedErr = err
			return
		}
		e, err := usem3.LoadDefault()
		if err != nil {
			shippedErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		shipped, shippedErr = LoadCorpus(ctx, filepath.Join(root, ShippedSet), e)
	})
	if shippedErr != nil {
		t.Fatalf("the shipped corpus: %v", shippedErr)
	}
	return shipped
}
