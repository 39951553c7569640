package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/diag"
	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// valid is a frontmatter with every required key; tests replace lines of
// it.
const valid = `source: mysql-pool
breadcrumb: Database > MySQL > Connection Pool
category: database
kb_scope: rag-eval
`

const body = "# MySQL 连接池耗尽排查\n\n连接池满了。\n"

func file(front, body string) []byte { return []byte("---\n" + front + "---\n" + body) }

// problemStrings renders problems as file:line: message.
func problemStrings(ps diag.List) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Error())
	}
	return out
}

func TestParseValid(t *testing.T) {
	data := file(`# comment line
source: mysql-pool            # trailing comment
title: "MySQL \"连接池\" \u8017尽 \x41"
breadcrumb: 'Database > MySQL > Connection Pool'
category: database
kb_scope: rag-eval
keywords: [连接池, "too many, connections", 'it''s', max_connections]  # hints
aliases:
  # a comment inside the list
  - pool exhausted
  - "连接数打满"   # comment

doc_id: rag-eval/mysql#pool:v1
`, body)
	doc, problems := Parse("t.md", data, "rag-eval")
	if problems != nil {
		t.Fatalf("problems: %q", problemStrings(problems))
	}
	sum := sha256.Sum256(data)
	want := &kb.Document{
		DocID:       "rag-eval/mysql#pool:v1",
		Source:      "mysql-pool",
		Title:       `MySQL "连接池" 耗尽 A`,
		Breadcrumb:  "Database > MySQL > Connection Pool",
		Category:    "database",
		KBScope:     "rag-eval",
		Keywords:    []string{"连接池", "too many, connections", "it's", "max_connections"},
		Aliases:     []string{"pool exhausted", "连接数打满"},
		Body:        body,
		ContentHash: hex.EncodeToString(sum[:]),
		Path:        "t.md",
	}
	if !reflect.DeepEqual(doc, want) {
		t.Errorf("Parse\n got %+v\nwant %+v", doc, want)
	}
}

func TestParseDefaults(t *testing.T) {
	tests := []struct {
		name, front, body   string
		wantTitle, wantID   string
		wantKeywords, alias []string
	}{
		{"title from first H1", valid, "intro\n## Sub\n# First H1 #\n# Second\n", "First H1", "rag-eval/mysql-pool", nil, nil},
		{"H1 in a code fence is not the title", valid, "```\n# not a heading\n```\n# Real\n", "Real", "rag-eval/mysql-pool", nil, nil},
		{"no H1: source", valid, "## Only H2\n\ntext\n", "mysql-pool", "rag-eval/mysql-pool", nil, nil},
		{"frontmatter title wins", "title: Given\n" + valid, "# Body H1\ntext\n", "Given", "rag-eval/mysql-pool", nil, nil},
		{"empty flow list", valid + "keywords: []\n", "text\n", "mysql-pool", "rag-eval/mysql-pool", []string{}, nil},
		{"source with dots", strings.Replace(valid, "mysql-pool", "a.b_c-9", 1), "text\n", "a.b_c-9", "rag-eval/a.b_c-9", nil, nil},
		{"items trimmed", valid + "keywords: [ a , ' b ' ]\naliases:\n- x\n- ' y '\n", "text\n", "mysql-pool", "rag-eval/mysql-pool", []string{"a", "b"}, []string{"x", "y"}},
		{"plain values keep # without space and quotes inside", valid + "keywords: [C#, it's, a\"b]\n", "t\n", "mysql-pool", "rag-eval/mysql-pool", []string{"C#", "it's", `a"b`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, problems := Parse("t.md", file(tt.front, tt.body), "rag-eval")
			if problems != nil {
				t.Fatalf("problems: %q", problemStrings(problems))
			}
			if doc.Title != tt.wantTitle || doc.DocID != tt.wantID {
				t.Errorf("title %q, doc_id %q; want %q, %q", doc.Title, doc.DocID, tt.wantTitle, tt.wantID)
			}
			if !reflect.DeepEqual(doc.Keywords, tt.wantKeywords) || !reflect.DeepEqual(doc.Aliases, tt.alias) {
				t.Errorf("keywords %#v, aliases %#v; want %#v, %#v", doc.Keywords, doc.Aliases, tt.wantKeywords, tt.alias)
			}
			if doc.Body != tt.body {
				t.Errorf("body %q, want %q", doc.Body, tt.body)
			}
		})
	}
}

