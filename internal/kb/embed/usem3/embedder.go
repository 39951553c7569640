package usem3

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

var (
	_ kb.Embedder      = (*Embedder)(nil)
	_ embed.BatchSizer = (*Embedder)(nil)
)

// Embedder embeds texts with the model. It is immutable after Load and safe
// for concurrent use. Each Embed call uses up to GOMAXPROCS goroutines.
type Embedder struct {
	tok *Tokenizer
	w   *weights

	// maxRows is the most token rows one batch holds, as in the reference,
	// which uses 384. That is enough to amortise streaming the weights and
	// small enough for the activations, about 5 MB, to stay in cache.
	maxRows int
	// workers overrides GOMAXPROCS when positive (tests).
	workers int

	spaces sync.Pool // *workspace
}

// Load reads the model from dir (see ModelDir): weights.npz and sp.model.
// A missing directory or file is a *MissingModelError, an unreadable one a
// *CorruptModelError.
func Load(dir string) (*Embedder, error) {
	if err := checkModelDir(dir); err != nil {
		return nil, err
	}
	tok, err := loadTokenizer(filepath.Join(dir, SPModelFile))
	if err != nil {
		return nil, err
	}
	w, err := loadWeights(filepath.Join(dir, WeightsFile))
	if err != nil {
		return nil, err
	}
	if tok.VocabSize() > vocabRows {
		return nil, &CorruptModelError{Path: filepath.Join(dir, SPModelFile),
			Err: fmt.Errorf("vocabulary of %d pieces does not fit the embedding table of %d rows", tok.VocabSize(), vocabRows)}
	}
	return &Embedder{tok: tok, w: w, maxRows: 384}, nil
}

// LoadDefault loads the model from ModelDir().
func LoadDefault() (*Embedder, error) {
	dir, err := ModelDir()
	if err != nil {
		return nil, err
	}
	return Load(dir)
}

// Name is "use-multilingual-v3".
func (e *Embedder) Name() string { return Name }

// Dim is 512.
func (e *Embedder) Dim() int { return Dim }

// Tokenizer returns the model's tokenizer.
func (e *Embedder) Tokenizer() *Tokenizer { return e.tok }

// Kernel names the matrix-multiply kernel in use on this machine. It is
// "avx512" or "avx2" on amd64, with fused multiply-adds, or "generic" for
// portable Go.
func (e *Embedder) Kernel() string { return activeKernel.name }

// BatchSize is the number of texts Embed is best given at a time (see
// embed.BatchSizer): enough token rows to give every goroutine full
// batches and the output layers many texts per pass over their weights
// (BenchmarkEmbedBatch).
func (e *Embedder) BatchSize() int { return 256 }

// Embed returns the unit-normalised vector of each text, in order. The
// model embeds queries and passages alike, so kind is ignored. Texts are
// grouped into batches of at most a few hundred tokens, which run on up to
// GOMAXPROCS goroutines. ctx is checked before each batch. A text's vector
// does not depend on the other texts of the call, on how they are batched
// or on the number of goroutines. It is the same bits every time on a given
// machine, as the package documentation explains.
func (e *Embedder) Embed(ctx context.Context, _ kb.InputType, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	workers := e.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}

	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += waveTexts {
		vecs, err := e.embedWave(ctx, texts[start:min(start+waveTexts, len(texts))], workers)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// waveTexts is how many texts Embed takes at a time: their pooled features
// (5 KiB a text) are held until the output layers run on all of them.
const waveTexts = 1024

// headRows is the number of texts the output layers take at a time.
const headRows = 8 * rowBlock

// embedWave embeds texts in three parallel steps. It tokenises. It runs the
// per-token layers in batches of at most maxRows tokens, summing each
// text's features into its pooled row. It runs the output layers on the
// pooled rows, headRows texts at a time. That makes one pass over their
// weights for many texts instead of one per batch.
func (e *Embedder) embedWave(ctx context.Context, texts []string, workers int) ([][]float32, error) {
	tokens := make([][]int32, len(texts))
	lens := make([]int, len(texts))
	var total atomic.Int64
	parallel(workers, len(texts), func(i int) {
		tokens[i] = e.tok.Encode(texts[i])
		lens[i] = len(tokens[i])
		total.Add(int64(lens[i]))
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Batches small enough for every goroutine to get work, large enough
	// to keep the matrix products efficient.
	budget := int((total.Load() + int64(workers) - 1) / int64(workers))
	budget = max(min(budget, e.maxRows), min(e.maxRows, 96))
	jobs := plan(tokens, budget)

	nt := roundUp(len(texts))
	pooled := make([]float32, nt*featDim)
	parallel(workers, len(jobs), func(i int) {
		if ctx.Err() != nil {
			return
		}
		ws := e.workspace()
		e.w.runJob(ctx, ws, &jobs[i], pooled)
		e.spaces.Put(ws)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	out := make([][]float32, len(texts))
	blocks := (len(texts) + headRows - 1) / headRows
	parallel(workers, blocks, func(b int) {
		if ctx.Err() != nil {
			return
		}
		r0, r1 := b*headRows, min((b+1)*headRows, len(texts))
		ws := e.workspace()
		e.w.head(ws, pooled[r0*featDim:], roundUp(r1-r0), lens[r0:r1], out[r0:r1])
		e.spaces.Put(ws)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func (e *Embedder) workspace() *workspace {
	if ws, ok := e.spaces.Get().(*workspace); ok {
		return ws
	}
	return &workspace{}
}

// parallel calls f(0) … f(n-1) on up to workers goroutines, handing out
// indices in increasing order, and returns when all calls have.
func parallel(workers, n int, f func(int)) {
	if workers <= 1 || n <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
