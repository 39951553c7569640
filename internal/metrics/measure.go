package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// kind is one of trec_eval's measures. The constants are in trec_eval
// 9.0.8's measure table order (measures.c), which is the print order.
type kind int

const (
	kRunid kind = iota
	kNumQ
	kNumRet
	kNumRel
	kNumRelRet
	kMap
	kGMMap
	kRprec
	kBpref
	kRecipRank
	kIprecAtRecall
	kP
	kRelstring
	kRecall
	kInfAP
	kGMBpref
	kRprecMult
	kUtility
	k11ptAvg
	kBinG
	kG
	kNDCG
	kNDCGRel
	kRndcg
	kNDCGCut
	kMapCut
	kRelativeP
	kSuccess
	kSetP
	kSetRelativeP
	kSetRecall
	kSetMap
	kSetF
	kNumNonrelJudgedRet
	kPrefsNumPrefsPoss
	kPrefsNumPrefsFul
	kPrefsNumPrefsFulRet
	kPrefsSimp
	kPrefsPair
	kPrefsAvgjg
	kPrefsAvgjgRnonrel
	kPrefsSimpRet
	kPrefsPairRet
	kPrefsAvgjgRet
	kPrefsAvgjgRnonrelRet
	kPrefsSimpImp
	kPrefsPairImp
	kPrefsAvgjgImp
	kMapAvgjg
	kPAvgjg
	kRprecMultAvgjg
	numKinds
)

// paramType is how a measure reads the parameters after its name's '.'
// (meas_init.c).
type paramType int

const (
	pNone      paramType = iota // parameters ignored
	pLongCut                    // "5,10": integer cutoffs, sorted, positive, distinct; one value each (P_5)
	pDoubleCut                  // ".1,.2": real cutoffs, sorted, distinct; one value each (iprec_at_recall_0.10)
	pDouble                     // "2,-1,0,0": real parameters as given; one value named measure_PARAMS
	pPairs                      // "1=3,2=9": level=gain pairs; one value named measure_PARAMS
)

// agg is how the "all" value of a measure comes from the queries' values.
type agg int

const (
	aggMean  agg = iota // arithmetic mean over the queries
	aggSum              // sum (num_*)
	aggCount            // the number of queries (num_q)
	aggGeo              // geometric mean: exp of the mean of the logs (gm_*)
	aggNone             // no "all" value (relstring) or a text one (runid)
)

// measureDef describes one trec_eval measure.
type measureDef struct {
	name     string
	params   paramType
	longDef  []int64   // default cutoffs (pLongCut)
	realDef  []float64 // default cutoffs or parameters (pDoubleCut, pDouble)
	agg      agg
	integer  bool   // printed with %ld
	text     bool   // a string value (runid, relstring)
	format   string // "qrels" (default), "prefs" or "qrels_jg": the -R format it needs
	summary  bool   // printed on the "all" line only
	perQuery bool   // printed on the per-query lines only
	doc      string // one line for --help
}

var (
	cutoffs1000 = []int64{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	recallPts   = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}
)

