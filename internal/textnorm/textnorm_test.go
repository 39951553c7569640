package textnorm

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"  MAX_Connections ": "max_connections",
		"ｍａｘ＿ｃｏｎｎｅｃｔｉｏｎｓ":    "max_connections",
		"连接池满了，Too Many":     "连接池满了,too many",
		"Straße":             "strasse",
		"ﬁle":                "file",
		"Ⅻ":                  "xii",
		"“引号”—《书名》":          "“引号”—《书名》",
		"\u3000全角空格\u3000":   "全角空格",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNormalizeCommonMatchesFull pins the fast path to the general one on
// random text from its alphabet (and neighbours it must refuse).
func TestNormalizeCommonMatchesFull(t *testing.T) {
	alphabet := []rune("aZ09 _-.,:;!?()[]{}\\\"'\t\n" + "连接池满了磁盘。、《》「」【】“”‘’—" + "ＡＺａｚ０９（）：，！？＿" +
		"\u3000\u2026\u00e9\u0301\uF900\u30FC\u3036ß")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		if got, ok := normalizeCommon(s); ok && got != normalizeFull(s) {
			t.Fatalf("normalizeCommon(%q) = %q, normalizeFull = %q", s, got, normalizeFull(s))
		}
	}
}

func FuzzNormalizeCommon(f *testing.F) {
	f.Add("连接池 ＭＡＸ_connections，")
	f.Fuzz(func(t *testing.T, s string) {
		if got, ok := normalizeCommon(s); ok && got != normalizeFull(s) {
			t.Fatalf("normalizeCommon(%q) = %q, normalizeFull = %q", s, got, normalizeFull(s))
		}
	})
}

func TestBreadcrumbs(t *testing.T) {
	if got := NormalizeBreadcrumb(" DB / MySQL › Pool >> "); got != "db > mysql > pool" {
		t.Errorf("NormalizeBreadcrumb = %q", got)
	}
	for _, tt := range []struct {
		want, got string
		ok        bool
	}{
		{"db > mysql", "db > mysql", true},
		{"db > mysql", "db > mysql > pool", true},
		{"db > my", "db > mysql", false},
		{"", "db", false},
	} {
		if BreadcrumbMatches(tt.want, tt.got) != tt.ok {
			t.Errorf("BreadcrumbMatches(%q, %q) != %v", tt.want, tt.got, tt.ok)
		}
	}
}

func BenchmarkNormalizeMixed(b *testing.B) {
	s := strings.Repeat("排查步骤：先用 SHOW PROCESSLIST 看连接来源，确认是否有慢查询占住连接。", 8)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Normalize(s)
	}
}

func BenchmarkNormalizeFullMixed(b *testing.B) {
	s := strings.Repeat("排查步骤：先用 SHOW PROCESSLIST 看连接来源，确认是否有慢查询占住连接。", 8)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		normalizeFull(s)
	}
}
