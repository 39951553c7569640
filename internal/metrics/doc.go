// Package metrics computes ranked-retrieval measures exactly as trec_eval
// 9.0.8 computes them, and reads TREC qrels and run files as trec_eval reads
// them. It imports only the standard library and, for its error type,
// internal/diag, which imports only the standard library itself.
//
// There are two ways in.
//
// The judge scores one query at a time, on a ranking it has already
// ordered:
//
//	j := metrics.Judgments{"doc-a": 2, "doc-b": 0, "doc-c": 1}
//	rr := metrics.RecipRank(ranking, j, 1)          // recip_rank
//	p := metrics.PrecisionAt(ranking, j, 1, 5)      // P.5
//	r := metrics.RecallAt(ranking, j, 1, 5)         // recall.5
//	n := metrics.NDCGCutAt(ranking, j, 5)           // ndcg_cut.5
//
// rag-eval trec evaluates whole files, like trec_eval:
//
//	qrels, err := metrics.ReadQrels(qf, "qrels.txt")
//	run, err := metrics.ReadRun(rf, "run.txt")
//	opts := metrics.DefaultOptions("map", "P.5,10", "ndcg_cut.10")
//	res, err := metrics.Eval(opts, qrels, run)
//	err = metrics.WriteText(os.Stdout, res, metrics.TextOptions{PerQuery: true})
//
// # Input files
//
// A qrels line is "qid iter docno rel" and a run line is
// "qid iter docno rank score tag". Fields are separated by any C white
// space, that is space, tab, \v, \f or \r, so CRLF files read fine. The
// rank field is ignored, and the tag of the run's last data line is the
// runid. The qrels' iter field is ignored, except under -R qrels_jg and -R
// qrels_prefs, where it names the judgment group.
//
//   - rel is read as C's atol reads it: "2" is 2, "2.7" is 2, "x" is 0.
//     score is read as C's atof reads it, correctly rounded: the longest
//     prefix that is a decimal or hexadecimal number, "inf" or "nan". So
//     "1e3x" is 1000 and "x" is 0.
//   - qrels: exactly 4 fields. A blank line is an error.
//   - run: at least 6 fields, and more are ignored. Blank lines are
//     skipped.
//   - '#' is an ordinary byte in every file, as in trec_eval 9.0.8. A line
//     "# a comment" is a malformed line, and "# 0 doc 1" judges query "#".
//     trec_eval 10.0 skips comment lines, and 9.0.8 does not.
//   - An empty file, a file with no data line, or a NUL byte is an error.
//
// Errors are *diag.Error values (package internal/diag) printed
// "file:line: message".
//
// # Ranking and relevance
//
// The documents of a query are ranked by score, descending. Equal scores
// are ordered by docno in descending byte order. The rank column is
// ignored. With MaxRetrieved (-M N) only the first N documents of that
// order are kept. A docno that appears twice among the kept documents of an
// evaluated query, or twice in the judgments of an evaluated query, is an
// error naming both lines. trec_eval only checks the queries it evaluates,
// and only among the documents -M keeps, so this package does the same.
//
// A retrieved document gets its judged grade. A document without a
// judgment is non-relevant. A judged document with a negative grade is
// "pooled but unjudged". A document is relevant when its grade is at least
// RelLevel, set by -l and 1 by default. Grade 0 is judged non-relevant.
//
// # Measures
//
// Every measure of trec_eval 9.0.8 is computed. Measures lists them with
// their default parameters. MeasureSets lists the sets: "official",
// "all_trec", "set", "qrels_jg", and the preference sets "all_prefs" and
// "prefs" of Preferences below. R is the number of judged documents of the
// query with grade >= RelLevel, retrieved or not. A query with R = 0
// scores 0 on every ratio over R.
//
//	runid        the tag (sixth field) of the run file's last data line
//	             ("all" only; trec_eval checks no other line's tag)
//	num_q        number of queries averaged over ("all" only)
//	num_ret      documents retrieved (after -M, -J); sum over queries
//	num_rel      R; sum over queries
//	num_rel_ret  relevant documents retrieved; sum over queries
//	map          sum over relevant retrieved documents of precision at
//	             their rank, divided by R
//	gm_map       map's geometric mean over the queries ("all" only)
//	Rprec        relevant documents among the first R, divided by R
//	bpref        binary preference (see the traps below)
//	recip_rank   1/rank of the first relevant document (no cutoff: use -M)
//	iprec_at_recall.x   interpolated precision (the best precision at or
//	             below the rank) where a fraction x of R is retrieved
//	P.k          relevant documents among the first k, divided by k (always
//	             k, even when fewer documents were retrieved)
//	relstring.N  the grades of the first N documents as text (queries only)
//	recall.k     relevant documents among the first k, divided by R
//	infAP        inferred AP for sampled judgments (see the traps)
//	gm_bpref     bpref's geometric mean ("all" only)
//	Rprec_mult.x precision at (long)(x·R + 0.9) documents
//	utility.a,b,c,d  a·relret + b·nonrelret + c·relnotret + d·(N − the
//	             rest), N the collection size of -N (0 by default)
//	11pt_avg.x,…  iprec_at_recall averaged over the fractions given
//	binG, G      experimental gain measures of trec_eval
//	ndcg.l=g,…   nDCG of the whole ranking; the gain of grade l is l unless
//	             a pair sets it; the ideal ranking is every judged document
//	ndcg_rel, Rndcg  nDCG averaged at the relevant documents, at the R levels
//	ndcg_cut.k   DCG of the first k documents divided by the DCG of the
//	             ideal ranking (every judged document with grade >= 1, best
//	             first), truncated at k; gain = the grade itself, whatever
//	             RelLevel is; discount log2(rank+1)
//	map_cut.k    map counting the relevant documents of the first k only
//	relative_P.k relevant documents among the first k, over min(k, R)
//	success.k    1 if a relevant document is among the first k, else 0
//	set_P, set_recall, set_relative_P, set_map, set_F.x  the retrieved
//	             set as a whole: precision, recall, relret/min(ret, R),
//	             P·recall, (x+1)·P·recall/(x·P + recall)
//	num_nonrel_judged_ret  judged non-relevant documents retrieved; sum
//	map_avgjg, P_avgjg.k, Rprec_mult_avgjg.x  with RelFormat "qrels_jg"
//	             (-R qrels_jg): the qrels' second field names a judgment
//	             group; each group judges the ranking on its own and the
//	             measure averages over the groups of the query
//
// Parameters follow the first '.' and are comma separated.
//
//   - Integer cutoffs, of P, recall, ndcg_cut, map_cut, relative_P, success
//     and P_avgjg, are read with atol and sorted ascending. They must be
//     positive and distinct, and each names one value, such as "P_5".
//   - Real cutoffs, of iprec_at_recall and Rprec_mult, are read with atof,
//     sorted and distinct. They are named with "%3.2f", as in
//     "Rprec_mult_0.20".
//   - Real parameters, of relstring, utility, 11pt_avg and set_F, and
//     level=gain pairs, of G, ndcg, ndcg_rel and Rndcg, keep their order.
//     They name one value with the text given, such as "utility_2,-1,0,0"
//     or "ndcg_1=3,2=9".
//
// Without parameters a measure uses trec_eval's defaults (Measures). As in
// trec_eval, when several -m name the same measure, the parameters of the
// first one that gives any win. Parameters given to a measure without
// parameters, or to a set, are ignored.
//
// Eval needs at least one measure. The CLI, like trec_eval, asks for
// "official" when -m is not given.
//
// Every sum is accumulated in trec_eval's order and every product rounded
// on its own. The integer discounts are glibc's log2 values bit for bit,
// checked for every rank up to 100,000. Values thus equal those of
// trec_eval built on glibc exactly, not merely to printing precision. The
// test suite runs trec_eval 9.0.8's own "make quicktest" invocations
// (testdata/trec/quicktest) and compares the output byte for byte. All
// eleven pass.
//
// # Traps
//
// The places where a definition surprises, each pinned by a test of
// traps_test.go:
//
//   - bpref (TestTrapBprefCap): unjudged and unpooled documents are
//     skipped. A relevant document scores 1 − min(n, R)/min(N, R), with n
//     the judged non-relevant documents above it and N all judged
//     non-relevant documents. Both counts are capped at R, so past R judged
//     non-relevant documents a relevant one scores 0.
//   - gm_map and gm_bpref (TestTrapGMMapFloor): each query's value is
//     floored at 0.00001 before the log, so one query at 0 pulls the mean
//     to ~1e-5 instead of 0. Under -c a judged query without results counts
//     as the floor. The per-query value, in QueryResult, is the log.
//     trec_eval prints it for "all" only, as exp of the mean.
//   - infAP (TestTrapInfAPSampling): a negative grade in the qrels marks a
//     pooled document left unjudged, since the pool was sampled. Such
//     documents are assumed relevant in the proportion of the judged
//     documents above. Documents outside the pool count as non-relevant,
//     and R counts the judged relevant only.
//   - relstring (TestTrapRelstringWidth): min(N, retrieved) characters,
//     with N = 10 unless relstring.N renames the value relstring_N. '>'
//     stands for a grade above 9, '.' for pooled but unjudged, '-' for not
//     in the pool. It is printed for the queries only, between single
//     quotes.
//   - iprec_at_recall, 11pt_avg (TestTrapIprecRounding): the fraction x of
//     R becomes (long)(x·R + 0.9) relevant documents, as in trec_eval
//     9.0.8. Later trec_eval versions round to nearest and print other
//     values. 11pt_avg's fractions are not sorted.
//   - Rprec_mult, relative_P, P (TestTrapCutoffsBeyondRanking): a cutoff
//     beyond the ranking counts the missing documents as non-relevant.
//   - ndcg, G, ndcg_rel, Rndcg (TestTrapNDCGGains): unlike ndcg_cut, the
//     ideal ranking walks the levels by gain and stops at the first judged
//     level whose gain is not positive. A pair may give a gain to grade 0,
//     or to documents outside the pool, level -1. trec_eval sorts the
//     levels comparing (int)(gain1 − gain2), so gains less than 1 apart
//     keep their order. This package sorts the same way with the same
//     merge sort.
//   - set_F (TestTrapSetMeasures) is 0 when nothing relevant is retrieved.
//     utility's fourth coefficient multiplies a count that includes the
//     collection size -N.
//
// # Preferences
//
// With RelFormat "prefs" or "qrels_prefs", a query's judgments are
// preferences. Under -R prefs, ReadPrefs reads lines "qid jg jsg docno
// level", the level a real number. Under -R qrels_prefs, ReadQrelsPrefs
// reads a qrels file whose second field is the jg, every line in sub-group
// "0". Within a judgment sub-group (jsg) of a judgment group (jg, one
// user), every document with a higher level is preferred to every document
// with a lower one. A jg with one jsg is a set of equivalence classes. A jg
// with several is a partial order, closed transitively, and a preference
// both ways is an error. A preference A > B is fulfilled when A ranks above
// B. It is "implied" when only one of the two is retrieved, and fulfilled
// if that one is A. It is "not occurring" when neither is.
//
// The prefs_* measures are trec_eval's ratios of fulfilled to possible
// preferences. They take all preferences (simp), or average over document
// pairs (pair) or over judgment groups (avgjg). Without a suffix they count
// implied and not-occurring preferences, with _imp implied ones only, and
// with _ret only those between retrieved documents. *_Rnonrel counts only
// as many non-relevant documents, of level 0 or below, as there are
// relevant ones.
//
// Two traps are pinned by the quicktest vectors. Ties in score are broken
// by docno in ascending byte order here, where the other measures break
// them descending, as trec_eval does. The pair measures keep a judged ×
// judged table per query, so their cost is quadratic in a query's judged
// documents, as in trec_eval.
//
// # Queries and the "all" line
//
// A query is evaluated when it is in both the run and the qrels. Run
// queries without judgments are ignored. Judged queries without results are
// skipped, unless Complete (-c) is set. They then count as zero: means
// divide by the number of qrels queries, and num_q is that number. num_rel
// for "all" then becomes the number of judgments with grade > 0 in the
// whole qrels file, since trec_eval's m_num_rel.c counts grade > 0 there,
// ignoring -l. Even under -c, queries without results get no per-query
// lines. A run that shares no query with the qrels is an error
// (ErrNoCommonQuery).
//
// "all" holds the mean over the queries, summed in qid byte order as
// trec_eval sums. It holds sums for num_* and the geometric mean for gm_*.
// Eval's cost is linear in the number of queries: the sorted query lists
// are merged, where trec_eval searches one list for each query of the
// other.
//
// # Output
//
// WriteText prints what trec_eval prints:
//
//   - "%-22s\t%s\t%6.4f" lines of measure, qid or "all", and value;
//   - num_* as integers, runid as text, relstring between single quotes;
//   - the per-query lines of -q first, in qid byte order;
//   - measures in trec_eval's table order whatever the order of -m, with
//     cutoffs ascending;
//   - num_q, gm_* and runid on the "all" lines only, relstring on the query
//     lines only.
//
// Rounding is glibc's: the exact binary value to nearest, ties to even, so
// 0.03125 prints 0.0312.
//
// With z scores (Options.ZScores, -Z), every per-query value becomes
// (value − mean)/stddev before the "all" values are formed. ReadZScores
// reads the "qid measure mean stddev" file. A value whose query or measure
// is missing from the file becomes -1000000 (MissingZScore), and so does
// one whose stddev is 0 while the value is not the mean. Names are then
// printed "Z%-22s", and every number with 4 decimals, num_* included.
// runid and relstring are left alone.
//
// # Where this package differs from trec_eval 9.0.8
//
// Only where trec_eval's behaviour is undefined or unusable:
//
//   - A NaN score: trec_eval's comparison is then no order, and its result
//     depends on the C library's qsort. Ranks are computed with the merge
//     sort of glibc's qsort, so they match trec_eval built on glibc.
//   - A NUL byte ("files may contain no NUL characters") and a file with no
//     data line make trec_eval read garbage. Here they are errors.
//   - -M with a negative number crashes trec_eval. The CLI rejects it.
//   - trec_eval allocates an array as long as the highest grade of a
//     query. ndcg, G, ndcg_rel and Rndcg list the levels one by one up to
//     grade 65536, and beyond that only the grades judged. That can only
//     change the order of levels whose gains are less than 1 apart.
//   - log2 of a non-integer, for G with fractional gains, and the log and
//     exp of gm_* are Go's, which may differ from glibc's in the last bit.
//     The integer discounts are glibc's exactly.
//   - Under qrels_jg, a docno repeated within a judgment group is reported
//     for the evaluated queries only, where trec_eval checks the whole
//     file.
//   - The z-score file may not give a (query, measure) twice. trec_eval
//     would use either.
//   - On an input error nothing is printed, where trec_eval may already
//     have printed the per-query lines of earlier queries. Error messages
//     are this package's, with file and line, not trec_eval's.
package metrics