// defs is trec_eval 9.0.8's measure table (measures.c), in its order.
var defs = [numKinds]measureDef{
	kRunid:              {name: "runid", agg: aggNone, text: true, summary: true, doc: "the run's tag (sixth field)"},
	kNumQ:               {name: "num_q", agg: aggCount, integer: true, summary: true, doc: "number of queries averaged over"},
	kNumRet:             {name: "num_ret", agg: aggSum, integer: true, doc: "documents retrieved"},
	kNumRel:             {name: "num_rel", agg: aggSum, integer: true, doc: "relevant documents (R)"},
	kNumRelRet:          {name: "num_rel_ret", agg: aggSum, integer: true, doc: "relevant documents retrieved"},
	kMap:                {name: "map", doc: "mean average precision"},
	kGMMap:              {name: "gm_map", agg: aggGeo, summary: true, doc: "geometric mean of average precision (floor 0.00001)"},
	kRprec:              {name: "Rprec", doc: "precision after R documents"},
	kBpref:              {name: "bpref", doc: "binary preference"},
	kRecipRank:          {name: "recip_rank", doc: "1/rank of the first relevant document"},
	kIprecAtRecall:      {name: "iprec_at_recall", params: pDoubleCut, realDef: recallPts, doc: "interpolated precision at recall levels"},
	kP:                  {name: "P", params: pLongCut, longDef: cutoffs1000, doc: "precision at cutoffs"},
	kRelstring:          {name: "relstring", params: pDouble, realDef: []float64{10}, agg: aggNone, text: true, perQuery: true, doc: "grades of the first N documents as a string"},
	kRecall:             {name: "recall", params: pLongCut, longDef: cutoffs1000, doc: "recall at cutoffs"},
	kInfAP:              {name: "infAP", doc: "inferred AP (judgments sampled from the pool)"},
	kGMBpref:            {name: "gm_bpref", agg: aggGeo, summary: true, doc: "geometric mean of bpref"},
	kRprecMult:          {name: "Rprec_mult", params: pDoubleCut, realDef: []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2}, doc: "precision at multiples of R"},
	kUtility:            {name: "utility", params: pDouble, realDef: []float64{1, -1, 0, 0}, doc: "set utility a*relret + b*nonrelret + c*relnotret + d*rest"},
	k11ptAvg:            {name: "11pt_avg", params: pDouble, realDef: recallPts, doc: "interpolated precision averaged over recall levels"},
	kBinG:               {name: "binG", doc: "binary G (experimental)"},
	kG:                  {name: "G", params: pPairs, doc: "normalized gain G (experimental)"},
	kNDCG:               {name: "ndcg", params: pPairs, doc: "nDCG over the whole ranking, gains per level"},
	kNDCGRel:            {name: "ndcg_rel", params: pPairs, doc: "nDCG averaged over relevant documents (experimental)"},
	kRndcg:              {name: "Rndcg", params: pPairs, doc: "nDCG averaged at the R levels (experimental)"},
	kNDCGCut:            {name: "ndcg_cut", params: pLongCut, longDef: cutoffs1000, doc: "nDCG at cutoffs, gain = grade"},
	kMapCut:             {name: "map_cut", params: pLongCut, longDef: cutoffs1000, doc: "average precision at cutoffs"},
	kRelativeP:          {name: "relative_P", params: pLongCut, longDef: cutoffs1000, doc: "precision at cutoff k relative to min(k, R)"},
	kSuccess:            {name: "success", params: pLongCut, longDef: []int64{1, 5, 10}, doc: "1 if a relevant document is in the first k"},
	kSetP:               {name: "set_P", doc: "precision of the whole retrieved set"},
	kSetRelativeP:       {name: "set_relative_P", doc: "set precision relative to min(retrieved, R)"},
	kSetRecall:          {name: "set_recall", doc: "recall of the whole retrieved set"},
	kSetMap:             {name: "set_map", doc: "set precision times set recall"},
	kSetF:               {name: "set_F", params: pDouble, realDef: []float64{1}, doc: "set F measure (parameter: weight of recall)"},
	kNumNonrelJudgedRet: {name: "num_nonrel_judged_ret", agg: aggSum, integer: true, doc: "judged non-relevant documents retrieved"},

	kPrefsNumPrefsPoss:    {name: "prefs_num_prefs_poss", agg: aggSum, integer: true, format: "prefs", doc: "preferences possible"},
	kPrefsNumPrefsFul:     {name: "prefs_num_prefs_ful", agg: aggSum, integer: true, format: "prefs", doc: "preferences fulfilled"},
	kPrefsNumPrefsFulRet:  {name: "prefs_num_prefs_ful_ret", agg: aggSum, integer: true, format: "prefs", doc: "preferences fulfilled among retrieved documents"},
	kPrefsSimp:            {name: "prefs_simp", format: "prefs", doc: "fraction of preferences fulfilled"},
	kPrefsPair:            {name: "prefs_pair", format: "prefs", doc: "preferences fulfilled, averaged over judgment pairs"},
	kPrefsAvgjg:           {name: "prefs_avgjg", format: "prefs", doc: "preferences fulfilled, averaged over judgment groups"},
	kPrefsAvgjgRnonrel:    {name: "prefs_avgjg_Rnonrel", format: "prefs", doc: "prefs_avgjg over relevant vs R non-relevant"},
	kPrefsSimpRet:         {name: "prefs_simp_ret", format: "prefs", doc: "prefs_simp among retrieved documents"},
	kPrefsPairRet:         {name: "prefs_pair_ret", format: "prefs", doc: "prefs_pair among retrieved documents"},
	kPrefsAvgjgRet:        {name: "prefs_avgjg_ret", format: "prefs", doc: "prefs_avgjg among retrieved documents"},
	kPrefsAvgjgRnonrelRet: {name: "prefs_avgjg_Rnonrel_ret", format: "prefs", doc: "prefs_avgjg_Rnonrel among retrieved documents"},
	kPrefsSimpImp:         {name: "prefs_simp_imp", format: "prefs", doc: "prefs_simp over implied preferences"},
	kPrefsPairImp:         {name: "prefs_pair_imp", format: "prefs", doc: "prefs_pair over implied preferences"},
	kPrefsAvgjgImp:        {name: "prefs_avgjg_imp", format: "prefs", doc: "prefs_avgjg over implied preferences"},
	kMapAvgjg:             {name: "map_avgjg", format: "qrels_jg", doc: "map averaged over judgment groups"},
	kPAvgjg:               {name: "P_avgjg", params: pLongCut, longDef: cutoffs1000, format: "qrels_jg", doc: "P at cutoffs averaged over judgment groups"},
	kRprecMultAvgjg:       {name: "Rprec_mult_avgjg", params: pDoubleCut, realDef: []float64{0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2}, format: "qrels_jg", doc: "Rprec_mult averaged over judgment groups"},
}

