package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// The builtin pipeline, which the snapshot and serve both run on the store
// of --store, and its --fusion flag.

// fusionUsage documents --fusion.
const fusionUsage = "how hybrid search fuses the dense and BM25 lists: anchored (RRF, but BM25 counts only inside the dense top 10 and the dense top 1 stays in the top 3) or rrf (plain reciprocal rank fusion, k = 60)"

// fusionVar defines --fusion of the snapshot and of serve. It takes one of
// kb.Fusions, or "" for RRF, checked as it is parsed.
func fusionVar(fs *pflag.FlagSet, p *string) {
	values := make([]string, len(kb.Fusions))
	for i, f := range kb.Fusions {
		values[i] = string(f)
	}
	cmdutil.StringEnumVar(fs, p, "fusion", string(kb.FusionAnchored), values,
		func(v string) error { return kb.Fusion(v).Valid() }, fusionUsage)
}

// openBuiltin opens the builtin pipeline (config.OpenBuiltin) and prints
// its warnings. The caller closes it.
func openBuiltin(ctx context.Context, cfg config.Config, kbScope string, fusion kb.Fusion, stderr io.Writer) (*config.Builtin, error) {
	b, err := config.OpenBuiltin(ctx, cfg, kbScope, fusion)
	if err != nil {
		return nil, err
	}
	for _, w := range b.Warnings {
		fmt.Fprintf(stderr, "rag-snapshot: warning: %v\n", w)
	}
	return b, nil
}
