package mapped

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/itchyny/gojq"
	"go.yaml.in/yaml/v3"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// maxOutputs bounds the values one jq program may yield.
const maxOutputs = 10000

// program is a compiled jq program of the config.
type program struct {
	src   string
	field string
	line  int
	vars  []string // the variables it may use, without $, in order
	code  *gojq.Code
}

// program compiles the jq program in n. vars are the variables ($name) it
// may use. gojq gets no environment: $ENV is empty and env is {}, so a
// mapping cannot copy a secret into a fixture.
func (r *reader) program(n *yaml.Node, field string, vars []string) (*program, error) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		// body: {q: .query} is a YAML mapping, not jq.
		return nil, r.errf(n, field, "want a jq program (a string), got %s: quote it ('{q: .query}') or write it as a block (%s: |)", kindName(n), field[strings.LastIndexByte(field, '.')+1:])
	}
	s, err := r.str(n, field, false)
	if err != nil {
		return nil, err
	}
	line := n.Line
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && s != "" {
		line++ // the text starts on the line after | or > (an empty one has none)
	}
	q, err := gojq.Parse(s)
	if err != nil {
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			line += strings.Count(s[:min(max(pe.Offset, 0), len(s))], "\n")
		}
		return nil, &diag.Error{File: r.file, Line: line, Where: field, Msg: "jq: " + err.Error()}
	}
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = "$" + v
	}
	code, err := gojq.Compile(q, gojq.WithVariables(names))
	if err != nil {
		msg := "jq: " + err.Error()
		if len(vars) > 0 {
			msg += " (variables here: " + strings.Join(names, ", ") + ")"
		} else {
			msg += " (no variables here)"
		}
		return nil, &diag.Error{File: r.file, Line: line, Where: field, Msg: msg}
	}
	return &program{src: s, field: field, line: line, vars: vars, code: code}, nil
}

// run evaluates p on input with the variables taken from env by name and
// returns every value it yields.
func (p *program) run(ctx context.Context, input any, env map[string]any) ([]any, error) {
	values := make([]any, len(p.vars))
	for i, v := range p.vars {
		values[i] = env[v]
	}
	iter := p.code.RunWithContext(ctx, input, values...)
	var out []any
	for {
		v, ok := iter.Next()
		if !ok {
			return out, nil
		}
		if err, ok := v.(error); ok {
			var he *gojq.HaltError
			if errors.As(err, &he) && he.Value() == nil {
				return out, nil // halt
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("%s: jq: %v", p.field, err)
		}
		if len(out) == maxOutputs {
			return nil, fmt.Errorf("%s: jq: more than %d results", p.field, maxOutputs)
		}
		out = append(out, v)
	}
}

// truthy is jq's truth: anything but false and null.
func truthy(v any) bool {
	return v != nil && v != false
}

// compact encodes v as one line of JSON, for messages and bodies.
func compact(v any) (string, error) {
	b, err := gojq.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// decodeJSON decodes a response body for jq: numbers stay exact
// (json.Number, which gojq reads).
func decodeJSON(body []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}