type nickname struct {
	name  string
	kinds []kind
}

// nicknames are trec_eval 9.0.8's measure sets (measures.c).
var nicknames = []nickname{
	{"official", []kind{kRunid, kNumQ, kNumRet, kNumRel, kNumRelRet, kMap, kGMMap, kRprec, kBpref, kRecipRank, kIprecAtRecall, kP}},
	{"set", []kind{kRunid, kNumQ, kNumRet, kNumRel, kNumRelRet, kUtility, kSetP, kSetRecall, kSetRelativeP, kSetMap, kSetF}},
	{"all_trec", []kind{kRunid, kNumQ, kNumRet, kNumRel, kNumRelRet, kMap, kGMMap, kRprec, kBpref, kRecipRank, kIprecAtRecall, kP,
		kRelstring, kRecall, kInfAP, kGMBpref, kUtility, k11ptAvg, kNDCG, kRelativeP, kRprecMult, kSuccess, kMapCut, kNDCGCut,
		kNDCGRel, kRndcg, kBinG, kG, kSetP, kSetRecall, kSetRelativeP, kSetMap, kSetF, kNumNonrelJudgedRet}},
	{"all_prefs", []kind{kRunid, kNumQ, kPrefsNumPrefsPoss, kPrefsNumPrefsFul, kPrefsNumPrefsFulRet, kPrefsSimp, kPrefsPair,
		kPrefsAvgjg, kPrefsAvgjgRnonrel, kPrefsSimpRet, kPrefsPairRet, kPrefsAvgjgRet, kPrefsAvgjgRnonrelRet, kPrefsSimpImp,
		kPrefsPairImp, kPrefsAvgjgImp}},
	{"prefs", []kind{kRunid, kNumQ, kPrefsNumPrefsPoss, kPrefsNumPrefsFul, kPrefsNumPrefsFulRet, kPrefsSimp, kPrefsPair, kPrefsAvgjg}},
	{"qrels_jg", []kind{kRunid, kNumQ, kMapAvgjg, kPAvgjg, kRprecMultAvgjg}},
}

func kindByName(name string) (kind, bool) {
	for k := range numKinds {
		if defs[k].name == name {
			return k, true
		}
	}
	return 0, false
}

