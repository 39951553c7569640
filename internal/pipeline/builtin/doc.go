// Package builtin is the builtin lookup pipeline (docs/pipeline.md). It sees
// only the kb interfaces: Catalog for the L0 terms, Index and Embedder. It
// never knows which store it runs on. rag-snapshot and the HTTP server run
// it, and it returns the fixture contract's contract.LookupResult directly.
// Its Pipeline is a pipeline.Lookuper, and the package pipeline
// documentation is its contract.
//
// # Steps
//
// A Lookup embeds the query once, then:
//
//  1. L0 hints. The L0 terms of the kbScope, the keywords, aliases and
//     titles of its ready documents, are read from the catalog and cached
//     per kbScope for Config.L0TTL. InvalidateL0 drops the cache. A term
//     matches when its normalised form (textnorm.Normalize), at least 2
//     characters long, is a substring of the normalised query. Each
//     matching term votes once for its document's category. A term listed
//     twice for one document, say as keyword and alias, votes once. The
//     hint is every category with at least Config.MinVotes votes, by votes
//     descending, then name. matchedTerms, as written in the frontmatter,
//     and matchedSources are those of the hinted categories, sorted and
//     deduplicated.
//  2. First attempt: FILTERED_VECTOR, on the kbScope and the hinted
//     categories, when there is a hint, else UNFILTERED_VECTOR, on the
//     kbScope only. The search asks the index for max(candidateK, topK)
//     candidates, dense or hybrid. Hybrid search fuses by kb.Fuse as
//     Config.Fusion says, with k = Config.RRFK.
//  3. Quality gate. qualityScore = clamp(1 − denseDistance²/2, 0, 1). An
//     attempt's bestQuality is the best qualityScore among its first topK
//     candidates, the value the gate uses, and 0 without candidates. The
//     attempt is lowQuality when that is below Config.LowQuality, so an
//     empty attempt is low quality too.
//  4. Fallback. A FILTERED_VECTOR attempt with no evidence is retried as
//     UNFILTERED_VECTOR_RETRY with fallbackReason
//     filtered_vector_no_evidence. No evidence means no candidate, or none
//     whose qualityScore reaches Config.MinQuality, so that nothing would
//     survive post-processing. A low-quality one is retried with
//     filtered_vector_low_quality. The retry keeps the kbScope and the
//     query. It is selected when it returns a candidate, and
//     fallbackReason stays set even when it does not. An error of the
//     retry search fails the lookup like any store error.
//  5. Post-processing of the selected attempt's candidates, in their
//     order. Candidates below Config.MinQuality are dropped (see below).
//     Then a candidate is dropped whose evidenceKey or normalised text was
//     already kept, textnorm.Normalize being NFKC, case folding and trim,
//     with inner white space counting. Then a third block of one document
//     is dropped. The rest get their relevanceLevel and are cut to topK.
//  6. Rerank the topK blocks as Config.Rerank says. "none" leaves the
//     order, with rerankTrace enabled false and model "none". "local" is a
//     deterministic cross-scorer, model "local-overlap-v1", stable on
//     ties: 0.5 × the weighted share of the query's distinct tokens found
//     in the excerpt + 0.5 × qualityScore. The tokens are textnorm.Tokens,
//     and a one-character token weighs 0.5. "http" posts {"model",
//     "query", "documents": [excerpts], "top_n"} to Config.RerankURL, with
//     "/rerank" appended unless the path ends in it. It orders by
//     results[].relevance_score, ties by original position, and the blocks
//     the answer omits come after, in their order. A failing reranker
//     keeps the order and sets fallback: true. It fails by a status, a
//     timeout of Config.RerankTimeout, a malformed answer or a bad index.
//     Ranks 1..n are given after reranking. topSource is the first block's
//     source, "" without blocks.
//  7. Context pack within Config.ContextBudget Unicode characters. Each
//     block is written as "[source] breadcrumb\n" + excerpt, and blocks
//     are joined by "\n\n". Headers and separators count, so usedChars is
//     the character count of packedText and never exceeds the budget. The
//     block that overflows is cut to the room left if its separator, its
//     header and at least one character of its excerpt fit, and dropped
//     otherwise. Later blocks are dropped, and truncated is set. sources
//     are the packed blocks' sources in order, each once. The evidence
//     blocks are not cut.
//  8. evidenceStatus is none without blocks, weak when the best block's
//     qualityScore is below Config.LowQuality, else sufficient. found is
//     whether there is a block.
//
// Each block carries denseDistance, the index's true dense distance in
// both modes. It carries fusedScore, the index's ranking score: the fused
// score in hybrid mode, the cosine in dense mode. Its scoreLabel is "RRF"
// or "COSINE" accordingly, since both fusions score on RRF's scale. Apart
// from the attempts' latencyMs, the wall time of each search call, the
// result is a function of the store and the request.
//
// # Defaults and why
//
// DefaultConfig gives topK 5, candidateK 20, minVotes 1, rerank none,
// contextBudget 3000, RRF k 60, fusion anchored, and thresholds per
// embedder.
//
// Fusion anchored, kb.FusionAnchored, is RRF in which a BM25 rank counts
// only for a chunk among the dense top 10, and the dense top 1 ranks at
// worst 3rd. Plain RRF, kb.FusionRRF, is what Config.Fusion's zero value
// and --fusion rrf select. With a semantic embedder plain RRF ranks any
// chunk BM25 also found, in the question's language, above an answer in
// the other language that only the dense side found. On the 24 semantic
// cases use-multilingual-v3 hybrid passed 16 with RRF and 20 anchored,
// against 21 dense. No golden case was lost by the change with either
// in-process embedder, and e5 on the server stack passed the same cases
// with both. The fusion is recorded as pipeline.params.fusion.
//
// Thresholds are looked up by the embedder's name (ThresholdsFor), the
// name fixtures record in pipeline.embedder. Three embedders are
// calibrated on the shipped set. Any other gets UncalibratedThresholds,
// the usual values for a neural embedder: lowQuality 0.5, levels high ≥
// 0.75 and medium ≥ 0.5, no minQuality floor. rag-snapshot warns that
// they are uncalibrated.
//
// use-multilingual-v3 (embed/usem3) is the default. It was calibrated on
// hybrid fixtures of the 57 cases written for the lexical embedder, on
// 2026-12-01 with RRF fusion, then re-checked on the 77 cases with anchored
// fusion (fixtures/, reports/calibration.md). On 77 cases the answered
// cases' best score is at least 0.185 and the off-topic ones' at most
// 0.149, best separated at 0.167 with TPR 1 and FPR 0. Hence lowQuality
// 0.17 and a floor of 0.16 below it, so that every off-topic question
// comes back with no evidence. Blocks are best separated at 0.362, with J
// 0.41 and precision 0.65: levels.medium 0.35. levels.high is 0.55, at
// precision 0.85. No absolute lowQuality makes the L0-decoy fallbacks fall
// back with this model: the filtered attempt in the wrong category still
// finds loosely related text at 0.23–0.41, above the weakest real answers.
// Hence the relative gate, relQuality 0.77 (Config.RelQuality, recorded as
// pipeline.params.relQuality). A filtered attempt whose best is below 0.77
// × the unfiltered search's best is low quality. Measured on the 46
// filtered lookups of the first 57 cases, the ratio of the filtered best to
// the unfiltered best is at most 0.71 for the decoys and at least 0.96 for
// true filtered answers with this model. With local-hash-v1 it is 0.69 and
// 0.82. So 0.72–0.82 separate them, and with the gate the fallback cases
// pass. The gate is off for local-hash-v1, whose absolute gate already
// separates them. It is off for e5 too, whose unrelated text scores 0.7
// against 0.9 for answers, so that every ratio is near 1. It comes on top
// of the absolute gate, which alone decides for the other embedders. It
// costs one more search per filtered lookup, which is reused as the retry.
//
// openai:multilingual-e5-small-q4 is the e5 server of make services, on
// the server stack, calibrated on 57 cases. e5's cosines sit in a narrow
// band. The answered cases' best is at least 0.875 and the off-topic ones'
// at most 0.848, best separated at 0.862: lowQuality 0.86, floor 0.85.
// Relevant blocks have a median of 0.907 against 0.874 for the others,
// best separated at 0.892 with J 0.60: levels.medium 0.89, levels.high
// 0.93. The margins are 0.01–0.03: treat e5's evidence status with care.
//
// local-hash-v1 is lexical: cosine follows shared words and character
// n-grams, so true matches score far lower. Its thresholds were calibrated
// with `rag-eval calibrate` on the shipped eval set when it was the
// default: eval/rag-retrieval, 40 documents, 208 chunks, dimension 512,
// the first 57 golden cases. reports/calibration.md, regenerated and
// checked by CI, still has its hybrid fixtures, fixtures-local. Top-K
// blocks are labelled relevant when their case grades them 1 or more, and
// cases are labelled answered when a relevant block is in the top K, else
// off-topic. Figures for hybrid / dense:
//
//	cases   answered best score min 0.171 / 0.171, off-topic max 0.136,
//	        best separating threshold 0.153 / 0.154 (TPR 1, FPR 0)
//	blocks  best separating threshold 0.189 (J 0.54) / 0.243 (J 0.56),
//	        at 0.19: J 0.53 / 0.52, at 0.3: precision 0.93 / 0.93
//
// Hence lowQuality 0.15, the evidence gate, at the cases' best separating
// threshold in both modes: every answered case is sufficient and every
// off-topic golden case weak or none. levels.medium is 0.19, the blocks'
// best separating threshold in hybrid and near the best in dense. A block
// at or above it is more likely relevant than not: precision 0.83 / 0.81
// for medium against 0.40 / 0.36 for low. levels.high is 0.3, at precision
// 0.93 in both modes. minQuality 0.13 is the floor below which a candidate
// is not evidence. It drops the long tail of unrelated chunks: an
// off-topic question in Chinese comes back found: false, as do the golden
// cases negative-recipe, at 0.128, and negative-football. It leaves the
// band [0.13, 0.15) as weak evidence, where negative-weather is at 0.136,
// and every golden case still passes above it. The calibration cannot rate
// the floor from fixtures, which hold only the blocks above it. The golden
// cases are its check. TestLocalHashCalibration re-measures the rest on
// the store directly: every answered example query's document reaches
// lowQuality, no off-topic one does apart from the known limitation below,
// and no wrong-category chunk reaches levels.high. It fails, printing the
// table, when the embedder, the chunker or the corpus moves the figures.
//
// The margins are small, which is what a lexical embedder gives, and one
// limitation is known. English off-topic questions made of common words
// score like answers: "Python list comprehension syntax" 0.178, "What is
// the capital of France?" 0.154. At 512 dimensions the hash-collision noise
// of the best of 191 chunks reaches 0.15–0.19. At 1024 dimensions off-topic
// questions fall to at most 0.145 while answers stay at 0.173 or more. But
// secondary sections of the right document fall below any usable floor
// too, and seven golden cases lose the section they ask for, as measured
// on 2026-11-29 with 19 off-topic probes. So the default stays 512. Such
// questions are not golden cases. eval/rag-retrieval/README.md lists them
// with the other known misses.
//
// Why a minQuality floor: without it a dense search always returns
// candidates, so found would be true for any question on a non-empty
// store. The floor drops blocks, and it decides between the two fallback
// reasons. A filtered attempt none of whose candidates reaches it would
// return nothing, so it has no evidence: filtered_vector_no_evidence, as in
// golden case fallback-decoy-diskio, best 0.090. One whose best is in
// [minQuality, lowQuality) is low quality, as in
// fallback-low-quality-slowlog, 0.138. "None of its candidates" means all
// of them, up to candidateK, whereas bestQuality and lowQuality look at the
// first topK. In hybrid mode RRF order can put a candidate above the floor
// after topK poorer ones, and the attempt is then low quality, not empty.
// The floor does not change bestQuality or lowQuality. Fixtures record it
// as pipeline.params.minQuality. A filtered attempt is retried when it
// "returns nothing", and with a floor an attempt whose every candidate
// would be dropped returns nothing. A pipeline without a floor reports
// filtered_vector_low_quality for the same attempt. So golden cases that
// should hold for any pipeline, such as fallback-decoy, the canonical decoy
// case, accept both reasons.
//
// # Requests
//
// Request.TopK 0 means Config.TopK. ResolveRequest refuses, with an error
// wrapping pipeline.ErrInvalidRequest: an empty or non-UTF-8 query, a query
// over MaxQueryChars characters, an empty or non-UTF-8 kbScope, a search
// mode other than hybrid and dense ("" is hybrid), and a topK outside
// 0..MaxTopK. Errors of the embedder, the catalog and the index fail the
// lookup, wrapped with the step.
package builtin
