package mdcell

import (
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
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

func TestValues(t *testing.T) {
	f := func(v float64) *contract.Float6 { x := contract.Float6(v); return &x }
	n := 3
	s := "x"
	for _, c := range []struct{ got, want string }{
		{Float(nil), "—"}, {Float(f(0.1234566)), "0.123457"}, {Float(f(-0.0000001)), "0"}, {Float(f(2)), "2"},
		{Signed(nil), "—"}, {Signed(f(0.25)), "+0.25"}, {Signed(f(0.0000004)), "0"}, {Signed(f(-0.5)), "-0.5"},
		{Int(nil), "—"}, {Int(&n), "3"},
		{Or(nil, "none"), "none"}, {Or(&s, "none"), "x"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
