package secret

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func envOf(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

func TestScrub(t *testing.T) {
	var s Set
	s.Add("B", "http://user:pa%20ss@hostname:1/")
	s.Add("T", "tok/en+42")
	s.Add("T", "tok/en+42") // once
	s.Add("S", "on")        // too short
	for _, tc := range []struct{ in, want string }{
		{"dial tcp hostname:1: refused", "dial tcp ${B}: refused"},
		{"GET http://user:pa%20ss@hostname:1/p", "GET ${B}p"},
		{"password pa ss, user info user:pa%20ss", "password ${B}, user info ${B}"},
		{"Bearer tok/en+42 tok%2Fen%2B42 tok%2Fen+42", "Bearer ${T} ${T} ${T}"},
		{"on and on", "on and on"},
	} {
		if got := s.Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if s.Len() != 5 {
		t.Errorf("Len %d, want 5 (the URL, its host, user info, password; the token)", s.Len())
	}
	var nilSet *Set
	if got := nilSet.Scrub("tok/en+42"); got != "tok/en+42" {
		t.Errorf("a nil Set scrubs: %q, want tok/en+42", got)
	}
	if n := nilSet.Len(); n != 0 {
		t.Errorf("a nil Set has Len %d, want 0", n)
	}
}

// TestLongestFirst: a value containing another is replaced whole.
func TestLongestFirst(t *testing.T) {
	var s Set
	s.Add("SHORT", "abcd")
	s.Add("LONG", "abcdefgh")
	if got := s.Scrub("abcdefgh abcd"); got != "${LONG} ${SHORT}" {
		t.Errorf("got %q", got)
	}
}

func TestRedact(t *testing.T) {
	var s Set
	s.Add("T", "secret-42")
	err := s.Redact(&fs.PathError{Op: "open", Path: "/x/secret-42", Err: fs.ErrNotExist})
	var pe *fs.PathError
	if want := "open /x/${T}: file does not exist"; err.Error() != want {
		t.Errorf("Redact: %v, want %s", err, want)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Redact: %v is not fs.ErrNotExist", err)
	}
	if !errors.As(err, &pe) {
		t.Errorf("Redact: %v is not a *fs.PathError", err)
	}
	if s.Redact(nil) != nil {
		t.Error("Redact(nil) is not nil")
	}
}

func TestExpand(t *testing.T) {
	env := envOf(map[string]string{"TOKEN": "t0ken-value", "EMPTY": "", "URL": "https://u:p4ss@svc.example:8443/x"})
	for _, tc := range []struct{ in, want string }{
		{"Bearer ${TOKEN}", "Bearer t0ken-value"},
		{"${TOKEN}${TOKEN}", "t0ken-valuet0ken-value"},
		{"${EMPTY:-dflt}|${UNSET:-dflt}|${UNSET:-}|", "|dflt||"},
		{"$$${TOKEN} $${TOKEN} $$ $ a$b ${URL}", "$t0ken-value ${TOKEN} $ $ a$b https://u:p4ss@svc.example:8443/x"},
		{"no references", "no references"},
		{"${UNSET:-a:-b}", "a:-b"},
		{"trailing $", "trailing $"},
	} {
		var s Set
		got, err := Expand(tc.in, env, &s)
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		for _, value := range []string{"t0ken-value", "p4ss"} {
			if strings.Contains(s.Scrub(got), value) {
				t.Errorf("Expand(%q) did not add the value %s: scrubbed %q", tc.in, value, s.Scrub(got))
			}
		}
		if strings.Contains(tc.in, "dflt") && s.Len() != 0 {
			t.Errorf("Expand(%q) added a default", tc.in)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"Bearer ${SVC_TOKEN}", "environment variable SVC_TOKEN is not set"},
		{"Bearer ${SVC_TOKEN", "unterminated ${ at byte 7"},
		{"${TO-KEN}", "${TO-KEN}: not an environment variable name (want ${NAME} or ${NAME:-default})"},
		{"${}", "${}: not an environment variable name (want ${NAME} or ${NAME:-default})"},
		{"${1X}", "${1X}: not an environment variable name (want ${NAME} or ${NAME:-default})"},
		{"${TOKEN} ${NOPE}", "environment variable NOPE is not set"},
	} {
		got, err := Expand(tc.in, env, nil)
		if err == nil || err.Error() != tc.want || got != "" {
			t.Errorf("Expand(%q) = %q, %v; want error %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzExpand: Expand never panics; a string without $ is itself; on
// success each value read is scrubbed from the result and from nothing
// else; an error never holds a variable's value.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"Bearer ${TOKEN}", "${A:-x}${B}", "$$${A}", "${", "${A", "${A:-", "$${", "${-}", "${A:-}}", "$", "a$b$"} {
		f.Add(s, "s3cret-value")
	}
	f.Fuzz(func(t *testing.T, s, value string) {
		env := func(k string) (string, bool) {
			if k == "A" || k == "TOKEN" {
				return value, true
			}
			return "", false
		}
		var set Set
		got, err := Expand(s, env, &set)
		if !strings.Contains(s, "$") && (err != nil || got != s) {
			t.Fatalf("Expand(%q) = %q, %v: want it unchanged", s, got, err)
		}
		if err != nil {
			if got != "" {
				t.Fatalf("Expand(%q) returned %q with error %v", s, got, err)
			}
			if len(value) >= MinLen && !strings.Contains(s, value) && strings.Contains(err.Error(), value) {
				t.Fatalf("Expand(%q): error %q holds the value %q", s, err, value)
			}
			return
		}
		if strings.Count(s, "${") == 0 && set.Len() != 0 {
			t.Fatalf("Expand(%q) read a variable without a reference", s)
		}
		if set.Len() > 0 && len(value) >= MinLen && strings.Contains(set.Scrub(value), value) && !strings.Contains(value, "${") {
			t.Fatalf("value %q not scrubbed", value)
		}
	})
}

func TestAddCredentials(t *testing.T) {
	var s Set
	s.AddCredentials("U", "http://svc:pw-0a9f@search.internal:9200/idx")
	s.AddCredentials("I", "runbooks")
	got := s.Scrub("http://svc:pw-0a9f@search.internal:9200/idx runbooks pw-0a9f")
	if want := "http://${U}@search.internal:9200/idx runbooks ${U}"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestScan: the calls Scan makes, in order; an escape is a text call of
// its own ($${ the text ${, so its brace never opens a placeholder of the
// caller's); an error of text stops the scan where it happens.
func TestScan(t *testing.T) {
	var got []string
	text := func(s string) error { got = append(got, "text "+s); return nil }
	ref := func(r Ref) error { got = append(got, "ref "+r.Name+" "+r.Default); return nil }
	if err := Scan("a$${X}b${Y:-d}c$$$", text, ref); err != nil {
		t.Fatal(err)
	}
	want := []string{"text a", "text ${", "text X}b", "ref Y d", "text c", "text $", "text $"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Scan calls %q, want %q", got, want)
	}
	stop := errors.New("stop")
	got = nil
	err := Scan("x{A}${", func(s string) error { got = append(got, s); return stop }, ref)
	if err != stop || len(got) != 1 || got[0] != "x{A}" {
		t.Errorf("a text error: %v after %q, want stop after [x{A}]", err, got)
	}
	if err := Scan("ab${", text, ref); err == nil || err.Error() != "unterminated ${ at byte 2" {
		t.Errorf("unterminated: %v", err)
	}
}

// TestScrubEncodings: a value is replaced in each form a server may echo it
// in, mixed within one value, and text around it is kept.
func TestScrubEncodings(t *testing.T) {
	var s Set
	s.Add("SVC_TOKEN", "AKIAabc/def+ghi123")
	s.Add("U", "é€😀 x&<\"")   // non-ASCII, a space and the characters HTML escapes
	s.Add("W", "p4ss>>?w0rd") // base64 with + and /, - and _
	for _, tc := range []struct{ in, want string }{
		// The repro: PHP escapes /, .NET's default encoder +.
		{`{"detail":"invalid token AKIAabc\/def\u002Bghi123"}`, `{"detail":"invalid token ${SVC_TOKEN}"}`},
		{`AKIAabc\/def\u002bghi123`, `${SVC_TOKEN}`},
		{`\u0041\u004b\u0049\u0041abc/def+ghi123`, `${SVC_TOKEN}`},
		{`AKIAabc%2Fdef%2bghi123 AKIAabc%2fdef+ghi123`, `${SVC_TOKEN} ${SVC_TOKEN}`},
		{`AKIAabc\x2fdef\x2Bghi123`, `${SVC_TOKEN}`},
		{`AKIAabc&#47;def&#x2B;ghi123 AKIAabc&#X2f;def&#0043;ghi123`, `${SVC_TOKEN} ${SVC_TOKEN}`},
		{`AKIAabc\/def%2Bghi&#49;23`, `${SVC_TOKEN}`},
		// base64, both alphabets, padded or not.
		{"QUtJQWFiYy9kZWYrZ2hpMTIz", "${SVC_TOKEN}"},
		{"token=QUtJQWFiYy9kZWYrZ2hpMTIz&x", "token=${SVC_TOKEN}&x"},
		{`QUtJQWFiYy9kZWYrZ2hpMTIz QUtJQWFiYy9kZWYrZ2hpMTIz`, "${SVC_TOKEN} ${SVC_TOKEN}"},
		// Inside the base64 of user:token, as basic authentication sends
		// it, at each of the three offsets. A character holding bits of
		// the token and of what follows stays: it tells 2 or 4 bits.
		{"Basic dXNlcjpBS0lBYWJjL2RlZitnaGkxMjM=", "Basic dXNlcjp${SVC_TOKEN}"},
		{"Basic dTpBS0lBYWJjL2RlZitnaGkxMjM=", "Basic dTp${SVC_TOKEN}"},
		{"Basic dXM6QUtJQWFiYy9kZWYrZ2hpMTIz", "Basic dXM6${SVC_TOKEN}"},
		{"dXNlcjpBS0lBYWJjL2RlZitnaGkxMjN+", "dXNlcjp${SVC_TOKEN}N+"},
		// Base64 characters escaped, + and / in both alphabets.
		{`cDRzcz4+P3cwcmQ= cDRzcz4-P3cwcmQ cDRzcz4%2BP3cwcmQ%3D`, "${W} ${W} ${W}"},
		{`eHhwNHNzPj4\/dzByZA== eHhwNHNzPj4_dzByZA\u003d\u003d`, "eHh${W} eHh${W}"},
		{"eHA0c3M+Pj93MHJkeno=", "eH${W}eno="},
		// Multi-byte characters, whole: raw, \u (a surrogate pair for 😀),
		// %-escaped bytes, HTML references; the space as + or %20.
		{`é€😀 x&<"`, "${U}"},
		{`\u00e9\u20AC\ud83d\ude00\u0020x\u0026\u003c\"`, "${U}"},
		{`%C3%A9%e2%82%ac%F0%9F%98%80+x%26%3C%22`, "${U}"},
		{`&#233;&#x20ac;&#128512;%20x&amp;&lt;&quot;`, "${U}"},
		// Near misses stay.
		{`AKIAabc\/def\u002Cghi123`, `AKIAabc\/def\u002Cghi123`},
		{`AKIAabc%2def+ghi123`, `AKIAabc%2def+ghi123`},
		{`AKIAabc&#47def+ghi123`, `AKIAabc&#47def+ghi123`},
		{"AKIAabc/def+ghi12", "AKIAabc/def+ghi12"},
	} {
		if got := s.Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%s)\n got  %s\n want %s", tc.in, got, tc.want)
		}
	}
}

// TestScrubOverlap: matches that overlap are replaced as one stretch, by one
// reference per name, and nothing of either is left.
func TestScrubOverlap(t *testing.T) {
	var s Set
	s.Add("A", "xabc")
	s.Add("B", "abcdefgh")
	s.Add("C", "zzzz")
	for _, tc := range []struct{ in, want string }{
		{"xabcdefgh", "${A}${B}"},
		{"-xabc-abcdefgh-", "-${A}-${B}-"},
		{"zzzzzzz", "${C}"},
		{"zzz", "zzz"},
	} {
		if got := s.Scrub(tc.in); got != tc.want {
			t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// encode writes v in a form Scrub must find, chosen by the bytes of how:
// each character in one of the forms of the package doc, or the whole
// value in one of its base64 forms, whose characters may be escaped too.
// It returns the form and, for base64 inside a longer text, that text:
// the form is then the part of it that is v's alone.
func encode(v string, how []byte) (form, text string) {
	pick := func() byte {
		if len(how) == 0 {
			return 0
		}
		c := how[0]
		how = how[1:]
		return c
	}
	escape := func(v string) string {
		var b strings.Builder
		for i := 0; i < len(v); {
			r, n := utf8.DecodeRuneInString(v[i:])
			raw := v[i : i+n]
			i += n
			c := pick()
			valid := r != utf8.RuneError || n > 1
			hexes := func(prefix, digits string) {
				for _, x := range []byte(raw) {
					fmt.Fprintf(&b, digits, prefix, x)
				}
			}
			switch c % 10 {
			case 1:
				hexes("%", "%s%02X")
			case 2:
				hexes("%", "%s%02x")
			case 3:
				hexes(`\x`, "%s%02x")
			case 4, 5:
				if !valid {
					b.WriteString(raw)
					break
				}
				digits := "\\u%04X"
				if c%10 == 5 {
					digits = "\\u%04x"
				}
				if r >= 0x10000 {
					hi, lo := utf16.EncodeRune(r)
					fmt.Fprintf(&b, digits+digits, hi, lo)
				} else {
					fmt.Fprintf(&b, digits, r)
				}
			case 6:
				if short, ok := map[rune]string{'"': `"`, '\\': `\`, '/': "/", '\b': "b", '\f': "f", '\n': "n", '\r': "r", '\t': "t"}[r]; ok {
					b.WriteString(`\` + short)
				} else {
					b.WriteString(raw)
				}
			case 7:
				if valid {
					fmt.Fprintf(&b, "&#%d;", r)
				} else {
					b.WriteString(raw)
				}
			case 8:
				if valid {
					fmt.Fprintf(&b, "&#x%x;", r)
				} else {
					b.WriteString(raw)
				}
			case 9:
				switch {
				case r == ' ':
					b.WriteByte('+')
				case named[r] != "":
					b.WriteString(named[r])
				default:
					b.WriteString(raw)
				}
			default:
				b.WriteString(raw)
			}
		}
		return b.String()
	}
	c := pick()
	if c%3 != 0 {
		return escape(v), ""
	}
	enc := base64.StdEncoding
	if c&4 != 0 {
		enc = base64.URLEncoding
	}
	k := int(c>>3) % 3
	if c&0x80 == 0 || k == 0 && len(how)%2 == 0 {
		full := enc.EncodeToString([]byte(v))
		if c&0x40 != 0 {
			full = strings.TrimRight(full, "=")
		}
		return escape(full), ""
	}
	// v at offset k of a longer text: the characters of v alone.
	all := append(append(bytes.Repeat([]byte{'u'}, k), v...), ':', 'x')
	e := enc.EncodeToString(all)
	first, last := (8*k+5)/6, (8*k+8*len(v))/6
	return e[first:last], e
}

// named are the named HTML character references, by the rune they stand
// for.
var named = map[rune]string{'&': "&amp;", '<': "&lt;", '>': "&gt;", '"': "&quot;", '\'': "&apos;"}

// FuzzScrub: a value of MinLen bytes or more, written in any form of the
// package doc anywhere in any text, is not in what Scrub returns, in that
// form or raw. A value holding $ or } is left out, since the ${NAME} that
// replaces it could then spell it with the text around.
func FuzzScrub(f *testing.F) {
	f.Add("AKIAabc/def+ghi123", "invalid token ", " end", []byte{1, 4, 6, 2, 9, 7, 8, 3})
	f.Add("é€😀 x&<\"", "a", "b", []byte{1, 5, 4, 9, 9, 8, 7, 6, 6})
	f.Add("p4ss:w0rd", "Basic ", "", []byte{0x80 | 8, 1})
	f.Add("tok\xffen", `{"e":"`, `"}`, []byte{1, 2, 3, 4, 5})
	f.Add("abcd", "abab", "cdcd", []byte{3})
	f.Fuzz(func(t *testing.T, value, before, after string, how []byte) {
		if len(value) < MinLen || strings.ContainsAny(value, "$}") {
			t.Skip()
		}
		var s Set
		s.Add("T", value)
		form, text := encode(value, how)
		if text == "" {
			text = form
		}
		if len(form) < MinLen {
			t.Skip() // a base64 part this short is not looked for
		}
		got := s.Scrub(before + text + after)
		if strings.Contains(got, form) {
			t.Fatalf("value %q written %q: Scrub(%q) = %q", value, form, before+text+after, got)
		}
		if strings.Contains(got, value) {
			t.Fatalf("value %q: Scrub(%q) = %q holds it raw", value, before+text+after, got)
		}
	})
}
