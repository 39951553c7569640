package htmlreport

import (
	"cmp"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/calibrate"
	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
)

var calibrateTemplate = parse("calibrate.tmpl")

type calibratePage struct {
	page
	Inputs []figure
	Modes  []modeView
}

type modeView struct {
	// Title is the heading: the mode's name, and its fixtures when another
	// mode has the same name.
	Title                                    string
	Name, Fixtures, Embedder, Status, Reason string
	Available                                bool
	Warnings                                 []string
	Shipped                                  []figure
	Counts                                   []string
	Thresholds                               []thresholdRow
	Populations                              []population
	Levels                                   []calibrate.LevelRow
	Samples                                  []calibrate.CaseSample
}

type thresholdRow struct {
	Gate, Name, Value, TPR, FPR, J, Precision string
	Best                                      bool
}

type population struct {
	Title, Caption string
	Dists          []distRow
	Hist           histPlot
	ROC            rocPlot
}

type distRow struct {
	Label, Color           string
	Count                  int
	Min, Median, Mean, Max string
}

// Calibration writes the HTML report of a calibration: per mode the
// thresholds, then for the top-K blocks and for the cases (by their best
// block) the overlaid histograms of relevant and non-relevant qualityScore
// with a line at each shipped threshold and at the best separating one,
// and the ROC curve with those thresholds marked.
func Calibration(w io.Writer, r *calibrate.Report) error {
	p := calibratePage{page: newPage("Threshold calibration", "How well qualityScore separates relevant from non-relevant evidence, per search mode.")}
	p.Inputs = []figure{{"cases", r.Inputs.Cases}, {"cases sha256", mdcell.ShortHash(r.Inputs.CasesSHA256)}, {"K", strconv.Itoa(r.Inputs.K)}}
	names := map[string]int{}
	for i := range r.Modes {
		names[r.Modes[i].Name]++
	}
	for i := range r.Modes {
		m := modeOf(&r.Modes[i])
		// Two fixture sets of one search mode (an embedder change): the
		// heading names the fixtures too.
		if m.Title = m.Name; names[m.Name] > 1 {
			m.Title += " · " + m.Fixtures
		}
		p.Modes = append(p.Modes, m)
	}
	return render(w, calibrateTemplate, &p)
}

func modeOf(m *calibrate.Mode) modeView {
	v := modeView{
		Name: m.Name, Fixtures: m.Fixtures, Embedder: mdcell.Or(m.Embedder, "unknown"), Status: m.Status,
		Reason: mdcell.Or(m.Reason, ""), Available: m.Blocks != nil, Warnings: m.Warnings,
		Shipped: []figure{
			{calibrate.NameLowQuality, mdcell.Float(m.Shipped.LowQuality)},
			{calibrate.NameMinQuality, mdcell.Float(m.Shipped.MinQuality)},
			{calibrate.NameLevelsHigh, mdcell.Float(m.Shipped.Levels.High)},
			{calibrate.NameLevelsMedium, mdcell.Float(m.Shipped.Levels.Medium)},
		},
	}
	if m.Blocks == nil {
		return v
	}
	v.Counts = m.CountLines()
	addRows := func(gate string, s *calibrate.Separation) {
		v.Thresholds = append(v.Thresholds, thresholdRowOf(gate, s.Best))
		for i := range s.AtShipped {
			v.Thresholds = append(v.Thresholds, thresholdRowOf(gate, &s.AtShipped[i]))
		}
	}
	addRows("block", &m.Blocks.Separation)
	addRows("case", &m.Cases.Separation)
	v.Populations = []population{
		populationOf("Top-K blocks", "qualityScore of the top-K blocks", &m.Blocks.Separation),
		populationOf("Cases by their best block", "best top-K qualityScore per case (answered vs off-topic)", &m.Cases.Separation),
	}
	v.Levels = m.Blocks.RelevanceLevels
	v.Samples = m.Cases.Samples
	return v
}

func thresholdRowOf(gate string, t *calibrate.Threshold) thresholdRow {
	if t == nil {
		return thresholdRow{Gate: gate, Name: "best separating", Value: mdcell.None, TPR: mdcell.None, FPR: mdcell.None, J: mdcell.None, Precision: mdcell.None, Best: true}
	}
	name := t.Name + " (shipped)"
	if t.Name == calibrate.NameBest {
		name = "best separating"
	}
	return thresholdRow{Gate: gate, Name: name, Value: mdcell.Float(t.Threshold), TPR: mdcell.Float(t.TPR), FPR: mdcell.Float(t.FPR),
		J: mdcell.Float(t.J), Precision: mdcell.Float(t.Precision), Best: t.Name == calibrate.NameBest}
}

