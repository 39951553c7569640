package calibrate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// WriteMarkdown renders r as a Markdown document: per mode, the shipped
// thresholds beside the best separating ones with their rates, the score
// summaries, the two histograms side by side as text bars, the per-case
// best scores and the relevanceLevel precision table. Every table cell is
// escaped.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# Threshold calibration\n\n")
	fmt.Fprintf(b, "Cases `%s` (sha256 `%s`), K = %d.\n\n",
		mdcell.Code(r.Inputs.Cases), mdcell.ShortHash(r.Inputs.CasesSHA256), r.Inputs.K)
	b.WriteString("A block, or a case by its best block, is predicted relevant when its qualityScore ≥ the threshold.\n")
	b.WriteString("TPR is the share of relevant ones kept, FPR the share of non-relevant ones kept, J = TPR − FPR;\n")
	b.WriteString("the best separating threshold maximises J. How blocks and cases are labelled: `go doc ./internal/calibrate`.\n")
	for i := range r.Modes {
		writeModeMarkdown(b, &r.Modes[i])
	}
	return b.Flush()
}

func writeModeMarkdown(b *bufio.Writer, m *Mode) {
	fmt.Fprintf(b, "\n## %s\n\n", mdcell.Escape(m.Name))
	emb := "unknown"
	if m.Embedder != nil {
		emb = "`" + mdcell.Code(*m.Embedder) + "`"
	}
	fmt.Fprintf(b, "Fixtures `%s`, embedder %s, status %s.\n", mdcell.Code(m.Fixtures), emb, mdcell.Escape(m.Status))
	if m.Blocks == nil {
		fmt.Fprintf(b, "\nUnavailable: %s. No statistics.\n\n", mdcell.Escape(mdcell.Or(m.Reason, "no reason given")))
		mdcell.Row(b, "shipped threshold", "value")
		mdcell.Row(b, "---", "---:")
		mdcell.Row(b, NameLowQuality, mdcell.Float(m.Shipped.LowQuality))
		mdcell.Row(b, NameMinQuality, mdcell.Float(m.Shipped.MinQuality))
		mdcell.Row(b, NameLevelsHigh, mdcell.Float(m.Shipped.Levels.High))
		mdcell.Row(b, NameLevelsMedium, mdcell.Float(m.Shipped.Levels.Medium))
		return
	}
	if len(m.Warnings) > 0 {
		b.WriteString("\n")
		for _, w := range m.Warnings {
			fmt.Fprintf(b, "**Small sample.** %s.\n", mdcell.Escape(w))
		}
	}
	b.WriteString("\n")
	for _, l := range m.CountLines() {
		b.WriteString(l + "\n")
	}

	fmt.Fprintf(b, "\n### Thresholds\n\n")
	mdcell.Row(b, "gate", "threshold", "value", "TPR", "FPR", "J", "precision")
	mdcell.Row(b, "---", "---", "---:", "---:", "---:", "---:", "---:")
	thresholdRow(b, "block", m.Blocks.Best)
	for i := range m.Blocks.AtShipped {
		thresholdRow(b, "block", &m.Blocks.AtShipped[i])
	}
	thresholdRow(b, "case", m.Cases.Best)
	for i := range m.Cases.AtShipped {
		thresholdRow(b, "case", &m.Cases.AtShipped[i])
	}

	fmt.Fprintf(b, "\n### qualityScore of the top-K blocks\n\n")
	distTable(b, m.Blocks.Relevant, m.Blocks.NonRelevant)
	b.WriteString("\n")
	histTable(b, m.Blocks.Histogram)

	fmt.Fprintf(b, "\n### Best qualityScore per case\n\n")
	distTable(b, m.Cases.Relevant, m.Cases.NonRelevant)
	b.WriteString("\n")
	histTable(b, m.Cases.Histogram)
	if len(m.Cases.Samples) > 0 {
		b.WriteString("\n")
		mdcell.Row(b, "case", "label", "best qualityScore", "from")
		mdcell.Row(b, "---", "---", "---:", "---")
		for _, s := range m.Cases.Samples {
			from := "—"
			switch {
			case s.ScoreFrom == nil:
			case *s.ScoreFrom == ScoreFromAttempt:
				from = "selected attempt (no block)"
			case *s.ScoreFrom == ScoreFromNothing:
				from = "nothing retrieved: rejected at every threshold"
			default:
				from = mdcell.Escape(*s.ScoreFrom)
			}
			mdcell.Row(b, mdcell.Escape(s.CaseID), labelWord(s.Label), mdcell.Float(s.BestQuality), from)
		}
	}

	fmt.Fprintf(b, "\n### relevanceLevel precision\n\n")
	mdcell.Row(b, "relevanceLevel", "relevant", "non-relevant", "unlabelled", "precision")
	mdcell.Row(b, "---", "---:", "---:", "---:", "---:")
	for _, l := range m.Blocks.RelevanceLevels {
		mdcell.Row(b, mdcell.Escape(l.Level), strconv.Itoa(l.Relevant), strconv.Itoa(l.NonRelevant), strconv.Itoa(l.Unlabelled), mdcell.Float(l.Precision))
	}
}

