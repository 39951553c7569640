package mapped

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"strings"
	"time"

	"github.com/itchyny/gojq"
	"go.yaml.in/yaml/v3"

	"github.com/ragbaseline/ragbaseline/internal/diag"
)

// maxOutputs bounds the values one jq program may yield, and the blocks
// an array the blocks program yields may hold.
const maxOutputs = 10000

// The bounds of a jq evaluation (Options.MaxJQTime, Options.MaxJQMemory).
// gojq checks its context between two instructions, so time is bounded
// everywhere but inside one builtin, such as sort on a large array. gojq
// has no memory limit, so the heap is watched while a program runs.
const (
	// DefaultMaxJQTime bounds each evaluation, unless half of
	// Options.Timeout is shorter.
	DefaultMaxJQTime = 10 * time.Second
	// DefaultMaxJQMemory stops an evaluation during which the process's
	// heap grows by more.
	DefaultMaxJQMemory = 1 << 30
)

// heapWatchEvery is how often the heap is read while a program runs. A
// program done sooner has it read once, when it starts.
const heapWatchEvery = 5 * time.Millisecond

// jqLimits are the bounds of an evaluation. Zero is no bound.
type jqLimits struct {
	time   time.Duration
	memory int64
}

// The causes of a cancelled evaluation.
var (
	errJQTime   = errors.New("jq time limit")
	errJQMemory = errors.New("jq memory limit")
)

// JQLimitError is a jq program stopped by a bound of the pipeline: the
// time it took or the memory the heap grew by. It is not transient: the
// same program on the same answer stops again.
type JQLimitError struct {
	// Field is the program's config field (response.blocks).
	Field string
	Msg   string
}

func (e *JQLimitError) Error() string { return e.Field + ": jq: " + e.Msg }

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
// returns every value it yields, within the limits. A program stopped by
// a limit is a *JQLimitError. One stopped because ctx is done is ctx's
// error, wrapped with the field.
func (p *program) run(ctx context.Context, input any, env map[string]any, lim jqLimits) ([]any, error) {
	values := make([]any, len(p.vars))
	for i, v := range p.vars {
		values[i] = env[v]
	}
	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if lim.time > 0 {
		var cancelT context.CancelFunc
		jctx, cancelT = context.WithTimeoutCause(jctx, lim.time, errJQTime)
		defer cancelT()
	}
	if lim.memory > 0 {
		defer watchHeap(lim.memory, func() { cancel(errJQMemory) })()
	}
	iter := p.code.RunWithContext(jctx, input, values...)
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
			if jctx.Err() != nil {
				switch {
				case ctx.Err() != nil:
					return nil, fmt.Errorf("%s: jq: %w", p.field, ctx.Err())
				case context.Cause(jctx) == errJQTime:
					return nil, &JQLimitError{Field: p.field, Msg: fmt.Sprintf("did not finish within %s (an endless loop?)", lim.time)}
				case context.Cause(jctx) == errJQMemory:
					return nil, &JQLimitError{Field: p.field, Msg: fmt.Sprintf("stopped when the heap had grown by more than %s while it ran", mib(lim.memory))}
				}
			}
			return nil, fmt.Errorf("%s: jq: %v", p.field, err)
		}
		if len(out) == maxOutputs {
			return nil, fmt.Errorf("%s: jq: more than %d results", p.field, maxOutputs)
		}
		out = append(out, v)
	}
}

// watchHeap calls exceeded once the heap has grown by more than limit
// since the call, reading it every heapWatchEvery, until the returned stop
// is called. The heap is the process's: what other goroutines allocate
// meanwhile counts too, which is why the default limit is far above what
// the decoded answers may take.
func watchHeap(limit int64, exceeded func()) (stop func()) {
	start := heapBytes()
	done := make(chan struct{})
	t := time.AfterFunc(heapWatchEvery, func() {
		tick := time.NewTicker(heapWatchEvery)
		defer tick.Stop()
		for heapBytes()-start <= limit {
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
		exceeded()
	})
	return func() {
		t.Stop()
		close(done)
	}
}

const heapSample = "/memory/classes/heap/objects:bytes"

// heapBytes is the heap the process's objects take, the unswept dead ones
// included.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: heapSample}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// mib renders a size in bytes for messages: 64 MiB, or the bytes.
func mib(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
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