// MeasureInfo describes one measure for help texts.
type MeasureInfo struct {
	Name   string // trec_eval's name
	Params string // parameter syntax and trec_eval's default, "" if none
	Format string // the -R format the measure needs: "qrels", "prefs" or "qrels_jg"
	Doc    string // one line
}

// Measures describes every measure Eval knows, in trec_eval's print order.
func Measures() []MeasureInfo {
	var out []MeasureInfo
	for k := range numKinds {
		d := &defs[k]
		mi := MeasureInfo{Name: d.name, Format: d.format, Doc: d.doc}
		if mi.Format == "" {
			mi.Format = "qrels"
		}
		switch d.params {
		case pLongCut:
			mi.Params = "." + joinInts(d.longDef)
		case pDoubleCut, pDouble:
			mi.Params = "." + joinReals(d.realDef)
		case pPairs:
			mi.Params = ".LEVEL=GAIN,… (default: gain = level)"
		}
		out = append(out, mi)
	}
	return out
}

// MeasureSets returns trec_eval's measure set names (the -m nicknames) and
// the measures each one names.
func MeasureSets() map[string][]string {
	m := make(map[string][]string)
	for _, n := range nicknames {
		var names []string
		for _, k := range n.kinds {
			names = append(names, defs[k].name)
		}
		m[n.name] = names
	}
	return m
}

// MeasureNames lists the measures Eval computes, in the order trec_eval
// prints them.
func MeasureNames() []string {
	names := make([]string, numKinds)
	for k := range numKinds {
		names[k] = defs[k].name
	}
	return names
}

func joinInts(a []int64) string {
	s := make([]string, len(a))
	for i, v := range a {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ",")
}

