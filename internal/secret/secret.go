// Package secret keeps values read from the environment, such as tokens and
// URLs with credentials, out of everything a tool writes. A Set collects
// them as they are read. Scrub and Redact replace each with a reference to
// its variable, ${NAME}, in a message or an error.
//
// Expand reads ${NAME} and ${NAME:-default} references in a string as a
// shell would, with nothing else of a shell's syntax, and puts every value
// it reads into a Set. The header values of rag-snapshot's --lookup-header
// and --sidecar-header use it. The mapped pipeline's templates share its
// reading of the references and escapes, Scan, and its lookup rule,
// Ref.Value.
//
// A Set hides each value of at least MinLen bytes. For a value that is a
// URL it also hides the host, the user info and the password. AddCredentials
// adds only a URL's user info and password, for data, where a host or a
// name is no secret. Shorter values are left alone: replacing every "1" or
// "on" in a message would garble it, and such values hide nothing.
//
// # The forms Scrub finds
//
// A server may echo a value encoded, so Scrub looks for each value in every
// form it may take in a body, a URL or a message, before anything is
// decoded. Each character of the value may be written in any of these
// forms, mixed within one value:
//
//   - as itself
//   - URL-escaped, as in a query or a path: %2F or %2f, byte by byte, and
//   - for a space
//   - JSON-escaped: \/, \", \\, \n and the other two-character escapes, and
//     \uXXXX for any character, hex digits of either case, a surrogate pair
//     outside the Basic Multilingual Plane
//   - \xHH byte by byte, as Python and JavaScript write bytes
//   - an HTML character reference: &#43;, &#x2B; or &#X2b;, and &amp;,
//     &lt;, &gt;, &quot; and &apos;
//
// Scrub also finds the base64 of the value, in the standard and the URL
// alphabet, with or without its padding. Inside a longer base64 text, such
// as the basic authentication of user:password, it finds the characters
// that encode the value alone, at any of the three offsets a value can
// start at. Their characters may be escaped as above too. A base64 form
// shorter than MinLen is not looked for.
//
// Scrub undoes one level of encoding. A value URL-escaped twice, %252F for
// a /, is not found in the raw text. Where a tool decodes a text, as the
// HTTP pipeline decodes the message of an {"error": …} answer, it scrubs
// the decoded text too, which finds a value encoded once more inside it.
// FuzzScrub holds Scrub to this list.
package secret

import (
	"net/url"
	"sort"
	"strings"
)

// MinLen is the length under which a value is not scrubbed.
const MinLen = 4

// A Set holds the values read from the environment, each with the name of
// its variable. The zero Set is empty and ready to use. A nil *Set scrubs
// nothing. A Set is not safe for concurrent Add. Scrub and Redact may run
// concurrently once it is filled.
type Set struct {
	pairs    []pair
	patterns []pattern     // what Scrub looks for, from pairs (compile)
	first    *[256][]int32 // the patterns a match can start with each byte
	pairs2   *bytePairs    // the two bytes a match written as itself can start with
}

type pair struct{ value, name string }

// Add records value, read from the variable name. When value is a URL
// with a host, Add records the host, the user info and the password alone
// too.
func (s *Set) Add(name, value string) {
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

// AddCredentials records only what of value is a credential when it is a
// URL: its user info and password. A URL's host hides nothing, and neither
// does a name in its path, such as an index or a collection. Replacing
// them in data, such as the text of a result, would change the data.
func (s *Set) AddCredentials(name, value string) {
	if u, err := url.Parse(strings.TrimSpace(value)); err == nil && u.Host != "" && u.User != nil {
		s.addValue(name, u.User.String())
		if p, ok := u.User.Password(); ok {
			s.addValue(name, p)
		}
	}
}

func (s *Set) addValue(name, v string) {
	if len(v) < MinLen {
		return
	}
	for _, p := range s.pairs {
		if p.value == v {
			return
		}
	}
	s.pairs = append(s.pairs, pair{v, name})
	// Longest first, so a value containing another is replaced whole.
	sort.SliceStable(s.pairs, func(i, j int) bool { return len(s.pairs[i].value) > len(s.pairs[j].value) })
	s.compile()
}

// Len is the number of values the Set replaces.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.pairs)
}

// Scrub replaces every value of the Set in msg by ${NAME}, in each of the
// forms the package doc lists. Where a value contains another, the longer
// one is replaced whole.
func (s *Set) Scrub(msg string) string {
	if s == nil || s.first == nil {
		return msg
	}
	return s.scrub(msg)
}

// Redact returns err with its message scrubbed, and nil for nil. The error
// it wraps stays reachable through Unwrap, for errors.Is and errors.As:
// only the message changes.
func (s *Set) Redact(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: s.Scrub(err.Error()), err: err}
}

// redactedError is an error whose message has the secrets removed. Unwrap
// keeps the original for errors.Is and errors.As, which classify an error
// as transient or unreachable.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
