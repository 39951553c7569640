package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

func addSeedDocs(f *testing.F) [][]byte {
	paths, err := filepath.Glob(filepath.Join("testdata", "docs", "*.md"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seed documents: %v", err)
	}
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// FuzzParse checks that Parse never panics; that what it accepts is valid
// per SPEC §4, has exactly the text after the closing "---" line as its
// body (so the body holds no frontmatter line) and survives a round trip
// through a re-rendered frontmatter; and that what it rejects is
// explained with a line in the file.
func FuzzParse(f *testing.F) {
	for _, data := range addSeedDocs(f) {
		f.Add(data)
		f.Add([]byte(strings.ReplaceAll(string(data), "\n", "\r\n")))
	}
	f.Add(file(valid+"keywords: [a, \"b, c\", 'd''e']\naliases:\n  - x # c\n", "# T\n---\nsource: body\n"))
	f.Add([]byte("\uFEFF---\r\n" + valid + "title: \"\\u00e9\\t\"\r\n---\r\n"))
	f.Add([]byte("---\n---\n---\n"))
	for _, tt := range parseProblemTests {
		f.Add([]byte(tt.data))
	}
	f.Add([]byte("---\nkeywords:\n- a\n  - b\n---\n# x"))

	f.Fuzz(func(t *testing.T, data []byte) {
		doc, problems := Parse("f.md", data, "rag-eval")
		if doc == nil {
			checkProblems(t, data, problems)
			return
		}
		if problems != nil {
			t.Fatalf("both a document and problems: %q", problemStrings(problems))
		}
		checkDocument(t, data, doc)

		// Round trip: the same metadata written with every value quoted.
		again, problems := Parse("f.md", render(doc), "rag-eval")
		if problems != nil {
			t.Fatalf("re-rendered document rejected: %q\n%s", problemStrings(problems), render(doc))
		}
		again.ContentHash = doc.ContentHash
		if !reflect.DeepEqual(again, doc) {
			t.Fatalf("round trip\n got %+v\nwant %+v", again, doc)
		}
		if len(Chunk(doc, ChunkOptions{})) == 0 {
			t.Fatalf("an accepted document has no chunks")
		}
	})
}

func checkProblems(t *testing.T, data []byte, problems diag.List) {
	t.Helper()
	if len(problems) == 0 {
		t.Fatalf("no document and no problems")
	}
	lines := 1 + strings.Count(normalizeNewlines(string(data)), "\n")
	for i, p := range problems {
		if p.File != "f.md" {
			t.Fatalf("problem %+v names file %q, want f.md", p, p.File)
		}
		if p.Line < 1 || p.Line > lines {
			t.Fatalf("problem %+v on line %d, want 1 to %d", p, p.Line, lines)
		}
		if p.Msg == "" {
			t.Fatalf("problem %+v without a message", p)
		}
		if i > 0 && p.Line < problems[i-1].Line {
			t.Fatalf("problems not sorted: %q", problemStrings(problems))
		}
	}
}

func checkDocument(t *testing.T, data []byte, doc *kb.Document) {
	t.Helper()
	// The body, found independently: the text after the second delimiter.
	text := normalizeNewlines(strings.TrimPrefix(string(data), "\uFEFF"))
	lines := strings.SplitAfter(text, "\n")
	if strings.TrimRight(lines[0], " \t\n") != "---" {
		t.Fatalf("accepted without an opening delimiter")
	}
	closing := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t\n") == "---" {
			closing = i
			break
		}
	}
	if closing < 0 {
		t.Fatalf("accepted without a closing delimiter")
	}
	if want := strings.Join(lines[closing+1:], ""); doc.Body != want {
		t.Fatalf("body %q, want the text after line %d: %q", doc.Body, closing+1, want)
	}
	sum := sha256.Sum256(data)
	switch {
	case doc.ContentHash != hex.EncodeToString(sum[:]):
		t.Fatalf("content hash %s", doc.ContentHash)
	case !sourcePattern.MatchString(doc.Source) || len(doc.Source) > MaxSourceLen:
		t.Fatalf("source %q", doc.Source)
	case !docIDPattern.MatchString(doc.DocID) || len(doc.DocID) > MaxDocIDLen:
		t.Fatalf("doc_id %q", doc.DocID)
	case doc.KBScope != "rag-eval":
		t.Fatalf("kb_scope %q", doc.KBScope)
	case strings.TrimSpace(doc.Body) == "":
		t.Fatalf("empty body")
	}
	for name, v := range map[string]string{"title": doc.Title, "breadcrumb": doc.Breadcrumb, "category": doc.Category} {
		if v == "" || v != strings.TrimSpace(v) || strings.IndexFunc(v, isControl) >= 0 {
			t.Fatalf("%s %q, want it non-empty, trimmed and without control characters", name, v)
		}
	}
	for _, v := range append(append([]string(nil), doc.Keywords...), doc.Aliases...) {
		if v == "" || v != strings.TrimSpace(v) || strings.IndexFunc(v, isControl) >= 0 {
			t.Fatalf("list item %q, want it non-empty, trimmed and without control characters", v)
		}
	}
}

