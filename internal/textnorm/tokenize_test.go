package textnorm

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"space only", " \t\n\u3000 ", nil},
		{"punctuation only", "-- ., !? 。，", nil},
		{"ascii words", "too many connections", []string{"too", "many", "connections"}},
		{"underscore keeps a word", "SET GLOBAL max_connections=500;", []string{"set", "global", "max_connections", "500"}},
		{"case folded", "MAX_Connections", []string{"max_connections"}},
		{"full width folded", "ＭＡＸ＿ＣＯＮＮＥＣＴＩＯＮＳ １２", []string{"max_connections", "12"}},
		{"separators", "utf-8 10.0.0.1 /var/log don't #tag", []string{"utf", "8", "10", "0", "0", "1", "var", "log", "don", "t", "tag"}},
		{"han run", "连接池", []string{"连", "接", "池", "连接", "接池"}},
		{"single han", "池", []string{"池"}},
		{"two han", "磁盘", []string{"磁", "盘", "磁盘"}},
		{"han runs split by punctuation", "磁盘满了，inode", []string{"磁", "盘", "满", "了", "磁盘", "盘满", "满了", "inode"}},
		{"latin glued to han", "mysql连接池OK", []string{"mysql", "连", "接", "池", "连接", "接池", "ok"}},
		{"digits glued to han", "3号机", []string{"3", "号", "机", "号机"}},
		{"hiragana katakana prolonged mark", "サーバーの", []string{"サ", "ー", "バ", "ー", "の", "サー", "ーバ", "バー", "ーの"}},
		{"half width katakana normalised", "ｻｰﾊﾞ", []string{"サ", "ー", "バ", "サー", "ーバ"}},
		{"hangul", "서버 디스크", []string{"서", "버", "서버", "디", "스", "크", "디스", "스크"}},
		{"ideographic space separates", "连接\u3000池", []string{"连", "接", "连接", "池"}},
		{"accented latin is one word", "Café Ørsted", []string{"café", "ørsted"}},
		{"combining mark stays in word", "cafe\u0301", []string{"café"}},
		{"cyrillic and greek", "Сервер ΔΙΣΚΟΣ", []string{"сервер", "δισκοσ"}},
		{"thai is one run", "ดิสก์เต็ม", []string{"ดิสก์เต็ม"}},
		{"ligature expanded", "ﬁle", []string{"file"}},
		{"han radical symbol separates", "磁⺀盘", []string{"磁", "盘"}},
		{"circled hangul becomes a jamo", "가㉠", []string{"가", "ᄀ", "가ᄀ"}},
		{"ideographic number zero", "二〇二六", []string{"二", "〇", "二", "六", "二〇", "〇二", "二六"}},
		{"emoji separates", "disk🔥full", []string{"disk", "full"}},
		{"mixed query", "连接池满了 too many connections 怎么办", []string{
			"连", "接", "池", "满", "了", "连接", "接池", "池满", "满了",
			"too", "many", "connections",
			"怎", "么", "办", "怎么", "么办"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokens(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Tokens(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestTokensNoAllocPerToken pins that tokens share the normalised string:
// an ASCII input costs one allocation, the token slice.
func TestTokensAllocs(t *testing.T) {
	s := strings.Repeat("check max_connections and wait_timeout ", 20)
	if n := testing.AllocsPerRun(100, func() { Tokens(s) }); n > 1 {
		t.Errorf("Tokens of ASCII text: %v allocations, want at most 1", n)
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{
		"", "连接池满了 too many connections 怎么办", "MAX_Connections", "ｻｰﾊﾞ", "cafe\u0301 ß ﬁ Σ",
		"가\u11a8 ᄀ\u1161", "\u0345\u0301", "a\u309b", "İstanbul", "ǅ", "\xff\xfe", "ﾞ゙", "Ꮠꮠ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokens(s)
		n := Normalize(s)
		idempotent := utf8.ValidString(s) && Normalize(n) == n
		for i, tok := range toks {
			if tok == "" {
				t.Fatalf("token %d is empty", i)
			}
			if !utf8.ValidString(tok) && utf8.ValidString(s) {
				t.Fatalf("token %d %q is not valid UTF-8", i, tok)
			}
			if !strings.Contains(n, tok) {
				t.Fatalf("token %d %q is not in the normalised input %q", i, tok, n)
			}
			if strings.IndexFunc(tok, func(r rune) bool { return classify(r) == classSep }) >= 0 {
				t.Fatalf("token %d %q contains a separator", i, tok)
			}
			// Normalize is not idempotent on every input: x/text folds
			// upper-case Cherokee to lower case and lower case to upper
			// (golang/go#46101), so the property holds only where
			// normalising the input twice changes nothing.
			if idempotent && Normalize(tok) != tok {
				t.Fatalf("token %d %q is not normalised: %q", i, tok, Normalize(tok))
			}
		}
		if again := Tokens(s); !reflect.DeepEqual(again, toks) {
			t.Fatalf("not deterministic: %q then %q", toks, again)
		}
		if idempotent {
			if idem := Tokens(n); !reflect.DeepEqual(idem, toks) {
				t.Fatalf("tokens of the normalised input differ: %q vs %q", idem, toks)
			}
		}
	})
}

func BenchmarkTokens(b *testing.B) {
	for _, bc := range []struct {
		name string
		text string
	}{
		{"ascii", strings.Repeat("SHOW PROCESSLIST; check max_connections and wait_timeout before restart. ", 14)},
		{"cjk", strings.Repeat("连接池耗尽时先确认应用是否归还连接，再调大最大连接数。", 40)},
		{"mixed", strings.Repeat("连接池满了 too many connections 怎么办？检查 max_connections 和 wait_timeout。", 16)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			var n int
			for b.Loop() {
				n += len(Tokens(bc.text))
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

func TestIsCJK(t *testing.T) {
	for r, want := range map[rune]bool{'连': true, 'か': true, 'カ': true, '한': true, 'ー': true, 'a': false, '1': false, '，': false, '㉠': false, ' ': false} {
		if got := IsCJK(r); got != want {
			t.Errorf("IsCJK(%q) = %v, want %v", r, got, want)
		}
	}
}
