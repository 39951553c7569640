package mapped

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/ragbaseline/ragbaseline/internal/secret"
)

// A template is a string of the config with ${NAME} or ${NAME:-default}
// references to environment variables. In URLs it has {name} placeholders
// too, for the request's fields and the setup steps' values. $$ is a
// literal $, so $${x} is the text ${x}. The environment is read once, when
// the pipeline is built (resolve). The placeholders are filled on every
// call (expand). The template's source text, never its expansion, is what
// messages and fixtures show.
type template struct {
	src    string
	parts  []part
	field  string
	line   int
	header bool // a header value: every value it reads is a credential
}

type partKind int

const (
	literal partKind = iota
	envRef
	placeholder
)

type part struct {
	kind partKind
	text string     // the literal or the placeholder's name
	ref  secret.Ref // envRef: the variable and its default
}

// validIdent reports whether s is [A-Za-z_][A-Za-z0-9_]*: a placeholder's
// or a setup step's name (an environment variable name's rule).
func validIdent(s string) bool { return secret.ValidName(s) }

// parseTemplate parses s. With placeholders nil, braces are literal text.
// Otherwise {name} must name one of placeholders, and a brace not followed
// by an identifier and } is literal. The ${…} references, and the $$ and
// $${ escapes, are secret.Scan's.
func parseTemplate(s string, placeholders []string) ([]part, error) {
	var parts []part
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, part{kind: literal, text: lit.String()})
			lit.Reset()
		}
	}
	text := func(s string) error {
		if placeholders == nil {
			lit.WriteString(s)
			return nil
		}
		for {
			i := strings.IndexByte(s, '{')
			if i < 0 {
				lit.WriteString(s)
				return nil
			}
			lit.WriteString(s[:i])
			s = s[i+1:]
			end := strings.IndexByte(s, '}')
			if end < 0 || !validIdent(s[:end]) {
				lit.WriteByte('{')
				continue
			}
			name := s[:end]
			if !contains(placeholders, name) {
				if len(placeholders) == 0 {
					return fmt.Errorf("{%s}: unknown placeholder (none here)", name)
				}
				return fmt.Errorf("{%s}: unknown placeholder (known here: %s)", name, strings.Join(placeholders, ", "))
			}
			flush()
			parts = append(parts, part{kind: placeholder, text: name})
			s = s[end+1:]
		}
	}
	err := secret.Scan(s, text, func(ref secret.Ref) error {
		flush()
		parts = append(parts, part{kind: envRef, ref: ref})
		return nil
	})
	if err != nil {
		return nil, err
	}
	flush()
	return parts, nil
}

// resolved is a template whose environment references are replaced.
type resolved struct {
	t     *template
	parts []part // literals and placeholders
}

// resolve replaces the environment references with their values. getenv
// reports whether a variable is set. A variable neither set nor given a
// default is an error. secrets receives every value read from the
// environment, by secret.Ref's rule as secret.Expand reads it, for
// messages. credentials receives only those that are credentials, for
// results, and nil keeps none. The credentials are every value of a
// header, the values in a URL's query string and the user info of a URL
// value. A URL's host is not one, nor a value in its path, such as an
// index or collection name.
//
// A value followed by a "/" in the template loses its trailing slashes, so
// that ${URL}/v1/graphql is right whether URL ends in a slash or not.
func (t *template) resolve(getenv func(string) (string, bool), secrets, credentials *secret.Set) (*resolved, error) {
	r := &resolved{t: t}
	inQuery := false
	for i, p := range t.parts {
		if p.kind != envRef {
			inQuery = inQuery || p.kind == literal && strings.Contains(p.text, "?")
			r.parts = append(r.parts, p)
			continue
		}
		v, ok, err := p.ref.Value(getenv)
		if err != nil {
			return nil, err
		}
		if i+1 < len(t.parts) && t.parts[i+1].kind == literal && strings.HasPrefix(t.parts[i+1].text, "/") {
			v = strings.TrimRight(v, "/")
		}
		if ok {
			secrets.Add(p.ref.Name, v) // the value as sent
			if credentials != nil {
				if t.header || inQuery {
					credentials.Add(p.ref.Name, v)
				} else {
					credentials.AddCredentials(p.ref.Name, v)
				}
			}
		}
		inQuery = inQuery || strings.Contains(v, "?")
		r.parts = append(r.parts, part{kind: literal, text: v})
	}
	return r, nil
}

// expand returns the string with each placeholder replaced by its value.
// In a URL the value is path-escaped, or query-escaped after a "?", so that
// a query holding & or + stays one parameter. In a header it is as it is.
func (r *resolved) expand(values map[string]string, isURL bool) string {
	var b strings.Builder
	inQuery := false
	for _, p := range r.parts {
		switch {
		case p.kind != placeholder:
			inQuery = inQuery || strings.Contains(p.text, "?")
			b.WriteString(p.text)
		case !isURL:
			b.WriteString(values[p.text])
		case inQuery:
			b.WriteString(url.QueryEscape(values[p.text]))
		default:
			b.WriteString(url.PathEscape(values[p.text]))
		}
	}
	return b.String()
}
