package corpus

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// keysOf returns "key | first line" of every chunk.
func keysOf(doc *kb.Document, opts ChunkOptions) []string {
	var out []string
	for _, c := range Chunk(doc, opts) {
		first, _, _ := strings.Cut(c.Text, "\n")
		out = append(out, c.EvidenceKey+" | "+first)
	}
	return out
}

// keyBody is a document with a title H1, nested sections, a section too
// long for one chunk, a duplicate heading path and a heading with '#'.
var keyBody = strings.Join([]string{
	"# MySQL 连接池耗尽排查", // the title: left out of paths
	"intro",
	"## 症状",
	"too many connections",
	"## 排查步骤", // no text: no chunk, still a parent
	"### 1. 查看当前连接数",
	"SHOW PROCESSLIST;",
	"### 2. 找出阻塞的连接",
	strings.Repeat("长句子。", 30), // 120 characters: 3 pieces at 50
	"## 处理",
	"first",
	"## 处理", // the second section of path 处理
	"second",
	"## C# @user ~home",
	"escaped",
	"",
}, "\n")

func TestEvidenceKeys(t *testing.T) {
	got := keysOf(testDoc(keyBody), ChunkOptions{MaxChars: 50, Overlap: -1})
	want := []string{
		"rag-eval/t# | # MySQL 连接池耗尽排查",
		"rag-eval/t#症状 | ## 症状",
		"rag-eval/t#排查步骤 > 1. 查看当前连接数 | ### 1. 查看当前连接数",
		"rag-eval/t#排查步骤 > 2. 找出阻塞的连接 | ### 2. 找出阻塞的连接",
		"rag-eval/t#排查步骤 > 2. 找出阻塞的连接~2 | " + strings.Repeat("长句子。", 12),
		"rag-eval/t#排查步骤 > 2. 找出阻塞的连接~3 | " + strings.Repeat("长句子。", 10),
		"rag-eval/t#处理 | ## 处理",
		"rag-eval/t#处理@2 | ## 处理",
		"rag-eval/t#C%23 %40user %7Ehome | ## C# @user ~home",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keys\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// TestEvidenceKeysPreamble: text before the first heading is the
// document's top, like the section of a title H1; a body with both has
// the top twice.
func TestEvidenceKeysPreamble(t *testing.T) {
	for _, tt := range []struct {
		body string
		want []string
	}{
		{"just text\n\nmore", []string{"rag-eval/t# | just text"}},
		{"\n\n## A\na", []string{"rag-eval/t#A | ## A"}},
		{"note\n# MySQL 连接池耗尽排查\nintro\n## A\na", []string{
			"rag-eval/t# | note", "rag-eval/t#@2 | # MySQL 连接池耗尽排查", "rag-eval/t#A | ## A"}},
		// A heading without text ends deeper sections and adds nothing:
		// its section has its parent's path.
		{"## A\na\n### B\nb\n###\nc", []string{"rag-eval/t#A | ## A", "rag-eval/t#A > B | ### B", "rag-eval/t#A@2 | ###"}},
		// An H1 that is not the title is in the path.
		{"# Other\nx\n## A\na", []string{"rag-eval/t#Other | # Other", "rag-eval/t#Other > A | ## A"}},
		// Control characters are escaped.
		{"## a\tb\nx", []string{"rag-eval/t#a%09b | ## a\tb"}},
	} {
		if got := keysOf(testDoc(tt.body), ChunkOptions{}); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.body, got, tt.want)
		}
	}
}

// keyMap maps the key of every chunk to its text.
func keyMap(t *testing.T, body string, opts ChunkOptions) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, c := range Chunk(testDoc(body), opts) {
		if _, dup := m[c.EvidenceKey]; dup {
			t.Fatalf("duplicate key %q", c.EvidenceKey)
		}
		m[c.EvidenceKey] = c.Text
	}
	return m
}

