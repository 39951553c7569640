package manual

import (
	"go/doc/comment"
	"reflect"
	"testing"
)

const src = `// Command x does things.
//
// Flags of x:
//
//	-a   old
//
// Examples:
//
//	$ x
//	old output
//
//	$ x --again
//	second
//	lines
//
// The end.
package main
`

// The examples of a code block are its "$ " lines and what follows each,
// up to the next one. Empty lines separate them.
func TestParseExamples(t *testing.T) {
	var p comment.Parser
	got := parseExamples(p.Parse("Flags of x:\n\n\t-a   old\n\nExamples:\n\n\t$ x\n\told output\n\n\t$ x --again\n\tsecond\n\tlines\n\nThe end.\n"), "x")
	want := []example{{cmd: "x", output: "old output\n"}, {cmd: "x --again", output: "second\nlines\n"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseExamples = %q, want %q", got, want)
	}
	if got := parseExamples(p.Parse("\t$ y\n\tout\n"), "x"); got != nil {
		t.Errorf("the examples of another binary: %q", got)
	}
}

// rewrite replaces each flag list and each example's output in place and
// leaves every other line alone.
func TestRewrite(t *testing.T) {
	examples := []example{{cmd: "x", output: "old output\n"}, {cmd: "x --again", output: "second\nlines\n"}}
	got := rewrite(src, map[string]string{"x": "-a   new\n-b   added\n"}, examples, []string{"new output\n", "one line\n"})
	want := `// Command x does things.
//
// Flags of x:
//
//	-a   new
//	-b   added
//
// Examples:
//
//	$ x
//	new output
//
//	$ x --again
//	one line
//
// The end.
package main
`
	if got != want {
		t.Errorf("rewrite gave\n%s\nwant\n%s", got, want)
	}
	if got := rewrite(src, map[string]string{"x": "-a   old\n"}, examples, []string{"old output\n", "second\nlines\n"}); got != src {
		t.Errorf("rewrite with what the manual shows changed it:\n%s", got)
	}
}
