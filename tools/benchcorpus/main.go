// Command benchcorpus writes the synthetic seed corpus of the seed and
// lookup benchmarks into a directory, for the fault-injection, load and
// seed-speed scripts. kbtest.WriteBenchCorpus makes it. It writes -docs
// documents of -sections sections of about 500 characters, one chunk each,
// deterministically. With -chunks it also writes the texts rag-seed embeds
// for them, with its default chunking, as a JSON list. A side-by-side
// embedder reads them (scripts/bench_seed.sh).
//
//	go run ./tools/benchcorpus -docs 2000 -sections 7 -out .ragbaseline/faults/docs
//	go run ./tools/benchcorpus -docs 2000 -sections 1 -out docs -chunks chunks.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/ragbaseline/ragbaseline/internal/corpus"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
)

func main() {
	docs := flag.Int("docs", 2000, "number of documents")
	sections := flag.Int("sections", 7, "sections (chunks) per document")
	scope := flag.String("kb-scope", "rag-eval", "kb_scope of every document")
	out := flag.String("out", "", "output directory (created; must be empty or missing)")
	chunks := flag.String("chunks", "", "also write the chunk texts rag-seed embeds to this file, as a JSON list")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "benchcorpus: -out is required")
		os.Exit(2)
	}
	if err := run(*out, *scope, *docs, *sections, *chunks); err != nil {
		fmt.Fprintln(os.Stderr, "benchcorpus:", err)
		os.Exit(1)
	}
}

func run(out, scope string, docs, sections int, chunksFile string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := kbtest.WriteBenchCorpusDir(out, scope, docs, sections); err != nil {
		return err
	}
	if chunksFile == "" {
		return nil
	}
	loaded, err := corpus.LoadDir(out, scope)
	if err != nil {
		return err
	}
	var texts []string
	opts := corpus.ChunkOptions{MaxChars: corpus.DefaultMaxChars, Overlap: corpus.DefaultOverlap}
	for i := range loaded {
		for _, c := range corpus.Chunk(&loaded[i], opts) {
			texts = append(texts, c.Text)
		}
	}
	data, err := json.Marshal(texts)
	if err != nil {
		return err
	}
	return os.WriteFile(chunksFile, data, 0o644)
}
