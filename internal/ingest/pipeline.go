package ingest

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
)

// The stages of a seed, each on its own goroutine:
//
//	chunker ──▶ embedder ──▶ writer (Seed's goroutine)
//
// The chunker cuts the documents to index, in docId order. The embedder
// embeds their chunks in batches of Options.BatchSize, whichever documents
// they come from, so an embedder that works best on many texts at once
// gets them even from a corpus of one-chunk documents. A document goes on
// to the writer once all its chunks have vectors. The writer writes one
// document at a time, as a seed always did: the document's chunks through
// the embedding cache, a cacheGroup at a time (a cache read, then a write
// of what it lacked, with the vectors embedded ahead), BeginIndexing, the
// index writes and the knowledge copy (these two side by side), then
// MarkReady. Every file of the store is written by the same calls in the
// same order as by a seed that embedded one document at a time, with the
// same cache reads between them, so the store holds the same bytes; only
// the embedding moved ahead, where it overlaps the writes.
//
// The cache is consulted first: before anything is written, lookAhead
// reads which chunks it has, and the embedder skips those. It reads then,
// not as it goes: in the embedded store the cache is a table of the
// catalog's SQLite file, and reads interleaved with the writer's
// transactions at varying points change which checkpoints the writes
// make, and so the file's header (its change counter), from run to run.
//
// The chunker and the embedder run ahead of the writer by at most
// Options.QueueChunks chunks: a document takes its share of that budget
// when it is cut and gives it back when it is written. Memory stays flat on
// any corpus.

// job is a document to index on its way through the stages.
type job struct {
	seq     int // position among the documents to index
	doc     *kb.Document
	hash    string
	existed bool
	chunks  []kb.Chunk
	weight  int64 // what the document holds of the queue budget
	// cached[i] reports that the cache had chunk i's vector before the
	// run; nil when it had none of them.
	cached []bool
	todo   int // chunks still to embed
}

// cachedEmbedder is an embedder behind the embedding cache
// (*embed.CachedEmbedder) that lets the seed look up ahead, embed with the
// embedder alone, and write each document through the cache after.
type cachedEmbedder interface {
	Lookup(ctx context.Context, kind kb.InputType, texts []string) ([][]float32, error)
	EmbedUsing(ctx context.Context, kind kb.InputType, texts []string, embedMisses func([]string) ([][]float32, error)) ([][]float32, error)
	Uncached() kb.Embedder
}

var _ cachedEmbedder = (*embed.CachedEmbedder)(nil)

// cacheGroup is how many chunks of a document go through the cache at a
// time: the batches a seed embedded each document in before it embedded
// across documents (its BatchSize, 64), kept so that the cache table, in
// the embedded store's catalog file, is read and written by the same
// transactions.
const cacheGroup = 64

// lookAheadTexts is how many chunk texts lookAhead asks the cache about at
// a time.
const lookAheadTexts = 2048

// pipeline is the state the stages share.
type pipeline struct {
	b     Backends
	opts  Options
	cache cachedEmbedder // nil without a cache
	inner kb.Embedder    // what embeds ahead
	size  int            // texts per embedding call

	budget *semaphore.Weighted
	queue  int64 // the budget's size, in chunks
}

func newPipeline(b Backends, opts Options) *pipeline {
	p := &pipeline{b: b, opts: opts, inner: b.Embedder, size: opts.BatchSize, queue: int64(opts.QueueChunks)}
	if c, ok := b.Embedder.(cachedEmbedder); ok {
		p.cache, p.inner = c, c.Uncached()
	}
	p.budget = semaphore.NewWeighted(p.queue)
	return p
}

