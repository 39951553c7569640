package diag

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Unit is what a length given to Clip or Prefix counts.
type Unit int

const (
	// Bytes counts bytes. It suits a length bounded in bytes, such as a
	// report capped in bytes or a key with a byte limit.
	Bytes Unit = iota
	// Chars counts characters, that is runes. It suits text a person
	// reads. A byte that is not valid UTF-8 counts as one character, as in
	// utf8.RuneCountInString.
	Chars
)

// Ellipsis is what Clip puts where it cut.
const Ellipsis = "…"

// Clip returns s when it is at most n long, else its Prefix followed by
// Ellipsis.
func Clip(s string, n int, u Unit) string {
	head, cut := Prefix(s, n, u)
	if cut {
		return head + Ellipsis
	}
	return s
}

// Prefix returns s when it is at most n long, else its longest prefix of at
// most n that ends at a character boundary. cut reports whether it left
// anything out. A caller that marks the cut in its own way uses Prefix:
// one that quotes the prefix puts the ellipsis after the closing quote.
//
// In Bytes, a limit that falls inside a UTF-8 sequence moves back to its
// start. A negative n counts as 0.
func Prefix(s string, n int, u Unit) (head string, cut bool) {
	n = max(n, 0)
	if len(s) <= n {
		return s, false
	}
	if u == Chars {
		count := 0
		for i := range s {
			if count == n {
				return s[:i], true
			}
			count++
		}
		return s, false
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// Join joins items with ", ", listing at most n of them and counting the
// rest, as in "a, b, … (3 more)". It lists at least one.
func Join(items []string, n int) string {
	n = max(n, 1)
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", … (%d more)", len(items)-n)
}
