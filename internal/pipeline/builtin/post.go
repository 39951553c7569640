package builtin

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

// quality is the qualityScore of a dense distance: clamp(1 − d²/2, 0, 1),
// the cosine clipped to [0, 1]. A distance that is not a number scores 0.
func quality(d float64) float64 {
	q := 1 - d*d/2
	if math.IsNaN(q) || q < 0 {
		return 0
	}
	return min(q, 1)
}

// bestQuality is the best qualityScore among the first topK hits, 0 for
// none.
func bestQuality(hits []kb.Hit, topK int) float64 {
	best := 0.0
	for _, h := range hits[:min(topK, len(hits))] {
		best = max(best, quality(h.DenseDistance))
	}
	return best
}

// hasEvidence reports whether some candidate reaches the minQuality floor,
// that is, whether the attempt returns anything once post-processing drops
// the candidates below it. With no floor (0) any candidate is evidence.
func hasEvidence(hits []kb.Hit, minQuality float64) bool {
	for _, h := range hits {
		if quality(h.DenseDistance) >= minQuality {
			return true
		}
	}
	return false
}

// level is the relevance level of a qualityScore.
func level(q float64, l Levels) string {
	switch {
	case q >= l.High:
		return contract.LevelHigh
	case q >= l.Medium:
		return contract.LevelMedium
	}
	return contract.LevelLow
}

// maxBlocksPerDoc is the per-document cap of post-processing.
const maxBlocksPerDoc = 2

// postProcess turns the selected attempt's hits, in order, into at most topK
// blocks (docs/pipeline.md, step 8): a hit below minQuality is dropped, then a hit
// whose evidenceKey or normalised text was already kept, then a hit of a
// document that already has maxBlocksPerDoc blocks. Blocks are not ranked
// yet.
func postProcess(hits []kb.Hit, topK int, minQuality float64, levels Levels, label string) []contract.EvidenceBlock {
	blocks := make([]contract.EvidenceBlock, 0, min(topK, len(hits)))
	keys := map[string]bool{}
	texts := map[string]bool{}
	perDoc := map[string]int{}
	for _, h := range hits {
		if len(blocks) == topK {
			break
		}
		q := quality(h.DenseDistance)
		if q < minQuality {
			continue
		}
		text := textnorm.Normalize(h.Text)
		if keys[h.EvidenceKey] || texts[text] || perDoc[h.DocID] >= maxBlocksPerDoc {
			continue
		}
		keys[h.EvidenceKey] = true
		texts[text] = true
		perDoc[h.DocID]++
		blocks = append(blocks, contract.EvidenceBlock{
			EvidenceKey:    h.EvidenceKey,
			DocID:          h.DocID,
			Source:         h.Source,
			Title:          h.Title,
			Breadcrumb:     h.Breadcrumb,
			Category:       h.Category,
			ChunkIndex:     h.ChunkIndex,
			Excerpt:        h.Text,
			QualityScore:   contract.Float6(q),
			RelevanceLevel: level(q, levels),
			DenseDistance:  contract.Float6(h.DenseDistance),
			FusedScore:     contract.Float6(h.Score),
			ScoreLabel:     label,
			HasRank:        true,
			HasQuality:     true,
		})
	}
	return blocks
}

// packSeparator joins the blocks of the packed text. It counts against the
// budget.
const packSeparator = "\n\n"

// packHeader is the first line of a block in the packed text.
func packHeader(b *contract.EvidenceBlock) string {
	return "[" + b.Source + "] " + b.Breadcrumb + "\n"
}

// pack builds the context pack (docs/pipeline.md, step 10). Each block is
// written as "[source] breadcrumb\n" followed by its excerpt, and blocks
// are joined by a blank line ("\n\n"). Everything, headers and separators
// included, counts against the budget in Unicode characters, so usedChars
// is the character count of packedText and never exceeds the budget. The
// block that overflows is cut to the room left, provided its separator,
// its header and at least one character of its excerpt fit. Otherwise it
// is dropped, since a bare header is no evidence. Every later block is
// dropped. sources are the sources of the packed blocks, in order, each
// once.
func pack(blocks []contract.EvidenceBlock, budget int) contract.ContextPack {
	cp := contract.ContextPack{Sources: []string{}, BudgetChars: budget}
	var sb strings.Builder
	used := 0
	for i := range blocks {
		b := &blocks[i]
		sep := ""
		if i > 0 {
			sep = packSeparator
		}
		head := sep + packHeader(b)
		headN := utf8.RuneCountInString(head)
		bodyN := utf8.RuneCountInString(b.Excerpt)
		if used+headN+bodyN <= budget {
			sb.WriteString(head)
			sb.WriteString(b.Excerpt)
			used += headN + bodyN
		} else {
			cp.Truncated = true
			room := budget - used - headN
			if room < 1 {
				break
			}
			sb.WriteString(head)
			sb.WriteString(prefixRunes(b.Excerpt, room))
			used += headN + room
		}
		cp.BlockCount++
		if !slices.Contains(cp.Sources, b.Source) {
			cp.Sources = append(cp.Sources, b.Source)
		}
		if cp.Truncated {
			break
		}
	}
	cp.UsedChars = used
	cp.PackedText = sb.String()
	return cp
}

// prefixRunes returns the first n Unicode characters of s.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// evidenceStatus is none without blocks, weak when the best block's
// qualityScore is below lowQuality, else sufficient.
func evidenceStatus(blocks []contract.EvidenceBlock, lowQuality float64) string {
	if len(blocks) == 0 {
		return contract.EvidenceNone
	}
	best := 0.0
	for _, b := range blocks {
		best = max(best, float64(b.QualityScore))
	}
	if best < lowQuality {
		return contract.EvidenceWeak
	}
	return contract.EvidenceSufficient
}

// Grade applies the quality rules of the builtin pipeline to blocks that
// another pipeline retrieved, for pipelines that declare their own scores,
// as the mapped pipeline does. A block whose qualityScore (HasQuality) is
// below t.MinQuality is dropped, as post-processing drops such candidates.
// Each kept block with a qualityScore gets its relevanceLevel from
// t.Levels. The evidenceStatus is none without blocks, weak when the best
// qualityScore is below t.LowQuality, else sufficient. Blocks without a
// qualityScore are kept, get no level and count as 0 for the status. The
// order is kept, and blocks is not modified.
func Grade(blocks []contract.EvidenceBlock, t Thresholds) ([]contract.EvidenceBlock, string) {
	kept := make([]contract.EvidenceBlock, 0, len(blocks))
	for _, b := range blocks {
		if b.HasQuality {
			if float64(b.QualityScore) < t.MinQuality {
				continue
			}
			b.RelevanceLevel = level(float64(b.QualityScore), t.Levels)
		}
		kept = append(kept, b)
	}
	return kept, evidenceStatus(kept, t.LowQuality)
}
