package textnorm

import (
	"unicode"
	"unicode/utf8"
)

// Tokens splits s into the search tokens shared by BM25 and the local
// embedder, so both see the same words. The rules, in order:
//
//  1. s is normalised with Normalize (NFKC, full case folding, trim), so
//     every token is already normalised: "ＭＡＸ_Connections" gives
//     "max_connections".
//  2. CJK characters are the letters, marks and numbers of the Han,
//     Hiragana, Katakana and Hangul scripts, plus the prolonged sound mark
//     'ー', U+30FC, whose script is Common. Symbols of those scripts, such
//     as the radical ⺀, separate tokens. A maximal run of CJK characters emits each
//     character as a unigram, in order, and then each adjacent pair of
//     the run as a bigram, in order: "连接池" gives 连, 接, 池, 连接, 接池.
//     A run of one character gives only its unigram.
//  3. A word is a maximal run of other word characters: letters (Unicode
//     category L), combining marks (M), numbers (N) and '_', in any
//     non-CJK script. "max_connections" is one token, "too many
//     connections" three, "café" one. Everything else (space, punctuation,
//     symbols such as '-', '.', '/', '#' and the apostrophe) separates
//     tokens, so "utf-8" gives "utf", "8", "don't" gives "don", "t" and
//     "10.0.0.1" gives four tokens.
//  4. A CJK run and a word next to each other without a separator are
//     separate runs: "mysql连接池" gives "mysql", then 连, 接, 池, 连接, 接池.
//     Scripts written without spaces other than CJK (Thai, Lao, Khmer)
//     follow rule 3: a run without separators is one token.
//
// Tokens are returned in the order they appear (for a CJK run: its
// unigrams, then its bigrams). Every token is non-empty and a substring
// of Normalize(s). Tokens is deterministic and safe for concurrent use.
func Tokens(s string) []string {
	s = Normalize(s)
	if s == "" {
		return nil
	}
	toks := make([]string, 0, len(s)/5+1)
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch classify(r) {
		case classWord:
			j := i + n
			for j < len(s) {
				r, m := rune(s[j]), 1
				if r >= utf8.RuneSelf {
					r, m = utf8.DecodeRuneInString(s[j:])
				}
				if classify(r) != classWord {
					break
				}
				j += m
			}
			toks = append(toks, s[i:j])
			i = j
		case classCJK:
			// Unigrams, remembering where the run ends.
			start, j := i, i
			runes := 0
			for j < len(s) {
				r, m := utf8.DecodeRuneInString(s[j:])
				if classify(r) != classCJK {
					break
				}
				toks = append(toks, s[j:j+m])
				j += m
				runes++
			}
			// Bigrams: each pair of adjacent characters is a contiguous
			// substring, so no allocation is needed.
			if runes > 1 {
				a := start
				_, m := utf8.DecodeRuneInString(s[a:])
				b := a + m
				for b < j {
					_, m := utf8.DecodeRuneInString(s[b:])
					toks = append(toks, s[a:b+m])
					a, b = b, b+m
				}
			}
			i = j
		default:
			i += n
		}
	}
	if len(toks) == 0 {
		return nil
	}
	return toks
}

const (
	classSep = iota
	classWord
	classCJK
)

// asciiClass is the class of each ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = classWord
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = classWord
		t[c-'a'+'A'] = classWord
	}
	t['_'] = classWord
	return t
}()

// cjkTables are the scripts whose characters are tokenised one by one
// (rule 2 of Tokens).
var cjkTables = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

// wordTables are the categories of word characters (rule 3 of Tokens).
var wordTables = []*unicode.RangeTable{unicode.L, unicode.M, unicode.N}

// IsCJK reports whether r is a CJK character as Tokens defines it (rule
// 2): a letter, mark or number of the Han, Hiragana, Katakana or Hangul
// script, or the prolonged sound mark 'ー'.
func IsCJK(r rune) bool { return classify(r) == classCJK }

func classify(r rune) uint8 {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	switch {
	case 0x4E00 <= r && r <= 0x9FFF, 0xAC00 <= r && r <= 0xD7A3, r == 0x30FC:
		// Fast path: CJK Unified Ideographs and Hangul syllables (all
		// letters), and the prolonged sound mark.
		return classCJK
	}
	if unicode.IsOneOf(cjkTables, r) {
		if unicode.IsOneOf(wordTables, r) {
			return classCJK
		}
		return classSep // CJK-script symbols such as ㉠ are not words
	}
	if unicode.IsOneOf(wordTables, r) {
		return classWord
	}
	return classSep
}
