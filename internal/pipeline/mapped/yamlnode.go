package mapped

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// reader walks a parsed YAML document strictly: every key must be known,
// every value of the right kind, and each problem is a *diag.Error with
// the line of the node at fault and its field path as Where.
type reader struct {
	file string
}

func (r *reader) errf(n *yaml.Node, field, format string, args ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &diag.Error{File: r.file, Line: line, Where: field, Msg: fmt.Sprintf(format, args...)}
}

// kindName names a node's kind for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!bool":
			return "a boolean"
		case "!!int", "!!float":
			return "a number"
		}
		return "a string"
	}
	return "nothing"
}

// isNull reports whether n is absent or null.
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// entry is one key of a mapping.
type entry struct {
	key   string
	keyN  *yaml.Node
	value *yaml.Node
}

// mapping returns the entries of a mapping node in order, refusing
// duplicate keys and, when allowed is not nil, keys it does not list.
func (r *reader) mapping(n *yaml.Node, field string, allowed []string) (map[string]*yaml.Node, []entry, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, r.errf(n, field, "want a mapping, got %s", kindName(n))
	}
	m := make(map[string]*yaml.Node, len(n.Content)/2)
	var order []entry
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
			return nil, nil, r.errf(k, field, "a key must be a string, got %s", kindName(k))
		}
		sub := join(field, k.Value)
		if _, dup := m[k.Value]; dup {
			return nil, nil, r.errf(k, sub, "defined twice")
		}
		if allowed != nil && !contains(allowed, k.Value) {
			return nil, nil, r.errf(k, sub, "unknown field (known: %s)", strings.Join(allowed, ", "))
		}
		if v.Kind == yaml.AliasNode {
			return nil, nil, r.errf(v, sub, "YAML aliases are not supported")
		}
		m[k.Value] = v
		order = append(order, entry{k.Value, k, v})
	}
	return m, order, nil
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str reads a string scalar. Numbers and booleans are refused unless
// anyScalar (a version may be written 1 or 1.2).
func (r *reader) str(n *yaml.Node, field string, anyScalar bool) (string, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", r.errf(n, field, "want a string, got %s", kindName(n))
	}
	if !anyScalar && n.ShortTag() != "!!str" {
		return "", r.errf(n, field, "want a string, got %s (quote it)", kindName(n))
	}
	return n.Value, nil
}

func (r *reader) boolean(n *yaml.Node, field string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false, r.errf(n, field, "want true or false, got %s", kindName(n))
	}
	return strconv.ParseBool(strings.ToLower(n.Value))
}

func (r *reader) integer(n *yaml.Node, field string) (int, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return 0, r.errf(n, field, "want an integer, got %s", kindName(n))
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 32)
	if err != nil {
		return 0, r.errf(n, field, "want an integer, got %q", n.Value)
	}
	return int(v), nil
}

func (r *reader) number(n *yaml.Node, field string) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return 0, r.errf(n, field, "want a number, got %s", kindName(n))
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, r.errf(n, field, "want a finite number, got %q", n.Value)
	}
	return v, nil
}

// strings reads a list of strings.
func (r *reader) strings(n *yaml.Node, field string) ([]string, []*yaml.Node, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, nil, r.errf(n, field, "want a list, got %s", kindName(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		s, err := r.str(c, fmt.Sprintf("%s[%d]", field, i), false)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, s)
	}
	return out, n.Content, nil
}
