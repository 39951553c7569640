// Package compare is the two-sided comparison of rag-eval compare
// (docs/reports.md): two fixture directories judged against the same golden cases, side
// by side, with paired statistics that say whether a difference is more than
// noise. It answers "does hybrid actually beat dense on this set?" and
// "does the sidecar pipeline retrieve what the current one does?".
//
// # Sides
//
// LoadSide judges one directory with the judge of package judge. A side is
// unavailable, not an error, when its directory does not exist or its
// _snapshot.json says "status": "unavailable" (rag-snapshot writes that for a
// sidecar it could not reach); its statistics and per-case columns are then
// null and the other side is still reported in full. rag-eval compare
// refuses (exit 2) only when both sides are unavailable.
//
// # Metrics and statistics
//
// Per case and metric, a value (Value): recallAtK is 1 when the hit level is
// strong or medium and 0 when weak or miss; mrr, ndcgAtK, docRecallAtK and
// precisionAtK are the case's rank metrics (docs/checks.md); passRate is 1 when the case
// passed and 0 otherwise (a not_run or error case counts 0, as in the
// summary's passRate). n/a, not_run and error cases have no rank value.
//
// The pairs of a metric are the cases with a value on both sides; d_i =
// left_i − right_i. A metric reports left and right (the means over the
// pairs, so delta = left − right; with the other side unavailable, a side's
// mean over its own valued cases), delta (mean d), ci95 (the percentile
// bootstrap interval of mean d: 10,000 resamples of the pairs with
// replacement, 2.5% and 97.5% type-7 quantiles, as numpy.percentile) and
// pValue (the two-sided paired sign-flip randomization test: 10,000
// permutations each flipping every d_i's sign with probability ½,
// p = (#{|permuted mean| ≥ |observed mean|} + 1) / 10,001). With no pairs
// every value is null.
//
// One math/rand/v2 PCG source, rand.New(rand.NewPCG(1, 2)) (the 128-bit
// state hi = 1, lo = 2, Go's LCG multiplier and increment and its DXSM
// output; numpy's PCG64DXSM uses a different multiplier), serves the whole
// comparison, metric by metric in the order recallAtK, mrr, ndcgAtK,
// docRecallAtK, precisionAtK, passRate. For each, every bootstrap resample
// draws len(d) indices in [0, n) by Lemire's method on rng.Uint64 (the
// high word of Uint64()·n, drawn again while the low word is below
// 2^64 mod n; math/rand/v2's IntN on 64-bit platforms when n is not a power
// of two), then each permutation takes its signs from the bits of
// successive rng.Uint64 words, lowest bit first, a fresh word for every 64
// differences. The same fixtures therefore give the same bytes, and the
// numbers can be recomputed outside Go.
//
// Identical sides give delta 0, the interval [0, 0] and p = 1. Only pairs
// whose difference is not 0 can move the randomization test (nonZero in
// the JSON, "pairs that differ" in the Markdown): with m of them the exact
// test cannot give p below 2/2^m, and never below 1/10,001 here. Two paths
// that differ on 2 of 50 cases cannot reach p < 0.05 however large the
// difference: read the interval and the cases, not only p.
//
// # Differences
//
// Per case, both sides' status, hit level, firstExpectedRank, selected
// attempt and top-K blocks. differences lists, in this order: source,
// breadcrumb, category (any top-K position whose value differs; a position
// one side lacks differs in all block fields), rank (firstExpectedRank),
// scoreLabel, relevanceLevel, hitLevel, selectedAttempt. A difference is
// information, never a failure: a sidecar may legitimately have no filtered
// attempt. Hybrid and dense label every score differently (RRF vs COSINE),
// so the Markdown and text outputs count the cases that differ only in
// scoreLabel apart and detail only the others; the JSON lists it like any
// difference.
//
// # Output
//
// Report.WriteJSON writes schemaVersion, left, right, metrics and cases, followed by
// tool, inputs (cases, casesSha256, k) and method (how delta, the interval
// and the p-value were computed, with the seed); each metric adds nonZero
// after pairs. Case objects carry
// scenario and query after caseId, left, right and differences, and each
// side failedChecks.
// WriteMarkdown shows the sides, the metric table (Δ in bold when
// p < 0.05), every case side by side and, for the cases that differ, their
// top-K blocks position by position with the differing fields in bold.
// WriteText is the plain summary printed on stdout.
package compare