func joinReals(a []float64) string {
	s := make([]string, len(a))
	for i, v := range a {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

// ValidateMeasures reports whether Eval accepts the -m arguments args
// (known measures, well-formed parameters), so callers can reject bad usage
// before reading any file.
func ValidateMeasures(args []string) error {
	_, err := parseMeasures(args)
	return err
}

// gainPair is one "level=gain" parameter of G, ndcg, ndcg_rel, Rndcg.
type gainPair struct {
	level int64
	gain  float64
}

// measure is one requested measure with its parameters.
type measure struct {
	kind      kind
	cutoffs   []int64    // pLongCut
	reals     []float64  // pDoubleCut (sorted) and pDouble (as given)
	pairs     []gainPair // pPairs
	printable string     // the parameter text given, "" for the defaults
	col       int        // index of its first column
	ncol      int
}

func (m *measure) def() *measureDef { return &defs[m.kind] }

// column is one value slot.
type column struct {
	m      *measure
	cutoff int64   // pLongCut
	real   float64 // pDoubleCut
}

// parseMeasures interprets -m arguments the way mark_measure in
// trec_eval.c and meas_init.c do:
//
//   - "name.params" marks name, a measure or a measure set, and records
//     params under name;
//   - a measure takes the parameters of the first -m that gave its own name
//     any, and later ones are ignored, as in trec_eval;
//   - parameters given to a measure without parameters, or to a measure
//     set, are ignored;
//   - measures come out in trec_eval's table order, whatever the order of
//     the arguments.
func parseMeasures(args []string) ([]measure, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("no measure requested: give -m MEASURE (a measure or one of the sets official, all_trec, set, all_prefs, prefs, qrels_jg)")
	}
	var marked [numKinds]bool
	var params [numKinds]*string
	for _, arg := range args {
		name, p, hasParams := strings.Cut(arg, ".")
		if hasParams && p == "" {
			return nil, fmt.Errorf("measure %q: empty parameter list after '.'", arg)
		}
		if i := slices.IndexFunc(nicknames, func(n nickname) bool { return n.name == name }); i >= 0 {
			for _, k := range nicknames[i].kinds {
				marked[k] = true
			}
			continue
		}
		k, ok := kindByName(name)
		if !ok {
			return nil, fmt.Errorf("illegal measure %q (rag-eval trec --help lists the measures)", arg)
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
		d := &defs[k]
		var p string
		if params[k] != nil && d.params != pNone {
			p = *params[k]
			m.printable = p
		}
		var err error
		switch d.params {
		case pLongCut:
			m.cutoffs = d.longDef
			if p != "" {
				m.cutoffs, err = parseCutoffs(p)
			}
		case pDoubleCut:
			m.reals = d.realDef
			if p != "" {
				m.reals, err = parseRealCutoffs(p)
			}
		case pDouble:
			m.reals = d.realDef
			if p != "" {
				m.reals = parseReals(p)
			}
			if k == kUtility && len(m.reals) != 4 {
				err = fmt.Errorf("utility takes 4 coefficients, found %d", len(m.reals))
			}
		case pPairs:
			if p != "" {
				m.pairs, err = parsePairs(p)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("measure %s.%s: %w", d.name, p, err)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// parseCutoffs is meas_init.c's get_long_cutoffs: atol each, sort, all
// positive and distinct.
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

// parseRealCutoffs is get_double_cutoffs: atof each, sort, distinct (no
// sign check).
func parseRealCutoffs(s string) ([]float64, error) {
	c := parseReals(s)
	if slices.ContainsFunc(c, math.IsNaN) {
		return nil, fmt.Errorf("NaN cutoff")
	}
	slices.Sort(c)
	for i := 1; i < len(c); i++ {
		if c[i] == c[i-1] {
			return nil, fmt.Errorf("duplicate cutoff %g", c[i])
		}
	}
	return c, nil
}

// parseReals is get_double_params: atof each, in the order given.
func parseReals(s string) []float64 {
	parts := strings.Split(s, ",")
	c := make([]float64, len(parts))
	for i, p := range parts {
		c[i] = atof(p)
	}
	return c
}

// parsePairs is get_param_pairs: "level=gain" items separated by commas,
// each with exactly one '='. The level is read with atol, the gain with
// atof.
func parsePairs(s string) ([]gainPair, error) {
	var out []gainPair
	for _, item := range strings.Split(s, ",") {
		l, g, ok := strings.Cut(item, "=")
		if !ok || strings.Contains(g, "=") {
			return nil, fmt.Errorf("malformed pair parameters (want LEVEL=GAIN,…)")
		}
		out = append(out, gainPair{level: atol(l), gain: atof(g)})
	}
	return out, nil
}

// columns lays out the value slots of the measures and names them as
// trec_eval does ("P_5", "iprec_at_recall_0.10", "utility_2,-1,0,0").
func columns(ms []measure) ([]column, []Column) {
	var cols []column
	var pub []Column
	for i := range ms {
		m := &ms[i]
		d := m.def()
		m.col = len(cols)
		base := Column{Integer: d.integer, SummaryOnly: d.summary, QueryOnly: d.perQuery, Text: d.text, Quoted: m.kind == kRelstring}
		switch d.params {
		case pLongCut:
			for _, c := range m.cutoffs {
				cols = append(cols, column{m: m, cutoff: c})
				col := base
				col.Name = d.name + "_" + strconv.FormatInt(c, 10)
				pub = append(pub, col)
			}
		case pDoubleCut:
			for _, c := range m.reals {
				cols = append(cols, column{m: m, real: c})
				col := base
				col.Name = d.name + "_" + realSuffix(c)
				pub = append(pub, col)
			}
		default:
			cols = append(cols, column{m: m})
			col := base
			col.Name = d.name
			if m.printable != "" {
				col.Name += "_" + m.printable
			}
			pub = append(pub, col)
		}
		m.ncol = len(cols) - m.col
	}
	return cols, pub
}

// realSuffix is "%3.2f" cut to the 8 characters trec_eval's name buffer
// holds (append_double in meas_init.c).
func realSuffix(v float64) string {
	b := appendFixed(nil, v, 2)
	b = []byte(strings.TrimLeft(string(b), " "))
	for len(b) < 3 {
		b = append([]byte{' '}, b...)
	}
	if len(b) > 8 {
		b = b[:8]
	}
	return string(b)
}
