package htmlreport

import "strconv"

// stack is a horizontal stacked bar of counts (statuses, hit levels).
type stack struct {
	W, H  int
	Label string
	Parts []stackPart
}

type stackPart struct {
	X, Width, Fill, Title string
}

type count struct {
	Name  string
	N     int
	Color string
}

func newStack(label string, width int, counts ...count) stack {
	s := stack{W: width, H: 14, Label: label}
	total := 0
	for _, c := range counts {
		total += c.N
	}
	x := 0.0
	for _, c := range counts {
		if c.N == 0 {
			continue
		}
		w := float64(width) * float64(c.N) / float64(total)
		s.Parts = append(s.Parts, stackPart{X: num(x, 1), Width: num(w, 1), Fill: c.Color, Title: c.Name + " " + itoa(c.N)})
		x += w
	}
	return s
}

// Colours of statuses, hit levels and the calibration's classes (as in
// report.css).
const (
	colPass   = "#1a7f37"
	colFail   = "#c62828"
	colNotRun = "#8a6d00"
	colError  = "#8e24aa"
	colMedium = "#66a33a"
	colWeak   = "#c9a227"
	colNA     = "#9aa4ae"
	colDraft  = "#1565c0"
	colRel    = "#1565c0"
	colNon    = "#e65100"
	colLine   = "#5b6673"
)

func itoa(n int) string { return strconv.Itoa(n) }
