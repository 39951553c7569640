package mdcell_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/report/mdcell"
	"github.com/ragbaseline/ragbaseline/internal/testkit/importcheck"
)

func TestEscapeNeutralisesTableBreakers(t *testing.T) {
	got := mdcell.Escape("a|b\n<script>&`x`\r\nz")
	want := `a\|b<br>&lt;script&gt;&amp;\` + "`x\\`<br>z"
	if got != want {
		t.Fatalf("Escape = %q, want %q", got, want)
	}
	var b strings.Builder
	mdcell.Row(&b, "x", mdcell.Escape("p|q"))
	if b.String() != "| x | p\\|q |\n" {
		t.Fatalf("Row = %q", b.String())
	}
	if got := mdcell.CodeCell("l|x`y"); got != "`l\\|x'y`" {
		t.Fatalf("CodeCell = %q", got)
	}
	if mdcell.Code("a`b\nc") != "a'b c" {
		t.Fatalf("Code = %q", mdcell.Code("a`b\nc"))
	}
}

// TestValues: the reports' numbers (contract.Float6) are shown as their JSON
// writes them, rounded to 6 decimals.
func TestValues(t *testing.T) {
	f := func(v float64) *contract.Float6 { x := contract.Float6(v); return &x }
	n := 3
	s := "x"
	for _, c := range []struct{ name, got, want string }{
		{"Float(nil)", mdcell.Float[contract.Float6](nil), "—"},
		{"Float(0.1234566)", mdcell.Float(f(0.1234566)), "0.123457"},
		{"Float(-0.0000001)", mdcell.Float(f(-0.0000001)), "0"},
		{"Float(2)", mdcell.Float(f(2)), "2"},
		{"Float(NaN)", mdcell.Float(f(math.NaN())), "null"},
		{"Signed(nil)", mdcell.Signed[contract.Float6](nil), "—"},
		{"Signed(0.25)", mdcell.Signed(f(0.25)), "+0.25"},
		{"Signed(0.0000004)", mdcell.Signed(f(0.0000004)), "0"},
		{"Signed(-0.5)", mdcell.Signed(f(-0.5)), "-0.5"},
		{"Signed(NaN)", mdcell.Signed(f(math.NaN())), "null"},
		{"Int(nil)", mdcell.Int(nil), "—"},
		{"Int(3)", mdcell.Int(&n), "3"},
		{"Or(nil)", mdcell.Or(nil, "none"), "none"},
		{`Or("x")`, mdcell.Or(&s, "none"), "x"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

// failing is a value whose JSON cannot be written.
type failing struct{}

func (failing) MarshalJSON() ([]byte, error) { return nil, errors.New("no JSON") }

func TestValueWithoutJSON(t *testing.T) {
	if got := mdcell.Float(&failing{}); got != mdcell.None {
		t.Errorf("Float of a value without JSON = %q, want None", got)
	}
	if got := mdcell.Signed(&failing{}); got != mdcell.None {
		t.Errorf("Signed of a value without JSON = %q, want None", got)
	}
}

// TestImportsOnlyStandardLibrary: mdcell is layout. It knows nothing of
// retrieval, so that any renderer can use it and it can use none.
func TestImportsOnlyStandardLibrary(t *testing.T) { importcheck.StandardLibraryOnly(t) }