func populationOf(title, caption string, s *calibrate.Separation) population {
	p := population{Title: title, Caption: caption}
	for _, d := range []struct {
		label, color string
		d            calibrate.Dist
	}{{"relevant", colRel, s.Relevant}, {"non-relevant", colNon, s.NonRelevant}} {
		p.Dists = append(p.Dists, distRow{Label: d.label, Color: d.color, Count: d.d.Count, Min: mdcell.Float(d.d.Min),
			Median: mdcell.Float(d.d.Median), Mean: mdcell.Float(d.d.Mean), Max: mdcell.Float(d.d.Max)})
	}
	var marks []calibrate.Threshold
	if s.Best != nil {
		marks = append(marks, *s.Best)
	}
	for _, t := range s.AtShipped {
		if t.Threshold != nil {
			marks = append(marks, t)
		}
	}
	p.Hist = newHist(title, s.Histogram, marks)
	p.ROC = newROC(title, s.ROC, marks)
	return p
}

// histPlot is an SVG of two overlaid histograms with threshold lines.
type histPlot struct {
	W, H, Label              string
	Left, Right, Bottom, Top string
	Bars                     []rect
	XTicks, YTicks           []tick
	Lines                    []vline
	Empty                    bool
}

type rect struct{ X, Y, W, H, Fill, Title string }

type tick struct{ X, Y, Label, Anchor string }

type vline struct {
	X, Y1, Y2, LabelY, Anchor, Label, Color, Dash string
}

const (
	histW, histH                       = 520.0, 240.0
	padL, padR, padT, padB             = 40.0, 12.0, 56.0, 30.0
	rocSize                            = 240.0
	rocPadL, rocPadR, rocPadT, rocPadB = 40.0, 12.0, 12.0, 34.0
)

func thresholdStyle(t calibrate.Threshold) (color, dash, label string) {
	if t.Name == calibrate.NameBest {
		return "#111111", "", "best " + mdcell.Float(t.Threshold)
	}
	return colLine, "4 3", t.Name + " " + mdcell.Float(t.Threshold)
}

