package mapped

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

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
//
// In a URL a value is escaped by where it stands (urlPart): in the path it
// is one segment (url.PathEscape), in the query string one parameter's
// value or name (url.QueryEscape). A value in the scheme and host, such
// as ${URL} at the start, is a URL itself and goes in as it is: one holding
// white space or a control character is an error, which would otherwise
// break the request line.
func (t *template) resolve(getenv func(string) (string, bool), secrets, credentials *secret.Set) (*resolved, error) {
	r := &resolved{t: t}
	var sofar strings.Builder // the URL up to here, placeholders as "x"
	for i, p := range t.parts {
		switch p.kind {
		case literal:
			sofar.WriteString(p.text)
			r.parts = append(r.parts, p)
			continue
		case placeholder:
			sofar.WriteString("x")
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
		where := urlHost
		if !t.header {
			where = urlPart(sofar.String())
		}
		if ok {
			secrets.Add(p.ref.Name, v) // Scrub finds its escaped forms too
			if credentials != nil {
				if t.header || where == urlQuery {
					credentials.Add(p.ref.Name, v)
				} else {
					credentials.AddCredentials(p.ref.Name, v)
				}
			}
		}
		switch {
		case t.header:
		case where == urlPath:
			v = url.PathEscape(v)
		case where == urlQuery:
			v = url.QueryEscape(v)
		case strings.ContainsFunc(v, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }):
			return nil, fmt.Errorf("${%s} holds white space or a control character, which a URL's scheme and host cannot hold", p.ref.Name)
		}
		sofar.WriteString(v)
		r.parts = append(r.parts, part{kind: literal, text: v})
	}
	return r, nil
}

// The parts of a URL a value can stand in.
const (
	urlHost  = iota // the scheme and the host, user info and port: up to the path
	urlPath         // the path
	urlQuery        // the query string (or the fragment)
)

// urlPart says where in a URL text following prefix stands.
func urlPart(prefix string) int {
	i := strings.Index(prefix, "://")
	if i < 0 {
		return urlHost
	}
	rest := prefix[i+len("://"):]
	j := strings.IndexAny(rest, "/?#")
	switch {
	case j < 0:
		return urlHost
	case strings.ContainsAny(rest[j:], "?#"):
		return urlQuery
	}
	return urlPath
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
