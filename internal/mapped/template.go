package mapped

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// A template is a string of the config with ${NAME} (or ${NAME:-default})
// references to environment variables and, in URLs, {name} placeholders
// for the request's fields and the setup steps' values. $$ is a literal $
// ($${x} the text ${x}).
// The environment is read once, when the pipeline is built (resolve); the
// placeholders on every call (expand). The template's source text, never
// its expansion, is what messages and fixtures show.
type template struct {
	src   string
	parts []part
	field string
	line  int
}

type partKind int

const (
	literal partKind = iota
	envRef
	placeholder
)

type part struct {
	kind   partKind
	text   string // the literal, the variable's or the placeholder's name
	def    string // envRef: the default after :-
	hasDef bool
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// validIdent reports whether s is [A-Za-z_][A-Za-z0-9_]*.
func validIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

// parseTemplate parses s. With placeholders nil, braces are literal text;
// otherwise {name} must name one of placeholders (a brace not followed by
// an identifier and } is literal).
func parseTemplate(s string, placeholders []string) ([]part, error) {
	var parts []part
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, part{kind: literal, text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$' && i+1 < len(s) && s[i+1] == '$':
			lit.WriteByte('$')
			i++
			if i+1 < len(s) && s[i+1] == '{' { // $${…} is the text ${…}
				lit.WriteByte('{')
				i++
			}
		case c == '$' && i+1 < len(s) && s[i+1] == '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ${ at byte %d", i)
			}
			ref := s[i+2 : i+2+end]
			name, def, hasDef := strings.Cut(ref, ":-")
			if !validIdent(name) {
				return nil, fmt.Errorf("${%s}: not an environment variable name (want ${NAME} or ${NAME:-default})", ref)
			}
			flush()
			parts = append(parts, part{kind: envRef, text: name, def: def, hasDef: hasDef})
			i += 2 + end
		case c == '{' && placeholders != nil:
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 || !validIdent(s[i+1:i+1+end]) {
				lit.WriteByte(c)
				continue
			}
			name := s[i+1 : i+1+end]
			if !contains(placeholders, name) {
				if len(placeholders) == 0 {
					return nil, fmt.Errorf("{%s}: unknown placeholder (none here)", name)
				}
				return nil, fmt.Errorf("{%s}: unknown placeholder (known here: %s)", name, strings.Join(placeholders, ", "))
			}
			flush()
			parts = append(parts, part{kind: placeholder, text: name})
			i += 1 + end
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

// resolved is a template whose environment references are replaced.
type resolved struct {
	t     *template
	parts []part // literals and placeholders
}

// resolve replaces the environment references with their values;
// getenv reports whether a variable is set. A variable neither set nor
// given a default is an error. secrets receives every value read from the
// environment.
//
// A value followed by a "/" in the template loses its trailing slashes, so
// that ${URL}/v1/graphql is right whether URL ends in a slash or not.
func (t *template) resolve(getenv func(string) (string, bool), secrets *secretSet) (*resolved, error) {
	r := &resolved{t: t}
	for i, p := range t.parts {
		if p.kind != envRef {
			r.parts = append(r.parts, p)
			continue
		}
		v, ok := getenv(p.text)
		switch {
		case ok:
		case p.hasDef:
			v = p.def
		default:
			return nil, fmt.Errorf("environment variable %s is not set", p.text)
		}
		if i+1 < len(t.parts) && t.parts[i+1].kind == literal && strings.HasPrefix(t.parts[i+1].text, "/") {
			v = strings.TrimRight(v, "/")
		}
		if ok {
			secrets.add(p.text, v) // the value as sent
		}
		r.parts = append(r.parts, part{kind: literal, text: v})
	}
	return r, nil
}

// expand returns the string with each placeholder replaced by
// escape(value).
func (r *resolved) expand(values map[string]string, escape func(string) string) string {
	var b strings.Builder
	for _, p := range r.parts {
		if p.kind == placeholder {
			b.WriteString(escape(values[p.text]))
		} else {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// secretSet holds the values read from the environment, to be removed from
// every message: each value of at least minSecretLen bytes, and, for a
// value that is a URL, its host and user info, are replaced by ${NAME}.
type secretSet struct {
	pairs []secretPair
}

type secretPair struct{ value, name string }

// minSecretLen: shorter values are not scrubbed (replacing every "1" or
// "on" in a message would garble it, and such values hide nothing).
const minSecretLen = 4

func (s *secretSet) add(name, value string) {
	s.addValue(name, value)
	if u, err := url.Parse(strings.TrimSpace(value)); err == nil && u.Host != "" {
		s.addValue(name, u.Host)
		if u.User != nil {
			s.addValue(name, u.User.String())
			if p, ok := u.User.Password(); ok {
				s.addValue(name, p)
			}
		}
	}
}

func (s *secretSet) addValue(name, v string) {
	if len(v) < minSecretLen {
		return
	}
	for _, p := range s.pairs {
		if p.value == v {
			return
		}
	}
	s.pairs = append(s.pairs, secretPair{v, name})
	// Longest first, so a value containing another is replaced whole.
	sort.SliceStable(s.pairs, func(i, j int) bool { return len(s.pairs[i].value) > len(s.pairs[j].value) })
}

// scrub replaces every secret in msg, also in its URL-escaped forms.
func (s *secretSet) scrub(msg string) string {
	for _, p := range s.pairs {
		ref := "${" + p.name + "}"
		msg = strings.ReplaceAll(msg, p.value, ref)
		if q := url.QueryEscape(p.value); q != p.value {
			msg = strings.ReplaceAll(msg, q, ref)
		}
		if q := url.PathEscape(p.value); q != p.value {
			msg = strings.ReplaceAll(msg, q, ref)
		}
	}
	return msg
}

// redactedError is an error whose message has the secrets removed; Unwrap
// keeps the original for errors.Is and errors.As (the transient and
// unreachable classification).
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (s *secretSet) redact(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: s.scrub(err.Error()), err: err}
}