func newHist(title string, bins []calibrate.HistBin, marks []calibrate.Threshold) histPlot {
	h := histPlot{W: num(histW, 0), H: num(histH, 0), Label: title + ": histogram of qualityScore, relevant vs non-relevant",
		Left: num(padL, 0), Right: num(histW-padR, 0), Bottom: num(histH-padB, 0), Top: num(padT, 0)}
	pw, ph := histW-padL-padR, histH-padT-padB
	most := 0
	for _, b := range bins {
		most = max(most, b.Relevant, b.NonRelevant)
	}
	if most == 0 {
		h.Empty = true
		return h
	}
	x := func(v float64) float64 { return padL + pw*min(max(v, 0), 1) }
	y := func(n int) float64 { return histH - padB - ph*float64(n)/float64(most) }
	for _, b := range bins {
		x0, x1 := x(float64(b.From)), x(float64(b.To))
		rng := mdcell.Float(&b.From) + "–" + mdcell.Float(&b.To)
		for _, c := range []struct {
			n           int
			fill, label string
		}{{b.NonRelevant, colNon, "non-relevant"}, {b.Relevant, colRel, "relevant"}} {
			if c.n == 0 {
				continue
			}
			h.Bars = append(h.Bars, rect{X: num(x0+0.5, 1), Y: num(y(c.n), 1), W: num(x1-x0-1, 1), H: num(histH-padB-y(c.n), 1),
				Fill: c.fill, Title: c.label + " " + rng + ": " + itoa(c.n)})
		}
	}
	for i := 0; i <= 10; i += 2 {
		v := float64(i) / 10
		h.XTicks = append(h.XTicks, tick{X: num(x(v), 1), Y: num(histH-padB+14, 0), Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	for _, n := range []int{0, (most + 1) / 2, most} {
		h.YTicks = append(h.YTicks, tick{X: num(padL-4, 0), Y: num(y(n)+4, 1), Label: itoa(n)})
	}
	// The labels go above the plot, centred on their lines (kept inside
	// the plot at its edges), each in the first row where it overlaps no
	// other label.
	var rows [][]span
	for _, i := range byThreshold(marks) {
		t := marks[i]
		color, dash, label := thresholdStyle(t)
		lx := x(float64(*t.Threshold))
		w := textWidth(label)
		anchor, from := "middle", lx-w/2
		switch {
		case from < 2:
			anchor, from = "start", lx
		case lx+w/2 > histW-2:
			anchor, from = "end", lx-w
		}
		s := span{from, from + w}
		row := 0
		for ; row < len(rows) && s.overlapsAny(rows[row]); row++ {
		}
		if row == len(rows) {
			rows = append(rows, nil)
		}
		rows[row] = append(rows[row], s)
		h.Lines = append(h.Lines, vline{X: num(lx, 1), Y1: num(padT-2, 0), Y2: num(histH-padB, 0),
			LabelY: num(12+float64(row)*labelH, 0), Anchor: anchor, Label: label, Color: color, Dash: dash})
	}
	return h
}

// labelH is the height of a line of the plots' labels (11px text), and
// textWidth a generous estimate of a label's width, for placing labels
// where they do not overlap.
const labelH = 13.0

func textWidth(s string) float64 { return 7 * float64(utf8.RuneCountInString(s)) }

// span is a label's horizontal extent.
type span struct{ from, to float64 }

func (s span) overlapsAny(others []span) bool {
	for _, o := range others {
		if s.from < o.to+4 && o.from < s.to+4 {
			return true
		}
	}
	return false
}

// byThreshold returns the indexes of marks in increasing threshold order
// (stable, so equal thresholds keep the order best, then shipped).
func byThreshold(marks []calibrate.Threshold) []int {
	idx := make([]int, len(marks))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(*marks[a].Threshold, *marks[b].Threshold) })
	return idx
}

// rocPlot is an SVG of a ROC curve with threshold points.
type rocPlot struct {
	W, H, Label    string
	X0, X1, Y0, Y1 string
	// Size is the side of the plot's square. FPRX, FPRY and TPRY place
	// the axis titles.
	Size, FPRX, FPRY, TPRY string
	Points                 string
	Marks                  []point
	Ticks                  []tick
	Empty                  bool
}

type point struct {
	X, Y, LX, LY, Anchor, Label, Color, Title string
	// Leader: a line from the point to its label, which was moved.
	Leader         bool
	LineX2, LineY2 string
}

func newROC(title string, roc []calibrate.ROCPoint, marks []calibrate.Threshold) rocPlot {
	w, h := rocPadL+rocSize+rocPadR, rocPadT+rocSize+rocPadB
	w0 := w + 110 // room for the labels of points at FPR 1
	p := rocPlot{W: num(w0, 0), H: num(h, 0), Label: title + ": ROC curve of qualityScore ≥ t",
		X0: num(rocPadL, 0), X1: num(rocPadL+rocSize, 0), Y0: num(rocPadT+rocSize, 0), Y1: num(rocPadT, 0),
		Size: num(rocSize, 0), FPRX: num(rocPadL+rocSize/2, 0), FPRY: num(rocPadT+rocSize+30, 0), TPRY: num(rocPadT+rocSize/2, 0)}
	if len(roc) == 0 {
		p.Empty = true
		return p
	}
	x := func(v float64) float64 { return rocPadL + rocSize*v }
	y := func(v float64) float64 { return rocPadT + rocSize*(1-v) }
	pts := make([]byte, 0, len(roc)*14)
	for i, r := range roc {
		if i > 0 {
			pts = append(pts, ' ')
		}
		pts = append(pts, num(x(r.FPR), 1)+","+num(y(r.TPR), 1)...)
	}
	if last := roc[len(roc)-1]; last.FPR < 1 || last.TPR < 1 {
		pts = append(pts, " "+num(x(1), 1)+","+num(y(1), 1)...)
	}
	p.Points = string(pts)
	for _, v := range []float64{0, 0.5, 1} {
		l := strconv.FormatFloat(v, 'f', -1, 64)
		p.Ticks = append(p.Ticks, tick{X: num(x(v), 1), Y: num(rocPadT+rocSize+16, 0), Anchor: "middle", Label: l})
		p.Ticks = append(p.Ticks, tick{X: num(rocPadL-6, 0), Y: num(y(v)+4, 1), Anchor: "end", Label: l})
	}
	// Each point's label goes right of it (left when it would leave the
	// plot), moved down below any label it would overlap, with a line to
	// its point when moved.
	type placed struct {
		s span
		y float64
	}
	var done []placed
	var valid []calibrate.Threshold
	for _, t := range marks {
		if t.TPR != nil && t.FPR != nil {
			valid = append(valid, t)
		}
	}
	order := make([]int, len(valid))
	for i := range order {
		order[i] = i
	}
	// Top to bottom, then left to right. Ties keep best first.
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(*valid[b].TPR, *valid[a].TPR); c != 0 {
			return c
		}
		return cmp.Compare(*valid[a].FPR, *valid[b].FPR)
	})
	for _, i := range order {
		t := valid[i]
		color, _, label := thresholdStyle(t)
		px, py := x(float64(*t.FPR)), y(float64(*t.TPR))
		w := textWidth(label)
		lx, anchor, s := px+7, "start", span{px + 7, px + 7 + w}
		if s.to > w0-2 {
			lx, anchor, s = px-7, "end", span{px - 7 - w, px - 7}
		}
		ly := py + 4
		for moved := true; moved; {
			moved = false
			for _, d := range done {
				if s.overlapsAny([]span{d.s}) && ly > d.y-labelH && ly < d.y+labelH {
					ly, moved = d.y+labelH, true
				}
			}
		}
		done = append(done, placed{s, ly})
		m := point{X: num(px, 1), Y: num(py, 1), LX: num(lx, 1), LY: num(ly, 1), Anchor: anchor,
			Label: label, Color: color, Title: label + ": TPR " + f6(t.TPR) + ", FPR " + f6(t.FPR)}
		if ly-(py+4) > 3 {
			m.Leader = true
			m.LineX2, m.LineY2 = num(lx-2*sign(anchor), 1), num(ly-4, 1)
		}
		p.Marks = append(p.Marks, m)
	}
	return p
}

// sign is the direction of a label from its point: 1 right, -1 left.
func sign(anchor string) float64 {
	if anchor == "end" {
		return -1
	}
	return 1
}

func f6(f *contract.Float6) string { return mdcell.Float(f) }