// lookAhead records, for every job, which of its chunks the cache has
// (job.cached). It cuts the documents to know their chunks, and lets the
// chunks go: the chunker cuts them again.
func (p *pipeline) lookAhead(ctx context.Context, jobs []*job) error {
	if p.cache == nil {
		return nil
	}
	var batch []*job
	var counts []int
	var texts []string
	flush := func() error {
		if len(texts) == 0 {
			return nil
		}
		vecs, err := p.cache.Lookup(ctx, kb.Passage, texts)
		if err != nil {
			return err
		}
		k := 0
		for b, j := range batch {
			n := counts[b]
			for i := range n {
				if vecs[k+i] != nil {
					if j.cached == nil {
						j.cached = make([]bool, n)
					}
					j.cached[i] = true
				}
			}
			k += n
		}
		batch, counts, texts = batch[:0], counts[:0], texts[:0]
		return nil
	}
	for _, j := range jobs {
		chunks := corpus.Chunk(j.doc, p.opts.Chunk)
		for _, c := range chunks {
			texts = append(texts, c.Text)
		}
		batch, counts = append(batch, j), append(counts, len(chunks))
		if len(texts) >= lookAheadTexts {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// chunkStage cuts the documents of jobs and sends them to out, in order,
// each once it holds its share of the budget. It closes out when done.
func (p *pipeline) chunkStage(ctx context.Context, jobs []*job, out chan<- *job) {
	defer close(out)
	for _, j := range jobs {
		j.chunks = corpus.Chunk(j.doc, p.opts.Chunk)
		// A document larger than the whole budget takes all of it.
		j.weight = min(int64(len(j.chunks)), p.queue)
		if err := p.budget.Acquire(ctx, j.weight); err != nil {
			return
		}
		select {
		case out <- j:
		case <-ctx.Done():
			p.budget.Release(j.weight)
			return
		}
	}
}

// chunkRef is a chunk of a job.
type chunkRef struct {
	j *job
	i int
}

// embedStage gives the chunks of the jobs from in their vectors and sends
// each job to out, in order, once all its chunks have one. It embeds full
// batches of misses while more jobs are waiting and what it has as soon as
// none is: it never waits for input with misses in hand, which the writer
// may be waiting for. It returns when in is closed and every job is sent,
// or at the first error.
func (p *pipeline) embedStage(ctx context.Context, in <-chan *job, out chan<- *job) error {
	var waiting []*job     // received, not sent yet, in order
	var pending []chunkRef // misses to embed, in order
	for {
		var got []*job
		n, closed, drained := 0, false, false
		for n < p.size && !closed && !drained {
			var j *job
			ok := true
			if len(got) == 0 && len(pending) == 0 {
				select {
				case j, ok = <-in:
				case <-ctx.Done():
					return ctx.Err()
				}
			} else {
				select {
				case j, ok = <-in:
				default:
					drained = true
					continue
				}
			}
			if !ok {
				closed = true
				continue
			}
			got = append(got, j)
			n += len(j.chunks)
		}
		pending = append(pending, p.misses(got)...)
		waiting = append(waiting, got...)
		for len(pending) >= p.size || len(pending) > 0 && (drained || closed) {
			k := min(len(pending), p.size)
			if err := p.embed(ctx, pending[:k]); err != nil {
				return err
			}
			pending = pending[k:]
		}
		if len(pending) == 0 {
			pending = nil // let the embedded chunks go with their jobs
		}
		for len(waiting) > 0 && waiting[0].todo == 0 {
			select {
			case out <- waiting[0]:
			case <-ctx.Done():
				return ctx.Err()
			}
			waiting = waiting[1:]
		}
		if closed {
			return nil
		}
	}
}

// misses returns the chunks of jobs to embed: those the cache did not
// have.
func (p *pipeline) misses(jobs []*job) []chunkRef {
	var out []chunkRef
	for _, j := range jobs {
		for i := range j.chunks {
			if j.cached == nil || !j.cached[i] {
				out = append(out, chunkRef{j, i})
				j.todo++
			}
		}
	}
	return out
}

// embed embeds the texts of refs in one call, each distinct text once, and
// checks the vectors as the seed always did: embed.Check behind the cache,
// the count without one (the index checks the rest).
func (p *pipeline) embed(ctx context.Context, refs []chunkRef) error {
	texts := make([]string, 0, len(refs))
	at := make(map[string]int, len(refs))
	pos := make([]int, len(refs))
	for r, ref := range refs {
		t := ref.j.chunks[ref.i].Text
		k, ok := at[t]
		if !ok {
			k = len(texts)
			at[t] = k
			texts = append(texts, t)
		}
		pos[r] = k
	}
	vecs, err := p.inner.Embed(ctx, kb.Passage, texts)
	if err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	if p.cache != nil {
		if err := embed.Check(p.inner.Name(), p.inner.Dim(), len(texts), vecs); err != nil {
			return fmt.Errorf("embed: %w", err)
		}
	} else if len(vecs) != len(texts) {
		return fmt.Errorf("embed: %s returned %d vectors for %d texts", p.b.Embedder.Name(), len(vecs), len(texts))
	}
	for r, ref := range refs {
		ref.j.chunks[ref.i].Vector = vecs[pos[r]]
		ref.j.todo--
	}
	return nil
}

// write writes one document: its chunks through the cache, indexing, the
// vectors and the knowledge copy, ready.
func (p *pipeline) write(ctx context.Context, j *job) error {
	if p.cache != nil {
		if err := p.throughCache(ctx, j); err != nil {
			return fmt.Errorf("embed: %w", err)
		}
	}
	d := j.doc
	if err := p.b.Catalog.BeginIndexing(ctx, *d, j.chunks); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	// The copy goes to another file than the index's: both are written
	// at once, and both are done before the document is ready.
	copied := make(chan error, 1)
	if p.opts.KnowledgeDir != "" {
		go func() { copied <- writeKnowledgeCopy(p.opts.KnowledgeDir, d) }()
	} else {
		copied <- nil
	}
	err := p.writeIndex(ctx, j)
	if cerr := <-copied; err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := p.b.Catalog.MarkReady(ctx, d.KBScope, d.DocID, j.hash); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}

func (p *pipeline) writeIndex(ctx context.Context, j *job) error {
	if err := p.b.Index.DeleteDocument(ctx, j.doc.KBScope, j.doc.DocID); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if len(j.chunks) > 0 {
		if err := p.b.Index.Upsert(ctx, j.chunks); err != nil {
			return fmt.Errorf("index: %w", err)
		}
	}
	return nil
}

// throughCache gives j's chunks their vectors through the cache,
// cacheGroup chunks at a time, as a seed that embedded one document at a
// time did: the cache's vector for what it has (also what an earlier
// document of this run stored), and for the rest the vector embedded
// ahead, which it stores. A chunk the cache had before the run and lacks
// now (a cache emptied meanwhile) is embedded here.
func (p *pipeline) throughCache(ctx context.Context, j *job) error {
	ahead := make(map[string][]float32, len(j.chunks))
	for i, c := range j.chunks {
		if j.cached == nil || !j.cached[i] {
			ahead[c.Text] = c.Vector
		}
	}
	embedMisses := func(texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		var late []string
		for i, t := range texts {
			if v, ok := ahead[t]; ok {
				out[i] = v
			} else {
				late = append(late, t)
			}
		}
		if len(late) == 0 {
			return out, nil
		}
		vecs, err := p.inner.Embed(ctx, kb.Passage, late)
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(late) {
			return nil, fmt.Errorf("%s returned %d vectors for %d texts", p.inner.Name(), len(vecs), len(late))
		}
		k := 0
		for i := range out {
			if out[i] == nil {
				out[i], k = vecs[k], k+1
			}
		}
		return out, nil
	}
	for start := 0; start < len(j.chunks); start += cacheGroup {
		end := min(start+cacheGroup, len(j.chunks))
		texts := make([]string, end-start)
		for i := range texts {
			texts[i] = j.chunks[start+i].Text
		}
		vecs, err := p.cache.EmbedUsing(ctx, kb.Passage, texts, embedMisses)
		if err != nil {
			return err
		}
		for i, v := range vecs {
			j.chunks[start+i].Vector = v
		}
	}
	return nil
}
