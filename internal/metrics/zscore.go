package metrics

import (
	"fmt"
	"io"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// MissingZScore is the value trec_eval gives a measure whose mean and
// deviation are missing from the z-score file (MISSING_ZSCORE_VALUE).
const MissingZScore = -1000000

// ZScores holds the reference means and standard deviations of -Z: one
// "qid measure mean stddev" line per query and measure.
type ZScores struct {
	byQuery map[string]map[string]zscore
}

type zscore struct{ mean, stddev float64 }

// ReadZScores reads a z-score file as trec_eval 9.0.8 does in
// get_zscores.c: lines "qid measure mean stddev" separated by white space,
// mean and stddev read with atof. A line with other than 4 fields, a blank
// line included, is a *diag.Error. So is a (qid, measure) given twice,
// where trec_eval would pick one of the two. name is used in errors only.
func ReadZScores(r io.Reader, name string) (*ZScores, error) {
	text, err := readAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if err := checkNUL(text, name); err != nil {
		return nil, err
	}
	if len(text) == 0 {
		return nil, &diag.Error{File: name, Msg: "empty z-score file"}
	}
	z := &ZScores{byQuery: make(map[string]map[string]zscore)}
	lineNo := 0
	for pos := 0; pos < len(text); {
		lineNo++
		end := pos
		for end < len(text) && text[end] != '\n' {
			end++
		}
		line := text[pos:end]
		pos = end + 1
		var f [4]string
		if n := splitFields(line, f[:]); n != 4 {
			return nil, &diag.Error{File: name, Line: lineNo,
				Msg: fmt.Sprintf("want 4 fields (qid measure mean stddev), found %s", countFields(n, 4))}
		}
		m := z.byQuery[f[0]]
		if m == nil {
			m = make(map[string]zscore)
			z.byQuery[f[0]] = m
		}
		if _, dup := m[f[1]]; dup {
			return nil, &diag.Error{File: name, Line: lineNo, Msg: fmt.Sprintf("measure %q of query %q given twice", f[1], f[0])}
		}
		m[f[1]] = zscore{mean: atof(f[2]), stddev: atof(f[3])}
	}
	return z, nil
}

// convert replaces the values of one query by z scores as
// convert_zscores.c does: (value − mean)/stddev. With a zero stddev a value
// becomes 0 if it equals the mean and MissingZScore otherwise. Every value
// becomes MissingZScore when the query, or the measure, is not in the
// file. Text columns are left alone.
func (z *ZScores) convert(qid string, cols []Column, v []float64) {
	m, ok := z.byQuery[qid]
	for c, col := range cols {
		if col.Text {
			continue
		}
		s, found := m[col.Name]
		switch {
		case !ok || !found:
			v[c] = MissingZScore
		case s.stddev != 0: // a NaN deviation is "not zero" in C too
			v[c] = (v[c] - s.mean) / s.stddev
		case v[c] == s.mean:
			v[c] = 0
		default:
			v[c] = MissingZScore
		}
	}
}
