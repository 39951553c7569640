package kb_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

func TestEvidenceKey(t *testing.T) {
	for _, tt := range []struct {
		path       []string
		occ, piece int
		want       string
	}{
		{nil, 1, 1, "s/doc#"},
		{nil, 2, 1, "s/doc#@2"},
		{[]string{"排查步骤", "1. 查看当前连接数"}, 1, 1, "s/doc#排查步骤 > 1. 查看当前连接数"},
		{[]string{"处理"}, 1, 3, "s/doc#处理~3"},
		{[]string{"FAQ"}, 2, 2, "s/doc#FAQ@2~2"},
		{[]string{"Ingress 返回 502 / 504"}, 1, 1, "s/doc#Ingress 返回 502 / 504"},
		{[]string{"C# 100%", "a@b ~c"}, 1, 1, "s/doc#C%23 100% > a%40b %7Ec"},
		{[]string{"tab\there\u2028"}, 1, 1, "s/doc#tab%09here%E2%80%A8"},
	} {
		got := kb.EvidenceKey("s/doc", kb.SectionLabel(tt.path), tt.occ, tt.piece)
		if got != tt.want {
			t.Errorf("%q %d %d: %q, want %q", tt.path, tt.occ, tt.piece, got, tt.want)
		}
		if err := kb.CheckEvidenceKey("s/doc", got); err != nil {
			t.Errorf("%q: %v", got, err)
		}
	}
}

func TestSectionLabelBounded(t *testing.T) {
	long := strings.Repeat("标题", 200) // 1,200 bytes
	a := kb.SectionLabel([]string{long, "A"})
	b := kb.SectionLabel([]string{long, "B"})
	for _, l := range []string{a, b} {
		if len(l) > kb.MaxSectionLabelLen {
			t.Errorf("label of %d bytes, want at most %d: %q", len(l), kb.MaxSectionLabelLen, l)
		}
		if !utf8.ValidString(l) {
			t.Errorf("label %q is not valid UTF-8", l)
		}
		head, _, ok := strings.Cut(l, "…")
		if !ok {
			t.Errorf("label %q has no '…' before its hash", l)
			continue
		}
		if !strings.HasPrefix(long, head) {
			t.Errorf("label %q does not start with a prefix of the heading", l)
		}
		if len(head) < kb.MaxSectionLabelLen-20 {
			t.Errorf("label %q keeps %d bytes of the heading, want at least %d", l, len(head), kb.MaxSectionLabelLen-20)
		}
	}
	if a == b {
		t.Errorf("two long paths with the same start share the label %q", a)
	}
	if kb.SectionLabel([]string{long, "A"}) != a {
		t.Error("not deterministic")
	}
	// At the limit, a label is kept as it is.
	exact := strings.Repeat("x", kb.MaxSectionLabelLen)
	if got := kb.SectionLabel([]string{exact}); got != exact {
		t.Errorf("a label of %d bytes was cut: %q", len(exact), got)
	}
	// The longest key: the longest doc_id (256 bytes), the longest label
	// and occurrence and piece numbers of a 16 MiB document.
	key := kb.EvidenceKey(strings.Repeat("d", 256), a, 1<<24, 1<<24)
	if len(key) > kb.MaxEvidenceKeyLen {
		t.Errorf("the longest key is %d bytes, more than %d", len(key), kb.MaxEvidenceKeyLen)
	}
}

func TestCheckEvidenceKey(t *testing.T) {
	for _, key := range []string{
		"s/doc",       // no '#'
		"s/other#x",   // another document
		"s/doc#a#b",   // a '#' in the label
		"s/doc#a\x00", // a control character
		"s/doc#a\tb",  // a control character
		"s/doc#\xff",  // invalid UTF-8
		"s/doc#" + strings.Repeat("x", kb.MaxEvidenceKeyLen), // too long
	} {
		if err := kb.CheckEvidenceKey("s/doc", key); err == nil {
			t.Errorf("%q accepted", key)
		}
	}
	// A doc_id may hold '#'. Its keys are still told apart from another
	// document's by the last '#'.
	if err := kb.CheckEvidenceKey("s/a#b", "s/a#b#c"); err != nil {
		t.Error(err)
	}
	if err := kb.CheckEvidenceKey("s/a", "s/a#b#c"); err == nil {
		t.Error(`"s/a#b#c" accepted as a key of "s/a"`)
	}
}

// Ties rank as the keys of format 1 sorted ("d#10" before "d#2"), then by
// key and kbScope, whatever the section labels say.
func TestCompareTies(t *testing.T) {
	c := func(scope, doc string, i int, key string) *kb.Chunk {
		return &kb.Chunk{KBScope: scope, DocID: doc, ChunkIndex: i, EvidenceKey: key}
	}
	order := []*kb.Chunk{
		c("s", "a", 0, "a#z"),
		c("s", "a", 10, "a#y"),
		c("s", "a", 2, "a#x"),
		c("s", "a-b", 0, "a-b#"),
		c("s", "b", 0, "b#"),
		c("t", "b", 0, "b#"),
	}
	for i, a := range order {
		for j, b := range order {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := kb.CompareTies(a, b); got != want {
				t.Errorf("CompareTies(%+v, %+v) = %d, want %d", *a, *b, got, want)
			}
		}
	}
}
