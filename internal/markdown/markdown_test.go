package markdown

import (
	"strings"
	"testing"
)

func TestEscapeNeutralisesTableBreakers(t *testing.T) {
	got := Escape("a|b\n<script>&`x`\r\nz")
	want := `a\|b<br>&lt;script&gt;&amp;\` + "`x\\`<br>z"
	if got != want {
		t.Fatalf("Escape = %q, want %q", got, want)
	}
	var b strings.Builder
	Row(&b, "x", Escape("p|q"))
	if b.String() != "| x | p\\|q |\n" {
		t.Fatalf("Row = %q", b.String())
	}
	if got := CodeCell("l|x`y"); got != "`l\\|x'y`" {
		t.Fatalf("CodeCell = %q", got)
	}
	if Code("a`b\nc") != "a'b c" {
		t.Fatalf("Code = %q", Code("a`b\nc"))
	}
}