// withLine returns valid with old replaced by repl.
func withLine(old, repl string) string { return strings.Replace(valid, old, repl, 1) }

// parseProblemTests pin every validation rule and its exact message. The
// fuzz target starts from them too.
var parseProblemTests = []struct {
	name string
	data string
	want []string
}{
	{"missing frontmatter", "# Title\ntext\n", []string{`t.md:1: missing frontmatter (the file must start with a "---" line)`}},
	{"frontmatter not first", "\n---\n" + valid + "---\ntext\n", []string{`t.md:1: missing frontmatter (the file must start with a "---" line)`}},
	{"unterminated frontmatter", "---\n" + valid + "text\n", []string{`t.md:1: frontmatter is not closed (no "---" line after the first one)`}},
	{"only an opening line", "---", []string{`t.md:1: frontmatter is not closed (no "---" line after the first one)`}},
	{"invalid UTF-8", "---\n" + valid + "title: caf\xe9\n---\ntext\n", []string{"t.md:6: invalid UTF-8"}},
	{"invalid UTF-8 in body, CRLF", "---\r\n" + valid + "---\r\nok\r\n\xff\r\n", []string{"t.md:8: invalid UTF-8"}},
	{"empty body", "---\n" + valid + "---\n", []string{"t.md:1: empty body (nothing but white space after the frontmatter)"}},
	{"blank body", "---\n" + valid + "---\n \n\t\n\u3000\n", []string{"t.md:1: empty body (nothing but white space after the frontmatter)"}},
	{"headings only", "---\n" + valid + "---\n# Title\n\n## Part\n", []string{"t.md:1: body has only headings (no text to search)"}},
	{"missing required keys", "---\ntitle: x\n---\ntext\n", []string{
		`t.md:1: missing required key "source"`,
		`t.md:1: missing required key "breadcrumb"`,
		`t.md:1: missing required key "category"`,
		`t.md:1: missing required key "kb_scope"`,
	}},
	{"unknown key", "---\n" + valid + "Source: x\ntags: [a]\n---\ntext\n", []string{
		`t.md:6: unknown key "Source" (known keys: source, title, breadcrumb, category, kb_scope, keywords, aliases, doc_id)`,
		`t.md:7: unknown key "tags" (known keys: source, title, breadcrumb, category, kb_scope, keywords, aliases, doc_id)`,
	}},
	{"duplicate key", "---\n" + valid + "category: ops\n---\ntext\n", []string{`t.md:6: duplicate key "category" (first on line 4)`}},
	{"source not a slug", "---\n" + withLine("mysql-pool", "MySQL Pool") + "---\ntext\n", []string{`t.md:2: source "MySQL Pool" does not match [a-z0-9][a-z0-9._-]*`}},
	{"source path traversal", "---\n" + withLine("mysql-pool", "../etc") + "---\ntext\n", []string{`t.md:2: source "../etc" does not match [a-z0-9][a-z0-9._-]*`}},
	{"source with slash", "---\n" + withLine("mysql-pool", "a/b") + "---\ntext\n", []string{`t.md:2: source "a/b" does not match [a-z0-9][a-z0-9._-]*`}},
	{"source too long", "---\n" + withLine("mysql-pool", strings.Repeat("a", 129)) + "---\ntext\n", []string{`t.md:2: source: longer than 128 bytes`}},
	{"wrong kb_scope", "---\n" + withLine("kb_scope: rag-eval", "kb_scope: prod") + "---\ntext\n", []string{`t.md:5: kb_scope "prod" does not match the kb scope being loaded ("rag-eval")`}},
	{"doc_id pattern", "---\n" + valid + "doc_id: has space\n---\ntext\n", []string{`t.md:6: doc_id "has space" does not match [A-Za-z0-9][A-Za-z0-9._:/#-]*`}},
	{"doc_id leading dash", "---\n" + valid + "doc_id: -x\n---\ntext\n", []string{`t.md:6: doc_id "-x" does not match [A-Za-z0-9][A-Za-z0-9._:/#-]*`}},
	{"default doc_id invalid", "---\n" + withLine("kb_scope: rag-eval", "kb_scope: rag eval") + "---\ntext\n", []string{
		`t.md:5: kb_scope "rag eval" does not match the kb scope being loaded ("rag-eval")`,
	}},
	{"default doc_id invalid in its scope", "---\n" + withLine("kb_scope: rag-eval", "kb_scope: rag eval") + "---\ntext\n", []string{`t.md:5: default doc_id "rag eval/mysql-pool" (kb_scope/source) does not match [A-Za-z0-9][A-Za-z0-9._:/#-]* or is longer than 256 bytes; set doc_id`}},
	{"breadcrumb without segments", "---\n" + withLine("Database > MySQL > Connection Pool", "'> / ›'") + "---\ntext\n", []string{`t.md:3: breadcrumb "> / ›" has no segments`}},
	{"empty value", "---\n" + valid + "title:\n---\ntext\n", []string{`t.md:6: title: empty value (remove the key to leave it out)`}},
	{"empty quoted value", "---\n" + withLine("category: database", `category: "  "`) + "---\ntext\n", []string{`t.md:4: category: empty value`}},
	{"control character", "---\n" + valid + `title: "a\tb"` + "\n---\ntext\n", []string{`t.md:6: title: contains a control character`}},
	{"null", "---\n" + valid + "title: ~\n---\ntext\n", []string{`t.md:6: title: null is not a value (remove the key, or quote the value)`}},
	{"list for a scalar", "---\n" + withLine("category: database", "category: [database]") + "---\ntext\n", []string{`t.md:4: category: must be a single value, not a list`}},
	{"block list for a scalar", "---\n" + withLine("category: database", "category:\n  - database") + "---\ntext\n", []string{`t.md:4: category: must be a single value, not a list`}},
	{"scalar for a list", "---\n" + valid + "keywords: 连接池\n---\ntext\n", []string{`t.md:6: keywords: must be a list, such as [a, b]`}},
	{"empty list item", "---\n" + valid + "keywords: [a, , b]\n---\ntext\n", []string{`t.md:6: keywords: empty list item`}},
	{"trailing comma", "---\n" + valid + "keywords: [a, b,]\n---\ntext\n", []string{`t.md:6: keywords: empty list item`}},
	{"empty quoted item", "---\n" + valid + "aliases:\n  - ok\n  - ''\n---\ntext\n", []string{`t.md:8: aliases: empty item`}},
	{"duplicate item after normalisation", "---\n" + valid + "keywords:\n  - MySQL\n  - ＭｙＳＱＬ\n---\ntext\n", []string{`t.md:8: keywords: duplicate item "ＭｙＳＱＬ" (first on line 7)`}},
	{"unterminated list", "---\n" + valid + "keywords: [a, b\n  c]\n---\ntext\n", []string{
		`t.md:6: keywords: unterminated list (a [...] list must close on its line)`,
		`t.md:7: unexpected indented line (values must be on the line of their key; list items need a "key:" line above)`,
	}},
	{"nested list", "---\n" + valid + "keywords: [a, [b]]\n---\ntext\n", []string{`t.md:6: keywords: nested lists and mappings are not supported`}},
	{"flow mapping", "---\n" + valid + "title: {a: b}\n---\ntext\n", []string{`t.md:6: title: a plain value cannot start with "{" (quote the value)`}},
	{"block scalar", "---\n" + valid + "title: |\n  long\n---\ntext\n", []string{
		`t.md:6: title: a plain value cannot start with "|" (quote the value)`,
		`t.md:7: unexpected indented line (values must be on the line of their key; list items need a "key:" line above)`,
	}},
	{"colon in plain value", "---\n" + valid + "title: Note: read this\n---\ntext\n", []string{`t.md:6: title: a plain value cannot contain ": " (quote the value)`}},
	{"anchor", "---\n" + valid + "title: &a x\n---\ntext\n", []string{`t.md:6: title: a plain value cannot start with "&" (quote the value)`}},
	{"no space after colon", "---\n" + valid + "title:x\n---\ntext\n", []string{`t.md:6: expected "key: value"`}},
	{"quoted key", "---\n" + valid + "\"title\": x\n---\ntext\n", []string{`t.md:6: expected "key: value"`}},
	{"space before colon", "---\n" + valid + "title : x\n---\ntext\n", []string{`t.md:6: expected "key: value"`}},
	{"unterminated double quote", "---\n" + valid + "title: \"abc\n---\ntext\n", []string{`t.md:6: title: unterminated quoted value (multi-line values are not supported)`}},
	{"unterminated single quote", "---\n" + valid + "title: 'it''s\n---\ntext\n", []string{`t.md:6: title: unterminated quoted value (multi-line values are not supported)`}},
	{"unknown escape", "---\n" + valid + `title: "a\qb"` + "\n---\ntext\n", []string{`t.md:6: title: unknown escape \q in a quoted value`}},
	{"surrogate escape", "---\n" + valid + `title: "\ud800"` + "\n---\ntext\n", []string{`t.md:6: title: escape \ud800 is not a Unicode character`}},
	{"short escape", "---\n" + valid + `title: "\u12"` + "\n---\ntext\n", []string{`t.md:6: title: short \u escape in a quoted value`}},
	{"text after quotes", "---\n" + valid + `title: "a" b` + "\n---\ntext\n", []string{`t.md:6: title: unexpected text "b" after the value`}},
	{"comment glued to quotes", "---\n" + valid + `title: "a"#b` + "\n---\ntext\n", []string{`t.md:6: title: unexpected text "#b" after the value`}},
	{"text after list", "---\n" + valid + "keywords: [a] b\n---\ntext\n", []string{`t.md:6: keywords: unexpected text "b" after the value`}},
	// Long text is quoted cut to 40 characters, "..." included.
	{"long text after quotes", "---\n" + valid + `title: "a" ` + strings.Repeat("连", 41) + "\n---\ntext\n", []string{`t.md:6: title: unexpected text "` + strings.Repeat("连", 37) + `..." after the value`}},
	{"text after quotes at the limit", "---\n" + valid + `title: "a" ` + strings.Repeat("连", 40)[3:] + "x\n---\ntext\n", []string{`t.md:6: title: unexpected text "` + strings.Repeat("连", 39) + `x" after the value`}},
	{"tab indentation", "---\n" + valid + "keywords:\n\t- a\n---\ntext\n", []string{`t.md:7: tab in indentation (YAML allows only spaces)`}},
	{"item without key", "---\n" + valid + "- a\n---\ntext\n", []string{`t.md:6: list item without a "key:" line above it`}},
	{"indented line", "---\n" + valid + "  title: x\n---\ntext\n", []string{`t.md:6: unexpected indented line (values must be on the line of their key; list items need a "key:" line above)`}},
	{"multi-line value", "---\n" + valid + "title:\n  continued\n---\ntext\n", []string{`t.md:7: unexpected indented line (values must be on the line of their key; multi-line values are not supported)`}},
	{"inconsistent item indentation", "---\n" + valid + "aliases:\n  - a\n    - b\n---\ntext\n", []string{`t.md:8: list item indented differently from the first item`}},
	{"nested block list", "---\n" + valid + "aliases:\n  - [a]\n---\ntext\n", []string{`t.md:7: aliases: nested lists are not supported`}},
	{"many problems, sorted by line", "---\nsource: Bad\nfoo: 1\nkb_scope: other\ncategory: x\ncategory: y\n---\n", []string{
		`t.md:1: missing required key "breadcrumb"`,
		`t.md:1: empty body (nothing but white space after the frontmatter)`,
		`t.md:2: source "Bad" does not match [a-z0-9][a-z0-9._-]*`,
		`t.md:3: unknown key "foo" (known keys: source, title, breadcrumb, category, kb_scope, keywords, aliases, doc_id)`,
		`t.md:4: kb_scope "other" does not match the kb scope being loaded ("rag-eval")`,
		`t.md:6: duplicate key "category" (first on line 5)`,
	}},
	{"CRLF line numbers", strings.ReplaceAll("---\n"+valid+"foo: x\n---\ntext\n", "\n", "\r\n"), []string{
		`t.md:6: unknown key "foo" (known keys: source, title, breadcrumb, category, kb_scope, keywords, aliases, doc_id)`,
	}},
	{"BOM keeps line numbers", "\uFEFF---\n" + valid + "foo: x\n---\ntext\n", []string{
		`t.md:6: unknown key "foo" (known keys: source, title, breadcrumb, category, kb_scope, keywords, aliases, doc_id)`,
	}},
	{"BOM not at start", "---\n\uFEFF" + valid + "---\ntext\n", []string{
		`t.md:1: missing required key "source"`,
		`t.md:2: expected "key: value"`,
	}},
}

