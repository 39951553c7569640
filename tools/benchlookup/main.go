// Command benchlookup measures search latency on an embedded store seeded
// with the benchmark corpus (tools/benchcorpus) and the local embedder,
// and writes the same vectors for an exact search elsewhere
// (scripts/bench_seed.py search, numpy), for scripts/bench_seed.sh scale.
//
//	benchlookup -data-dir D -docs DOCS -out DIR [-queries 200] [-k 20]
//
// It opens the store read-only, embeds -queries deterministic queries of
// benchmark words, and times kb.Index.Search for each, dense and hybrid,
// K = -k, filtered to the kbScope (every chunk is scored), after one
// warm-up pass. It prints one JSON object: the chunk count and the p50 and
// p95 of each mode in milliseconds. Into -out it writes vectors.f32 (every
// chunk's vector, little-endian float32, in the docs' chunk order), keys.txt
// (their evidence keys, one a line), queries.f32 and dense-top.txt (the
// dense top K evidence keys of each query, tab-separated, a line each).
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/config"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

func main() {
	dataDir := flag.String("data-dir", "", "the seeded embedded store")
	docs := flag.String("docs", "", "the documents it was seeded with")
	scope := flag.String("kb-scope", "rag-eval", "their kb_scope")
	out := flag.String("out", "", "directory for the vectors and the dense results")
	queries := flag.Int("queries", 200, "number of queries")
	k := flag.Int("k", 20, "results per search")
	flag.Parse()
	if *dataDir == "" || *docs == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "benchlookup: -data-dir, -docs and -out are required")
		os.Exit(2)
	}
	if err := run(*dataDir, *docs, *scope, *out, *queries, *k); err != nil {
		fmt.Fprintln(os.Stderr, "benchlookup:", err)
		os.Exit(1)
	}
}

func run(dataDir, docsDir, scope, out string, nq, k int) error {
	ctx := context.Background()
	c := config.Defaults()
	c.Store, c.DataDir, c.Embedder, c.EmbedDim = config.StoreEmbedded, dataDir, config.EmbedderLocal, 0
	st, err := config.OpenForLookup(ctx, c, scope)
	if err != nil {
		return err
	}
	defer st.Close()

	rng := rand.New(rand.NewPCG(5, 6))
	texts := make([]string, nq)
	for i := range texts {
		words := make([]string, 3+rng.IntN(4))
		for j := range words {
			words[j] = kbtest.BenchWords[rng.IntN(len(kbtest.BenchWords))]
		}
		texts[i] = strings.Join(words, " ")
	}
	qvecs, err := st.Embedder.Embed(ctx, kb.Query, texts)
	if err != nil {
		return err
	}
	search := func(mode kb.SearchMode, i int) ([]kb.Hit, time.Duration, error) {
		start := time.Now()
		hits, err := st.Index.Search(ctx, kb.SearchRequest{Mode: mode, Vector: qvecs[i], Text: texts[i], Filter: kb.Filter{KBScope: scope}, K: k})
		return hits, time.Since(start), err
	}
	res := map[string]any{}
	n, err := st.Index.Count(ctx, kb.Filter{KBScope: scope})
	if err != nil {
		return err
	}
	res["chunks"] = n
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	top, err := os.Create(filepath.Join(out, "dense-top.txt"))
	if err != nil {
		return err
	}
	defer top.Close()
	for _, mode := range []kb.SearchMode{kb.Dense, kb.Hybrid} {
		for i := range texts { // warm up
			hits, _, err := search(mode, i)
			if err != nil {
				return err
			}
			if mode == kb.Dense {
				keys := make([]string, len(hits))
				for j, h := range hits {
					keys[j] = h.EvidenceKey
				}
				fmt.Fprintln(top, strings.Join(keys, "\t"))
			}
		}
		lat := make([]float64, len(texts))
		for i := range texts {
			_, d, err := search(mode, i)
			if err != nil {
				return err
			}
			lat[i] = d.Seconds() * 1000
		}
		slices.Sort(lat)
		res[string(mode)+"_p50_ms"] = round(lat[len(lat)/2])
		res[string(mode)+"_p95_ms"] = round(lat[len(lat)*95/100])
	}
	if err := writeVectors(ctx, st.Embedder, docsDir, scope, out); err != nil {
		return err
	}
	if err := writeFloats(filepath.Join(out, "queries.f32"), qvecs); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

func round(ms float64) float64 { return math.Round(ms*100) / 100 }

// writeVectors embeds the chunks of the documents as rag-seed did (its
// default chunking, the same embedder, which the cache answers) and writes
// them with their keys.
func writeVectors(ctx context.Context, e kb.Embedder, docsDir, scope, out string) error {
	docs, err := corpus.LoadDir(docsDir, scope)
	if err != nil {
		return err
	}
	vf, err := os.Create(filepath.Join(out, "vectors.f32"))
	if err != nil {
		return err
	}
	defer vf.Close()
	kf, err := os.Create(filepath.Join(out, "keys.txt"))
	if err != nil {
		return err
	}
	defer kf.Close()
	vw, kw := bufio.NewWriterSize(vf, 1<<20), bufio.NewWriter(kf)
	opts := corpus.ChunkOptions{MaxChars: corpus.DefaultMaxChars, Overlap: corpus.DefaultOverlap}
	for i := range docs {
		chunks := corpus.Chunk(&docs[i], opts)
		texts := make([]string, len(chunks))
		for j, c := range chunks {
			texts[j] = c.Text
			fmt.Fprintln(kw, c.EvidenceKey)
		}
		vecs, err := e.Embed(ctx, kb.Passage, texts)
		if err != nil {
			return err
		}
		for _, v := range vecs {
			if err := binary.Write(vw, binary.LittleEndian, v); err != nil {
				return err
			}
		}
	}
	if err := kw.Flush(); err != nil {
		return err
	}
	return vw.Flush()
}

func writeFloats(path string, vecs [][]float32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, v := range vecs {
		if err := binary.Write(w, binary.LittleEndian, v); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
