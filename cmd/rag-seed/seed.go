package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/cmdutil/progress"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// seedLocker is a catalog that can lock a collection against concurrent
// seeds. The MySQL catalog is one, with GET_LOCK.
type seedLocker interface {
	LockSeed(ctx context.Context, collection string, wait time.Duration, waiting func()) (held context.Context, unlock func() error, err error)
}

type seedOptions struct {
	IO *cmdutil.Streams
	// EvalSet is --dir and --cases: --docs defaults to <dir>/seed-docs,
	// --kb-scope to the golden file's kbScope.
	cmdutil.EvalSet
	LockWait time.Duration
	Docs     string
	KBScope  string
	// scopeFrom says where KBScope came from, for messages. It is
	// "--kb-scope", "the kbScope of <golden file>" or the default's.
	scopeFrom string
	// explicit records which of --dir, --cases, --kb-scope were given.
	explicit map[string]bool
	Recreate bool
	Prune    bool
	DryRun   bool
	Chunk    corpus.ChunkOptions
	Config   config.Config
}

// newCmdSeed builds rag-seed's command: it parses the flags into
// seedOptions and calls runF, or seedRun when runF is nil.
func newCmdSeed(f *cmdutil.Streams, runF func(context.Context, *seedOptions) error) *cobra.Command {
	o := &seedOptions{IO: f, Config: config.Defaults(), Chunk: corpus.ChunkOptions{MaxChars: corpus.DefaultMaxChars, Overlap: corpus.DefaultOverlap}}
	cmd := &cobra.Command{
		Use:   "rag-seed",
		Short: "Load the eval corpus into the retrieval stack",
		Long: `rag-seed loads the eval corpus into the retrieval stack through the real
ingestion path. Every document is validated first; problems are listed as
file:line: message and nothing is written (exit 2). Unchanged documents are
skipped, changed ones replaced, and a run that failed half way converges when
run again.

The eval set (--dir) gives the defaults: the documents are <dir>/seed-docs and
the kb scope every one of them must declare is the kbScope of the golden file
(<dir>/cases/golden-cases.json), else rag-eval. --docs and --kb-scope override
them.`,
		Example: `  # the embedded store, embedded by use-multilingual-v3 (make models installs it)
  rag-seed

  # another eval set: its seed-docs, the kbScope of its golden file
  rag-seed --dir eval/team-a

  # no model at all: the lexical embedder
  rag-seed --embedder local

  . .ragbaseline/services.env && rag-seed --store server
  rag-seed --recreate --embedder openai --embed-model text-embedding-3-small --embed-dim 1536`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.explicit = map[string]bool{}
			for _, name := range []string{"dir", "cases", "kb-scope"} {
				o.explicit[name] = cmd.Flags().Changed(name)
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return seedRun(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	o.AddFlags(fs, "eval set directory: the defaults of --docs and --kb-scope come from it")
	fs.Lookup("cases").Usage = "golden cases file whose kbScope is the default of --kb-scope (default <dir>/cases/golden-cases.json)"
	fs.StringVar(&o.Docs, "docs", "", "directory of seed documents (*.md) (default <dir>/seed-docs)")
	fs.StringVar(&o.KBScope, "kb-scope", "", "kb_scope every document must declare (default: the golden file's kbScope, else rag-eval)")
	fs.BoolVar(&o.Recreate, "recreate", false, "drop and recreate the vector collection (after an embedding model or dimension change)")
	fs.BoolVar(&o.Prune, "prune", false, "remove documents of the kb_scope that are no longer in --docs (default: report them)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "validate and report what would change; write nothing")
	fs.IntVar(&o.Chunk.MaxChars, "chunk-size", o.Chunk.MaxChars, "maximum chunk size in Unicode characters")
	fs.DurationVar(&o.LockWait, "lock-wait", 10*time.Minute, "server store: how long to wait for another rag-seed of the same database and collection to finish")
	fs.IntVar(&o.Chunk.Overlap, "chunk-overlap", o.Chunk.Overlap, "characters of overlap between pieces of a long section")
	o.Config.BindFlags(fs)
	o.Config.BindSeedFlags(fs)
	return cmd
}

// defaultKBScope is the kb scope when neither --kb-scope nor a golden
// file gives one.
const defaultKBScope = "rag-eval"

// resolve fills the defaults that come from the eval set. --docs comes
// from --dir. --kb-scope comes from the golden file, else it is rag-eval.
// The golden file is read only when --kb-scope is not given, and a missing
// one is an error only when --dir or --cases named it. resolve records in
// scopeFrom where the kb scope came from.
func (o *seedOptions) resolve() error {
	o.Default(&o.Docs, "seed-docs")
	o.Default(&o.Cases, cmdutil.CasesFile)
	if o.explicit["kb-scope"] {
		o.scopeFrom = "--kb-scope"
		if err := config.ValidKBScope(o.KBScope); err != nil {
			return cmdutil.Usage(err)
		}
		return nil
	}
	o.KBScope, o.scopeFrom = defaultKBScope, "the default kb scope; no golden file gives one"
	g, _, err := cmdutil.LoadCases(o.Cases)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist) && !o.explicit["dir"] && !o.explicit["cases"]:
		return nil // no eval set here: the documents alone
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return cmdutil.Usagef("%w (the kb scope comes from its kbScope; pass --kb-scope to seed without it)", errors.Unwrap(err))
	case err != nil:
		return err
	case g.KBScope == "":
		o.scopeFrom = "the default kb scope; " + o.Cases + " has no kbScope"
		return nil
	}
	if err := kb.ValidKBScope(g.KBScope); err != nil {
		return cmdutil.Usagef("%s: kbScope %q %v", o.Cases, g.KBScope, err)
	}
	o.KBScope, o.scopeFrom = g.KBScope, "the kbScope of "+o.Cases
	return nil
}

func seedRun(ctx context.Context, o *seedOptions) error {
	if err := o.resolve(); err != nil {
		return err
	}
	if err := o.Config.Validate(); err != nil {
		return cmdutil.Usage(err)
	}
	if o.Chunk.MaxChars < 1 || o.Chunk.MaxChars > corpus.MaxChunkChars || o.Chunk.Overlap < 0 || o.Chunk.Overlap > o.Chunk.MaxChars/2 {
		return cmdutil.Usage(fmt.Errorf("--chunk-size must be in [1, %d] and --chunk-overlap in [0, chunk-size/2], got %d and %d",
			corpus.MaxChunkChars, o.Chunk.MaxChars, o.Chunk.Overlap))
	}
	if o.Chunk.Overlap == 0 {
		o.Chunk.Overlap = -1 // corpus: 0 means the default, negative means none
	}
	docs, err := corpus.LoadDir(o.Docs, o.KBScope)
	if err != nil {
		return cmdutil.Usage(fmt.Errorf("invalid seed documents:\n%w", o.scopeProblems(err)))
	}
	stack, err := config.Open(ctx, o.Config)
	if err != nil {
		return err
	}
	defer stack.Close()
	// Two seeds must not interleave. The embedded store is held by one
	// process at a time already, because its index directory is locked. On
	// the server stack, every seed of one database and collection takes an
	// advisory lock and stops if the lock is lost. The lock is per
	// collection, because a --recreate drops the collection all kbScopes
	// share.
	if l, ok := stack.Catalog.(seedLocker); ok && !o.DryRun {
		held, unlock, err := l.LockSeed(ctx, o.Config.MilvusCollection, o.LockWait, func() {
			fmt.Fprintf(o.IO.ErrOut, "rag-seed: another rag-seed is writing to this database and collection %s; waiting up to %s for it (--lock-wait)\n",
				o.Config.MilvusCollection, o.LockWait)
		})
		if err != nil {
			return err
		}
		defer unlock()
		ctx = held
	}

	bar := o.IO.Progress("seeding")
	sum, err := ingest.Seed(ctx, docs, ingest.Backends{Catalog: stack.Catalog, Index: stack.Index, Embedder: stack.Embedder}, ingest.Options{
		KBScope: o.KBScope, Recreate: o.Recreate, Prune: o.Prune, DryRun: o.DryRun, Chunk: o.Chunk,
		KnowledgeDir: o.Config.KnowledgeDir(),
		Progress: func(p ingest.Progress) {
			bar.SetNote(p.Done, p.Total, progress.Pace(p.Rate(), "chunks", p.Left()))
		},
	})
	bar.Done()
	var dimErr *kb.DimensionMismatchError
	var staleErr *ingest.StaleVectorsError
	switch {
	case errors.As(err, &dimErr), errors.As(err, &staleErr):
		return cmdutil.Usage(err)
	case err != nil:
		// A lost seed lock cancels ctx with its reason, which the message
		// gives.
		if cause := context.Cause(ctx); cause != nil && cause != context.Canceled && !errors.Is(err, cause) {
			err = fmt.Errorf("%v: %w", cause, err)
		}
		return fmt.Errorf("%w (rerun rag-seed to converge)", err)
	}
	if sum.Rekeyed {
		fmt.Fprintf(o.IO.ErrOut, "rag-seed: %s was seeded by an older rag-seed (evidence keys of format %d, this build's is %d): every document was re-indexed under the new keys\n",
			o.KBScope, sum.OldKeyFormat, kb.EvidenceKeyFormat)
	}
	if sum.Resynced {
		fmt.Fprintf(o.IO.ErrOut, "rag-seed: the index and the catalog disagreed on the chunks of %s (the index was deleted, replaced or only partly rebuilt): every document was re-indexed\n", o.KBScope)
	}
	verb := ""
	if sum.DryRun {
		verb = "dry run, would have "
	}
	fmt.Fprintf(o.IO.Out, "rag-seed: %s%d added, %d updated, %d unchanged, %d pruned documents; %d chunks written in %.2fs (%s)\n",
		verb, len(sum.Added), len(sum.Updated), len(sum.Unchanged), len(sum.Pruned), sum.ChunksWritten, sum.Elapsed.Seconds(), o.Config.Describe())
	if len(sum.Stale) > 0 {
		fmt.Fprintf(o.IO.ErrOut, "rag-seed: warning: %d documents of %s are no longer in %s (use --prune to remove them): %s\n",
			len(sum.Stale), o.KBScope, o.Docs, strings.Join(sum.Stale, ", "))
	}
	return nil
}

// maxListed bounds the documents a kb_scope mismatch names.
const maxListed = 8

// scopeProblems replaces, in the problems of corpus.LoadDir, the
// documents whose kb_scope is not the one being loaded by one line. The
// line says which kb scope was expected and where it came from: --kb-scope,
// the golden file or the default. It lists the documents, grouped by what
// they declare. A wrong flag or golden file is one mistake, not one per
// document.
func (o *seedOptions) scopeProblems(err error) error {
	var problems diag.List
	if !errors.As(err, &problems) {
		return err
	}
	var rest diag.List
	var scopes []string
	files := map[string][]string{}
	n := 0
	for _, p := range problems {
		var se *corpus.ScopeError
		if !errors.As(p, &se) {
			rest = append(rest, p)
			continue
		}
		if _, ok := files[se.Declared]; !ok {
			scopes = append(scopes, se.Declared)
		}
		name := p.File
		if rel, err := filepath.Rel(o.Docs, p.File); err == nil && filepath.IsLocal(rel) {
			name = rel
		}
		files[se.Declared] = append(files[se.Declared], fmt.Sprintf("%s:%d", name, p.Line))
		n++
	}
	if n == 0 {
		return err
	}
	var groups []string
	listed := 0
	for _, s := range scopes {
		list := files[s]
		shown := list[:min(len(list), max(1, maxListed-listed))]
		listed += len(shown)
		g := fmt.Sprintf("%q in %s", s, strings.Join(shown, ", "))
		if more := len(list) - len(shown); more > 0 {
			g += fmt.Sprintf(" and %d more", more)
		}
		groups = append(groups, g)
	}
	docs := "documents in %s declare"
	if n == 1 {
		docs = "document in %s declares"
	}
	fix := "set kb_scope in the documents or pass --kb-scope"
	if o.scopeFrom == "--kb-scope" {
		fix = "set kb_scope in the documents or change --kb-scope"
	}
	msg := fmt.Sprintf("kb_scope: %d "+docs+" another kb scope than %q (%s): %s; %s",
		n, o.Docs, o.KBScope, o.scopeFrom, strings.Join(groups, "; "), fix)
	if len(rest) == 0 {
		return errors.New(msg)
	}
	return fmt.Errorf("%w\n%s", rest, msg)
}
