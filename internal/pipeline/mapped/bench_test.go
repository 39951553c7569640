package mapped

import (
	"context"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/pipeline"
)

// BenchmarkMapping is the cost a mapped pipeline adds to a lookup once the
// response is in: decoding it, running the shipped config's blocks program
// (gojq) and turning its output into graded blocks, on the recorded
// responses (3 blocks each; Chroma's parallel arrays zipped by index).
func BenchmarkMapping(b *testing.B) {
	for _, tc := range []struct{ name, config, response string }{
		{"weaviate", "weaviate.yaml", "weaviate-hybrid.json"},
		{"opensearch", "opensearch-bm25.yaml", "opensearch-hits.json"},
		{"chroma", "chroma.yaml", "chroma-query.json"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := openConfig(b, shipped(tc.config), map[string]string{"WEAVIATE_URL": "http://h", "OPENSEARCH_URL": "http://h", "CHROMA_URL": "http://h"})
			body := readResponse(b, tc.response)
			env := map[string]any{"collection": "c", "class": "RagChunk", "request": map[string]any{"query": "q", "topK": 5, "kbScope": "rag-eval"}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				doc, err := decodeJSON(body)
				if err != nil {
					b.Fatal(err)
				}
				out, err := p.cfg.Blocks.run(ctx, doc, env, p.jq)
				if err != nil {
					b.Fatal(err)
				}
				blocks, _, err := p.toBlocks(out, pipeline.MaxBlocks(5))
				if err != nil || len(p.result(blocks, 5).EvidenceBlocks) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}
