package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/kb"
	"github.com/ragbaseline/ragbaseline/internal/kb/embed"
	"github.com/ragbaseline/ragbaseline/internal/textnorm"
)

var printGolden = flag.Bool("print-golden", false, "print the golden vector digests instead of checking them")

func mustNew(t testing.TB, dim int) *Embedder {
	t.Helper()
	e, err := New(dim)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestNew(t *testing.T) {
	e := mustNew(t, 0)
	if e.Dim() != DefaultDim || e.Name() != "local-hash-v1" {
		t.Errorf("New(0) = %s/%d, want local-hash-v1/512", e.Name(), e.Dim())
	}
	e = mustNew(t, 64)
	if e.Dim() != 64 {
		t.Errorf("New(64) gives dimension %d, want 64", e.Dim())
	}
	if n := len(e.Vector("hello world")); n != 64 {
		t.Errorf("New(64) gives vectors of %d values, want 64", n)
	}
	for _, d := range []int{-1, MaxDim + 1} {
		if _, err := New(d); err == nil {
			t.Errorf("New(%d) succeeded", d)
		}
	}
}

func TestTFWeights(t *testing.T) {
	for tf := 1; tf < len(tfWeights); tf++ {
		if want := float32(1 + math.Log(float64(tf))); tfWeights[tf] != want {
			t.Errorf("tfWeights[%d] = %v, want float32(1+ln %d) = %v", tf, tfWeights[tf], tf, want)
		}
	}
	if tfWeight(1000) != tfWeights[32] {
		t.Error("tfWeight does not saturate at 32")
	}
}

// goldenTexts and goldenDigests pin the exact bytes of local-hash-v1: if
// this test fails, the vectors changed, and Name must change with them
// (local-hash-v2) so that old caches and fixtures are not mixed with new
// vectors. Regenerate with: go test -run TestGoldenVectors -print-golden
var goldenTexts = []string{
	"",
	"连接池满了 too many connections 怎么办",
	"Redis used_memory 告警，maxmemory 快满了",
	"How do I check when the gateway TLS certificate expires?",
	"排查步骤：先用 SHOW PROCESSLIST 看连接来源，确认是否有慢查询占住连接。若 Threads_connected 接近 max_connections，说明连接池已满（too many connections）。",
	"サーバーのディスク 서버 디스크 Ørsted café ﬁle ＭＡＸ＿ＣＯＮＮＥＣＴＩＯＮＳ",
	strings.Repeat("aaa ", 100),
}

var goldenDigests = []string{
	"e5a00aa9991ac8a5",
	"878fd02582a68f7e",
	"98355e065e104f13",
	"a0c6f533b251dd9d",
	"18b1ce1256ad03e1",
	"35e692f8cd9f8ab2",
	"5ed91e62f0e4fffc",
}

func TestGoldenVectors(t *testing.T) {
	e := mustNew(t, DefaultDim)
	var got []string
	for _, text := range goldenTexts {
		sum := sha256.Sum256(embed.EncodeVector(e.Vector(text)))
		got = append(got, hex.EncodeToString(sum[:8]))
	}
	if *printGolden {
		fmt.Printf("var goldenDigests = []string{\n")
		for _, d := range got {
			fmt.Printf("\t%q,\n", d)
		}
		fmt.Printf("}\n")
		return
	}
	if !reflect.DeepEqual(got, goldenDigests) {
		t.Errorf("vector digests changed:\n got %q\nwant %q\nlocal-hash-v1 vectors must be the same on every machine and in every version; a deliberate change needs a new Name", got, goldenDigests)
	}
}

func TestUnitNormAndZero(t *testing.T) {
	e := mustNew(t, DefaultDim)
	for _, text := range []string{"", "   ", "-- ., !? 。，", "🔥🔥"} {
		v := e.Vector(text)
		if len(v) != DefaultDim {
			t.Fatalf("Vector(%q) has %d entries", text, len(v))
		}
		for _, x := range v {
			if x != 0 {
				t.Fatalf("Vector(%q) is not the zero vector", text)
			}
		}
	}
	for _, text := range goldenTexts[1:] {
		v := e.Vector(text)
		if n := cos(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("|Vector(%q)|² = %v, want 1", text, n)
		}
		if err := embed.Check(Name, DefaultDim, 1, [][]float32{v}); err != nil {
			t.Error(err)
		}
	}
}

func TestNormalisedEquivalents(t *testing.T) {
	e := mustNew(t, DefaultDim)
	for _, pair := range [][2]string{
		{"MAX_Connections 连接池", "max_connections 连接池"},
		{"ＭＡＸ＿ＣＯＮＮＥＣＴＩＯＮＳ", "max_connections"},
		{"  inode 用尽  ", "inode 用尽"},
		{"ﬁle", "file"},
	} {
		a, b := e.Vector(pair[0]), e.Vector(pair[1])
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%q and %q normalise to the same text but embed differently (cos %.4f)", pair[0], pair[1], cos(a, b))
		}
	}
}

