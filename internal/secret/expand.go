package secret

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnterminated is ParseRef's error for a "${" without its "}".
var ErrUnterminated = errors.New("unterminated ${")

// A Ref is a reference to an environment variable: ${Name}, or
// ${Name:-Default} when HasDefault.
type Ref struct {
	Name       string
	Default    string
	HasDefault bool
}

// ParseRef parses the reference at the start of s, which starts with
// "${", and returns it with its length in bytes. The name is
// [A-Za-z_][A-Za-z0-9_]*. The default is any text up to the first "}", so
// it cannot hold one. ParseRef fails with ErrUnterminated when there is
// no closing brace, and with another error when the name is not one.
func ParseRef(s string) (Ref, int, error) {
	if !strings.HasPrefix(s, "${") {
		return Ref{}, 0, fmt.Errorf("not a ${ reference")
	}
	end := strings.IndexByte(s[2:], '}')
	if end < 0 {
		return Ref{}, 0, ErrUnterminated
	}
	ref := s[2 : 2+end]
	name, def, hasDef := strings.Cut(ref, ":-")
	if !ValidName(name) {
		return Ref{}, 0, fmt.Errorf("${%s}: not an environment variable name (want ${NAME} or ${NAME:-default})", ref)
	}
	return Ref{Name: name, Default: def, HasDefault: hasDef}, 2 + end + 1, nil
}

// Value returns the variable's value and fromEnv true when getenv says it
// is set, even to the empty string. Otherwise it returns the default and
// fromEnv false. Without a default, it returns an error naming the
// variable.
func (r Ref) Value(getenv func(string) (string, bool)) (v string, fromEnv bool, err error) {
	if v, ok := getenv(r.Name); ok {
		return v, true, nil
	}
	if r.HasDefault {
		return r.Default, false, nil
	}
	return "", false, fmt.Errorf("environment variable %s is not set", r.Name)
}

// ValidName reports whether s is an environment variable name a reference
// can use: [A-Za-z_][A-Za-z0-9_]*.
func ValidName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameStart(s[i]) && !('0' <= s[i] && s[i] <= '9') {
			return false
		}
	}
	return true
}

func isNameStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// Scan reads s as text with ${NAME} and ${NAME:-default} references, the
// syntax Expand reads. It calls text with each run of literal text and ref
// with each reference, in order. $$ is a literal $ and $${ the literal ${.
// Each escape is passed to text in a call of its own, so that a caller
// giving braces a meaning of its own, such as a placeholder, never sees the
// brace of an escape as the start of one. Any other $ is itself. The errors
// are an unterminated ${, whose error gives its byte offset, a reference
// whose name is not one, and the first error text or ref returns.
func Scan(s string, text func(string) error, ref func(Ref) error) error {
	start := 0 // of the literal text not yet passed to text
	flush := func(end int) error {
		if end == start {
			return nil
		}
		return text(s[start:end])
	}
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '$' {
			continue
		}
		switch s[i+1] {
		case '$':
			if err := flush(i); err != nil {
				return err
			}
			esc := "$"
			if i+2 < len(s) && s[i+2] == '{' {
				esc = "${"
			}
			if err := text(esc); err != nil {
				return err
			}
			i += len(esc) // the escape's last byte
			start = i + 1
		case '{':
			if err := flush(i); err != nil {
				return err
			}
			r, n, err := ParseRef(s[i:])
			if errors.Is(err, ErrUnterminated) {
				return fmt.Errorf("%v at byte %d", err, i)
			}
			if err != nil {
				return err
			}
			if err := ref(r); err != nil {
				return err
			}
			i += n - 1
			start = i + 1
		}
	}
	return flush(len(s))
}

// Expand replaces each ${NAME} and ${NAME:-default} in s by the variable's
// value. getenv reports whether a variable is set, and a set but empty
// variable is empty, not defaulted. Expand adds every value read from the
// environment to secrets, unless secrets is nil. A default is written in s
// itself and is no secret. $$ is a literal $, so $${NAME} is the text
// ${NAME}. Any other $ is itself. The errors are a variable neither set nor
// given a default, which the error names, an unterminated ${, whose error
// gives its byte offset, and a reference whose name is not one. The errors
// never hold a value.
func Expand(s string, getenv func(string) (string, bool), secrets *Set) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	err := Scan(s, func(text string) error {
		b.WriteString(text)
		return nil
	}, func(ref Ref) error {
		v, fromEnv, err := ref.Value(getenv)
		if err != nil {
			return err
		}
		if fromEnv && secrets != nil {
			secrets.Add(ref.Name, v)
		}
		b.WriteString(v)
		return nil
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}
