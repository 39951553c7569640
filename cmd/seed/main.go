// Command rag-seed loads the eval corpus (kb_scope: rag-eval markdown) into
// the retrieval stack through the same ingestion path a production upload
// takes: metadata row, L0 index entries, a copy of the document, chunk rows
// and vectors (docs/corpus.md).
//
// Every document is validated before anything is written; problems are
// listed as file:line: message and the run exits 2. Seeding is idempotent
// (unchanged documents are skipped) and crash-safe (a document is marked
// indexing before its vectors are written and ready after), so rerunning
// after a failure converges.
//
//	rag-seed                                   # embedded store under .ragbaseline/, no services
//	. .ragbaseline/services.env && rag-seed --store server
//	rag-seed --recreate                        # after changing the embedding model or dimension
//	rag-seed --prune                           # also remove documents no longer in --docs
//	rag-seed --dry-run                         # show what would change
//
// Exit status: 0 done, 1 a backend failed mid-run (rerun to converge),
// 2 usage error or invalid documents (nothing written).
//
// This package is rag-seed's code and manual, importable so that the binary,
// cmd/rag-seed, is a few lines and go install names it rag-seed (docs/release.md).
package seed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/ingest"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// version is what --version prints: set by Main from cmd/rag-seed's
// main.version, which make build sets with -ldflags "-X main.version=…".
var version = "dev"

// tool is rag-seed: an error that says nothing else is a backend that
// failed mid-run (1); usage errors and invalid documents say so (2). An
// interrupt stops the seed between documents and releases its lock.
var tool = cmdutil.Tool{Name: "rag-seed", Unmarked: cmdutil.ExitFail, Interrupt: true}

// Main runs rag-seed and exits; cmd/rag-seed's main calls it with the
// version set at build time (cmdutil.Version).
func Main(v string) {
	version = cmdutil.Version(v)
	main()
}

// main runs rag-seed and exits (the tests run it as the command rag-seed).
func main() { tool.Main(newRootCmd(cmdutil.System())) }

// newRootCmd builds rag-seed.
func newRootCmd(f *cmdutil.Streams) *cobra.Command {
	root := newCmdSeed(f, nil)
	root.Version = version
	cmdutil.Setup(root, f)
	return root
}

// seedLocker is a catalog that can lock a collection against concurrent
// seeds (the MySQL catalog: GET_LOCK).
type seedLocker interface {
	LockSeed(ctx context.Context, collection string, wait time.Duration, waiting func()) (held context.Context, unlock func() error, err error)
}

type seedOptions struct {
	IO       *cmdutil.Streams
	LockWait time.Duration
	Docs     string
	KBScope  string
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
run again.`,
		Example: `  # the embedded store, embedded by use-multilingual-v3 (make models installs it)
  rag-seed

  # no model at all: the lexical embedder
  rag-seed --embedder local

  . .ragbaseline/services.env && rag-seed --store server
  rag-seed --recreate --embedder openai --embed-model text-embedding-3-small --embed-dim 1536`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return seedRun(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Docs, "docs", "eval/rag-retrieval/seed-docs", "directory of seed documents (*.md)")
	fs.StringVar(&o.KBScope, "kb-scope", "rag-eval", "kb_scope every document must declare")
	fs.BoolVar(&o.Recreate, "recreate", false, "drop and recreate the vector collection (after an embedding model or dimension change)")
	fs.BoolVar(&o.Prune, "prune", false, "remove documents of the kb_scope that are no longer in --docs (default: report them)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "validate and report what would change; write nothing")
	fs.IntVar(&o.Chunk.MaxChars, "chunk-size", o.Chunk.MaxChars, "maximum chunk size in Unicode characters")
	fs.DurationVar(&o.LockWait, "lock-wait", 10*time.Minute, "server store: how long to wait for another rag-seed of the same database and collection to finish")
	fs.IntVar(&o.Chunk.Overlap, "chunk-overlap", o.Chunk.Overlap, "characters of overlap between pieces of a long section")
	o.Config.BindFlags(fs)
	return cmd
}

func seedRun(ctx context.Context, o *seedOptions) error {
	if err := config.ValidKBScope(o.KBScope); err != nil {
		return cmdutil.Usage(err)
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
		return cmdutil.Usage(fmt.Errorf("invalid seed documents:\n%w", err))
	}
	stack, err := config.Open(ctx, o.Config)
	if err != nil {
		return err
	}
	defer stack.Close()
	// Two seeds must not interleave. The embedded store is held by one
	// process at a time already (its index directory is locked); on the
	// server stack every seed of one database and collection takes an
	// advisory lock (a --recreate drops the collection all kbScopes share),
	// and stops if the lock is lost.
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
		Progress:     func(done, total int, _ *kb.Document) { bar.Set(done, total) },
	})
	bar.Done()
	var dimErr *kb.DimensionMismatchError
	var staleErr *ingest.StaleVectorsError
	switch {
	case errors.As(err, &dimErr), errors.As(err, &staleErr):
		return cmdutil.Usage(err)
	case err != nil:
		// A lost seed lock cancels ctx with its reason: say it.
		if cause := context.Cause(ctx); cause != nil && cause != context.Canceled && !errors.Is(err, cause) {
			err = fmt.Errorf("%v: %w", cause, err)
		}
		return fmt.Errorf("%w (rerun rag-seed to converge)", err)
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