// TestSimilarity checks the properties the pipeline relies on, on texts
// like the eval corpus: a true match scores well above unrelated text, and
// in the range the package documentation promises.
func TestSimilarity(t *testing.T) {
	e := mustNew(t, DefaultDim)
	docs := map[string]string{
		"mysql":  "排查步骤：先用 SHOW PROCESSLIST 看连接来源，确认是否有慢查询占住连接。若 Threads_connected 接近 max_connections，说明连接池已满（too many connections）。",
		"redis":  "Redis used_memory 接近 maxmemory 时：确认 maxmemory-policy（allkeys-lru 等），用 MEMORY USAGE 和 --bigkeys 找大 key。",
		"disk":   "磁盘满时先 df -h 与 df -i 区分空间与 inode；inode 用尽多为海量小文件（如 session、日志切片），用 find 按目录统计文件数。",
		"tls":    "Check expiry with openssl s_client -connect host:443 | openssl x509 -noout -enddate; renew the TLS certificate 30 days before notAfter.",
		"gw":     "A 504 from the gateway means the upstream did not answer within proxy_read_timeout.",
		"rotate": "logrotate 配置 daily、rotate 7、compress，避免日志写满磁盘。",
	}
	queries := []struct{ q, want string }{
		{"连接池满了 too many connections 怎么办", "mysql"},
		{"Redis used_memory 告警，maxmemory 快满了", "redis"},
		{"告警：node-7 磁盘使用率 95%，inode 也快用尽", "disk"},
		{"服务器磁盘满了，inode 也用尽了", "disk"},
		{"How do I check when the TLS certificate expires?", "tls"},
	}
	vecs := map[string][]float32{}
	for k, d := range docs {
		vecs[k] = e.Vector(d)
	}
	for _, q := range queries {
		qv := e.Vector(q.q)
		best := cos(qv, vecs[q.want])
		if best < 0.2 || best > 0.8 {
			t.Errorf("%q vs its document: cosine %.3f, outside the documented 0.2–0.6 (±0.2) band", q.q, best)
		}
		for k, v := range vecs {
			if k == q.want {
				continue
			}
			if c := cos(qv, v); c > best-0.1 {
				t.Errorf("%q: unrelated %s scores %.3f, the right document %.3f", q.q, k, c, best)
			}
		}
	}
	// Off-topic: nothing scores like a match.
	off := e.Vector("明天上海天气怎么样")
	for k, v := range vecs {
		if c := cos(off, v); c > 0.15 {
			t.Errorf("off-topic query vs %s: %.3f", k, c)
		}
	}
	// Morphology: 3-grams relate inflected forms.
	if c := cos(e.Vector("connection"), e.Vector("connections")); c < 0.4 {
		t.Errorf("connection vs connections: %.3f, want ≥ 0.4", c)
	}
	if c := cos(e.Vector("连接池耗尽"), e.Vector("连接池满了")); c < 0.2 {
		t.Errorf("连接池耗尽 vs 连接池满了: %.3f, want ≥ 0.2", c)
	}
}

func TestEmbedDeterministicAndParallel(t *testing.T) {
	e := mustNew(t, DefaultDim)
	texts := mixedChunks(300, 800) // enough for the parallel path
	texts = append(texts, goldenTexts...)
	got, err := e.Embed(context.Background(), kb.Passage, texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := embed.Check(Name, DefaultDim, len(texts), got); err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if want := e.Vector(text); !reflect.DeepEqual(got[i], want) {
			t.Fatalf("text %d: the parallel batch and a single call differ", i)
		}
	}
	again, _ := e.Embed(context.Background(), kb.Passage, texts)
	if !reflect.DeepEqual(got, again) {
		t.Fatal("two runs differ")
	}
	if out, err := e.Embed(context.Background(), kb.Passage, nil); err != nil || len(out) != 0 {
		t.Errorf("Embed(nil) = %v, %v", out, err)
	}
}

