package draft

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// Normalize is a query's exact form: textnorm.Normalize (NFKC, full case
// folding, trimmed) with every run of white space inside collapsed to one
// space. Two queries of one exact form are one query.
func Normalize(q string) string {
	return strings.Join(strings.Fields(textnorm.Normalize(q)), " ")
}

// Key is the near-duplicate key of a query: queries of one key are one
// query, their counts summed. It is the exact form (Normalize) with
// punctuation and the white space around it treated alike:
//
//   - every punctuation character (Unicode category P) but '#', '%' and
//     '@', every white space and every control character is a break;
//   - a run of breaks is one space, and none at the start or the end;
//   - a break next to a CJK character (textnorm.IsCJK) is nothing, since
//     CJK text is written without spaces between words.
//
// So "How do I reset my password?" and "how do i reset my password" have
// one key, and so have "连接池满了，怎么办？", "连接池 满了 怎么办" and
// "连接池满了怎么办", or "mysql连接池" and "MySQL 连接池". Symbols are kept:
// "c++" and "c" differ, and so do "c#" and "c". A query of punctuation
// only is its own key, its exact form. Letters are never compared for
// similarity: one character tells "502" from "504" and "满" from "慢".
func Key(q string) string {
	norm := Normalize(q)
	var b strings.Builder
	b.Grow(len(norm))
	var prev rune
	pending := false
	for _, r := range norm {
		if isBreak(r) {
			pending = b.Len() > 0
			continue
		}
		if pending && !textnorm.IsCJK(prev) && !textnorm.IsCJK(r) {
			b.WriteByte(' ')
		}
		pending = false
		b.WriteRune(r)
		prev = r
	}
	if b.Len() == 0 {
		return norm
	}
	return b.String()
}

func isBreak(r rune) bool {
	switch r {
	case '#', '%', '@':
		return false
	}
	return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsControl(r)
}

// IDPrefix starts every case id Draft derives.
const IDPrefix = "q-"

// idLens are the lengths, in hex digits, of the digest in a derived case
// id: the first for every id but those that share it with another.
var idLens = []int{10, 16, 24, 32, 64}

// digest is the hex SHA-256 of a query's key, which its case id is made of.
func digest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CaseID is the case id of a query whose key is key, when no other query's
// id starts the same: "q-" and the first 10 hex digits of the SHA-256 of
// the key (Key). It depends on the key alone, so it is stable across runs
// and across the forms a query is asked in.
func CaseID(key string) string { return IDPrefix + digest(key)[:idLens[0]] }

// Scripts are the script classes of queries, in the order of the strata.
const (
	ScriptCJK   = "cjk"   // letters of CJK scripts only
	ScriptLatin = "latin" // Latin letters only
	ScriptMixed = "mixed" // letters of two or more of CJK, Latin and other scripts
	ScriptOther = "other" // letters of other scripts only, or no letter
)

// Scripts lists the script classes in order.
var Scripts = []string{ScriptCJK, ScriptLatin, ScriptMixed, ScriptOther}

// Script is the script class of a query, from its letters: CJK (as
// textnorm.IsCJK says), Latin, or other. Digits, symbols and punctuation
// do not count.
func Script(q string) string {
	var cjk, latin, other bool
	for _, r := range q {
		switch {
		case textnorm.IsCJK(r):
			if unicode.IsLetter(r) {
				cjk = true
			}
		case unicode.Is(unicode.Latin, r):
			latin = true
		case unicode.IsLetter(r):
			other = true
		}
	}
	switch n := count(cjk) + count(latin) + count(other); {
	case n > 1:
		return ScriptMixed
	case cjk:
		return ScriptCJK
	case latin:
		return ScriptLatin
	}
	return ScriptOther
}

func count(b bool) int {
	if b {
		return 1
	}
	return 0
}
