package usem3

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// seedParagraphs returns the paragraphs of the seed documents of the eval
// set (frontmatter dropped, split at blank lines): chunk-sized texts of
// the kind rag-seed embeds, mixed Chinese, English and code. The same
// split as scripts/bench_embed.py.
func seedParagraphs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../../../../eval/rag-retrieval/seed-docs/*.md")
	if err != nil || len(files) == 0 {
		t.Skipf("no seed documents found (%v)", err)
	}
	var texts []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, splitParagraphs(string(b))...)
	}
	return texts
}

// splitParagraphs drops a leading "---" frontmatter block and splits the
// rest at blank lines ("\n\n"), trimming each paragraph and dropping the
// empty ones.
func splitParagraphs(doc string) []string {
	if strings.HasPrefix(doc, "---") {
		if parts := strings.SplitN(doc, "---", 3); len(parts) == 3 {
			doc = parts[2]
		}
	}
	var out []string
	for p := range strings.SplitSeq(doc, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// benchTexts returns the texts of $USEM3_BENCH_TEXTS (a JSON list of
// strings, as scripts/bench_embed.sh passes), else seedParagraphs.
func benchTexts(b *testing.B) []string {
	path := os.Getenv("USEM3_BENCH_TEXTS")
	if path == "" {
		return seedParagraphs(b)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	if err := json.Unmarshal(data, &texts); err != nil {
		b.Fatalf("%s: %v", path, err)
	}
	return texts
}

// BenchmarkEmbed embeds the seed paragraphs in one call per iteration, on
// GOMAXPROCS goroutines (run with -cpu 1,2 to compare).
// USEM3_BENCH_KERNEL=avx2|generic selects another matrix kernel.
func BenchmarkEmbed(b *testing.B) {
	texts := benchTexts(b)
	e := loadModel(b)
	if name := os.Getenv("USEM3_BENCH_KERNEL"); name != "" {
		i := slices.IndexFunc(kernels(), func(k kernel) bool { return k.name == name })
		if i < 0 {
			b.Fatalf("kernel %s not available here", name)
		}
		saved := activeKernel
		activeKernel = kernels()[i]
		defer func() { activeKernel = saved }()
	}
	tokens := 0
	for _, t := range texts {
		tokens += len(e.Tokenizer().Encode(t))
	}
	ctx := context.Background()
	if _, err := e.Embed(ctx, kb.Passage, texts); err != nil { // warm up
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := e.Embed(ctx, kb.Passage, texts); err != nil {
			b.Fatal(err)
		}
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(len(texts)*b.N)/s, "texts/s")
	b.ReportMetric(float64(tokens*b.N)/s, "tokens/s")
}

// BenchmarkTokenize measures the tokenizer alone on the same texts.
func BenchmarkTokenize(b *testing.B) {
	texts := seedParagraphs(b)
	tok := loadModel(b).Tokenizer()
	for b.Loop() {
		for _, t := range texts {
			tok.Encode(t)
		}
	}
	b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "texts/s")
}

// BenchmarkEmbedBatch embeds the seed paragraphs in calls of n texts each,
// the choice behind Embedder.BatchSize: one text a call leaves a core idle
// and makes every call stream the weights again.
func BenchmarkEmbedBatch(b *testing.B) {
	texts := benchTexts(b)
	e := loadModel(b)
	ctx := context.Background()
	for _, n := range []int{1, 16, 64, 256, 1024} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			all := texts
			for len(all) < n {
				all = append(all, texts...)
			}
			done := 0
			for b.Loop() {
				for start := 0; start < len(all); start += n {
					if _, err := e.Embed(ctx, kb.Passage, all[start:min(start+n, len(all))]); err != nil {
						b.Fatal(err)
					}
				}
				done += len(all)
			}
			b.ReportMetric(float64(done)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}
