// Package textnorm defines what "matches" means everywhere in ragbaseline:
// the judge's keyword and breadcrumb checks, the L0 hint matcher, BM25 and
// the local embedder all normalise text through this package.
//
// Normalise is Unicode NFKC, then full case folding, then trimming of
// surrounding white space (docs/checks.md). Full-width letters and digits become
// ASCII, ligatures are expanded, and "MAX_Connections" matches
// "max_connections".
package textnorm

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Normalize returns s in NFKC, fully case-folded, with surrounding white
// space trimmed. It is safe for concurrent use.
func Normalize(s string) string {
	if isASCII(s) {
		return strings.TrimSpace(asciiLower(s))
	}
	if out, ok := normalizeCommon(s); ok {
		return out
	}
	return normalizeFull(s)
}

// normalizeFull is Normalize without the fast paths.
func normalizeFull(s string) string {
	// A cases.Caser is stateful and must not be shared between goroutines.
	return strings.TrimSpace(cases.Fold().String(norm.NFKC.String(s)))
}

// BreadcrumbSeparators are the characters a breadcrumb is split on.
const BreadcrumbSeparators = ">/›"

// NormalizeBreadcrumb splits b on '>', '/' or '›', normalises each segment,
// drops empty segments and joins them with " > ".
func NormalizeBreadcrumb(b string) string {
	parts := strings.FieldsFunc(b, func(r rune) bool { return strings.ContainsRune(BreadcrumbSeparators, r) })
	out := parts[:0]
	for _, p := range parts {
		if p = Normalize(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " > ")
}

// BreadcrumbMatches reports whether the normalised expected breadcrumb want
// matches the normalised block breadcrumb got: equal, or a prefix of it that
// ends at a segment boundary. Both arguments must come from
// NormalizeBreadcrumb.
func BreadcrumbMatches(want, got string) bool {
	if want == "" {
		return false
	}
	return got == want || (strings.HasPrefix(got, want) && strings.HasPrefix(got[len(want):], " > "))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// normalizeCommon normalises text made only of ASCII, CJK unified
// ideographs, common CJK punctuation and full-width ASCII forms, the bulk of
// mixed Chinese/English runbooks, without the general NFKC and case-folding
// machinery. For these characters the result is exactly normalizeFull's.
// Ideographs and the listed punctuation are NFKC-stable and caseless. The
// full-width forms U+FF01–U+FF5E are NFKC-equivalent to ASCII
// U+0021–U+007E. ASCII folds by lowering A–Z. normalizeCommon reports false
// for any other character.
func normalizeCommon(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
		case 0x4E00 <= r && r <= 0x9FFF, r == 0x3001, r == 0x3002, 0x300A <= r && r <= 0x3011,
			r == 0x2018, r == 0x2019, r == 0x201C, r == 0x201D, r == 0x2014:
		case 0xFF01 <= r && r <= 0xFF5E:
			r -= 0xFF01 - 0x21
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
		default:
			return "", false
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String()), true
}
