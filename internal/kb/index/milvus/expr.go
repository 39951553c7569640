package milvus

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ragbaseline/ragbaseline/internal/kb"
)

// errLineBreak is wrapped by quote for a value with a line break: the
// Milvus expression grammar has no string literal that can hold a raw CR or
// LF, and its escape sequences are not decoded back into them.
var errLineBreak = errors.New("contains a line break, which a Milvus filter expression cannot express")

// quote renders s as a string literal of a Milvus boolean expression. It is
// the only function that puts a value into an expression: backslash and
// double quote are escaped, every other character is kept as it is (the
// grammar accepts any character but `"`, `\`, CR and LF inside a
// double-quoted literal, and a tab, NUL or U+2028 is matched literally —
// checked against Milvus 2.5). A value with a line break or invalid UTF-8
// is an error, never silently altered.
func quote(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("filter value %q is not valid UTF-8", s)
	}
	if strings.ContainsAny(s, "\r\n") {
		return "", fmt.Errorf("filter value %q %w", s, errLineBreak)
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '"' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String(), nil
}

// eq renders `field == "value"`.
func eq(field, value string) (string, error) {
	q, err := quote(value)
	if err != nil {
		return "", fmt.Errorf("%s: %w", field, err)
	}
	return field + " == " + q, nil
}

// in renders `field in ["a", "b"]`.
func in(field string, values []string) (string, error) {
	var b strings.Builder
	b.WriteString(field)
	b.WriteString(" in [")
	for i, v := range values {
		q, err := quote(v)
		if err != nil {
			return "", fmt.Errorf("%s: %w", field, err)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(q)
	}
	b.WriteByte(']')
	return b.String(), nil
}

// and joins the non-empty clauses with "and".
func and(clauses ...string) string {
	var out []string
	for _, c := range clauses {
		if c != "" {
			out = append(out, c)
		}
	}
	return strings.Join(out, " and ")
}

// filterExpr renders a kb.Filter as kb_scope == <scope> and category in
// [<categories>]. Each part is there when the filter sets it. An empty
// filter is "".
func filterExpr(f kb.Filter) (string, error) {
	var scope, cats string
	var err error
	if f.KBScope != "" {
		if scope, err = eq(fieldKBScope, f.KBScope); err != nil {
			return "", err
		}
	}
	if len(f.Categories) > 0 {
		if cats, err = in(fieldCategory, f.Categories); err != nil {
			return "", err
		}
	}
	return and(scope, cats), nil
}

// documentExpr selects every chunk of one document.
func documentExpr(kbScope, docID string) (string, error) {
	scope, err := eq(fieldKBScope, kbScope)
	if err != nil {
		return "", err
	}
	doc, err := eq(fieldDocID, docID)
	if err != nil {
		return "", err
	}
	return and(scope, doc), nil
}
