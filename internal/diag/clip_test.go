package diag

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		u    Unit
		want string
	}{
		{"abc", 3, Bytes, "abc"},
		{"abcd", 3, Bytes, "abc…"},
		{"", 0, Bytes, ""},
		{"a", 0, Bytes, "…"},
		{"a", -1, Chars, "…"},
		// "é" is 2 bytes: a limit inside it moves back to its start.
		{`"` + strings.Repeat("é", 30), 40, Bytes, `"` + strings.Repeat("é", 19) + "…"},
		{strings.Repeat("é", 20), 40, Bytes, strings.Repeat("é", 20)},
		{"标题标题", 4, Bytes, "标…"},
		{"标题标题", 3, Chars, "标题标…"},
		{"标题标题", 4, Chars, "标题标题"},
		{strings.Repeat("é", 65), 64, Chars, strings.Repeat("é", 64) + "…"},
		// Invalid bytes count one character each and stay as they are.
		{"a\xffb\xfe", 2, Chars, "a\xff…"},
		// A run of continuation bytes is no sequence: the cut moves back
		// to the last byte that starts one.
		{"a\x80\x80\x80\x80", 3, Bytes, "…"},
		{"ab\x80\x80\x80", 3, Bytes, "a…"},
	}
	for _, tt := range tests {
		if got := Clip(tt.s, tt.n, tt.u); got != tt.want {
			t.Errorf("Clip(%q, %d, %d) = %q, want %q", tt.s, tt.n, tt.u, got, tt.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	if head, cut := Prefix("hello", 5, Chars); head != "hello" || cut {
		t.Errorf("Prefix(hello, 5) = %q, %v", head, cut)
	}
	if head, cut := Prefix("hello", 4, Chars); head != "hell" || !cut {
		t.Errorf("Prefix(hello, 4) = %q, %v", head, cut)
	}
	if head, cut := Prefix("连接池", 7, Bytes); head != "连接" || !cut {
		t.Errorf("Prefix(连接池, 7 bytes) = %q, %v", head, cut)
	}
}

// FuzzPrefix checks that a prefix is a prefix, within the limit, cut only
// when s is over it, and never ends inside a UTF-8 sequence.
func FuzzPrefix(f *testing.F) {
	for _, s := range []string{"", "abc", "连接池满了", "a\xffb", "é\x80\x80", strings.Repeat("标", 50)} {
		f.Add(s, 3, false)
		f.Add(s, 40, true)
	}
	f.Fuzz(func(t *testing.T, s string, n int, chars bool) {
		n %= 1000
		u := Bytes
		size := func(s string) int { return len(s) }
		if chars {
			u, size = Chars, utf8.RuneCountInString
		}
		head, cut := Prefix(s, n, u)
		if !strings.HasPrefix(s, head) {
			t.Fatalf("Prefix(%q, %d) = %q, not a prefix", s, n, head)
		}
		if cut != (size(s) > max(n, 0)) {
			t.Fatalf("Prefix(%q, %d) cut = %v, size %d", s, n, cut, size(s))
		}
		if cut && size(head) > max(n, 0) {
			t.Fatalf("Prefix(%q, %d) = %q, longer than the limit", s, n, head)
		}
		if chars && cut && size(head) != max(n, 0) {
			t.Fatalf("Prefix(%q, %d chars) = %q, not %d characters", s, n, head, n)
		}
		if rest := s[len(head):]; rest != "" && !utf8.RuneStart(rest[0]) && utf8.Valid([]byte(s)) {
			t.Fatalf("Prefix(%q, %d) = %q ends inside a UTF-8 sequence", s, n, head)
		}
		if utf8.ValidString(s) && !utf8.ValidString(head) {
			t.Fatalf("Prefix(%q, %d) = %q is not valid UTF-8", s, n, head)
		}
	})
}

func TestJoin(t *testing.T) {
	ids := []string{"a", "b", "c", "d"}
	for n, want := range map[int]string{
		4: "a, b, c, d",
		9: "a, b, c, d",
		2: "a, b, … (2 more)",
		0: "a, … (3 more)",
	} {
		if got := Join(ids, n); got != want {
			t.Errorf("Join(%v, %d) = %q, want %q", ids, n, got, want)
		}
	}
}