// CountLines say how the blocks and the cases of an available mode were
// labelled, and how many had no score, one sentence a line:
//
//	Top-K blocks: 5 relevant, 8 non-relevant, 1 unlabelled; 1 without qualityScore.
//	Judged cases: 2 with a relevant block, 3 off-topic, 2 neither; 0 without any score.
//
// When cases retrieved nothing and have no score, the second line counts
// the answerable ones apart, and a third line says how they count.
func (m *Mode) CountLines() []string {
	bc, cc := m.Blocks.Counts, m.Cases.Counts
	misses, rejections := nothingRetrieved(m.Cases.Samples)
	answered := fmt.Sprintf("%d with a relevant block", cc.Relevant-misses)
	if misses > 0 {
		answered += fmt.Sprintf(", %d answerable that retrieved nothing", misses)
	}
	out := []string{
		fmt.Sprintf("Top-K blocks: %d relevant, %d non-relevant, %d unlabelled; %d without qualityScore.",
			bc.Relevant, bc.NonRelevant, bc.Unlabelled, bc.MissingScore),
		fmt.Sprintf("Judged cases: %s, %d off-topic, %d neither; %d without any score.",
			answered, cc.NonRelevant, cc.Unlabelled, cc.MissingScore),
	}
	if misses+rejections > 0 {
		out = append(out, fmt.Sprintf("The cases that retrieved nothing and have no score count as rejected at every threshold: %d off-topic (correct rejections), %d answerable (misses).",
			rejections, misses))
	}
	return out
}

// nothingRetrieved counts the case samples that retrieved nothing and have
// no score: the answerable ones (misses) and the off-topic ones
// (rejections).
func nothingRetrieved(samples []CaseSample) (misses, rejections int) {
	for _, s := range samples {
		if s.ScoreFrom == nil || *s.ScoreFrom != ScoreFromNothing {
			continue
		}
		if s.Label == Relevant.String() {
			misses++
		} else {
			rejections++
		}
	}
	return misses, rejections
}

func thresholdRow(b *bufio.Writer, gate string, t *Threshold) {
	if t == nil {
		mdcell.Row(b, gate, "best separating", "—", "—", "—", "—", "—")
		return
	}
	name := t.Name + " (shipped)"
	if t.Name == NameBest {
		name = "best separating"
	}
	mdcell.Row(b, gate, mdcell.Escape(name), mdcell.Float(t.Threshold), mdcell.Float(t.TPR), mdcell.Float(t.FPR), mdcell.Float(t.J), mdcell.Float(t.Precision))
}

func distTable(b *bufio.Writer, rel, non Dist) {
	mdcell.Row(b, "label", "count", "min", "median", "mean", "max")
	mdcell.Row(b, "---", "---:", "---:", "---:", "---:", "---:")
	for _, d := range []struct {
		name string
		d    Dist
	}{{"relevant", rel}, {"non-relevant", non}} {
		mdcell.Row(b, d.name, strconv.Itoa(d.d.Count), mdcell.Float(d.d.Min), mdcell.Float(d.d.Median), mdcell.Float(d.d.Mean), mdcell.Float(d.d.Max))
	}
}

// barWidth is the longest histogram bar, in characters.
const barWidth = 20

// histTable writes the bins from the first to the last non-empty one, the
// two classes side by side as bars scaled to the largest count.
func histTable(b *bufio.Writer, bins []HistBin) {
	first, last, most := -1, -1, 0
	for i, h := range bins {
		if h.Relevant+h.NonRelevant > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
		most = max(most, h.Relevant, h.NonRelevant)
	}
	if first < 0 {
		b.WriteString("No scores to show.\n")
		return
	}
	mdcell.Row(b, "qualityScore", "relevant", "non-relevant")
	mdcell.Row(b, "---", "---", "---")
	for _, h := range bins[first : last+1] {
		mdcell.Row(b, fmt.Sprintf("%.2f–%.2f", float64(h.From), float64(h.To)), bar(h.Relevant, most), bar(h.NonRelevant, most))
	}
}

func bar(n, most int) string {
	if n == 0 {
		return "0"
	}
	w := n
	if most > barWidth {
		w = max(1, (n*barWidth+most-1)/most)
	}
	return strings.Repeat("█", w) + " " + strconv.Itoa(n)
}

func labelWord(l string) string {
	switch l {
	case Relevant.String():
		return "relevant"
	case NonRelevant.String():
		return "off-topic"
	}
	return "unlabelled"
}
