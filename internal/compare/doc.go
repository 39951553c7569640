// Package compare is the comparison of rag-eval compare and rag-eval
// trec-compare (docs/reports.md). It compares two or more sides pair by
// pair, with paired statistics that say whether a difference is more than
// noise, adjusted for the number of tests made. A side is a fixture
// directory judged against the golden cases, or a TREC run evaluated
// against the qrels, the same for every side. The package answers "does
// hybrid actually beat dense on this set?", "which of these three
// embedders is better, and is that more than chance?" and "does the
// sidecar pipeline retrieve what the current one does?".
//
// # Sides and pairs
//
// LoadSide judges one directory with the judge of package judge. A side is
// unavailable, not an error, when its directory does not exist or its
// _snapshot.json says "status": "unavailable". rag-snapshot writes that for
// a sidecar it could not reach. The side's means, its pairs' statistics and
// its per-case columns are then null, and the other sides are still
// reported in full. rag-eval compare refuses with exit 2 only when every
// side is unavailable. TREC runs (BuildTrec) are always available.
//
// The pairs are every pair of sides, or with a baseline every other side
// against it:
//
//   - AllPairs gives (0, 1), (0, 2), …, (1, 2), …, with Δ = the earlier
//     side − the later one.
//   - BaselinePairs gives (i, baseline) in side order, with Δ = side −
//     baseline.
//
// The engine, Analyze, works on a Table. A Table holds, per side, metric
// and item, a value or none (NaN). An item is a golden case or a query.
//
// # Metrics of fixture sides
//
// Value gives a case's value of a metric.
//
//   - recallAtK is 1 when the hit level is strong or medium, and 0 when it
//     is weak or miss.
//   - mrr, ndcgAtK, docRecallAtK and precisionAtK are the case's rank
//     metrics (docs/checks.md).
//   - passRate is 1 when the case passed and 0 otherwise. A not_run or
//     error case counts 0, as in the summary's passRate.
//
// n/a, not_run and error cases have no rank value. TREC sides compare each
// per-query measure of rag-eval trec, but not num_*, which are counts.
// BuildTrec says what happens to the queries a run lacks.
//
// # Statistics of a pair
//
// The pairs of items of a metric are the items with a value on both sides,
// in item order. For fixtures that is the golden file's case order. For
// TREC runs it is the query ids in byte order, so q10 comes before q2. The
// differences are d_i = a_i − b_i. The order matters, as the bootstrap
// draws indices into d. A metric reports:
//
//   - a and b, the means over the pairs, so that delta = a − b. When the
//     other side is unavailable, a side's mean is over its own valued
//     items.
//   - delta, the mean of d.
//   - ci95, the percentile bootstrap interval of the mean of d. It takes
//     10,000 resamples of the pairs with replacement, and the 2.5% and
//     97.5% type-7 quantiles, numpy.percentile's default, computed as
//     Interval says.
//   - pValue, the two-sided paired sign-flip randomization test. Each of
//     10,000 permutations flips every d_i's sign with probability ½, and
//     p = (#{|permuted mean| ≥ |observed mean|} + 1) / 10,001. A
//     permutation counts when |Σ ±d_i| ≥ |Σ d_i| − 10⁻¹²·(1 + Σ |d_i|).
//     The test compares sums rather than means. The slack makes a permuted
//     sum equal to the observed one in exact arithmetic count even when
//     rounding puts it a few ulps below. It does for values on a grid such
//     as P_10.
//   - wins, ties and losses, the d_i above, at and below 0. nonZero is
//     wins + losses.
//   - pAdjusted, below.
//   - tTestP, the paired t-test's two-sided p (TTest), as
//     scipy.stats.ttest_rel computes it. It is a reference only: nothing is
//     decided on it.
//
// With no pairs every statistic is null. Every sum, be it a resample's, a
// permutation's or a mean's, adds its terms from the first to the last in
// float64.
//
// # Random numbers
//
// Each pair has its own math/rand/v2 PCG source, rand.NewPCG(1, 2). Its
// 128-bit state is hi = 1, lo = 2, with Go's LCG multiplier and increment
// and its DXSM output. numpy's PCG64DXSM uses a different multiplier. Type
// PCG is the same generator. The source serves the pair's metrics in report
// order, skipping those without pairs. For fixtures the order is recallAtK,
// mrr, ndcgAtK, docRecallAtK, precisionAtK, passRate. For runs it is the
// measure columns in rag-eval trec's order.
//
// For each metric with n pairs, resample r = 0 … 9,999 draws n indices in
// [0, n) by Lemire's method on Uint64. An index is the high word of
// Uint64()·n, drawn again while the low word is below 2^64 mod n. That is
// math/rand/v2's IntN on 64-bit platforms when n is not a power of two. The
// resample's mean is the sum of d at those indices, in draw order, divided
// by n. Then permutation r = 0 … 9,999 takes its signs from the bits of
// ⌈n/64⌉ successive Uint64 words, lowest bit first, a fresh word for every
// 64 differences. A set bit stands for −d_i.
//
// So a pair's numbers, but pAdjusted, depend only on its two sides.
// pAdjusted depends on the family. The other numbers are what a comparison
// of those two sides alone gives, whatever the other sides, their order or
// the number of pairs computed at once. Read the other way round, Δ and the
// interval change sign, and wins and losses swap.
//
// Pairs whose metrics have the same numbers of pairs draw the same random
// numbers, common random numbers. The implementation uses that to draw
// once for all of them. It also draws a batch's indices on every core, from
// generators advanced to their place in the stream (PCG.Advance). It falls
// back to one draw after the other if an index ever needs a second word.
// The result is the sequential procedure's, byte for byte, on any number
// of cores. This is the procedure of the comparison when it had two sides
// only. It is unchanged but for the last bit of the upper bound, which
// Interval interpolates from the top, so its reports kept their numbers.
//
// # Multiple testing
//
// pAdjusted is Holm's step-down adjustment (Holm) over the family of every
// p-value in the report. The family is every pair × metric that has one,
// and method.family counts them. Sorted ascending, p_(j) becomes
// min(1, max over i ≤ j of (m − i + 1)·p_(i)), computed from the unrounded
// p-values. Holm controls the family-wise error rate under any dependence
// between the tests.
//
// A difference is significant when its adjusted p is below Significance
// (0.05). Its Δ is then in bold in the Markdown and starred in the text. In
// the summary table a side's mean carries the letter of every side it is
// significantly better than, following ranx's convention. The sides are
// a, b, c, … in order.
//
// Identical sides give delta 0, the interval [0, 0], p = 1 and only ties.
// Only pairs whose difference is not 0 can move the randomization test.
// With m of them the exact test cannot give p below 2/2^m, and never below
// 1/10,001 here. Two paths that differ on 2 of 50 cases cannot reach
// p < 0.05 however large the difference. Read the interval, the
// win/tie/loss counts and the cases, not only p.
//
// # Differences
//
// Per case and pair, both sides' status, hit level, firstExpectedRank,
// selected attempt and top-K blocks are shown. differences lists, in this
// order: source, breadcrumb, category, rank, scoreLabel, relevanceLevel,
// hitLevel, selectedAttempt. A block field differs at any top-K position
// whose value differs. A position one side lacks differs in all block
// fields. rank compares firstExpectedRank.
//
// A difference is information, never a failure: a sidecar may
// legitimately have no filtered attempt. Hybrid and dense label every
// score differently, RRF vs COSINE. So the Markdown and text outputs count
// the cases that differ only in scoreLabel apart, and detail only the
// others. The JSON lists scoreLabel like any difference.
//
// The Markdown shows each block's evidenceKey, or the start of its excerpt
// when it has none, so that two chunks of one section differ visibly. The
// JSON carries neither, and no difference is counted for them.
//
// # Output
//
// Report.WriteJSON writes, in order:
//
//   - schemaVersion (2)
//   - sides: name, fixtures, status, reason, summary
//   - baseline
//   - metrics, the summary: per metric each side's mean and betterThan
//   - pairs: a, b, and per metric name, a, b, delta, ci95, pValue,
//     pAdjusted, pairs, nonZero, wins, ties, losses, tTestP
//   - cases: caseId, then sides with one entry per side, null when
//     unavailable, then differences with one list per pair, in pairs
//     order, then scenario and query
//   - tool
//   - inputs: cases, casesSha256, k
//   - method: how delta, the interval, the p-value and the adjustment were
//     computed, with the seed and the family size
//
// TrecReport has the same statistics. Its sides hold name, run, sha256,
// status, queries and missing. It has no cases, and TREC inputs.
// WriteMarkdown shows the sides and the summary table, then per pair its
// metric table. For fixtures it then shows every case side by side, and
// the differing top-K blocks position by position with the differing
// fields in bold. WriteText is the plain summary printed on stdout.
package compare