// render writes doc as a seed file with every value double-quoted, which
// strconv.Quote does in a form YAML reads the same.
func render(doc *kb.Document) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	for _, kv := range [][2]string{
		{keySource, doc.Source}, {keyTitle, doc.Title}, {keyBreadcrumb, doc.Breadcrumb},
		{keyCategory, doc.Category}, {keyKBScope, doc.KBScope}, {keyDocID, doc.DocID},
	} {
		b.WriteString(kv[0] + ": " + strconv.Quote(kv[1]) + "\n")
	}
	for _, kv := range []struct {
		key   string
		items []string
	}{{keyKeywords, doc.Keywords}, {keyAliases, doc.Aliases}} {
		if kv.items == nil {
			continue
		}
		b.WriteString(kv.key + ": [")
		for i, it := range kv.items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(it))
		}
		b.WriteString("]\n")
	}
	b.WriteString("---\n")
	b.WriteString(doc.Body)
	return []byte(b.String())
}

// FuzzChunk checks that Chunk never panics and that its chunks are
// non-empty, trimmed, at most MaxChars characters, pieces of the body in
// order, within one section, and together cover every non-space character
// of the body except on heading lines.
func FuzzChunk(f *testing.F) {
	for _, data := range addSeedDocs(f) {
		doc, problems := Parse("seed.md", data, "rag-eval")
		if problems != nil {
			f.Fatal(problemStrings(problems))
		}
		f.Add(doc.Body, 800, 100)
		f.Add(doc.Body, 50, 20)
		f.Add(doc.Body, 7, -1)
	}
	f.Add("连接池耗尽了。请检查配置。\n\n```\n# x\n\n```\n## 排查\ncafe\u0301 x", 5, 2)
	f.Add("a\r\n# b\r\nc d e f g h", 3, 1)
	for _, tt := range chunkBoundaryTests {
		f.Add(tt.body, tt.max, 3)
	}

	f.Fuzz(func(t *testing.T, body string, maxChars, overlap int) {
		if !utf8.ValidString(body) {
			return
		}
		maxChars = maxChars%2000 - 1 // -2000..1998: covers the default
		overlap = overlap%1200 - 100 // negative: none; 0: default
		opts := ChunkOptions{MaxChars: maxChars, Overlap: overlap}
		maxC, ov := opts.resolved()
		doc := testDoc(body)
		chunks := Chunk(doc, opts)
		ps := pieces(doc, opts)
		if len(ps) != len(chunks) {
			t.Fatalf("%d pieces, %d chunks", len(ps), len(chunks))
		}
		lines := scanLines(body)
		covered := make([]bool, len(body))
		keys := make(map[string]bool, len(chunks))
		prevEnd, prevText := 0, 0
		for i, c := range chunks {
			p := ps[i]
			switch {
			case c.Text != body[p.textStart:p.end]:
				t.Fatalf("chunk %d text is not its piece of the body", i)
			case c.Text == "" || c.Text != strings.TrimFunc(c.Text, unicode.IsSpace):
				t.Fatalf("chunk %d is empty or untrimmed: %q", i, c.Text)
			case utf8.RuneCountInString(c.Text) > maxC:
				t.Fatalf("chunk %d has %d characters, max %d", i, utf8.RuneCountInString(c.Text), maxC)
			case utf8.RuneCountInString(body[p.textStart:p.start]) > ov:
				t.Fatalf("chunk %d overlaps %d characters, max %d", i, utf8.RuneCountInString(body[p.textStart:p.start]), ov)
			case p.textStart > p.start || p.start < prevEnd || p.textStart < prevText:
				t.Fatalf("chunk %d out of order: %+v after end %d", i, p, prevEnd)
			case c.ChunkIndex != i || c.EvidenceKey != kb.EvidenceKey(doc.DocID, p.sec.label, p.sec.occurrence, p.n):
				t.Fatalf("chunk %d numbered %d %s", i, c.ChunkIndex, c.EvidenceKey)
			case keys[c.EvidenceKey]:
				t.Fatalf("chunk %d repeats the evidence key %q", i, c.EvidenceKey)
			case kb.CheckEvidenceKey(doc.DocID, c.EvidenceKey) != nil:
				t.Fatalf("chunk %d: %v", i, kb.CheckEvidenceKey(doc.DocID, c.EvidenceKey))
			case c.Breadcrumb != doc.Breadcrumb && !strings.HasPrefix(c.Breadcrumb, doc.Breadcrumb+" > "):
				t.Fatalf("chunk %d breadcrumb %q", i, c.Breadcrumb)
			}
			if i > 0 && p.textStart < ps[i-1].end && c.Breadcrumb != chunks[i-1].Breadcrumb {
				t.Fatalf("chunk %d overlaps a chunk of another section", i)
			}
			for _, l := range lines {
				if l.kind == lineHeading && p.textStart < l.start && l.start < p.end {
					t.Fatalf("chunk %d %q spans the heading on line at %d", i, c.Text, l.start)
				}
			}
			for k := p.start; k < p.end; k++ {
				covered[k] = true
			}
			keys[c.EvidenceKey] = true
			prevEnd, prevText = p.end, p.textStart
		}
		// Every non-space character outside heading-like lines is in a
		// chunk (heading lines of sections without text have none).
		off := 0
		for _, ln := range strings.SplitAfter(body, "\n") {
			headingLike := strings.HasPrefix(strings.TrimLeft(ln, " \t"), "#")
			for k, r := range ln {
				if !headingLike && !unicode.IsSpace(r) && !covered[off+k] {
					t.Fatalf("character %q at %d of line %q is in no chunk", r, off+k, ln)
				}
			}
			off += len(ln)
		}
		if again := Chunk(doc, opts); !reflect.DeepEqual(again, chunks) {
			t.Fatalf("not deterministic")
		}
		checkInsertKeepsKeys(t, doc, opts, chunks, lines)
	})
}

