package corpus

import (
	"iter"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// Default chunk sizes (docs/corpus.md), in Unicode characters.
const (
	DefaultMaxChars = 800
	DefaultOverlap  = 100
	// MaxChunkChars is the largest chunk size: a chunk of that many
	// characters of up to 4 bytes each fits every store's text field
	// (Milvus VarChar 65,535 bytes).
	MaxChunkChars = 16000
)

// ChunkOptions sets the chunk sizes, counted in Unicode characters (runes).
type ChunkOptions struct {
	// MaxChars is the size of the largest chunk, overlap included. Zero or
	// negative means DefaultMaxChars.
	MaxChars int
	// Overlap is the most characters of a piece that are repeated at the
	// start of the next piece of the same section. Zero means
	// DefaultOverlap, and negative means no overlap. More than MaxChars/2 is
	// taken as MaxChars/2, so every chunk carries at least half new text.
	Overlap int
}

// Sizes returns the sizes the options stand for, as Chunk uses them: the
// largest chunk and the overlap, in Unicode characters (overlap 0: none).
func (o ChunkOptions) Sizes() (maxChars, overlap int) { return o.resolved() }

// resolved returns the sizes the options stand for.
func (o ChunkOptions) resolved() (maxChars, overlap int) {
	maxChars, overlap = o.MaxChars, o.Overlap
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	switch {
	case overlap == 0:
		overlap = DefaultOverlap
	case overlap < 0:
		overlap = 0
	}
	return maxChars, min(overlap, maxChars/2)
}

// Chunk splits the body of doc into chunks as described in the package
// documentation, numbered 0..n-1 in document order, each carrying the
// document's metadata, its EvidenceKey and its heading breadcrumb. It is
// deterministic. doc.Body is expected as Parse returns it, with LF line
// endings. A '\r' is taken as white space.
func Chunk(doc *kb.Document, opts ChunkOptions) []kb.Chunk {
	var chunks []kb.Chunk
	for _, p := range pieces(doc, opts) {
		chunks = append(chunks, kb.Chunk{
			EvidenceKey: kb.EvidenceKey(doc.DocID, p.sec.label, p.sec.occurrence, p.n),
			DocID:       doc.DocID,
			Source:      doc.Source,
			Title:       doc.Title,
			Breadcrumb:  p.sec.crumb,
			Category:    doc.Category,
			KBScope:     doc.KBScope,
			ChunkIndex:  len(chunks),
			Text:        doc.Body[p.textStart:p.end],
		})
	}
	return chunks
}

// piece is one chunk as a range of the body: its text is
// body[textStart:end], of which body[start:end] is new and
// body[textStart:start] the overlap with the previous piece. It is the
// n-th piece (from 1) of its section.
type piece struct {
	textStart, start, end int
	n                     int
	sec                   *section
}

// pieces cuts doc.Body into chunk ranges.
func pieces(doc *kb.Document, opts ChunkOptions) []piece {
	maxChars, overlap := opts.resolved()
	var out []piece
	for sec := range sections(doc, scanLines(doc.Body)) {
		for i, p := range splitSection(doc.Body, sec.lines, maxChars, overlap) {
			p.n, p.sec = i+1, sec
			out = append(out, p)
		}
	}
	return out
}

// section is a heading (or the text before the first heading) and the
// lines up to the next heading.
type section struct {
	lines []mdLine
	// crumb is the breadcrumb of its chunks: the document's, then the
	// heading path.
	crumb string
	// label is kb.SectionLabel of the heading path, and occurrence the
	// rank (from 1) of the section among the sections of the document
	// with the same label: the two identify it in evidence keys.
	label      string
	occurrence int
}

// sections yields the sections of the body that have text. A section is a
// heading, or the text before the first heading, and the lines up to the
// next heading. Its heading path is the path of the headings above it and
// its own. An H1 equal to the title and headings without text are left
// out of the path. Occurrences count every section of a path, with text or
// not. The text before the first heading is the exception: when it has no
// text, there is no such section. Chunking and the MaxBreadcrumbLen
// validation both walk the body with it.
func sections(doc *kb.Document, lines []mdLine) iter.Seq[*section] {
	return func(yield func(*section) bool) {
		title := textnorm.Normalize(doc.Title)
		type heading struct {
			level int
			text  string
		}
		var path []heading
		seen := map[string]int{}
		for a := 0; a < len(lines); {
			if h := lines[a]; h.kind == lineHeading {
				for len(path) > 0 && path[len(path)-1].level >= h.level {
					path = path[:len(path)-1]
				}
				if h.heading != "" && !(h.level == 1 && textnorm.Normalize(h.heading) == title) {
					path = append(path, heading{h.level, h.heading})
				}
			}
			b := a + 1
			for b < len(lines) && lines[b].kind != lineHeading {
				b++
			}
			sec := lines[a:b]
			a = b
			text := hasText(sec)
			if sec[0].kind != lineHeading && !text {
				continue // blank lines before the first heading
			}
			texts := make([]string, len(path))
			for i, h := range path {
				texts[i] = h.text
			}
			label := kb.SectionLabel(texts)
			seen[label]++
			if !text {
				continue
			}
			s := &section{lines: sec, crumb: doc.Breadcrumb, label: label, occurrence: seen[label]}
			for _, t := range texts {
				s.crumb += " > " + t
			}
			if !yield(s) {
				return
			}
		}
	}
}

// splitSection cuts one section into pieces of at most maxChars runes.
// The section's text runs from its first to its last non-space character.
// A piece ends at the strongest boundary that leaves it at least half
// full (paragraph, then line, then sentence, then white space), else at
// the last boundary of any kind, else hard after maxChars characters.
func splitSection(body string, sec []mdLine, maxChars, overlap int) []piece {
	end := trimRight(body, sec[0].start, sec[len(sec)-1].end)
	pos := skipSpace(body, sec[0].start, end)
	if pos >= end {
		return nil
	}
	if fits(body, pos, end, maxChars) {
		return []piece{{textStart: pos, start: pos, end: end}}
	}
	bs := findBoundaries(body, sec, pos, end)
	var out []piece
	prevText := -1
	for pos < end {
		textStart := pos
		if prevText >= 0 && overlap > 0 {
			textStart = overlapStart(body, &bs, prevText, pos, overlap)
		}
		limit := maxChars - utf8.RuneCountInString(body[textStart:pos])
		if limit < 1 { // cannot happen while overlap <= maxChars/2
			textStart, limit = pos, maxChars
		}
		if fits(body, pos, end, limit) {
			out = append(out, piece{textStart: textStart, start: pos, end: end})
			break
		}
		w := advance(body, pos, limit)
		low := advance(body, pos, limit/2)
		cut := -1
		for _, b := range bs {
			if c := lastIn(b, low, w); c >= 0 {
				cut = c
				break
			}
		}
		if cut < 0 {
			for _, b := range bs {
				cut = max(cut, lastIn(b, pos, low))
			}
		}
		if cut < 0 {
			cut = hardCut(body, pos, w)
		}
		out = append(out, piece{textStart: textStart, start: pos, end: trimRight(body, pos, cut)})
		prevText = textStart
		pos = skipSpace(body, cut, end)
	}
	return out
}

// Boundary levels, strongest first.
const (
	levelParagraph = iota
	levelLine
	levelSentence
	levelSpace
	numLevels
)

// findBoundaries returns, per level, the sorted byte offsets in (pos, end)
// where a piece may start. Every offset is at a non-space character.
//
//   - paragraph: the first line after a blank line, after a heading or
//     after a fenced code block, and the opening line of a fenced code
//     block. Blank lines inside a code block are not boundaries;
//   - line: every non-blank line;
//   - sentence: after 。, ！ or ？, or after '.', '!' or '?' followed by
//     white space. Closing quotes and brackets after the mark stay with
//     the sentence;
//   - space: after white space.
func findBoundaries(body string, sec []mdLine, pos, end int) [numLevels][]int {
	var bs [numLevels][]int
	for k := 1; k < len(sec); k++ {
		l := sec[k]
		if l.blank || l.start <= pos || l.start >= end {
			continue
		}
		start := skipSpace(body, l.start, end)
		prev := sec[k-1]
		if l.kind == lineFenceOpen || prev.kind == lineFenceClose || prev.kind == lineHeading ||
			prev.blank && prev.kind != lineFenceInner && l.kind != lineFenceInner && l.kind != lineFenceClose {
			bs[levelParagraph] = append(bs[levelParagraph], start)
		}
		bs[levelLine] = append(bs[levelLine], start)
	}
	afterSpace := false
	for i := pos; i < end; {
		r, n := utf8.DecodeRuneInString(body[i:])
		i += n
		if isSpace(r) {
			afterSpace = true
			continue
		}
		if afterSpace && i-n > pos {
			bs[levelSpace] = append(bs[levelSpace], i-n)
		}
		afterSpace = false
		if !isTerminator(r) {
			continue
		}
		j := i
		for j < end {
			r, m := utf8.DecodeRuneInString(body[j:])
			if !isTerminator(r) && !strings.ContainsRune(closers, r) {
				break
			}
			j += m
		}
		if r < utf8.RuneSelf && j < end {
			if r, _ := utf8.DecodeRuneInString(body[j:]); !isSpace(r) {
				continue
			}
		}
		if j = skipSpace(body, j, end); j < end {
			if k := len(bs[levelSentence]); k == 0 || bs[levelSentence][k-1] < j {
				bs[levelSentence] = append(bs[levelSentence], j)
			}
		}
	}
	return bs
}

const closers = "\"')]}”’」』】）》〉"

func isTerminator(r rune) bool {
	switch r {
	case '。', '！', '？', '.', '!', '?':
		return true
	}
	return false
}

// lastIn returns the last offset in the sorted list b that is in (lo, hi],
// or -1.
func lastIn(b []int, lo, hi int) int {
	i := sort.SearchInts(b, hi+1) // first > hi
	if i > 0 && b[i-1] > lo {
		return b[i-1]
	}
	return -1
}

// fits reports whether body[pos:end] has at most n runes.
func fits(body string, pos, end, n int) bool {
	if end-pos <= n {
		return true
	}
	return advance(body, pos, n) >= end
}

// advance returns the offset n runes after pos, or len(body).
func advance(body string, pos, n int) int {
	for ; n > 0 && pos < len(body); n-- {
		if body[pos] < utf8.RuneSelf {
			pos++
		} else {
			_, m := utf8.DecodeRuneInString(body[pos:])
			pos += m
		}
	}
	return pos
}

// hardCut returns w, moved back before any combining marks so a
// character is not split from its accents, unless that reaches pos.
func hardCut(body string, pos, w int) int {
	c := w
	for c > pos && c < len(body) {
		r, _ := utf8.DecodeRuneInString(body[c:])
		if !unicode.Is(unicode.M, r) {
			return c
		}
		_, n := utf8.DecodeLastRuneInString(body[:c])
		c -= n
	}
	if c <= pos {
		return w
	}
	return c
}

// overlapStart returns where the text of the piece starting at pos begins:
// at most overlap runes before pos but not before lo (the start of the
// previous piece's text), moved forward to the first boundary of any level
// (a line, sentence or word start), else to the start of a word, and past
// white space.
func overlapStart(body string, bs *[numLevels][]int, lo, pos, overlap int) int {
	c := pos
	for k := 0; k < overlap && c > lo; k++ {
		_, n := utf8.DecodeLastRuneInString(body[:c])
		c -= n
	}
	if c == lo {
		return c
	}
	first := pos
	for _, b := range bs {
		if i := sort.SearchInts(b, c); i < len(b) && b[i] < first {
			first = b[i]
		}
	}
	if first < pos {
		return first
	}
	if before, _ := utf8.DecodeLastRuneInString(body[:c]); isWordRune(before) {
		for c < pos {
			r, n := utf8.DecodeRuneInString(body[c:])
			if !isWordRune(r) {
				break
			}
			c += n
		}
	}
	return skipSpace(body, c, pos)
}

// isWordRune reports whether r is part of a word that must not be cut:
// a letter, mark, number or '_' outside the CJK scripts, where every
// character stands alone.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return false
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N)
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' || r == '\v'
	}
	return unicode.IsSpace(r)
}

// skipSpace returns the offset of the first non-space character in
// body[pos:end], or end.
func skipSpace(body string, pos, end int) int {
	for pos < end {
		r, n := utf8.DecodeRuneInString(body[pos:])
		if !isSpace(r) {
			break
		}
		pos += n
	}
	return pos
}

// trimRight returns the end of body[pos:end] without trailing white space.
func trimRight(body string, pos, end int) int {
	for end > pos {
		r, n := utf8.DecodeLastRuneInString(body[pos:end])
		if !isSpace(r) {
			break
		}
		end -= n
	}
	return end
}
