package calibrate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/markdown"
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
		markdown.Code(r.Inputs.Cases), markdown.ShortHash(r.Inputs.CasesSHA256), r.Inputs.K)
	b.WriteString("A block, or a case by its best block, is predicted relevant when its qualityScore ≥ the threshold.\n")
	b.WriteString("TPR is the share of relevant ones kept, FPR the share of non-relevant ones kept, J = TPR − FPR;\n")
	b.WriteString("the best separating threshold maximises J. How blocks and cases are labelled: `go doc ./internal/calibrate`.\n")
	for i := range r.Modes {
		writeModeMarkdown(b, &r.Modes[i])
	}
	return b.Flush()
}

func writeModeMarkdown(b *bufio.Writer, m *Mode) {
	fmt.Fprintf(b, "\n## %s\n\n", markdown.Escape(m.Name))
	emb := "unknown"
	if m.Embedder != nil {
		emb = "`" + markdown.Code(*m.Embedder) + "`"
	}
	fmt.Fprintf(b, "Fixtures `%s`, embedder %s, status %s.\n", markdown.Code(m.Fixtures), emb, markdown.Escape(m.Status))
	if m.Blocks == nil {
		reason := "no reason given"
		if m.Reason != nil {
			reason = *m.Reason
		}
		fmt.Fprintf(b, "\nUnavailable: %s. No statistics.\n\n", markdown.Escape(reason))
		markdown.Row(b, "shipped threshold", "value")
		markdown.Row(b, "---", "---:")
		markdown.Row(b, NameLowQuality, fmtFloat(m.Shipped.LowQuality))
		markdown.Row(b, NameMinQuality, fmtFloat(m.Shipped.MinQuality))
		markdown.Row(b, NameLevelsHigh, fmtFloat(m.Shipped.Levels.High))
		markdown.Row(b, NameLevelsMedium, fmtFloat(m.Shipped.Levels.Medium))
		return
	}
	bc, cc := m.Blocks.Counts, m.Cases.Counts
	fmt.Fprintf(b, "\nTop-K blocks: %d relevant, %d non-relevant, %d unlabelled; %d without qualityScore.\n",
		bc.Relevant, bc.NonRelevant, bc.Unlabelled, bc.MissingScore)
	fmt.Fprintf(b, "Judged cases: %d with a relevant block, %d off-topic, %d neither; %d without any score.\n",
		cc.Relevant, cc.NonRelevant, cc.Unlabelled, cc.MissingScore)

	fmt.Fprintf(b, "\n### Thresholds\n\n")
	markdown.Row(b, "gate", "threshold", "value", "TPR", "FPR", "J", "precision")
	markdown.Row(b, "---", "---", "---:", "---:", "---:", "---:", "---:")
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
		markdown.Row(b, "case", "label", "best qualityScore", "from")
		markdown.Row(b, "---", "---", "---:", "---")
		for _, s := range m.Cases.Samples {
			from := "—"
			switch {
			case s.ScoreFrom == nil:
			case *s.ScoreFrom == ScoreFromAttempt:
				from = "selected attempt (no block)"
			default:
				from = markdown.Escape(*s.ScoreFrom)
			}
			markdown.Row(b, markdown.Escape(s.CaseID), labelWord(s.Label), fmtFloat(s.BestQuality), from)
		}
	}

	fmt.Fprintf(b, "\n### relevanceLevel precision\n\n")
	markdown.Row(b, "relevanceLevel", "relevant", "non-relevant", "unlabelled", "precision")
	markdown.Row(b, "---", "---:", "---:", "---:", "---:")
	for _, l := range m.Blocks.RelevanceLevels {
		markdown.Row(b, markdown.Escape(l.Level), strconv.Itoa(l.Relevant), strconv.Itoa(l.NonRelevant), strconv.Itoa(l.Unlabelled), fmtFloat(l.Precision))
	}
}

func thresholdRow(b *bufio.Writer, gate string, t *Threshold) {
	if t == nil {
		markdown.Row(b, gate, "best separating", "—", "—", "—", "—", "—")
		return
	}
	name := t.Name + " (shipped)"
	if t.Name == NameBest {
		name = "best separating"
	}
	markdown.Row(b, gate, markdown.Escape(name), fmtFloat(t.Threshold), fmtFloat(t.TPR), fmtFloat(t.FPR), fmtFloat(t.J), fmtFloat(t.Precision))
}

func distTable(b *bufio.Writer, rel, non Dist) {
	markdown.Row(b, "label", "count", "min", "median", "mean", "max")
	markdown.Row(b, "---", "---:", "---:", "---:", "---:", "---:")
	for _, d := range []struct {
		name string
		d    Dist
	}{{"relevant", rel}, {"non-relevant", non}} {
		markdown.Row(b, d.name, strconv.Itoa(d.d.Count), fmtFloat(d.d.Min), fmtFloat(d.d.Median), fmtFloat(d.d.Mean), fmtFloat(d.d.Max))
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
	markdown.Row(b, "qualityScore", "relevant", "non-relevant")
	markdown.Row(b, "---", "---", "---")
	for _, h := range bins[first : last+1] {
		markdown.Row(b, fmt.Sprintf("%.2f–%.2f", float64(h.From), float64(h.To)), bar(h.Relevant, most), bar(h.NonRelevant, most))
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

func fmtFloat(f Float) string {
	if f == nil {
		return "—"
	}
	return string(contract.AppendFloat6(nil, float64(*f)))
}
