package fixturescan

import (
	"strconv"
	"strings"
	"testing"
)

// TestStringsAreCopies reads every string of an array of strings that is
// nearly all string bytes, so the strings outgrow the first buffer, and
// checks that each string read stays as it was while the rest are read and
// after the input is overwritten.
func TestStringsAreCopies(t *testing.T) {
	var want []string
	var b strings.Builder
	b.WriteByte('[')
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		s := strings.Repeat(strconv.Itoa(i), i%13+1) + `é"\/` + "\u00e9"
		want = append(want, s)
		b.WriteString(strconv.Quote(s))
	}
	b.WriteByte(']')
	data := []byte(b.String())

	var s Scanner
	s.Reset(data)
	var got []string
	i, more := s.OpenArray(0, 1)
	for more {
		var str string
		var k Kind
		if str, k, i = s.String(i, 1); i < 0 || k != String {
			t.Fatalf("element %d: kind %v, position %d, error %v", len(got), k, i, s.Err())
		}
		got = append(got, str)
		i, more = s.NextElement(i)
	}
	s.End(i)
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	for i := range data {
		data[i] = 'x'
	}
	if len(got) != len(want) {
		t.Fatalf("read %d strings, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestExactInt(t *testing.T) {
	tests := []struct {
		text string
		want int
		ok   bool
	}{
		{"1", 1, true}, {"2147483647", 2147483647, true}, {"2147483648", 0, false},
		{"0", 0, false}, {"-1", 0, false}, {"3.0", 3, true}, {"0.3e1", 3, true}, {"700e-2", 7, true},
		{"7.5", 0, false}, {"1e10", 0, false}, {"1e999999999999", 0, false}, {"1.00000000000000000000001", 0, false},
	}
	for _, tt := range tests {
		if got, ok := ExactInt([]byte(tt.text)); got != tt.want || ok != tt.ok {
			t.Errorf("ExactInt(%s) = %d, %v; want %d, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}
