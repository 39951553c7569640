// Package metrics computes ranked-retrieval measures exactly as trec_eval
// 9.0.8 computes them, and reads TREC qrels and run files as trec_eval reads
// them. It imports only the standard library.
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
// "qid iter docno rank score tag"; fields are separated by any C white
// space (space, tab, \v, \f, \r), so CRLF files read fine. The iter, rank
// and tag fields are ignored.
//
//   - rel is read as C's atol reads it: "2" is 2, "2.7" is 2, "x" is 0.
//     score is read as C's atof reads it: the longest prefix that is a
//     decimal or hexadecimal number, "inf" or "nan" ("1e3x" is 1000, "x" is
//     0), correctly rounded.
//   - qrels: exactly 4 fields; a blank line is an error; a line whose first
//     byte is '#' is a comment.
//   - run: at least 6 fields, more are ignored; blank lines are skipped, and
//     so are lines whose first non-blank byte is '#'.
//   - An empty file, a file with no data line, or a NUL byte is an error.
//
// Errors are *SyntaxError values printed "file:line: message".
//
// # Ranking and relevance
//
// The documents of a query are ranked by score, descending; equal scores
// are ordered by docno in descending byte order. The rank column is
// ignored. With MaxRetrieved (-M N) only the first N documents of that
// order are kept. A docno that appears twice among the kept documents of an
// evaluated query, or twice in the judgments of an evaluated query, is an
// error naming both lines. (trec_eval only checks the queries it evaluates,
// and only among the documents -M keeps, so this package does the same.)
//
// A retrieved document gets its judged grade; a document without a
// judgment is non-relevant; a judged document with a negative grade is
// "pooled but unjudged". A document is relevant when its grade is at least
// RelLevel (-l, default 1); grade 0 is judged non-relevant.
//
// # Measures
//
// R is the number of judged documents of the query with grade >= RelLevel
// (retrieved or not); a query with R = 0 scores 0 on every ratio below.
//
//	num_q        number of queries averaged over ("all" only)
//	num_ret      documents retrieved (after -M); sum over queries
//	num_rel      R; sum over queries
//	num_rel_ret  relevant documents retrieved; sum over queries
//	map          sum over relevant retrieved documents of precision at
//	             their rank, divided by R
//	Rprec        relevant documents among the first R, divided by R
//	recip_rank   1/rank of the first relevant document (no cutoff: use -M)
//	P.k          relevant documents among the first k, divided by k (always
//	             k, even when fewer documents were retrieved)
//	recall.k     relevant documents among the first k, divided by R
//	ndcg_cut.k   DCG of the first k documents divided by the DCG of the
//	             ideal ranking (every judged document with grade >= 1, best
//	             first), truncated at k; gain = the grade itself, whatever
//	             RelLevel is; discount log2(rank+1)
//	success.k    1 if a relevant document is among the first k, else 0
//
// Cutoff measures named without cutoffs use trec_eval's defaults: P,
// recall and ndcg_cut 5,10,15,20,30,100,200,500,1000; success 1,5,10.
// Cutoffs are comma separated ("P.5,10"), read with atol, sorted ascending;
// a cutoff below 1 or a repeated cutoff is an error. As in trec_eval, when
// several -m name the same measure, the cutoffs of the first one that gives
// cutoffs win, and cutoffs given to a measure without cutoffs are ignored.
// trec_eval's other measures (bpref, gm_map, …) and measure sets (official,
// all_trec, …) are rejected with an error that names the supported ones.
//
// The discounts are glibc's log2 values, bit for bit (checked for every rank
// up to 100,000), and every sum is accumulated in trec_eval's order, so
// values equal those of trec_eval built on glibc exactly, not merely to
// printing precision.
//
// # Queries and the "all" line
//
// A query is evaluated when it is in both the run and the qrels. Run
// queries without judgments are ignored. Judged queries without results are
// skipped, unless Complete (-c): then they count as zero, that is, means
// divide by the number of qrels queries, num_q is that number, and num_rel
// for "all" becomes the number of judgments with grade > 0 in the whole
// qrels file (trec_eval's m_num_rel.c counts grade > 0 there, ignoring -l).
// Even under -c, queries without results get no per-query lines, and a run
// that shares no query with the qrels is an error (ErrNoCommonQuery).
//
// "all" holds the mean over the queries (sums for num_*), summed in qid
// byte order as trec_eval sums. Eval's cost is linear in the number of
// queries: the sorted query lists are merged, where trec_eval searches one
// list for each query of the other.
//
// # Output
//
// WriteText prints what trec_eval prints: "%-22s\t%s\t%6.4f" lines
// (measure, qid or "all", value), num_* as integers, per-query lines (-q)
// first in qid byte order, measures in trec_eval's table order (num_q,
// num_ret, num_rel, num_rel_ret, map, Rprec, recip_rank, P, recall,
// ndcg_cut, success) whatever the order of -m, cutoffs ascending, num_q on
// the "all" lines only. Rounding is glibc's: the exact binary value to
// nearest, ties to even (0.03125 prints 0.0312).
//
// # Where this package differs from trec_eval 9.0.8
//
// Only where trec_eval's behaviour is undefined or unusable:
//
//   - A NaN score: trec_eval's comparison is then no order and its result
//     depends on the C library's qsort; ranks are computed with the merge
//     sort of glibc's qsort, so they match trec_eval built on glibc.
//   - trec_eval 9.0.8 counts lines for its buffers skipping from any '#' to
//     the end of the line, and skips at most one qrels comment line at a
//     time, so a '#' inside a line (a docno like "doc#3"), two comment lines
//     in a row in a qrels file, or a qrels file ending with a comment make it
//     reject the file, misread it, or write past its buffers. Here '#' is an
//     ordinary byte except where a comment starts, and every comment line is
//     skipped.
//   - A NUL byte ("files may contain no NUL characters") and a file with no
//     data line make trec_eval read garbage; here they are errors.
//   - -M with a negative number crashes trec_eval; the CLI rejects it.
//   - On an input error nothing is printed; trec_eval may already have
//     printed the per-query lines of earlier queries. Error messages are
//     this package's (with file and line), not trec_eval's.
package metrics