// checkInsertKeepsKeys inserts a section with a heading of its own before
// the first heading of the body (or at its end) and checks that every
// other chunk keeps its evidence key and text.
func checkInsertKeepsKeys(t *testing.T, doc *kb.Document, opts ChunkOptions, chunks []kb.Chunk, lines []mdLine) {
	t.Helper()
	at, level := len(doc.Body), 2
	for _, l := range lines {
		if l.kind == lineHeading {
			at, level = l.start, l.level
			break
		}
	}
	if at == len(doc.Body) && at > 0 && doc.Body[at-1] != '\n' {
		return // appending would join the last line
	}
	if k := len(lines); at == len(doc.Body) && k > 0 && (lines[k-1].kind == lineFenceOpen || lines[k-1].kind == lineFenceInner) {
		return // inside an unclosed fence
	}
	inserted := strings.Repeat("#", level) + " Inserted ZQX\n\ninserted text\n\n"
	edited := *doc
	edited.Body = doc.Body[:at] + inserted + doc.Body[at:]
	var kept []string
	for _, c := range Chunk(&edited, opts) {
		if !strings.Contains(c.Breadcrumb, "Inserted ZQX") {
			kept = append(kept, c.EvidenceKey+"\x00"+c.Text)
		}
	}
	var want []string
	for _, c := range chunks {
		want = append(want, c.EvidenceKey+"\x00"+c.Text)
	}
	if !reflect.DeepEqual(kept, want) {
		t.Fatalf("inserting a section at %d changed other chunks:\n got %q\nwant %q", at, kept, want)
	}
}