// TestEvidenceKeysStable pins the point of the rule: inserting or
// removing an unrelated section above or below leaves every other chunk's
// key unchanged, and renaming a heading changes the keys of its section
// and of the sections under it only.
func TestEvidenceKeysStable(t *testing.T) {
	opts := ChunkOptions{MaxChars: 50, Overlap: 10}
	before := keyMap(t, keyBody, opts)
	for _, tt := range []struct {
		name, old, new string
	}{
		{"above", "## 症状", "## 新增\nnew text\n## 症状"},
		{"below", "## C# @user", "## 新增\nnew text\n## C# @user"},
		{"at the end", "escaped\n", "escaped\n## 新增\nnew text\n"},
		{"a subsection", "### 2.", "### 1.5 新增\nnew text\n### 2."},
		{"a long section", "## 处理\nfirst", "## 新增\n" + strings.Repeat("新的内容。", 40) + "\n## 处理\nfirst"},
	} {
		t.Run("insert "+tt.name, func(t *testing.T) {
			after := keyMap(t, strings.Replace(keyBody, tt.old, tt.new, 1), opts)
			for k, text := range before {
				if after[k] != text {
					t.Errorf("%q: %q, was %q", k, after[k], text)
				}
			}
			for k := range after {
				if _, ok := before[k]; !ok && !strings.Contains(k, "新增") {
					t.Errorf("new key %q", k)
				}
			}
			// Removing it again gives back the keys.
			if !reflect.DeepEqual(keyMap(t, keyBody, opts), before) {
				t.Error("not deterministic")
			}
		})
	}

	t.Run("rename", func(t *testing.T) {
		after := keyMap(t, strings.Replace(keyBody, "## 排查步骤", "## 排查", 1), opts)
		for k, text := range before {
			moved := strings.HasPrefix(k, "rag-eval/t#排查步骤 > ")
			if got, ok := after[k]; ok == moved {
				t.Errorf("%q: present %v after renaming its parent, want %v", k, ok, !moved)
			} else if ok && got != text {
				t.Errorf("%q after renaming its parent: %q, want %q as before", k, got, text)
			}
			if moved {
				nk := strings.Replace(k, "#排查步骤 > ", "#排查 > ", 1)
				if after[nk] != text {
					t.Errorf("%q: renamed %q is %q", k, nk, after[nk])
				}
			}
		}
		if len(after) != len(before) {
			t.Errorf("%d chunks, was %d", len(after), len(before))
		}
	})

	// Editing a section's text changes no key, even where it adds a piece
	// (the new piece gets a key of its own).
	t.Run("edit", func(t *testing.T) {
		after := keyMap(t, strings.Replace(keyBody, "too many connections", strings.Repeat("更多文字。", 20), 1), opts)
		for k := range before {
			if _, ok := after[k]; !ok {
				t.Errorf("%q is gone", k)
			}
		}
		if _, ok := after["rag-eval/t#症状~2"]; !ok {
			t.Errorf("no second piece: %q", after)
		}
	})
}

// TestEvidenceKeysStableRandom is the property on random documents:
// inserting a section with a heading of its own before any heading of
// the same level, or at the end, keeps every other key and text.
func TestEvidenceKeysStableRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"A", "B", "处理", "症状", "C#", "x@y", "a > b", "", "MySQL 连接池耗尽排查"}
	for n := 0; n < 500; n++ {
		var lines []string
		if rng.IntN(3) == 0 {
			lines = append(lines, "preamble")
		}
		for range 1 + rng.IntN(12) {
			lines = append(lines, strings.Repeat("#", 1+rng.IntN(4))+" "+words[rng.IntN(len(words))])
			for range rng.IntN(3) {
				lines = append(lines, strings.Repeat(fmt.Sprintf("text %d. ", rng.IntN(100)), 1+rng.IntN(8)))
			}
		}
		body := strings.Join(lines, "\n") + "\n"
		opts := ChunkOptions{MaxChars: 40 + rng.IntN(60), Overlap: rng.IntN(20) - 1}
		doc := testDoc(body)
		chunks := Chunk(doc, opts)
		checkInsertKeepsKeys(t, doc, opts, chunks, scanLines(body))
		// And anywhere before a heading of the same or a higher level.
		ls := scanLines(body)
		for i, l := range ls {
			if l.kind != lineHeading {
				continue
			}
			ins := strings.Repeat("#", l.level) + " Inserted ZQX\n\ninserted\n"
			edited := *doc
			edited.Body = body[:l.start] + ins + body[l.start:]
			var got, want []string
			for _, c := range Chunk(&edited, opts) {
				if !strings.Contains(c.Breadcrumb, "Inserted ZQX") {
					got = append(got, c.EvidenceKey+"\x00"+c.Text)
				}
			}
			for _, c := range chunks {
				want = append(want, c.EvidenceKey+"\x00"+c.Text)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("inserting before line %d of\n%s\nchanged\n got %q\nwant %q", i, body, got, want)
			}
		}
	}
}

// A section path too long for a readable key is cut and hashed: the key
// stays within the stores' limit with the longest doc_id, and two long
// paths sharing their start stay apart.
func TestEvidenceKeysLongPath(t *testing.T) {
	long := strings.Repeat("很长的标题", 100) // 1,500 bytes
	doc := testDoc("## " + long + "A\na\n## " + long + "B\nb\n## " + long + "A\nc\n")
	doc.DocID = strings.Repeat("d", MaxDocIDLen)
	chunks := Chunk(doc, ChunkOptions{MaxChars: 1, Overlap: -1}) // many pieces
	seen := map[string]bool{}
	for _, c := range chunks {
		if err := kb.CheckEvidenceKey(doc.DocID, c.EvidenceKey); err != nil {
			t.Fatal(err)
		}
		if seen[c.EvidenceKey] {
			t.Fatalf("duplicate key %q", c.EvidenceKey)
		}
		seen[c.EvidenceKey] = true
	}
	k := chunks[0].EvidenceKey
	label := strings.TrimPrefix(k, doc.DocID+"#")
	if head := strings.Split(label, "…")[0]; !strings.HasPrefix(long, head) {
		t.Errorf("label %q does not start with a prefix of the heading", label)
	}
	if len(label) > kb.MaxSectionLabelLen {
		t.Errorf("label of %d bytes, want at most %d: %q", len(label), kb.MaxSectionLabelLen, label)
	}
	// The second section of the same path has keys of its own.
	for _, want := range []string{k + "@2", k + "@2~2"} {
		if !seen[want] {
			t.Errorf("no key %q among %q", want, slices.Sorted(maps.Keys(seen)))
		}
	}
}
