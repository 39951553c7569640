package metrics

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// TextOptions control WriteText.
type TextOptions struct {
	// PerQuery is trec_eval's -q: print each evaluated query's values
	// before the "all" values.
	PerQuery bool
	// Decimals is the number of decimals of non-integer values. 0 means
	// trec_eval's 4, "%6.4f". Other values are not trec_eval's output and
	// serve cross-checks at full precision.
	Decimals int
	// NoSummary is trec_eval's -n: no "all" lines.
	NoSummary bool
}

// WriteText writes r as trec_eval prints it, one "%-22s\t%s\t%6.4f" line
// per value with the name, the qid or "all", and the value. num_* are
// integers, runid and relstring text, relstring between single quotes. The
// queries of -q come first, in qid byte order, each with its values in
// column order, then the "all" values. num_q, gm_* and runid are only for
// "all", relstring only for the queries. With z scores (-Z) every name but
// runid and relstring is prefixed with "Z", as "Z%-22s", and every number
// has 4 decimals.
//
// Values are rounded as glibc's printf rounds them: to nearest, ties to
// even, on the exact binary value.
func WriteText(w io.Writer, r *Result, opts TextOptions) error {
	dec := opts.Decimals
	if dec == 0 {
		dec = 4
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	put := func(col Column, qid string, v float64, text string) {
		switch {
		case col.Text:
			line = appendName(line[:0], col.Name)
		case r.ZScores:
			line = append(line[:0], 'Z')
			line = appendName(line, col.Name)
		default:
			line = appendName(line[:0], col.Name)
		}
		line = append(line, '\t')
		line = append(line, qid...)
		line = append(line, '\t')
		switch {
		case col.Quoted:
			line = append(line, '\'')
			line = append(line, text...)
			line = append(line, '\'')
		case col.Text:
			line = append(line, text...)
		case col.Integer && !r.ZScores:
			line = appendLong(line, v)
		default:
			line = appendFixed(line, v, dec)
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	if opts.PerQuery {
		for _, q := range r.Queries {
			for c, col := range r.Columns {
				if col.SummaryOnly {
					continue
				}
				text := ""
				if q.Texts != nil {
					text = q.Texts[c]
				}
				put(col, q.QID, q.Values[c], text)
			}
		}
	}
	if !opts.NoSummary {
		for c, col := range r.Columns {
			if !col.QueryOnly {
				put(col, "all", r.All[c], r.RunID)
			}
		}
	}
	return bw.Flush()
}

// appendName is "%-22s".
func appendName(b []byte, name string) []byte {
	b = append(b, name...)
	for n := len(name); n < 22; n++ {
		b = append(b, ' ')
	}
	return b
}

// appendLong is "%ld" of (long) v: truncation toward zero.
func appendLong(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v), v >= math.MaxInt64, v <= math.MinInt64:
		// (long) of such a double is undefined in C. x86-64 yields
		// LONG_MIN for all of them.
		return strconv.AppendInt(b, math.MinInt64, 10)
	}
	return strconv.AppendInt(b, int64(v), 10)
}

// appendFixed is "%6.<dec>f" as glibc prints it, including "inf", "-inf",
// "nan" and "-nan".
func appendFixed(b []byte, v float64, dec int) []byte {
	if dec == 4 {
		if out, ok := appendFixed4(b, v); ok {
			return out
		}
	}
	var s []byte
	var tmp [40]byte
	switch {
	case math.IsInf(v, 1):
		s = append(tmp[:0], "inf"...)
	case math.IsInf(v, -1):
		s = append(tmp[:0], "-inf"...)
	case math.IsNaN(v):
		if math.Signbit(v) {
			s = append(tmp[:0], "-nan"...)
		} else {
			s = append(tmp[:0], "nan"...)
		}
	default:
		s = strconv.AppendFloat(tmp[:0], v, 'f', dec, 64)
	}
	for n := len(s); n < 6; n++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// appendFixed4 is "%6.4f" without strconv's exact decimal conversion. It
// serves 0 <= v < 2^20 when x = v·10^4 is not within 2^-16 of a rounding
// tie. x is below 2^34, so the product is off by at most half an ulp,
// 2^-20, too little to move x across that margin, as x − floor(x) is
// exact. The nearest integer is then the one of the exact value. It
// reports false for anything else, which appendFixed then prints with
// strconv.
func appendFixed4(b []byte, v float64) ([]byte, bool) {
	if !(v >= 0 && v < 1<<20) {
		return b, false
	}
	x := v * 1e4
	r := math.Floor(x)
	f := x - r
	if math.Abs(f-0.5) < 1.0/(1<<16) {
		return b, false
	}
	n := uint64(r)
	if f > 0.5 {
		n++
	}
	ip, fp := n/10000, n%10000
	var tmp [24]byte
	t := strconv.AppendUint(tmp[:0], ip, 10)
	t = append(t, '.', byte('0'+fp/1000), byte('0'+fp/100%10), byte('0'+fp/10%10), byte('0'+fp%10))
	for k := len(t); k < 6; k++ {
		b = append(b, ' ')
	}
	return append(b, t...), true
}
