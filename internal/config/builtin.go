package config

import (
	"context"
	"errors"
	"fmt"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/pipeline/builtin"
)

// BuiltinVersion is the version written into the fixtures'
// pipeline.version for the builtin pipeline. It is not the binary's
// version, which changes with every commit and would rewrite every
// fixture. It names the pipeline's behaviour.
const BuiltinVersion = "1"

// Builtin is the builtin lookup pipeline (docs/pipeline.md) over an opened stack.
type Builtin struct {
	Pipeline *builtin.Pipeline
	Stack    *Stack
	// Warnings are what does not stop lookups but should be said: an
	// embedder without calibrated thresholds.
	Warnings []error
}

// Close closes the stack.
func (b *Builtin) Close() error { return b.Stack.Close() }

// OpenBuiltin opens the stack of c for reading, with OpenForLookup, and
// the builtin pipeline over it. Hybrid search fuses as fusion says.
// Nothing is created. A store that cannot answer lookups of kbScope with
// c's embedder is an error naming rag-seed, exit 1: not seeded, a seed
// that did not finish, an index that disagrees with the catalog. An
// invalid c and a kbScope seeded with another embedder or dimension are
// usage errors, exit 2, as they are for rag-seed. The caller closes the
// Builtin.
func OpenBuiltin(ctx context.Context, c Config, kbScope string, fusion kb.Fusion) (*Builtin, error) {
	stack, err := OpenForLookup(ctx, c, kbScope)
	var mismatch *EmbedderMismatchError
	switch {
	case errors.As(err, &mismatch):
		return nil, cmdutil.Usage(err)
	case err != nil:
		return nil, err
	}
	b := &Builtin{Stack: stack}
	if t, ok := builtin.ThresholdsFor(stack.Embedder.Name()); !ok {
		b.Warnings = append(b.Warnings, fmt.Errorf("embedder %s is not calibrated: using lowQuality %g, minQuality %g, levels high %g / medium %g; run rag-eval calibrate on your fixtures to see where its scores fall",
			stack.Embedder.Name(), t.LowQuality, t.MinQuality, t.Levels.High, t.Levels.Medium))
	}
	lc := builtin.DefaultConfig(stack.Embedder.Name())
	lc.Fusion = fusion
	b.Pipeline = builtin.New(stack.Catalog, stack.Index, stack.Embedder, lc,
		contract.Pipeline{Version: BuiltinVersion, Store: c.Store})
	return b, nil
}
