// Package compare is the comparison of rag-eval compare and rag-eval
// trec-compare (docs/reports.md): two or more sides (fixture directories
// judged against the same golden cases, or TREC runs evaluated against the
// same qrels), compared pair by pair with paired statistics that say
// whether a difference is more than noise, adjusted for the number of
// tests made. It answers "does hybrid actually beat dense on this set?",
// "which of these three embedders is better, and is that more than
// chance?" and "does the sidecar pipeline retrieve what the current one
// does?".
//
// # Sides and pairs
//
// LoadSide judges one directory with the judge of package judge. A side is
// unavailable, not an error, when its directory does not exist or its
// _snapshot.json says "status": "unavailable" (rag-snapshot writes that for a
// sidecar it could not reach); its means, its pairs' statistics and its
// per-case columns are then null and the other sides are still reported in
// full. rag-eval compare refuses (exit 2) only when every side is
// unavailable. TREC runs (BuildTrec) are always available.
//
// The pairs are every pair of sides (AllPairs: (0, 1), (0, 2), …, (1, 2),
// …, Δ = the earlier side − the later one) or, with a baseline, every other
// side against it (BaselinePairs: (i, baseline) in side order, Δ = side −
// baseline). The engine, Analyze, works on a Table: per side, metric and
// item (a golden case, a query) a value or none (NaN).
//
// # Metrics of fixture sides
//
// Per case and metric, a value (Value): recallAtK is 1 when the hit level is
// strong or medium and 0 when weak or miss; mrr, ndcgAtK, docRecallAtK and
// precisionAtK are the case's rank metrics (docs/checks.md); passRate is 1 when the case
// passed and 0 otherwise (a not_run or error case counts 0, as in the
// summary's passRate). n/a, not_run and error cases have no rank value.
// TREC sides compare each per-query measure of rag-eval trec (not num_*,
// which are counts); see BuildTrec for queries a run lacks.
//
// # Statistics of a pair
//
// The pairs of items of a metric are the items with a value on both sides,
// in item order (the golden file's case order; for TREC runs the query ids
// in byte order, so q10 comes before q2); d_i = a_i − b_i. The order
// matters: the bootstrap draws indices into d. A metric reports a and b
// (the means over the pairs, so delta = a − b; with the other side
// unavailable, a side's mean over its own valued items), delta (mean d),
// ci95 (the percentile bootstrap interval of mean d: 10,000 resamples of
// the pairs with replacement, the 2.5% and 97.5% type-7 quantiles of
// numpy.percentile's default, computed as Interval says), pValue (the
// two-sided paired sign-flip randomization test: 10,000 permutations each
// flipping every d_i's sign with probability ½, p = (#{|permuted mean| ≥
// |observed mean|} + 1) / 10,001, where a permutation counts when
// |Σ ±d_i| ≥ |Σ d_i| − 10⁻¹²·(1 + Σ |d_i|): sums rather than means, and a
// slack so that a permuted sum equal to the observed one in exact
// arithmetic counts even when rounding puts it a few ulps below, as it
// does for values on a grid such as P_10), wins, ties and losses (the d_i
// above, at and below 0; nonZero = wins + losses), pAdjusted (below) and
// tTestP (the paired t-test's two-sided p, TTest, as scipy.stats.ttest_rel
// computes it: a reference only; nothing is decided on it). With no pairs
// every statistic is null. Every sum (a resample's, a permutation's, a
// mean's) adds its terms from the first to the last in float64.
//
// # Random numbers
//
// Each pair has its own math/rand/v2 PCG source, rand.NewPCG(1, 2) (the
// 128-bit state hi = 1, lo = 2, Go's LCG multiplier and increment and its
// DXSM output; numpy's PCG64DXSM uses a different multiplier; type PCG is
// the same generator), which serves the pair's metrics in report order
// (recallAtK, mrr, ndcgAtK, docRecallAtK, precisionAtK, passRate for
// fixtures; the measure columns in rag-eval trec's order for runs),
// skipping those without pairs. For each metric with n pairs, resample r =
// 0 … 9,999 draws n indices in [0, n) by Lemire's method on Uint64 (the
// high word of Uint64()·n, drawn again while the low word is below 2^64 mod
// n; math/rand/v2's IntN on 64-bit platforms when n is not a power of two)
// and its mean is the sum of d at those indices, in draw order, divided by
// n; then permutation r = 0 … 9,999 takes its signs from the bits of
// ⌈n/64⌉ successive Uint64 words, lowest bit first, a fresh word for every
// 64 differences (bit set: −d_i).
//
// A pair's numbers, but pAdjusted (which depends on the family), therefore
// depend only on its two sides: they are what a comparison of those two
// sides alone gives, whatever the other sides,
// their order (read the other way round, Δ and the interval change sign,
// wins and losses swap) or the number of pairs computed at once. Pairs
// whose metrics have the same numbers of pairs draw the same random
// numbers (common random numbers), which the implementation uses to draw
// once for all of them; it also draws a batch's indices on every core from
// generators advanced to their place in the stream (PCG.Advance), falling
// back to one draw after the other if an index ever needs a second word. The
// result is the sequential procedure's, byte for byte, on any number of
// cores. This is the procedure of the comparison when it had two sides
// only, unchanged but for the last bit of the upper bound (Interval
// interpolates it from the top), so its reports kept their numbers.
//
// # Multiple testing
//
// pAdjusted is Holm's step-down adjustment (Holm) over the family of every
// p-value in the report, every pair × metric that has one (method.family
// counts them): sorted ascending, p_(j) becomes min(1, max over i ≤ j of
// (m − i + 1)·p_(i)), computed from the unrounded p-values. A difference is
// significant when its adjusted p is below Significance (0.05): Δ in bold
// in the Markdown, starred in the text, and in the summary table a side's
// mean carries the letter of every side it is significantly better than
// (ranx's convention; sides are a, b, c, … in order). Holm controls the
// family-wise error rate under any dependence between the tests.
//
// Identical sides give delta 0, the interval [0, 0], p = 1 and only ties.
// Only pairs whose difference is not 0 can move the randomization test: with
// m of them the exact test cannot give p below 2/2^m, and never below
// 1/10,001 here. Two paths that differ on 2 of 50 cases cannot reach p <
// 0.05 however large the difference: read the interval, the win/tie/loss
// counts and the cases, not only p.
//
// # Differences
//
// Per case and pair, both sides' status, hit level, firstExpectedRank,
// selected attempt and top-K blocks. differences lists, in this order:
// source, breadcrumb, category (any top-K position whose value differs; a
// position one side lacks differs in all block fields), rank
// (firstExpectedRank), scoreLabel, relevanceLevel, hitLevel,
// selectedAttempt. A difference is information, never a failure: a sidecar
// may legitimately have no filtered attempt. Hybrid and dense label every
// score differently (RRF vs COSINE), so the Markdown and text outputs count
// the cases that differ only in scoreLabel apart and detail only the others;
// the JSON lists it like any difference.
//
// # Output
//
// Report.WriteJSON writes schemaVersion (2), sides (name, fixtures, status,
// reason, summary), baseline, metrics (the summary: per metric each side's
// mean and betterThan), pairs (a, b and per metric name, a, b, delta, ci95,
// pValue, pAdjusted, pairs, nonZero, wins, ties, losses, tTestP) and cases (caseId,
// sides — one entry per side, null when unavailable —, differences — one
// list per pair, in pairs order —, scenario, query), followed by tool,
// inputs (cases, casesSha256, k) and method (how delta, the interval, the
// p-value and the adjustment were computed, with the seed and the family
// size). TrecReport has the same statistics with sides (name, run, sha256,
// status, queries, missing), no cases and TREC inputs. WriteMarkdown shows
// the sides, the summary table, then per pair its metric table (and, for
// fixtures, every case side by side and the differing top-K blocks position
// by position with the differing fields in bold). WriteText is the plain
// summary printed on stdout.
package compare
