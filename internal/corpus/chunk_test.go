package corpus

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

func loadSeedDocs(t testing.TB) []kb.Document {
	t.Helper()
	docs, err := LoadDir("testdata/docs", "rag-eval")
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

func testDoc(body string) *kb.Document {
	return &kb.Document{
		DocID: "rag-eval/t", Source: "t", Title: "MySQL 连接池耗尽排查", Breadcrumb: "Database > MySQL",
		Category: "database", KBScope: "rag-eval", Body: body,
	}
}

type crumbText struct{ Breadcrumb, Text string }

func crumbsAndTexts(chunks []kb.Chunk) []crumbText {
	var out []crumbText
	for _, c := range chunks {
		out = append(out, crumbText{c.Breadcrumb, c.Text})
	}
	return out
}

// TestChunkFrontmatterOnlyWords pins SPEC §4: a word that appears only in
// the frontmatter (keywords, aliases, a title or category not in the body)
// appears in no chunk, at any chunk size.
func TestChunkFrontmatterOnlyWords(t *testing.T) {
	checked := make(map[string]bool)
	for _, doc := range loadSeedDocs(t) {
		terms := append(append([]string{doc.Title, doc.Category, doc.Breadcrumb}, doc.Keywords...), doc.Aliases...)
		body := textnorm.Normalize(doc.Body)
		for _, opts := range []ChunkOptions{{}, {MaxChars: 120, Overlap: 30}, {MaxChars: 40, Overlap: -1}} {
			chunks := Chunk(&doc, opts)
			if len(chunks) == 0 {
				t.Fatalf("%s: no chunks", doc.Source)
			}
			for _, term := range terms {
				n := textnorm.Normalize(term)
				if strings.Contains(body, n) {
					continue // in the body too: findable by right
				}
				checked[term] = true
				for _, c := range chunks {
					if strings.Contains(textnorm.Normalize(c.Text), n) {
						t.Errorf("%s: frontmatter-only %q is in chunk %s: %q", doc.Source, term, c.EvidenceKey, c.Text)
					}
				}
			}
		}
	}
	// The test means something only if these were checked.
	for _, term := range []string{"服务器磁盘", "pool exhausted", "连接数打满", "Linux 磁盘空间告警处理", "Ops > Linux > Disk", "ops"} {
		if !checked[term] {
			t.Errorf("%q was not checked: it is in a body, or no longer in the frontmatter", term)
		}
	}
}

func TestChunkSeedDocBreadcrumbs(t *testing.T) {
	doc := loadSeedDocs(t)[1]
	var got []string
	for _, c := range Chunk(&doc, ChunkOptions{}) {
		first, _, _ := strings.Cut(c.Text, "\n")
		got = append(got, c.EvidenceKey+" | "+c.Breadcrumb+" | "+first)
	}
	want := []string{
		"rag-eval/mysql-connection-pool# | Database > MySQL > Connection Pool | # MySQL 连接池耗尽排查",
		"rag-eval/mysql-connection-pool#症状 | Database > MySQL > Connection Pool > 症状 | ## 症状",
		"rag-eval/mysql-connection-pool#排查步骤 > 1. 查看当前连接数 | Database > MySQL > Connection Pool > 排查步骤 > 1. 查看当前连接数 | ### 1. 查看当前连接数",
		"rag-eval/mysql-connection-pool#排查步骤 > 2. 找出长时间空闲或阻塞的连接 | Database > MySQL > Connection Pool > 排查步骤 > 2. 找出长时间空闲或阻塞的连接 | ### 2. 找出长时间空闲或阻塞的连接",
		"rag-eval/mysql-connection-pool#排查步骤 > 3. 检查连接池配置 | Database > MySQL > Connection Pool > 排查步骤 > 3. 检查连接池配置 | ### 3. 检查连接池配置",
		"rag-eval/mysql-connection-pool#处理方法 | Database > MySQL > Connection Pool > 处理方法 | ## 处理方法",
		"rag-eval/mysql-connection-pool#预防 | Database > MySQL > Connection Pool > 预防 | ## 预防",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// TestChunkSections pins the heading rules: what is a heading, the
// breadcrumb path, the title H1, empty sections and fenced code.
func TestChunkSections(t *testing.T) {
	body := strings.Join([]string{
		"preamble text",
		"",
		"# MySQL 连接池耗尽排查", // equals the title: not in the path
		"intro",
		"## 排查步骤", // heading only: no chunk, but in its children's path
		"### Step 1 ###",
		"```bash",
		"# a shell comment, not a heading",
		"",
		"## also not a heading",
		"```",
		"after the code",
		"#hashtag is text",
		"####### seven is text",
		"    # indented four is code",
		"## ~~~ section ##",
		"~~~",
		"# tilde fence, unclosed to the end of the section",
		"~~~~",
		"### Deep",
		"deep text",
		"# Another H1",
		"text under another",
		"##",
		"under an empty heading",
		"  ## indented two",
		"last",
		"",
	}, "\n")
	got := crumbsAndTexts(Chunk(testDoc(body), ChunkOptions{}))
	want := []crumbText{
		{"Database > MySQL", "preamble text"},
		{"Database > MySQL", "# MySQL 连接池耗尽排查\nintro"},
		{"Database > MySQL > 排查步骤 > Step 1", "### Step 1 ###\n```bash\n# a shell comment, not a heading\n\n## also not a heading\n```\nafter the code\n#hashtag is text\n####### seven is text\n    # indented four is code"},
		{"Database > MySQL > ~~~ section", "## ~~~ section ##\n~~~\n# tilde fence, unclosed to the end of the section\n~~~~"},
		{"Database > MySQL > ~~~ section > Deep", "### Deep\ndeep text"},
		{"Database > MySQL > Another H1", "# Another H1\ntext under another"},
		{"Database > MySQL > Another H1", "##\nunder an empty heading"},
		{"Database > MySQL > Another H1 > indented two", "## indented two\nlast"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks\n got %q\nwant %q", got, want)
	}
}

// TestChunkUnclosedFence pins that an unclosed fence runs to the end of the
// body: no heading after it.
func TestChunkUnclosedFence(t *testing.T) {
	got := crumbsAndTexts(Chunk(testDoc("## A\n```\n# x\n## y\n"), ChunkOptions{}))
	want := []crumbText{{"Database > MySQL > A", "## A\n```\n# x\n## y"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks %q, want %q", got, want)
	}
}

// TestChunkNeverCrossesHeadings fills every line of section k with the
// marker S<k> and checks that no chunk holds two markers, at sizes that
// force splitting.
func TestChunkNeverCrossesHeadings(t *testing.T) {
	var b strings.Builder
	sections := 0 // with text
	for k := range 12 {
		fmt.Fprintf(&b, "%s heading S%02d\n", strings.Repeat("#", k%4+1), k)
		for p := range k % 5 {
			for range 3 {
				fmt.Fprintf(&b, "S%02d 连接池 max_connections 第%d段。S%02d check the pool. ", k, p, k)
			}
			b.WriteString("\n\n")
		}
		if k%5 != 0 {
			sections++
		}
	}
	for _, opts := range []ChunkOptions{{}, {MaxChars: 60}, {MaxChars: 25, Overlap: 10}, {MaxChars: 7}} {
		seen := make(map[string]bool)
		for _, c := range Chunk(testDoc(b.String()), opts) {
			markers := make(map[string]bool)
			for i := strings.Index(c.Text, "S"); i >= 0; {
				if i+3 <= len(c.Text) && c.Text[i+1] >= '0' && c.Text[i+1] <= '9' {
					markers[c.Text[i:i+3]] = true
				}
				j := strings.Index(c.Text[i+1:], "S")
				if j < 0 {
					break
				}
				i += 1 + j
			}
			if len(markers) > 1 {
				t.Errorf("%+v: chunk %d spans sections %v: %q", opts, c.ChunkIndex, markers, c.Text)
			}
			for m := range markers {
				seen[m] = true
				if !strings.HasSuffix(c.Breadcrumb, "heading "+m) {
					t.Errorf("%+v: chunk %d of %s has breadcrumb %q", opts, c.ChunkIndex, m, c.Breadcrumb)
				}
			}
		}
		if len(seen) != sections {
			t.Errorf("%+v: chunks of %d sections, want %d", opts, len(seen), sections)
		}
	}
}

// TestChunkMaxCharsCJK pins that sizes count characters, not bytes: CJK
// text without any boundary is cut hard at exactly MaxChars characters.
func TestChunkMaxCharsCJK(t *testing.T) {
	text := strings.Repeat("连接池耗尽时先确认应用是否归还连接再调大最大连接数", 30) // 24 runes, no punctuation
	chunks := Chunk(testDoc(text), ChunkOptions{MaxChars: 100, Overlap: -1})
	var joined strings.Builder
	for i, c := range chunks {
		n := utf8.RuneCountInString(c.Text)
		if n > 100 {
			t.Errorf("chunk %d has %d characters", i, n)
		}
		if i < len(chunks)-1 && n != 100 {
			t.Errorf("chunk %d has %d characters, want a hard cut at 100", i, n)
		}
		joined.WriteString(c.Text)
	}
	if len(chunks) != 8 {
		t.Errorf("%d chunks, want 8", len(chunks))
	}
	if joined.String() != text {
		t.Errorf("the chunks joined:\n%q\nwant the text:\n%q", joined.String(), text)
	}
}

// TestChunkBoundaries pins where long sections are cut: at paragraphs,
// then lines, then sentences (。 always, '.' before white space), then
// white space, each only if it leaves the piece at least half full.
var chunkBoundaryTests = []struct {
	name string
	body string
	max  int
	want []string
}{
	{"paragraphs", "aaaa aaaa.\n\nbbbb bbbb.\n\ncccc cccc.", 24,
		[]string{"aaaa aaaa.\n\nbbbb bbbb.", "cccc cccc."}},
	{"paragraph too early: line", "aa.\n\nbbbb bbbb\ncccc cccc. dddd", 24,
		[]string{"aa.\n\nbbbb bbbb", "cccc cccc. dddd"}},
	{"lines before sentences", "1. 第一步。第二句。\n2. 第二步。第三句。第四句。", 20,
		[]string{"1. 第一步。第二句。", "2. 第二步。第三句。第四句。"}},
	{"CJK sentences need no space", "连接池耗尽了。请检查配置文件。然后重启应用程序。", 16,
		[]string{"连接池耗尽了。请检查配置文件。", "然后重启应用程序。"}},
	{"closing quote stays with the sentence", "他说：“连接池满了。”然后重启了应用程序吧", 14,
		[]string{"他说：“连接池满了。”", "然后重启了应用程序吧"}},
	{"ASCII period needs a space", "version 8.0.32 is fine. restart it now", 28,
		[]string{"version 8.0.32 is fine.", "restart it now"}},
	{"white space", "alpha beta gamma delta epsilon", 12,
		[]string{"alpha beta", "gamma delta", "epsilon"}},
	{"boundary in the first half only", "ab cdefghijklmnopqrstuvwxyz", 10,
		[]string{"ab", "cdefghijkl", "mnopqrstuv", "wxyz"}},
	{"a blank line in a fence is no paragraph", "```\naaaa\n\nbbbb\ncccc\n```\ndddd", 18,
		[]string{"```\naaaa\n\nbbbb", "cccc\n```\ndddd"}},
	{"a fence is a paragraph", "aaaa aaaa aaaa\n```\nbbbb\n```\ncccc", 24,
		[]string{"aaaa aaaa aaaa", "```\nbbbb\n```\ncccc"}},
	{"combining mark stays with its letter", "abcde\u0301fgh", 5,
		[]string{"abcd", "e\u0301fgh"}},
}

func TestChunkBoundaries(t *testing.T) {
	for _, tt := range chunkBoundaryTests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Chunk(testDoc(tt.body), ChunkOptions{MaxChars: tt.max, Overlap: -1}) {
				got = append(got, c.Text)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("chunks\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestChunkOverlap pins the overlap: the end of the previous piece of the
// same section, at most Overlap characters, starting at a boundary, and
// never across sections.
func TestChunkOverlap(t *testing.T) {
	para := "Check max_connections first. Then count the sleeping connections. " +
		"Kill the idle ones. Fix the leak in the application. Lower wait_timeout. "
	body := "## One\n" + strings.Repeat(para, 4) + "\n## Two\n" + strings.Repeat(para, 2)
	const maxChars, overlap = 120, 40
	chunks := Chunk(testDoc(body), ChunkOptions{MaxChars: maxChars, Overlap: overlap})
	noOverlap := Chunk(testDoc(body), ChunkOptions{MaxChars: maxChars, Overlap: -1})
	if len(chunks) < 6 {
		t.Fatalf("%d chunks: the test needs split sections", len(chunks))
	}
	overlapped := 0
	for i, c := range chunks {
		if n := utf8.RuneCountInString(c.Text); n > maxChars {
			t.Errorf("chunk %d: %d characters", i, n)
		}
		if i == 0 || c.Breadcrumb != chunks[i-1].Breadcrumb {
			if strings.HasPrefix(c.Text, "## ") != true {
				t.Errorf("chunk %d starts a section but not with its heading: %q", i, c.Text)
			}
			continue
		}
		// The longest prefix of c that is a suffix of the previous chunk.
		prev := chunks[i-1].Text
		k := 0
		for j := range c.Text {
			if j > 0 && strings.HasSuffix(prev, c.Text[:j]) {
				k = j
			}
		}
		ov := c.Text[:k]
		if n := utf8.RuneCountInString(strings.TrimSpace(ov)); n == 0 || n > overlap {
			t.Errorf("chunk %d: overlap %q has %d characters, want 1..%d", i, ov, n, overlap)
		} else {
			overlapped++
		}
		if c := ov[0]; c == ' ' || 'a' <= c && c <= 'z' && strings.HasSuffix(prev, "x"+ov) {
			t.Errorf("chunk %d: overlap %q does not start at a word", i, ov)
		}
	}
	if overlapped == 0 {
		t.Errorf("no overlap found")
	}
	// Without overlap, the pieces of a section are its text, cut.
	var got, want strings.Builder
	for _, c := range noOverlap {
		got.WriteString(strings.Join(strings.Fields(c.Text), ""))
	}
	want.WriteString(strings.Join(strings.Fields(body), ""))
	if got.String() != want.String() {
		t.Errorf("pieces without overlap do not add up to the body")
	}
}

func TestChunkOptionsResolved(t *testing.T) {
	tests := []struct {
		in            ChunkOptions
		max, overlap_ int
	}{
		{ChunkOptions{}, 800, 100},
		{ChunkOptions{MaxChars: -5}, 800, 100},
		{ChunkOptions{MaxChars: 500, Overlap: 50}, 500, 50},
		{ChunkOptions{Overlap: -1}, 800, 0},
		{ChunkOptions{MaxChars: 100, Overlap: 90}, 100, 50},
		{ChunkOptions{MaxChars: 1, Overlap: 5}, 1, 0},
	}
	for _, tt := range tests {
		if m, o := tt.in.resolved(); m != tt.max || o != tt.overlap_ {
			t.Errorf("%+v resolved to %d, %d; want %d, %d", tt.in, m, o, tt.max, tt.overlap_)
		}
	}
}

func TestChunkMetadata(t *testing.T) {
	doc := &kb.Document{
		DocID: "custom/id", Source: "src", Title: "T", Breadcrumb: "A > B", Category: "cat",
		KBScope: "rag-eval", Keywords: []string{"kw"}, Body: "one\n## Two\ntwo\n",
	}
	got := Chunk(doc, ChunkOptions{})
	want := []kb.Chunk{
		{EvidenceKey: "custom/id#", DocID: "custom/id", Source: "src", Title: "T", Breadcrumb: "A > B",
			Category: "cat", KBScope: "rag-eval", ChunkIndex: 0, Text: "one"},
		{EvidenceKey: "custom/id#Two", DocID: "custom/id", Source: "src", Title: "T", Breadcrumb: "A > B > Two",
			Category: "cat", KBScope: "rag-eval", ChunkIndex: 1, Text: "## Two\ntwo"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks\n got %+v\nwant %+v", got, want)
	}
	if again := Chunk(doc, ChunkOptions{}); !reflect.DeepEqual(again, got) {
		t.Errorf("not deterministic")
	}
	if chunks := Chunk(testDoc(" \n\n"), ChunkOptions{}); chunks != nil {
		t.Errorf("blank body: %+v", chunks)
	}
}

// TestChunkCRLFBody pins that a body with CRLF line endings (a Document
// not made by Parse) gives the same sections as with LF.
func TestChunkCRLFBody(t *testing.T) {
	lf := "intro\n\n## 排查步骤\n```\n# x\n```\ntext\n"
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	a := crumbsAndTexts(Chunk(testDoc(lf), ChunkOptions{}))
	b := crumbsAndTexts(Chunk(testDoc(crlf), ChunkOptions{}))
	for i := range b {
		b[i].Text = strings.ReplaceAll(b[i].Text, "\r", "")
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("LF %q\nCRLF %q", a, b)
	}
}
