package secret

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
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
