package metrics

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// kind is one of the supported trec_eval measures. The constants are in
// trec_eval's measure table order (measures.c), which is the print order.
type kind int

const (
	kNumQ kind = iota
	kNumRet
	kNumRel
	kNumRelRet
	kMap
	kRprec
	kRecipRank
	kP
	kRecall
	kNDCGCut
	kSuccess
	numKinds
)

var kindNames = [numKinds]string{
	kNumQ:      "num_q",
	kNumRet:    "num_ret",
	kNumRel:    "num_rel",
	kNumRelRet: "num_rel_ret",
	kMap:       "map",
	kRprec:     "Rprec",
	kRecipRank: "recip_rank",
	kP:         "P",
	kRecall:    "recall",
	kNDCGCut:   "ndcg_cut",
	kSuccess:   "success",
}

// defaultCutoffs are trec_eval's cutoffs for a cutoff measure named without
// parameters (m_P.c, m_recall.c, m_ndcg_cut.c, m_success.c).
var defaultCutoffs = [numKinds][]int64{
	kP:       {5, 10, 15, 20, 30, 100, 200, 500, 1000},
	kRecall:  {5, 10, 15, 20, 30, 100, 200, 500, 1000},
	kNDCGCut: {5, 10, 15, 20, 30, 100, 200, 500, 1000},
	kSuccess: {1, 5, 10},
}

func (k kind) hasCutoffs() bool { return defaultCutoffs[k] != nil }

// integer reports whether trec_eval prints the measure with %ld.
func (k kind) integer() bool { return k <= kNumRelRet }

// otherTrecMeasures are trec_eval 9.0.8 measures and measure sets this
// package does not compute; naming one is an error that says so.
var otherTrecMeasures = []string{
	"runid", "gm_map", "bpref", "iprec_at_recall", "relstring", "infAP",
	"gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg",
	"ndcg_rel", "Rndcg", "map_cut", "relative_P", "set_P", "set_relative_P",
	"set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
	"official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg",
}

// MeasureNames lists the measures Eval computes, in the order trec_eval
// prints them.
func MeasureNames() []string { return slices.Clone(kindNames[:]) }

// ValidateMeasures reports whether Eval accepts the -m arguments args
// (known measures, well-formed cutoffs), so callers can reject bad usage
// before reading any file.
func ValidateMeasures(args []string) error {
	_, err := parseMeasures(args)
	return err
}

// measure is one requested measure with its cutoffs (nil for measures
// without cutoffs).
type measure struct {
	kind    kind
	cutoffs []int64
}

// column is one printed value: a measure, or one cutoff of a cutoff
// measure.
type column struct {
	kind   kind
	cutoff int64
}

// parseMeasures interprets -m arguments the way trec_eval.c (mark_measure)
// and meas_init.c do:
//
//   - "name.params" marks name and records params; a measure named by
//     several -m keeps the parameters of the first -m that gave any (later
//     ones are ignored, as in trec_eval), and parameters given to a measure
//     without cutoffs are ignored;
//   - cutoffs are comma separated, read with atol, sorted ascending; a
//     cutoff < 1 or a repeated cutoff is an error;
//   - measures come out in trec_eval's table order, whatever the order of
//     the arguments.
func parseMeasures(args []string) ([]measure, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no measure requested: give -m MEASURE (one of %s)", strings.Join(kindNames[:], ", "))
	}
	var marked [numKinds]bool
	var params [numKinds]*string
	for _, arg := range args {
		name, p, hasParams := strings.Cut(arg, ".")
		if hasParams && p == "" {
			return nil, fmt.Errorf("measure %q: empty parameter list after '.'", arg)
		}
		k := kind(slices.Index(kindNames[:], name))
		if k < 0 {
			if slices.Contains(otherTrecMeasures, name) {
				return nil, fmt.Errorf("measure %q: trec_eval measure not supported here (supported: %s)", name, strings.Join(kindNames[:], ", "))
			}
			return nil, fmt.Errorf("illegal measure %q (supported: %s)", arg, strings.Join(kindNames[:], ", "))
		}
		marked[k] = true
		if hasParams && params[k] == nil {
			params[k] = &p
		}
	}
	var ms []measure
	for k := range numKinds {
		if !marked[k] {
			continue
		}
		m := measure{kind: k}
		if k.hasCutoffs() {
			m.cutoffs = defaultCutoffs[k]
			if params[k] != nil {
				c, err := parseCutoffs(*params[k])
				if err != nil {
					return nil, fmt.Errorf("measure %s.%s: %w", kindNames[k], *params[k], err)
				}
				m.cutoffs = c
			}
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// parseCutoffs is meas_init.c's get_long_cutoffs.
func parseCutoffs(s string) ([]int64, error) {
	parts := strings.Split(s, ",")
	c := make([]int64, len(parts))
	for i, p := range parts {
		c[i] = atol(p)
	}
	slices.Sort(c)
	if c[0] <= 0 {
		return nil, fmt.Errorf("cutoffs must be positive")
	}
	for i := 1; i < len(c); i++ {
		if c[i] == c[i-1] {
			return nil, fmt.Errorf("duplicate cutoff %d", c[i])
		}
	}
	return c, nil
}

// columns flattens measures into printed values, naming each as trec_eval
// does ("P_5", "ndcg_cut_10").
func columns(ms []measure) ([]column, []Column) {
	var cols []column
	var pub []Column
	for _, m := range ms {
		if m.cutoffs == nil {
			cols = append(cols, column{kind: m.kind})
			pub = append(pub, Column{Name: kindNames[m.kind], Integer: m.kind.integer(), SummaryOnly: m.kind == kNumQ})
			continue
		}
		for _, c := range m.cutoffs {
			cols = append(cols, column{kind: m.kind, cutoff: c})
			pub = append(pub, Column{Name: kindNames[m.kind] + "_" + strconv.FormatInt(c, 10)})
		}
	}
	return cols, pub
}
