// Command extload loads an eval set's corpus, the shipped one by default,
// into the external retrieval servers that `make ext-services` started. It
// loads under the default names the shipped mapped-pipeline configurations
// search. Those are the Weaviate class RagChunk at WEAVIATE_URL, the
// OpenSearch index rag-chunks at OPENSEARCH_URL and the Chroma collection
// rag-chunks at CHROMA_URL. Each server whose variable is set is loaded.
// Each load replaces what was there, as internal/testkit/exttest does. The
// chunks and vectors are rag-seed's: the project's chunker and
// use-multilingual-v3 as passages, which `make models` installs. `make
// ext-services-load` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/kb/embed/usem3"
	"github.com/ragbaseline/ragbaseline/internal/testkit/exttest"
)

func main() {
	dir := flag.String("dir", exttest.ShippedSet, "eval set directory (seed-docs, cases/golden-cases.json)")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintf(os.Stderr, "extload: %v\n", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	wv, osURL, ch := os.Getenv(exttest.EnvWeaviate), os.Getenv(exttest.EnvOpenSearch), os.Getenv(exttest.EnvChroma)
	if wv == "" && osURL == "" && ch == "" {
		return fmt.Errorf("none of %s, %s, %s is set: run `make ext-services && . .ragbaseline/ext-services.env` first",
			exttest.EnvWeaviate, exttest.EnvOpenSearch, exttest.EnvChroma)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	e, err := usem3.LoadDefault()
	if err != nil {
		return err
	}
	start := time.Now()
	c, err := exttest.LoadCorpus(ctx, dir, e)
	if err != nil {
		return err
	}
	fmt.Printf("extload: %s: %d chunks of %d documents embedded by %s in %.1fs\n", dir, len(c.Chunks), len(c.Sources()), e.Name(), time.Since(start).Seconds())
	type target struct {
		name, where string
		server      exttest.Server
	}
	var targets []target
	if wv != "" {
		targets = append(targets, target{"weaviate", wv + " class " + exttest.DefaultWeaviateClass, &exttest.Weaviate{URL: wv}})
	}
	if osURL != "" {
		targets = append(targets, target{"opensearch", osURL + " index " + exttest.DefaultOpenSearchIndex, &exttest.OpenSearch{URL: osURL}})
	}
	if ch != "" {
		targets = append(targets, target{"chroma", ch + " collection " + exttest.DefaultChromaCollection, &exttest.Chroma{URL: ch}})
	}
	for _, t := range targets {
		start := time.Now()
		if err := t.server.Load(ctx, c.Chunks); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		n, err := t.server.Count(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		if n != len(c.Chunks) {
			return fmt.Errorf("%s: %d objects after the load, want %d", t.name, n, len(c.Chunks))
		}
		fmt.Printf("extload: %s: %d chunks loaded in %.2fs (%s)\n", t.name, n, time.Since(start).Seconds(), t.where)
	}
	return nil
}