func TestEmbedCanceled(t *testing.T) {
	e := mustNew(t, DefaultDim)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, n := range []int{1, 1000} {
		if _, err := e.Embed(ctx, kb.Passage, mixedChunks(n, 50)); !errors.Is(err, context.Canceled) {
			t.Errorf("Embed of %d texts with a canceled context: %v, want context.Canceled", n, err)
		}
	}
}

// refFeatures is a straightforward reference for features: it scans the
// normalised text for word and CJK runs itself (textnorm.Tokens's rules 2
// and 3) instead of reconstructing the runs from the token stream.
func refFeatures(e *Embedder, text string) map[uint64]feature {
	out := map[uint64]feature{}
	add := func(h uint64, w float64) {
		f := out[h]
		f.hash, f.weight, f.tf = h, w, f.tf+1
		out[h] = f
	}
	wordW := func(tok string, w float64) float64 {
		if _, ok := stopwords[tok]; ok {
			return e.stop
		}
		return w
	}
	norm := []rune(textnorm.Normalize(text))
	for i := 0; i < len(norm); {
		c := refClass(norm[i])
		if c == 0 {
			i++
			continue
		}
		j := i
		for j < len(norm) && refClass(norm[j]) == c {
			j++
		}
		run := norm[i:j]
		if c == 1 { // word
			if _, ok := stopwords[string(run)]; ok {
				add(hashString(tagWord, string(run)), e.stop)
				i = j
				continue
			}
			add(hashString(tagWord, string(run)), e.word)
			padded := append(append([]rune{' '}, run...), ' ')
			for a := 0; a+3 <= len(padded); a++ {
				add(hashGram(string(padded[a:a+3]), "", ""), e.gram)
			}
		} else { // CJK
			for _, r := range run {
				add(hashString(tagWord, string(r)), wordW(string(r), e.uni))
			}
			for a := 0; a+2 <= len(run); a++ {
				add(hashString(tagWord, string(run[a:a+2])), e.word)
			}
			for a := 0; a+3 <= len(run); a++ {
				add(hashGram(string(run[a:a+3]), "", ""), e.gram)
			}
		}
		i = j
	}
	return out
}

// refClass is textnorm.Tokens's character class: 0 separator, 1 word, 2 CJK.
func refClass(r rune) int {
	cjk := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー'
	word := unicode.In(r, unicode.L, unicode.M, unicode.N) || r == '_'
	switch {
	case cjk && word:
		return 2
	case cjk:
		return 0
	case word:
		return 1
	}
	return 0
}

func checkFeatures(t *testing.T, e *Embedder, text string) {
	t.Helper()
	sc := new(scratch)
	toks := textnorm.Tokens(text)
	sc.reset(4 * (len(text) + 1))
	e.features(sc, toks)
	got := map[uint64]feature{}
	for _, f := range sc.feats {
		if _, dup := got[f.hash]; dup {
			t.Fatalf("%q: feature %x counted twice", text, f.hash)
		}
		got[f.hash] = f
	}
	if want := refFeatures(e, text); !reflect.DeepEqual(got, want) {
		t.Errorf("features of %q (tokens %q): got %d, reference %d", text, toks, len(got), len(want))
	}
}

func TestFeaturesMatchReference(t *testing.T) {
	e := mustNew(t, DefaultDim)
	for _, text := range append([]string{
		"池，连接", "池满，连接池满了", "a池b连接池", "连接池OK了", "甲，乙，丙丁戊", "了 的 是 the a",
		"x", "ab", "abc", "connection connections", "サーバーのディスク", "서버 디스크", "二〇二六", "磁⺀盘",
		"aaa aaa aaa", "max_connections=500;", "cafe\u0301 Ørsted", strings.Repeat("池", 40),
		"丙,丙丁,丙", "a1池2b",
	}, goldenTexts...) {
		checkFeatures(t, e, text)
	}
}

func FuzzFeatures(f *testing.F) {
	for _, s := range goldenTexts {
		f.Add(s)
	}
	f.Add("池，连接")
	f.Add("甲，乙，丙丁戊 x y")
	e, _ := New(DefaultDim)
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		checkFeatures(t, e, s)
		v := e.Vector(s)
		if n := cos(v, v); n != 0 && math.Abs(n-1) > 1e-5 {
			t.Fatalf("norm² %v", n)
		}
	})
}
