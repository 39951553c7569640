// Package draft turns a query log (package querylog) into draft golden
// cases, the first step of a golden set made from evidence
// (docs/golden-sets.md). A draft is a golden case with "draft": true and
// no expectation: rag-snapshot runs it like any case, and rag-eval reports
// it without judging it, until an assessor's judgments make it a case.
//
// Draft does, in order:
//
//  1. Normalise: a query's exact form is NFKC, full case folding and white
//     space collapsed (Normalize).
//  2. De-duplicate: queries of one exact form are one query, and so are
//     queries of one near-duplicate key (Key), which also ignores
//     punctuation and the spaces of CJK text. A merged query's count is
//     the sum of its records' counts. Its text is the raw form asked most
//     often.
//  3. Leave out the queries whose key is that of a case of the golden file
//     the drafts go to: a merge never duplicates a query.
//  4. Sample, when asked: stratified by frequency and script, seeded, the
//     same on every machine (Draft says how).
//
// A query's case id is "q-" and the first 10 hex digits of the SHA-256 of
// its key (CaseID): stable across runs, whichever form of the query is
// the most frequent, and longer only when two keys share those digits.
//
// NewFile writes a new golden file of drafts. Merge inserts drafts into an
// existing one and keeps its bytes. Both give the same bytes for the same
// drafts. ProductionSide makes, from the spans of an OTLP trace export,
// the fixtures of what production retrieved for each case, a side to
// compare and pool with no adapter, and WriteProduction writes them.
//
// The package reads and writes files only. cmd/rag-eval draft is its
// command.
package draft
