package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/corpus"
)

// limitDoc is a seed document with every length at its limit, plus extra
// bytes on the one named by over ("" for none).
func limitDoc(over string) string {
	pad := func(name string, n int) string {
		if name == over {
			n++
		}
		return strings.Repeat("x", n)
	}
	crumb := "B"
	heading := pad("heading", corpus.MaxBreadcrumbLen-len(crumb+" > "))
	return "---\n" +
		"source: " + strings.Repeat("s", corpus.MaxSourceLen) + "\n" +
		"breadcrumb: " + crumb + "\n" +
		"category: " + pad("category", corpus.MaxCategoryLen) + "\n" +
		"kb_scope: rag-eval\n" +
		"doc_id: " + strings.Repeat("d", corpus.MaxDocIDLen) + "\n" +
		"---\n" +
		"# " + pad("title", corpus.MaxTitleLen) + "\n\nintro text\n\n## " + heading + "\n\nsection text\n"
}

// A document at every limit seeds on the embedded store and on the server
// stack alike. One byte over any of them is exit 2 before anything is
// written, on both. It used to pass validation and fail after the catalog
// write on the server stack only, leaving the document indexing. The
// limits are the stores', so the lexical embedder, which needs no model,
// seeds.
func TestLimitsOnEveryStore(t *testing.T) {
	for name, flags := range stackFlags(t) {
		t.Run(name, func(t *testing.T) {
			dataDir := t.TempDir()
			seed := func(doc string) (cmdutil.ExitCode, string, string) {
				docs := t.TempDir()
				if err := os.WriteFile(filepath.Join(docs, "limits.md"), []byte(doc), 0o644); err != nil {
					t.Fatal(err)
				}
				var out, errb strings.Builder
				code := run(context.Background(), append([]string{"--docs", docs, "--data-dir", dataDir, "--embedder", "local"}, flags...), &out, &errb)
				return code, out.String(), errb.String()
			}
			for _, over := range []string{"category", "title", "heading"} {
				code, out, stderr := seed(limitDoc(over))
				if code != cmdutil.ExitUsage {
					t.Errorf("one byte over the %s limit: exit %d, want 2", over, code)
				}
				if !strings.Contains(stderr, "limits.md:") {
					t.Errorf("one byte over the %s limit: stderr %q names no limits.md:LINE", over, stderr)
				}
				if out != "" {
					t.Errorf("one byte over the %s limit: stdout %q, want none", over, out)
				}
			}
			code, out, stderr := seed(limitDoc(""))
			if code != 0 || !strings.Contains(out, " 1 added, ") {
				t.Fatalf("at the limits: exit %d: %s%s", code, out, stderr)
			}
			// Nothing of the refused runs was written: the document was
			// new to the accepted one, and a rerun finds it ready.
			if code, out, stderr := seed(limitDoc("")); code != 0 || !strings.Contains(out, " 1 unchanged") {
				t.Fatalf("rerun: exit %d: %s%s", code, out, stderr)
			}
		})
	}
}
