// Package lookup is the builtin lookup pipeline of SPEC §6. It sees only
// the kb interfaces (Catalog for the L0 terms, Index, Embedder) and never
// knows which store it runs on; rag-snapshot and the HTTP server run it, and
// it returns the fixture contract's contract.LookupResult directly.
//
// # Steps
//
// A Lookup embeds the query once, then:
//
//  1. L0 hints. The L0 terms of the kbScope (keywords, aliases and titles
//     of its ready documents) are read from the catalog and cached per
//     kbScope for Config.L0TTL (InvalidateL0 drops the cache). A term
//     matches when its normalised form (textnorm.Normalize), at least 2
//     characters long, is a substring of the normalised query. Each matching
//     term votes once for its document's category (a term listed twice for
//     one document, say as keyword and alias, votes once); the hint is every
//     category with at least Config.MinVotes votes, by votes descending, then
//     name. matchedTerms (as written in the frontmatter) and matchedSources
//     are those of the hinted categories, sorted and deduplicated.
//  2. First attempt: FILTERED_VECTOR (kbScope and category IN hints) when
//     there is a hint, else UNFILTERED_VECTOR (kbScope only). The search
//     asks the index for max(candidateK, topK) candidates, dense or hybrid
//     (RRF, k = Config.RRFK).
//  3. Quality gate. qualityScore = clamp(1 − denseDistance²/2, 0, 1). An
//     attempt's bestQuality is the best qualityScore among its first topK
//     candidates (the value the gate uses; 0 without candidates) and it is
//     lowQuality when that is below Config.LowQuality (so an empty attempt
//     is low quality too).
//  4. Fallback. A FILTERED_VECTOR attempt with no candidates is retried as
//     UNFILTERED_VECTOR_RETRY with fallbackReason filtered_vector_no_evidence,
//     a low-quality one with filtered_vector_low_quality; the retry keeps the
//     kbScope and the query. It is selected when it returns a candidate;
//     fallbackReason stays set even when it does not. An error of the retry
//     search fails the lookup like any store error.
//  5. Post-processing of the selected attempt's candidates, in their order:
//     candidates below Config.MinQuality are dropped (see below), then a
//     candidate whose evidenceKey or normalised text (textnorm.Normalize:
//     NFKC, case folding, trim; inner white space counts) was already kept,
//     then a third block of one document; the rest get their relevanceLevel
//     and are cut to topK.
//  6. Rerank the topK blocks (Config.Rerank): "none" leaves the order
//     (rerankTrace enabled false, model "none"); "local" is a deterministic
//     cross-scorer, 0.5 × the weighted share of the query's distinct tokens
//     (textnorm.Tokens; one-character tokens weigh 0.5) found in the excerpt
//     + 0.5 × qualityScore, stable on ties, model "local-overlap-v1"; "http"
//     posts {"model", "query", "documents": [excerpts], "top_n"} to
//     Config.RerankURL ("/rerank" appended unless the path ends in it) and
//     orders by results[].relevance_score (ties by original position,
//     omitted blocks after, in their order). A failing reranker (status,
//     timeout Config.RerankTimeout, malformed answer, bad index) keeps the
//     order and sets fallback: true. Ranks 1..n are given after reranking;
//     topSource is the first block's source ("" without blocks).
//  7. Context pack within Config.ContextBudget Unicode characters. Each
//     block is written as "[source] breadcrumb\n" + excerpt and blocks are
//     joined by "\n\n"; headers and separators count, so usedChars is the
//     character count of packedText and never exceeds the budget. The block
//     that overflows is cut to the room left if its separator, header and at
//     least one character of its excerpt fit (else dropped), later blocks
//     are dropped, and truncated is set. sources are the packed blocks'
//     sources in order, each once. The evidence blocks are not cut.
//  8. evidenceStatus: none without blocks, weak when the best block's
//     qualityScore is below Config.LowQuality, else sufficient; found when
//     there is a block.
//
// Each block carries denseDistance (the index's true dense distance in both
// modes), fusedScore (the index's ranking score: the RRF score in hybrid
// mode, the cosine in dense mode) and scoreLabel "RRF" or "COSINE"
// accordingly. Apart from the attempts' latencyMs (wall time of each search
// call) the result is a function of the store and the request.
//
// # Defaults and why
//
// DefaultConfig gives topK 5, candidateK 20, minVotes 1, rerank none,
// contextBudget 3000, RRF k 60, and thresholds per embedder.
//
// A neural embedder (anything but local-hash-v1) gets the thresholds of the
// design notes: lowQuality 0.5, levels high ≥ 0.75, medium ≥ 0.5, and no
// minQuality floor (0: no calibration corpus was measured for one).
//
// local-hash-v1 is lexical: cosine follows shared words and character
// n-grams, so true matches score far lower. Its thresholds were measured on
// eval/rag-retrieval/seed-docs (8 documents, 31 chunks, dimension 512) with
// the golden queries, five paraphrases and five off-topic questions (best
// dense qualityScore of the whole kbScope per query):
//
//	answered   0.566 tls  0.465 redis  0.412 logrotate  0.386 mysql pool
//	           0.297 0.234 0.180 0.171 (decoy query) 0.161 0.152 (lowest)
//	off-topic  0.116 0.109 0.099 (weather) 0.097 0.096 0.093
//	decoy      0.084: best chunk of category database for the decoy query
//	wrong      best chunk of each non-answering category for each answered
//	category   query (50): median 0.065, then 0.112, 0.148, and two that
//	           share the query's words: 0.225 (disk-full's logrotate advice)
//	           and 0.263 (gateway-timeouts for the gateway TLS question)
//
// Hence lowQuality 0.15, between the best wrong-category chunk that shares
// no topic with the query (0.148) and the lowest answered query (0.152): the
// decoy's filtered attempt (0.084) is retried, every answered query is
// sufficient. minQuality 0.13, between the highest off-topic query (0.116)
// and that lowest answer: an off-topic question comes back found: false
// (golden case negative-weather), and the band [0.13, 0.15) is weak
// evidence. levels.high 0.3: reached by the best chunk of the four answered
// queries whose document shares their words verbatim (0.386–0.566) and by
// no chunk of a non-answering document (max 0.263); levels.medium 0.15,
// equal to lowQuality as in the neural defaults. The margins are small
// (0.148/0.152), which is what a lexical embedder gives;
// TestLocalHashCalibration re-measures all of this and fails, printing the
// table, when the embedder, the chunker or the corpus moves it.
//
// The minQuality floor is not in the SPEC: without it a dense search
// always returns candidates, so found would be true for any question on a
// non-empty store. It only drops blocks; attempts, the fallback decision
// and bestQuality see every candidate. (contract.PipelineParams has no field
// for it; fixtures record it only through the embedder's defaults.)
//
// # Requests
//
// Request.TopK 0 means Config.TopK; an empty or non-UTF-8 query, a query
// over MaxQueryChars characters, an empty kbScope, a search mode other than
// hybrid/dense ("" is hybrid) or a topK outside 0..MaxTopK is refused with
// an error wrapping ErrInvalidRequest. Errors of the embedder, the catalog
// and the index fail the lookup, wrapped with the step.
package lookup