func TestParseProblems(t *testing.T) {
	for _, tt := range parseProblemTests {
		t.Run(tt.name, func(t *testing.T) {
			scope := "rag-eval"
			if strings.HasSuffix(tt.name, "in its scope") {
				scope = "rag eval"
			}
			doc, problems := Parse("t.md", []byte(tt.data), scope)
			if doc != nil {
				t.Errorf("Parse returned a document with problems: %+v", doc)
			}
			if got := problemStrings(problems); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseFileTooLarge(t *testing.T) {
	data := file(valid, strings.Repeat("x", MaxFileSize))
	_, problems := Parse("big.md", data, "rag-eval")
	if got, want := problemStrings(problems), []string{"big.md:1: file is larger than 16 MiB"}; !reflect.DeepEqual(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
}

// TestParseLineEndings pins that CRLF, CR and a BOM change the content
// hash and nothing else.
func TestParseLineEndings(t *testing.T) {
	lf := string(file(valid+"keywords:\n  - a\n", "# Title\n\npara one\n\n## Part\ntext\n"))
	want, problems := Parse("t.md", []byte(lf), "rag-eval")
	if problems != nil {
		t.Fatal(problemStrings(problems))
	}
	for name, data := range map[string]string{
		"CRLF":     strings.ReplaceAll(lf, "\n", "\r\n"),
		"CR":       strings.ReplaceAll(lf, "\n", "\r"),
		"BOM":      "\uFEFF" + lf,
		"BOM CRLF": "\uFEFF" + strings.ReplaceAll(lf, "\n", "\r\n"),
	} {
		t.Run(name, func(t *testing.T) {
			got, problems := Parse("t.md", []byte(data), "rag-eval")
			if problems != nil {
				t.Fatal(problemStrings(problems))
			}
			sum := sha256.Sum256([]byte(data))
			if wantHash := hex.EncodeToString(sum[:]); got.ContentHash != wantHash {
				t.Errorf("content hash %s, want %s, the hash of the file's bytes", got.ContentHash, wantHash)
			}
			if got.ContentHash == want.ContentHash {
				t.Errorf("content hash %s, the hash of the LF file, want the hash of these bytes", got.ContentHash)
			}
			g := *got
			g.ContentHash = want.ContentHash
			if !reflect.DeepEqual(&g, want) {
				t.Errorf("document\n got %+v\nwant %+v", g, *want)
			}
			if !reflect.DeepEqual(Chunk(got, ChunkOptions{}), Chunk(want, ChunkOptions{})) {
				t.Errorf("chunks differ from the LF file's")
			}
		})
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func doc(source string, extra string) string {
	return "---\nsource: " + source + "\nbreadcrumb: A > B\ncategory: c\nkb_scope: rag-eval\n" + extra + "---\ntext of " + source + "\n"
}

func TestLoadDir(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b.md":           doc("bravo", ""),
		"a.md":           doc("alpha", "doc_id: custom/alpha\n"),
		"notes.txt":      "not a seed document",
		".#a.md":         "editor lock file",
		"sub/c.md":       doc("charlie", ""),
		"dir.md/ignored": "a directory named like a document",
	})
	docs, err := LoadDir(dir, "rag-eval")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, filepath.Base(d.Path)+" "+d.DocID)
	}
	if want := []string{"a.md custom/alpha", "b.md rag-eval/bravo"}; !reflect.DeepEqual(got, want) {
		t.Errorf("documents %q, want %q", got, want)
	}
}

// TestLoadDirProblems pins that every problem of every file is listed,
// sorted by file and line, and that no document is returned.
func TestLoadDirProblems(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"01-ok.md":                  doc("alpha", "doc_id: shared/id\n"),
		"02-dup-source.md":          doc("alpha", ""),
		"03-dup-docid.md":           doc("bravo", "doc_id: shared/id\n"),
		"04-case-docid.md":          doc("charlie", "doc_id: Shared/ID\n"),
		"05-default-vs-explicit.md": doc("delta", ""),
		"06-explicit.md":            doc("echo", "doc_id: rag-eval/delta\n"),
		"07-bad.md":                 "---\nsource: Bad\nkb_scope: prod\n---\n",
		"08-no-front.md":            "# just markdown\n",
		"09-bad-utf8.md":            "---\n\xff\n",
		"10-dup-invalid.md":         "---\nsource: alpha\nbreadcrumb: A\ncategory: [x]\nkb_scope: rag-eval\n---\nt\n",
	})
	docs, err := LoadDir(dir, "rag-eval")
	if docs != nil {
		t.Errorf("LoadDir returned documents with problems: %d", len(docs))
	}
	var ps diag.List
	if !errors.As(err, &ps) {
		t.Fatalf("error %v (%T) is not a diag.List", err, err)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	want := []string{
		p("02-dup-source.md") + `:2: duplicate source "alpha" (also in ` + p("01-ok.md") + `:2)`,
		p("03-dup-docid.md") + `:6: duplicate doc_id "shared/id" (also in ` + p("01-ok.md") + `:6)`,
		p("04-case-docid.md") + `:6: doc_id "Shared/ID" differs from "shared/id" (in ` + p("01-ok.md") + `:6) only in letter case`,
		p("06-explicit.md") + `:6: duplicate doc_id "rag-eval/delta" (also in ` + p("05-default-vs-explicit.md") + `:2)`,
		p("07-bad.md") + `:1: missing required key "breadcrumb"`,
		p("07-bad.md") + `:1: missing required key "category"`,
		p("07-bad.md") + `:1: empty body (nothing but white space after the frontmatter)`,
		p("07-bad.md") + `:2: source "Bad" does not match [a-z0-9][a-z0-9._-]*`,
		p("07-bad.md") + `:3: kb_scope "prod" does not match the kb scope being loaded ("rag-eval")`,
		p("08-no-front.md") + `:1: missing frontmatter (the file must start with a "---" line)`,
		p("09-bad-utf8.md") + `:2: invalid UTF-8`,
		p("10-dup-invalid.md") + `:2: duplicate source "alpha" (also in ` + p("01-ok.md") + `:2)`,
		p("10-dup-invalid.md") + `:4: category: must be a single value, not a list`,
	}
	if got := problemStrings(ps); !reflect.DeepEqual(got, want) {
		t.Errorf("problems\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if err.Error() != strings.Join(want, "\n") {
		t.Errorf("error message\n%s", err)
	}
	// The kb_scope mismatch, and only it, carries a *ScopeError.
	for i, pr := range ps {
		var se *ScopeError
		isScope := errors.As(pr, &se)
		if wantScope := i == 8; isScope != wantScope {
			t.Errorf("problem %d %q: *ScopeError found %v, want %v", i, pr, isScope, wantScope)
		} else if isScope && (se.Declared != "prod" || se.Loading != "rag-eval") {
			t.Errorf("problem %d: ScopeError %+v, want declared prod, loading rag-eval", i, *se)
		}
	}
}

func TestLoadDirErrors(t *testing.T) {
	empty := t.TempDir()
	if _, err := LoadDir(empty, "rag-eval"); err == nil || !strings.Contains(err.Error(), "no .md files in "+empty) {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := LoadDir(filepath.Join(empty, "missing"), "rag-eval"); err == nil {
		t.Error("missing dir: no error")
	} else if errors.As(err, new(diag.List)) {
		t.Errorf("missing dir: %v, want an I/O error, not a diag.List", err)
	}
	if _, err := LoadDir("testdata/docs", ""); err == nil {
		t.Errorf("empty kb scope accepted")
	}
	if os.Getuid() != 0 {
		dir := writeFiles(t, map[string]string{"a.md": doc("alpha", "")})
		if err := os.Chmod(filepath.Join(dir, "a.md"), 0); err != nil {
			t.Fatal(err)
		}
		_, err := LoadDir(dir, "rag-eval")
		if want := filepath.Join(dir, "a.md") + ":1: cannot read: permission denied"; err == nil || err.Error() != want {
			t.Errorf("unreadable file: %v, want %s", err, want)
		}
	}
}

// TestSeedDocs checks the shipped test documents load and carry the
// frontmatter the other tests rely on.
func TestSeedDocs(t *testing.T) {
	docs, err := LoadDir("testdata/docs", "rag-eval")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 3 {
		t.Fatalf("%d documents, want 3", len(docs))
	}
	decoy := docs[2]
	if decoy.Source != "overfilter-decoy" {
		t.Errorf("decoy source %q, want overfilter-decoy", decoy.Source)
	}
	if decoy.Category != "database" {
		t.Errorf("decoy category %q, want database", decoy.Category)
	}
	if !contains(decoy.Keywords, "服务器磁盘") {
		t.Errorf("decoy keywords %q, want 服务器磁盘 among them", decoy.Keywords)
	}
	if strings.Contains(decoy.Body, "服务器磁盘") {
		t.Errorf("the decoy body must not contain its L0 keyword")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestParseHostileValues pins that quoted values that look like filter
// expressions or SQL are read literally, for the stores to keep them so.
func TestParseHostileValues(t *testing.T) {
	front := `source: hostile
title: "'; DROP TABLE documents; --"
breadcrumb: 'A > "B" || true'
category: '" || true'
kb_scope: "rag'eval"
doc_id: hostile-doc
keywords: ["a\" or \"1\"=\"1", '%_\*']
`
	doc, problems := Parse("h.md", file(front, "text\n"), "rag'eval")
	if problems != nil {
		t.Fatal(problemStrings(problems))
	}
	got := []string{doc.Title, doc.Breadcrumb, doc.Category, doc.KBScope, doc.DocID}
	got = append(got, doc.Keywords...)
	want := []string{`'; DROP TABLE documents; --`, `A > "B" || true`, `" || true`, `rag'eval`, "hostile-doc", `a" or "1"="1`, `%_\*`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values\n got %q\nwant %q", got, want)
	}
	// Without doc_id, such a kb_scope gives no valid default.
	_, problems = Parse("h.md", file(strings.Replace(front, "doc_id: hostile-doc\n", "", 1), "text\n"), "rag'eval")
	if want := []string{`h.md:6: default doc_id "rag'eval/hostile" (kb_scope/source) does not match [A-Za-z0-9][A-Za-z0-9._:/#-]* or is longer than 256 bytes; set doc_id`}; !reflect.DeepEqual(problemStrings(problems), want) {
		t.Errorf("problems %q, want %q", problemStrings(problems), want)
	}
}

// TestParseLimits checks each length limit at the limit (accepted) and one
// byte over (a problem on the right line): the limits are the one set every
// store accepts, so a document over one must fail here, before anything is
// written, not on one store after the catalog write.
func TestParseLimits(t *testing.T) {
	front := func(key, v string) string {
		lines := map[string]string{"source": "mysql-pool", "breadcrumb": "Database > MySQL", "category": "database", "kb_scope": "rag-eval"}
		lines[key] = v
		return "source: " + lines["source"] + "\nbreadcrumb: " + lines["breadcrumb"] + "\ncategory: " + lines["category"] +
			"\nkb_scope: " + lines["kb_scope"] + "\n" + map[bool]string{true: "title: " + v + "\n"}[key == "title"] +
			map[bool]string{true: "doc_id: scoped/mysql-pool\n"}[key == "kb_scope"]
	}
	// The breadcrumb of the "## h2" section is "Database > MySQL > " + h2.
	crumbPrefix := len("Database > MySQL > ")
	for _, tc := range []struct {
		name   string
		max    int
		scope  string
		data   func(v string) []byte
		line   int
		substr string
	}{
		{"category", MaxCategoryLen, "rag-eval", func(v string) []byte { return file(front("category", v), body) }, 4, "category: longer than 256 bytes"},
		{"title", MaxTitleLen, "rag-eval", func(v string) []byte { return file(front("title", v), body) }, 6, "title: longer than 1024 bytes"},
		{"H1 title", MaxTitleLen, "rag-eval", func(v string) []byte {
			return file(front("", ""), "intro\n\n# "+v+"\n\ntext\n")
		}, 9, "the first H1, the document's title, is 1025 bytes long (at most 1024)"},
		{"heading breadcrumb", MaxBreadcrumbLen - crumbPrefix, "rag-eval", func(v string) []byte {
			return file(front("", ""), "# T\n\nintro\n\n## "+v+"\n\ntext\n")
		}, 11, "the breadcrumb of this section (the document's breadcrumb and the headings above it) is 4097 bytes long (at most 4096)"},
		{"kb_scope", MaxKBScopeLen, "", func(v string) []byte { return file(front("kb_scope", v), body) }, 5, "kb_scope: longer than 255 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := strings.Repeat("a", tc.max)
			scope := tc.scope
			if scope == "" {
				scope = at
			}
			if _, problems := Parse("t.md", tc.data(at), scope); problems != nil {
				t.Fatalf("at the limit (%d bytes): %q", tc.max, problemStrings(problems))
			}
			over := at + "a"
			if tc.scope == "" {
				scope = over
			}
			_, problems := Parse("t.md", tc.data(over), scope)
			want := "t.md:" + strconv.Itoa(tc.line) + ": " + tc.substr
			if len(problems) != 1 || !strings.HasPrefix(problems[0].Error(), want) {
				t.Errorf("one byte over: %q, want one problem starting %q", problemStrings(problems), want)
			}
		})
	}
	// The breadcrumb limit counts the heading path of every section that
	// has text, and only those: a long heading above nothing is not a chunk.
	long := strings.Repeat("b", MaxBreadcrumbLen)
	if _, problems := Parse("t.md", file(front("", ""), "intro\n\n## "+long+"\n"), "rag-eval"); problems != nil {
		t.Errorf("a long heading of an empty section: %q", problemStrings(problems))
	}
}
