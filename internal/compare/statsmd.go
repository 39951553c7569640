package compare

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

// Letter is side i's letter in the summary tables: a, b, …, z, then the
// side's 1-based number.
func Letter(i int) string {
	if i < 26 {
		return string(rune('a' + i))
	}
	return strconv.Itoa(i + 1)
}

// methodSentence describes the statistics of c for the Markdown outputs.
func (c *Comparison) methodSentence(m Method) string {
	pairs := "every pair of sides"
	if c.Baseline != nil {
		pairs = "every side against " + mdcell.Escape(*c.Baseline)
	}
	return fmt.Sprintf("Compared: %s. Δ = a − b over the items both sides can score; "+
		"95%% CI: percentile bootstrap of the mean difference, %d resamples; p: two-sided paired sign-flip "+
		"randomization test, %d permutations; one PCG source seeded (%d, %d) per pair; "+
		"p adj.: Holm–Bonferroni over all %d p-values of the report; W / T / L: items where a − b is above, at, below 0; "+
		"t-test p: paired t-test, for reference only. "+
		"**Bold** Δ and the letters of the summary: p adj. < %g.",
		pairs, m.BootstrapResamples, m.Permutations, m.Seed[0], m.Seed[1], m.Family, m.Alpha)
}

// writeSummaryMarkdown writes the means table: one row per metric, one
// column per side, each mean followed by the letters of the sides it is
// significantly better than.
func (c *Comparison) writeSummaryMarkdown(b *bufio.Writer, sides []string, title func(string) string) {
	head := []string{"metric"}
	align := []string{"---"}
	for i, s := range sides {
		head = append(head, mdcell.Escape(s)+" ("+Letter(i)+")")
		align = append(align, "---:")
	}
	mdcell.Row(b, head...)
	mdcell.Row(b, align...)
	index := map[string]int{}
	for i, s := range sides {
		index[s] = i
	}
	for _, m := range c.Metrics {
		row := []string{title(m.Name)}
		for s := range sides {
			cell := mdcell.Float(m.Means[s])
			if len(m.BetterThan[s]) > 0 {
				var ls string
				for _, o := range m.BetterThan[s] {
					ls += Letter(index[o])
				}
				cell += "<sup>" + ls + "</sup>"
			}
			row = append(row, cell)
		}
		mdcell.Row(b, row...)
	}
	b.WriteString("\n")
}

// writePairMarkdown writes pair k's metric table.
func (c *Comparison) writePairMarkdown(b *bufio.Writer, k int, title func(string) string) {
	p := &c.Pairs[k]
	mdcell.Row(b, "metric", mdcell.Escape(p.A), mdcell.Escape(p.B), "Δ", "95% CI", "p", "p adj.", "W / T / L", "pairs", "t-test p")
	mdcell.Row(b, "---", "---:", "---:", "---:", "---", "---:", "---:", "---:", "---:", "---:")
	for _, m := range p.Metrics {
		delta := mdcell.Signed(m.Delta)
		if m.Significant() {
			delta = "**" + delta + "**"
		}
		wtl := mdcell.None
		if m.Pairs > 0 {
			wtl = fmt.Sprintf("%d / %d / %d", m.Wins, m.Ties, m.Losses)
		}
		mdcell.Row(b, title(m.Name), mdcell.Float(m.A), mdcell.Float(m.B), delta, ci(m.CI95),
			mdcell.Float(m.PValue), mdcell.Float(m.PAdjusted), wtl, strconv.Itoa(m.Pairs), mdcell.Float(m.TTestP))
	}
	b.WriteString("\n")
}

// writeText writes the plain-text tables of c: the means per side when
// means is true, then each pair's metrics (* marks p adj. < Significance).
func (c *Comparison) writeText(w io.Writer, sides []string, means bool) error {
	if means {
		if err := c.writeMeansText(w, sides); err != nil {
			return err
		}
	}
	return c.writePairsText(w)
}

func (c *Comparison) writeMeansText(w io.Writer, sides []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "metric\t%s\n", strings.Join(sides, "\t"))
	index := map[string]int{}
	for i, s := range sides {
		index[s] = i
	}
	for _, m := range c.Metrics {
		fmt.Fprintf(tw, "%s", m.Name)
		for s := range sides {
			fmt.Fprintf(tw, "\t%s", mdcell.Float(m.Means[s]))
			if len(m.BetterThan[s]) > 0 {
				var ls []string
				for _, o := range m.BetterThan[s] {
					ls = append(ls, Letter(index[o]))
				}
				fmt.Fprintf(tw, " >%s", strings.Join(ls, ""))
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var legend []string
	for i, s := range sides {
		legend = append(legend, Letter(i)+" = "+s)
	}
	_, err := fmt.Fprintf(w, "(%s; >x: significantly better than x, p adj. < %g)\n", strings.Join(legend, ", "), Significance)
	return err
}

func (c *Comparison) writePairsText(w io.Writer) error {
	for _, p := range c.Pairs {
		fmt.Fprintf(w, "%s vs %s (Δ = %s − %s):\n", p.A, p.B, p.A, p.B)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "metric\t%s\t%s\tΔ\t95%% CI\tp\tp adj.\tW/T/L\tpairs\tt-test p\n", p.A, p.B)
		for _, m := range p.Metrics {
			mark := ""
			if m.Significant() {
				mark = " *"
			}
			wtl := mdcell.None
			if m.Pairs > 0 {
				wtl = fmt.Sprintf("%d/%d/%d", m.Wins, m.Ties, m.Losses)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s%s\t%s\t%d\t%s\n", m.Name, mdcell.Float(m.A), mdcell.Float(m.B),
				mdcell.Signed(m.Delta), ci(m.CI95), mdcell.Float(m.PValue), mdcell.Float(m.PAdjusted), mark, wtl, m.Pairs, mdcell.Float(m.TTestP))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
