package milvus

import (
	"errors"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{``, `""`},
		{`plain`, `"plain"`},
		{`"`, `"\""`},
		{`" || true`, `"\" || true"`},
		{`x" or kb_scope != "`, `"x\" or kb_scope != \""`},
		{`'; DROP TABLE chunks; --`, `"'; DROP TABLE chunks; --"`},
		{`back\slash`, `"back\\slash"`},
		{`trailing\`, `"trailing\\"`},
		{`\"`, `"\\\""`},
		{`\\" || true || "`, `"\\\\\" || true || \""`},
		{`中文"引号`, `"中文\"引号"`},
		{"tab\there", "\"tab\there\""},
		{"nul\x00", "\"nul\x00\""},
		{"ls\u2028", "\"ls\u2028\""},
		{`{tmpl}`, `"{tmpl}"`},
		{`\u0041`, `"\\u0041"`},
	} {
		got, err := quote(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("quote(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if err == nil && unquote(t, got) != tt.in {
			t.Errorf("quote(%q) = %q does not read back", tt.in, got)
		}
	}
	for _, in := range []string{"new\nline", "cr\rx", "\n", "ok\xff", "\xe8\xbf"} {
		if got, err := quote(in); err == nil {
			t.Errorf("quote(%q) = %q, want an error", in, got)
		}
	}
	if _, err := quote("a\nb"); !errors.Is(err, errLineBreak) {
		t.Errorf("quote with a newline: %v, want errLineBreak", err)
	}
}

// unquote reads a literal as the Milvus lexer does: a double-quoted string
// in which a backslash escapes the next character, and no unescaped quote
// occurs inside. It fails the test if the literal ends early, which is
// what an injection would need.
func unquote(t *testing.T, lit string) string {
	t.Helper()
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		t.Fatalf("literal %q is not double-quoted", lit)
	}
	var b strings.Builder
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			if i+1 == len(body) {
				t.Fatalf("literal %q ends in a lone backslash (escapes the closing quote)", lit)
			}
			i++
			b.WriteByte(body[i])
		case '"':
			t.Fatalf("literal %q ends early at byte %d", lit, i+1)
		default:
			b.WriteByte(body[i])
		}
	}
	return b.String()
}

func TestFilterExpr(t *testing.T) {
	for _, tt := range []struct {
		f    kb.Filter
		want string
	}{
		{kb.Filter{}, ``},
		{kb.Filter{KBScope: "rag-eval"}, `kb_scope == "rag-eval"`},
		{kb.Filter{Categories: []string{"a"}}, `category in ["a"]`},
		{kb.Filter{KBScope: "s", Categories: []string{"a", "b"}}, `kb_scope == "s" and category in ["a", "b"]`},
		{kb.Filter{KBScope: `s" || true || "`, Categories: []string{`" || true`, `\`}},
			`kb_scope == "s\" || true || \"" and category in ["\" || true", "\\"]`},
	} {
		got, err := filterExpr(tt.f)
		if err != nil || got != tt.want {
			t.Errorf("filterExpr(%+v) = %q, %v; want %q", tt.f, got, err, tt.want)
		}
	}
	for _, f := range []kb.Filter{
		{KBScope: "a\nb"},
		{KBScope: "ok", Categories: []string{"fine", "bad\r\n"}},
		{Categories: []string{"\xff"}},
	} {
		if got, err := filterExpr(f); err == nil {
			t.Errorf("filterExpr(%+v) = %q, want an error", f, got)
		}
	}
	got, err := documentExpr(`s"`, `d\`)
	if want := `kb_scope == "s\"" and doc_id == "d\\"`; err != nil || got != want {
		t.Errorf("documentExpr = %q, %v; want %q", got, err, want)
	}
	if _, err := documentExpr("s", "d\n"); err == nil {
		t.Error("documentExpr with a newline: no error")
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", `"`, `\`, `" || true`, "a\nb", "中文", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := quote(s)
		if err != nil {
			return
		}
		if got := unquote(t, q); got != s {
			t.Errorf("quote(%q) = %q reads back as %q", s, q, got)
		}
		if strings.ContainsAny(q, "\r\n") {
			t.Errorf("quote(%q) = %q has a line break", s, q)
		}
	})
}

func TestPrimaryKeyInjective(t *testing.T) {
	pairs := [][2]string{{"a:b", "c"}, {"a", "b:c"}, {"a:", "b"}, {"a", ":b"}, {"", "a:b"}}
	seen := map[string][2]string{}
	for _, p := range pairs {
		k := primaryKey(p[0], p[1])
		if q, dup := seen[k]; dup {
			t.Errorf("primaryKey(%q) = primaryKey(%q) = %q", p, q, k)
		}
		seen[k] = p
	}
}
