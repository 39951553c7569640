package kb

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// EvidenceKeyFormat is the version of the evidence-key rule below,
// recorded with a kbScope's index (IndexInfo.KeyFormat) so that a store
// seeded under another rule is re-seeded rather than read. Format 1 was
// "<docId>#<chunkIndex>", a running counter that renumbered every later
// chunk when a section was inserted.
const EvidenceKeyFormat = 2

// Limits of an evidence key, in bytes of UTF-8.
const (
	// MaxEvidenceKeyLen is the longest evidence key a store accepts, the
	// size of the catalog's evidence_key column. It fits the Milvus
	// evidence_key field and primary key, as a test in package config
	// checks. Keys made from a valid seed document are shorter. They are at
	// most 475 bytes: a doc_id of 256, '#', a label of MaxSectionLabelLen
	// and the suffixes.
	MaxEvidenceKeyLen = 544
	// MaxSectionLabelLen is the longest section label kept as written.
	// SectionLabel cuts a longer one to its first bytes, "…" and a hash. A
	// doc_id has at most 256 bytes, then come '#' and the "@n" and "~n"
	// suffixes a document of 16 MiB can reach. With those a key stays
	// within MaxEvidenceKeyLen.
	MaxSectionLabelLen = 200
	// labelHashLen is the number of hex digits of the hash of a cut label.
	labelHashLen = 8
)

// SectionLabel returns the label of a section in its evidence keys. It
// joins by " > " the headings above and of the section, as its chunks'
// breadcrumb shows them after the document's breadcrumb. '#', '@' and '~'
// are written as %23, %40 and %7E. So a key splits unambiguously into the
// document before the last '#', the label, the occurrence after '@' and the
// piece after '~'. A control character, a tab say, is written as the %XX of
// its bytes. The text before the first heading has the empty path, hence
// the empty label. So does the section of an H1 that is the document's
// title.
//
// A label longer than MaxSectionLabelLen bytes is cut at a character
// boundary. It then ends with "…" and the first 8 hex digits of the SHA-256
// of the whole label. So it stays readable as a prefix, bounded, and
// distinct from the labels of other long paths sharing the prefix.
func SectionLabel(path []string) string {
	var b strings.Builder
	for i, h := range path {
		if i > 0 {
			b.WriteString(" > ")
		}
		for _, r := range h {
			switch r {
			case '#':
				b.WriteString("%23")
			case '@':
				b.WriteString("%40")
			case '~':
				b.WriteString("%7E")
			default:
				if isControl(r) {
					for _, c := range []byte(string(r)) {
						fmt.Fprintf(&b, "%%%02X", c)
					}
					continue
				}
				b.WriteRune(r)
			}
		}
	}
	label := b.String()
	if len(label) <= MaxSectionLabelLen {
		return label
	}
	sum := sha256.Sum256([]byte(label))
	suffix := "…" + hex.EncodeToString(sum[:])[:labelHashLen]
	n := MaxSectionLabelLen - len(suffix)
	for n > 0 && !utf8.RuneStart(label[n]) {
		n--
	}
	return label[:n] + suffix
}

// EvidenceKey returns the key of a chunk in document docID. The chunk is
// the piece-th piece, from 1, of the occurrence-th section, from 1 in
// document order, labelled label by SectionLabel:
//
//	<docId>#<label>[@<occurrence>][~<piece>]
//
// The occurrence is written from the second section with the same label on.
// The piece is written from a section's second piece on:
//
//	rag-eval/mysql-connection-pool#               the document's top, the text under the title
//	rag-eval/mysql-connection-pool#排查步骤 > 1. 查看当前连接数
//	rag-eval/mysql-connection-pool#处理~2         the second piece of a long section
//	rag-eval/runbook#FAQ@2                        the second section whose path is "FAQ"
//
// The key depends only on the document, the section's heading path, its
// rank among sections of the same path and the piece. So inserting,
// removing or editing another section leaves it unchanged. It is unique in
// a kbScope, because doc IDs are and a label holds no '#'.
func EvidenceKey(docID, label string, occurrence, piece int) string {
	k := docID + "#" + label
	if occurrence > 1 {
		k += "@" + strconv.Itoa(occurrence)
	}
	if piece > 1 {
		k += "~" + strconv.Itoa(piece)
	}
	return k
}

// CheckEvidenceKey reports why key cannot be an evidence key of a chunk
// of docID, or nil: it must be docID, '#' and a label without '#' or
// control characters, at most MaxEvidenceKeyLen bytes of valid UTF-8.
// The catalog checks it before writing.
func CheckEvidenceKey(docID, key string) error {
	rest, ok := strings.CutPrefix(key, docID+"#")
	switch {
	case !ok:
		return fmt.Errorf("evidence key %q does not start with its document's id and '#' (%q)", shorten(key), shorten(docID+"#"))
	case strings.Contains(rest, "#"):
		return fmt.Errorf("evidence key %q has a '#' after its document's id", shorten(key))
	case len(key) > MaxEvidenceKeyLen:
		return fmt.Errorf("evidence key %q is %d bytes long, at most %d", shorten(key), len(key), MaxEvidenceKeyLen)
	case !utf8.ValidString(key):
		return fmt.Errorf("evidence key %q is not valid UTF-8", shorten(key))
	case strings.ContainsFunc(rest, isControl):
		return fmt.Errorf("evidence key %q has a control character after its document's id", shorten(key))
	}
	return nil
}

// shorten cuts s to about 60 bytes for a message.
func shorten(s string) string { return diag.Clip(s, 60, diag.Bytes) }

// isControl reports whether r is a control character (C0, DEL, C1) or a
// line or paragraph separator: none is written into a key.
func isControl(r rune) bool {
	return r < 0x20 || 0x7f <= r && r < 0xa0 || r == '\u2028' || r == '\u2029'
}

// CompareTies orders two chunks whose search scores are equal, the same
// way in every index: by "<docId>#<chunkIndex>" compared as strings (the
// evidence keys of format 1, so re-keying a store reorders no tied
// results), then by evidence key and kbScope, a total order. It returns
// -1 when a ranks first, 1 when b does, 0 for the same chunk.
func CompareTies(a, b *Chunk) int {
	if a.DocID != b.DocID || a.ChunkIndex != b.ChunkIndex {
		pa := a.DocID + "#" + strconv.Itoa(a.ChunkIndex)
		pb := b.DocID + "#" + strconv.Itoa(b.ChunkIndex)
		if c := strings.Compare(pa, pb); c != 0 {
			return c
		}
	}
	if c := strings.Compare(a.EvidenceKey, b.EvidenceKey); c != 0 {
		return c
	}
	return strings.Compare(a.KBScope, b.KBScope)
}
