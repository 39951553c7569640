package usem3

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// buildCharsmap builds a precompiled charsmap (darts-clone double array +
// replacement pool) for the given key → replacement rules. Each trie node
// gets its own block of 256 units, which wastes space but is a valid
// double array for the walk in normalizer.prefix.
func buildCharsmap(rules map[string]string) []byte {
	type node struct {
		children map[byte]int
		value    int // offset into the pool + 1, 0 if not a key
	}
	nodes := []*node{{children: map[byte]int{}}}
	var pool []byte
	keys := make([]string, 0, len(rules))
	for k := range rules {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := 0
		for i := 0; i < len(k); i++ {
			c, ok := nodes[v].children[k[i]]
			if !ok {
				c = len(nodes)
				nodes = append(nodes, &node{children: map[byte]int{}})
				nodes[v].children[k[i]] = c
			}
			v = c
		}
		nodes[v].value = len(pool) + 1
		pool = append(pool, rules[k]...)
		pool = append(pool, 0)
	}
	base := func(v int) uint32 { return uint32(256 * (v + 1)) }
	units := make([]uint32, 256*(len(nodes)+1))
	units[0] = base(0) << 10 // the root sits at 0: offset = 0 ^ base
	var place func(v int)
	place = func(v int) {
		b := base(v)
		if nodes[v].value != 0 {
			units[b] = 0x80000000 | uint32(nodes[v].value-1)
		}
		for c, child := range nodes[v].children {
			p := b ^ uint32(c)
			cb := base(child)
			u := uint32(c) | (p^cb)<<10
			if nodes[child].value != 0 {
				u |= 0x100
			}
			units[p] = u
			place(child)
		}
	}
	place(0)
	out := binary.LittleEndian.AppendUint32(nil, uint32(4*len(units)))
	for _, u := range units {
		out = binary.LittleEndian.AppendUint32(out, u)
	}
	return append(out, pool...)
}

// pbWriter encodes protobuf messages for the tests.
type pbWriter struct{ b []byte }

func (w *pbWriter) tag(num, wire int) { w.b = binary.AppendUvarint(w.b, uint64(num<<3|wire)) }
func (w *pbWriter) bytes(num int, v []byte) *pbWriter {
	w.tag(num, 2)
	w.b = binary.AppendUvarint(w.b, uint64(len(v)))
	w.b = append(w.b, v...)
	return w
}
func (w *pbWriter) varint(num int, v uint64) *pbWriter {
	w.tag(num, 0)
	w.b = binary.AppendUvarint(w.b, v)
	return w
}
func (w *pbWriter) float(num int, v float32) *pbWriter {
	w.tag(num, 5)
	w.b = binary.LittleEndian.AppendUint32(w.b, math.Float32bits(v))
	return w
}
func (w *pbWriter) fixed64(num int, v uint64) *pbWriter {
	w.tag(num, 1)
	w.b = binary.LittleEndian.AppendUint64(w.b, v)
	return w
}

type testPiece struct {
	piece string
	score float32
	typ   int
}

// testPieces is a small vocabulary laid out like the real one: <unk>, <s>,
// </s> first.
var testPieces = []testPiece{
	{"<unk>", 0, 2}, {"<s>", 0, 3}, {"</s>", 0, 3},
	{"▁", -2, 1},     // 3
	{"▁a", -3, 1},    // 4
	{"a", -2.5, 1},   // 5
	{"b", -2, 1},     // 6
	{"▁ab", -5, 1},   // 7
	{"c", -4, 1},     // 8
	{"fi", -1, 1},    // 9
	{"▁fi", -1.5, 1}, // 10
	{"中", -6, 1},     // 11
	{"中文", -7, 1},    // 12
	{"文", -3, 1},     // 13
	{"X", -20, 1},    // 14
}

var testRules = map[string]string{
	"\t":     " ",
	"\n":     " ",
	"\u3000": " ",
	"ﬁ":      "fi",
	"Ａ":      "A",
	"\u200b": "",
	"ab":     "Y",
	"abc":    "X",
	"①":      " 1 ",
}

// testModelBytes is a serialised ModelProto with testPieces and the
// testRules charsmap, plus fields the parser must skip.
func testModelBytes(extraNormalizer ...func(*pbWriter)) []byte {
	var m pbWriter
	for _, p := range testPieces {
		var pw pbWriter
		pw.bytes(1, []byte(p.piece)).float(2, p.score).varint(3, uint64(p.typ))
		m.bytes(1, pw.b)
	}
	var trainer pbWriter
	trainer.varint(3, 8000).bytes(2, []byte("ignored")).fixed64(9, 42)
	m.bytes(2, trainer.b)
	var norm pbWriter
	norm.bytes(1, []byte("nmt_nfkc")).bytes(2, buildCharsmap(testRules))
	for _, f := range extraNormalizer {
		f(&norm)
	}
	m.bytes(3, norm.b)
	m.varint(99, 1)
	return m.b
}

