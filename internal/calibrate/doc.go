// Package calibrate measures how well qualityScore separates the evidence
// a golden case wants from the evidence it does not, per search mode. It
// finds the thresholds that separate them best. It is the calibration
// behind the lookup pipeline's per-embedder thresholds (docs/pipeline.md).
// These are the relevanceLevel thresholds levels.high and levels.medium,
// the evidence floor minQuality and the low-quality gate lowQuality. The
// shipped values, as high / medium / minQuality / lowQuality, are:
//
//   - 0.55 / 0.35 / 0.16 / 0.17 for the default use-multilingual-v3
//   - 0.3 / 0.19 / 0.13 / 0.15 for the lexical local-hash-v1
//   - 0.75 / 0.5 / 0 / 0.5 for an uncalibrated embedder
//
// `rag-eval calibrate` is its command line.
//
// The package is split like benchstat. stats.go is the statistics: pure
// functions over []Sample{Score, Relevant} that know nothing of cases or
// files. label.go says what a golden case makes of a block. build.go
// builds the Report model from judge results. json.go, markdown.go and
// text.go render it.
//
// # Labels
//
// Every fixture directory is judged against the golden cases exactly as
// `rag-eval` judges it. Only cases judged pass or fail count, and only
// their top-K blocks, the judge's TopCandidates. A block is:
//
//   - relevant when its document has grade ≥ 1 in the case's judgments.
//     Every expected document has grade 1, and the case's "relevance" map
//     adds or overrides grades. Documents are identified as the judge
//     identifies them for rank metrics. That is by docId when the case uses
//     expectedDocIds, a block without docId being <kbScope>/<source>, and
//     else by source.
//   - non-relevant when the case names expected documents and the block's
//     document has grade 0 or no grade. It is non-relevant too when the
//     case is off-topic: then the case names no expected document and
//     declares expectedFound false or expectedEvidenceStatus "weak" or
//     "none", and every block it retrieved is non-relevant.
//   - unlabelled otherwise. A case that only checks keywords, attempts or
//     the context pack says nothing about its blocks. Unlabelled blocks
//     are counted and left out of every statistic but the relevanceLevel
//     table.
//
// A block without a qualityScore is counted as missingScore and left out
// of the score statistics. A qualityScore outside [0, 1], which no
// pipeline writes but a hand-made fixture may hold, counts as the nearest
// bound, 0 or 1, and the mode gets a warning saying how many there were.
// So every threshold the report suggests lies in [0, 1].
//
// Cases are labelled for the evidence gate, lowQuality, which asks whether
// the best block is good enough to call the evidence sufficient. A case is
// relevant when one of its top-K blocks is relevant, and non-relevant when
// it is off-topic. A case that names expected documents and retrieved no
// block at all is relevant too: a miss. It is left out otherwise. A case
// that retrieved blocks of none of its expected documents should have
// found evidence but did not, which says nothing about the gate.
//
// A case's score is the best qualityScore of its top-K blocks. A judged
// case none of whose top-K blocks has a qualityScore has none. That is a
// case with no block, typically an off-topic case whose blocks the
// minQuality floor all dropped, or a case whose blocks lack qualityScore.
// Its score is then its selected attempt's bestQuality from the fixture's
// retrievalTrace. That is the best qualityScore among the attempt's first
// topK candidates before post-processing, the very value the pipeline
// compares with lowQuality. It is used when the fixture records one for an
// attempt with candidates, and the pipeline does not declare it lacks a
// trace. Otherwise the case has no score and is counted as missingScore.
// So the off-topic cases the floor rejected still count as the negatives
// they are.
//
// A labelled case that retrieved no block and has no attempt score, as
// from a pipeline without trace that finds nothing, still counts in its
// class. It is rejected at every threshold: an off-topic one is a correct
// rejection (a true negative), an answerable one a miss (a false
// negative). It enters the rates, at the shipped thresholds and at the
// best one, but no score summary, histogram or choice of threshold. The
// report says which source each case's score came from, in scoreFrom:
// "blocks", "attempt", "nothingRetrieved" for such a case, or null when it
// has none.
//
// # Choosing a threshold
//
// A threshold t predicts "relevant" for every score ≥ t. On a set of
// labelled scores:
//
//   - TPR = relevant kept / relevant
//   - FPR = non-relevant kept / non-relevant
//   - precision = relevant kept / kept
//   - Youden's J = TPR − FPR
//
// The best separating threshold is the candidate with the largest J. The
// candidates are the midpoints between adjacent distinct observed scores,
// plus one below every score and one above. The one below keeps
// everything, and the one above keeps nothing, both with J = 0.
//
// A threshold is written rounded to 6 decimals. So a midpoint that would be
// written at or below the lower of its two scores, or above the upper one,
// is replaced by the smallest 6-decimal value above the lower score. For
// example 0.123456 and 0.123457 have the midpoint 0.1234565, written
// 0.123456, which is replaced by 0.123457. A "keep everything" threshold is
// replaced by one written at or below the lowest score. "score ≥ the
// written threshold" then keeps exactly what the reported rates count. Two
// adjacent scores with more than 6 decimals that lie within the same
// 0.000001 step have no 6-decimal value between them. The midpoint is then
// kept.
//
// Ties go to the lowest threshold. So when no threshold separates anything
// the answer is "keep everything" with J = 0. When the classes are
// perfectly separable it is the midpoint, adjusted as above, between the
// highest non-relevant and the lowest relevant score, with J = 1. J needs
// both classes: with no relevant or no non-relevant score the best
// threshold is null. It is chosen on the scored members alone, as no
// threshold moves a case that retrieved nothing. Its rates count those
// cases too. For example, relevant {0.6, 0.7, 0.8} and non-relevant
// {0.1, 0.2, 0.3, 0.65} give t = 0.45 with TPR 1, FPR 0.25 and J 0.75.
// 0.675 would give J 0.67.
//
// Everything else is computed in float64 and rounded to 6 decimals only
// when written.
//
// # Reading the report
//
// The JSON report (reports/calibration.json) has these keys, in this
// order. Floats are rounded to 6 decimals in their shortest form. A value
// that cannot be computed is null, and arrays are never null. The same
// inputs give the same bytes.
//
//	{"schemaVersion": 1, "tool": "rag-eval calibrate",
//	 "inputs": {"cases", "casesSha256", "k"},
//	 "modes": [{
//	   "name",          manifest searchMode, else the fixtures' searchMode, else the directory name
//	   "fixtures",      the directory
//	   "status",        "available" | "unavailable" (from _snapshot.json; available without one)
//	   "reason",        the manifest's reason, or null
//	   "embedder",      the manifest's embedder, or null
//	   "shipped": {"lowQuality", "minQuality", "levels": {"high", "medium"}},  from pipeline.params; null when unknown
//	   "blocks": {      null when unavailable
//	     "counts": {"relevant", "nonRelevant", "unlabelled", "missingScore"},
//	     "relevant":    {"count", "min", "median", "mean", "max"},   over scored blocks
//	     "nonRelevant": {…},
//	     "histogram": [{"from", "to", "relevant", "nonRelevant"}],   20 bins of 0.05 over [0, 1], the last one closed
//	     "best": {"name": "best", "threshold", "tpr", "fpr", "j", "precision"} or null,
//	     "atShipped": [ same shape for "levels.medium", "levels.high", "minQuality" ],
//	     "relevanceLevels": [{"level", "relevant", "nonRelevant", "unlabelled", "precision"}]
//	                      high, medium, low, then any other level sorted; precision = relevant / labelled
//	   },
//	   "cases": {       null when unavailable
//	     "counts", "relevant", "nonRelevant", "histogram", "best": as for blocks, over cases,
//	     "atShipped": [ "lowQuality", "minQuality" ],
//	     "samples": [{"caseId", "label", "bestQuality", "scoreFrom"}]   every judged case, golden-file order;
//	                scoreFrom "blocks", "attempt", "nothingRetrieved" or null
//	   },
//	   "warnings": ["…"]}]}   [] or one small-sample warning, below
//
// The Markdown report (reports/calibration.md) shows, per mode:
//
//   - the best thresholds beside the shipped ones, with their TPR, FPR, J
//     and precision
//   - the score summaries
//   - the two classes' histograms side by side as text bars
//   - every case's best score
//   - the precision of each relevanceLevel
//
// A shipped threshold is justified when its FPR and TPR are close to the
// best separating threshold's. levels.medium should keep every relevant
// block, or nearly. levels.high should keep few non-relevant ones, for a
// high precision. minQuality should keep every relevant block. lowQuality
// should sit between the off-topic cases' best scores and the answered
// cases' best scores.
//
// # Limitations
//
// The scores are those of the embedder that produced the fixtures. The
// local lexical embedder, local-hash-v1, hashes word and character
// n-grams. It scores true matches far lower than a neural model does, and
// off-topic text not far below them. In the shipped report
// (reports/calibration.md, fixtures-local) relevant top-K blocks score
// 0.13–0.59, the answered cases' best blocks 0.146–0.59 and the off-topic
// golden cases' best scores 0.108–0.186. English off-topic questions score
// like answers (`go doc ./internal/pipeline/builtin`). use-multilingual-v3
// puts answered cases at 0.185 and more, and off-topic ones at 0.149 at
// most. So the lexical embedder's thresholds say nothing about a neural
// model's, which must be calibrated on that model's own fixtures.
//
// The labels are only as rich as the golden cases. A mode with no
// non-relevant block has no best block threshold. That is a mode where
// every retrieved block is an expected document and no off-topic case
// retrieved anything. A few cases make every figure coarse. The classes
// are relevant blocks, non-relevant blocks, answered cases and off-topic
// cases. A mode in which a class has fewer than MinClassSize (5) scored
// members gets one warning naming those classes and their counts. A class
// with unscored members says both counts, as in "0 scored of 2 off-topic
// cases". The warning is in the mode's "warnings", in the Markdown and on
// stderr.
//
// Blocks are the post-processed top K, so the minQuality floor has already
// removed the candidates below it. The block statistics cannot show what a
// lower floor would have let through.
package calibrate