func testTokenizer(t testing.TB, extraNormalizer ...func(*pbWriter)) *Tokenizer {
	t.Helper()
	m, err := parseSPModel(testModelBytes(extraNormalizer...))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := newTokenizer(m)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestParseSPModel(t *testing.T) {
	m, err := parseSPModel(testModelBytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(m.pieces) != len(testPieces) {
		t.Fatalf("%d pieces, want %d", len(m.pieces), len(testPieces))
	}
	for i, p := range testPieces {
		if got := m.pieces[i]; got.piece != p.piece || got.score != p.score || got.typ != p.typ {
			t.Errorf("piece %d = %+v, want %+v", i, got, p)
		}
	}
	if m.normalizerName != "nmt_nfkc" {
		t.Errorf("normalizer name = %q, want nmt_nfkc", m.normalizerName)
	}
	if !m.addDummyPrefix {
		t.Error("addDummyPrefix = false, want true, the default")
	}
	if !m.removeExtraWhitespaces {
		t.Error("removeExtraWhitespaces = false, want true, the default")
	}
	if !m.escapeWhitespaces {
		t.Error("escapeWhitespaces = false, want true, the default")
	}
	m, err = parseSPModel(testModelBytes(func(w *pbWriter) { w.varint(3, 0).varint(4, 0).varint(5, 0) }))
	if err != nil {
		t.Fatal(err)
	}
	// Explicit false flags of the normalizer spec are read.
	if m.addDummyPrefix {
		t.Error("addDummyPrefix = true, want the explicit false")
	}
	if m.removeExtraWhitespaces {
		t.Error("removeExtraWhitespaces = true, want the explicit false")
	}
	if m.escapeWhitespaces {
		t.Error("escapeWhitespaces = true, want the explicit false")
	}

	full := testModelBytes()
	for _, bad := range [][]byte{
		nil,                // no pieces
		full[:len(full)-5], // truncated
		{0x0b},             // wire type 3 (groups)
		{0x00, 0x01},       // field 0
		{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, // varint too long
		(&pbWriter{}).bytes(1, (&pbWriter{}).bytes(1, []byte("a")).b).b,          // no normalizer
		(&pbWriter{}).bytes(1, (&pbWriter{}).float(2, float32(math.NaN())).b).bytes(3, nil).b,
	} {
		if _, err := parseSPModel(bad); err == nil {
			t.Errorf("parseSPModel(%x) accepted a bad model", bad)
		}
	}
}

func TestNormalize(t *testing.T) {
	tok := testTokenizer(t)
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"\t\u3000\n", ""},
		{"a", "▁a"},
		{"  a\tb  ", "▁a▁b"},
		{"a  \t\n b", "▁a▁b"},
		{"ﬁ", "▁fi"},
		{"Ａ", "▁A"},
		{"a\u200bd", "▁ad"},     // deleted
		{"abcd", "▁Xd"},         // longest key wins
		{"abd", "▁Yd"},          // shorter key when the longer does not match
		{"ad", "▁ad"},           // "a" alone is no key: copied
		{"a①b", "▁a▁1▁b"},       // replacement with spaces
		{"①", "▁1"},             // leading space of a replacement dropped, trailing removed
		{"a\xffb", "▁a\uFFFDb"}, // malformed UTF-8
		{"中文", "▁中文"},
		{"▁x▁ ", "▁▁x"}, // a literal U+2581 is kept, except at the end
		{"\u200b\u200b", ""},
	} {
		if got := tok.Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}

	plain := testTokenizer(t, func(w *pbWriter) { w.varint(3, 0).varint(4, 0).varint(5, 0) })
	for _, c := range []struct{ in, want string }{
		{"a b", "a b"},
		{"  a  ", "  a  "},
		{"a\tb", "a b"},
	} {
		if got := plain.Normalize(c.in); got != c.want {
			t.Errorf("without dummy prefix, stripping and escaping: Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEncode(t *testing.T) {
	tok := testTokenizer(t)
	for _, c := range []struct {
		in   string
		want []int32
	}{
		{"", []int32{1, 0, 2}},      // nothing to tokenise: a lone <unk>
		{" \t ", []int32{1, 0, 2}},  // likewise
		{"a", []int32{1, 4, 2}},     // ▁a (-3) beats ▁ a (-4.5)
		{"ab", []int32{1, 3, 0, 2}}, // normalised to ▁Y: Y is not in the vocabulary
		{"a b", []int32{1, 4, 3, 6, 2}},
		{"ﬁ", []int32{1, 10, 2}},       // ▁fi (-1.5) beats ▁ fi (-3)
		{"cz", []int32{1, 3, 8, 0, 2}}, // z is unknown
		{"中文", []int32{1, 3, 12, 2}},   // 中文 (-7) beats 中 文 (-9)
		{"<s>", []int32{1, 3, 1, 2}},   // special pieces match text, as in the reference
	} {
		if got := tok.Encode(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v (normalised %q)", c.in, got, c.want, tok.Normalize(c.in))
		}
	}
}

// TestViterbiTies checks the tie-breaking of the reference: of two
// segmentations with the same score, the one whose last piece starts
// earlier wins (scores are compared strictly).
func TestViterbiTies(t *testing.T) {
	tok := testTokenizer(t)
	// ▁ab at -5 against ▁a b at -3 + -2 = -5 is a tie, and ▁ab starts
	// earlier.
	if got := tok.viterbi([]rune("▁ab")); !slices.Equal(got, []int32{7}) {
		t.Errorf("viterbi(▁ab) = %v, want [7]", got)
	}
	// 中 then 文 (-9) vs 中文 (-7): the single piece.
	if got := tok.viterbi([]rune("中文")); !slices.Equal(got, []int32{12}) {
		t.Errorf("viterbi(中文) = %v, want [12]", got)
	}
	// A piece, however rare, beats <unk>: X at -20 against min score -
	// 10 = -30.
	if got := tok.viterbi([]rune("XXz")); !slices.Equal(got, []int32{14, 14, 0}) {
		t.Errorf("viterbi(XXz) = %v, want [14 14 0]", got)
	}
}

// FuzzTokenizer checks that any input, valid UTF-8 or not, tokenises
// deterministically and without panicking into BOS, valid ids and EOS. It
// checks that the normalised text is valid UTF-8, starts with U+2581 and
// has no space and no trailing U+2581. It uses the installed model when
// there is one, else the small test vocabulary.
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{
		"", " ", "a", "hello world", "数据库连接池满了", "  \t\n", "ﬁ①Ａ", "\xff\xfe", "a\x00b",
		"<s></s><unk>", "🔥👨‍👩‍👧", "e\u0301", "\u200b\ufeff", strings.Repeat("ab ", 50),
		"▁x▁", "x ▁ y", "\u3000 \t",
	} {
		f.Add(s)
	}
	tok := testTokenizer(f)
	if dir, err := ModelDir(); err == nil {
		if real, err := LoadTokenizer(dir); err == nil {
			tok = real
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if len(ids) < 3 || ids[0] != bosID || ids[len(ids)-1] != eosID {
			t.Fatalf("Encode(%q) = %v: not BOS … EOS", s, ids)
		}
		for _, id := range ids {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("Encode(%q) = %v: id %d out of range", s, ids, id)
			}
		}
		if again := tok.Encode(s); !slices.Equal(ids, again) {
			t.Fatalf("Encode(%q) not deterministic: %v then %v", s, ids, again)
		}
		n := tok.Normalize(s)
		if !utf8.ValidString(n) {
			t.Fatalf("Normalize(%q) = %q: invalid UTF-8", s, n)
		}
		if strings.Contains(n, " ") {
			t.Fatalf("Normalize(%q) = %q: spaces not escaped", s, n)
		}
		if strings.HasSuffix(n, "▁") {
			t.Fatalf("Normalize(%q) = %q: trailing space kept", s, n)
		}
		if n != "" && !strings.HasPrefix(n, "▁") {
			t.Fatalf("Normalize(%q) = %q: no dummy prefix", s, n)
		}
		if n == "" && !slices.Equal(ids, []int32{bosID, unkID, eosID}) {
			t.Fatalf("Normalize(%q) is empty but Encode = %v", s, ids)
		}
	})
}

func TestBuildCharsmapSanity(t *testing.T) {
	// The test charsmap must be read back by newNormalizer.
	cm := buildCharsmap(map[string]string{"a": "b"})
	n, err := newNormalizer(&spModel{charsmap: cm, addDummyPrefix: true, removeExtraWhitespaces: true, escapeWhitespaces: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := n.normalize("aa c"); got != "▁bb▁c" {
		t.Errorf("normalize = %q", got)
	}
	for _, bad := range [][]byte{{1, 2}, {8, 0, 0, 0, 1}, {3, 0, 0, 0, 1, 2, 3}, {0, 0, 0, 0}} {
		if _, err := newNormalizer(&spModel{charsmap: bad}); err == nil {
			t.Errorf("newNormalizer accepted charsmap %x", bad)
		}
	}
}
