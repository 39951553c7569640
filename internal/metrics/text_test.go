package metrics

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestAppendFixed(t *testing.T) {
	// glibc's printf("%6.4f"): exact binary value, ties to even.
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{0, "0.0000"},
		{1, "1.0000"},
		{1.0 / 3, "0.3333"},
		{2.0 / 3, "0.6667"},
		{0.03125, "0.0312"}, // exact tie: to even
		{0.09375, "0.0938"}, // exact tie: to even
		{0.00005, "0.0001"}, // 0.00005 is slightly above the tie in binary
		{0.00015, "0.0001"}, // ... and 0.00015 slightly below
		{0.12345, "0.1235"}, // binary value above the tie
		{-358, "-358.0000"},
		{12.5, "12.5000"},
		{math.Inf(1), "   inf"},
		{math.Inf(-1), "  -inf"},
		{math.NaN(), "   nan"},
		{math.Copysign(math.NaN(), -1), "  -nan"},
	} {
		if got := string(appendFixed(nil, tt.v, 4)); got != tt.want {
			t.Errorf("%%6.4f of %v = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestWriteText(t *testing.T) {
	res, err := evalString(t, Options{Measures: []string{"num_q", "num_rel", "map", "P.5"},
		Complete: true, RelLevel: 1, MaxRetrieved: -1}, exQrels, exRun)
	if err != nil {
		t.Fatal(err)
	}
	res.Columns = append(res.Columns, Column{Name: "a_measure_name_longer_than_22"})
	for i := range res.Queries {
		res.Queries[i].Values = append(res.Queries[i].Values, 1)
	}
	res.All = append(res.All, 0.5)
	var b strings.Builder
	if err := WriteText(&b, res, TextOptions{PerQuery: true}); err != nil {
		t.Fatal(err)
	}
	// -c: q3 has no results, so no per-query lines, but it counts in num_q,
	// in the means and (grade > 0) in num_rel.
	want := "" +
		"num_rel               \tq1\t3\n" +
		"map                   \tq1\t0.2778\n" +
		"P_5                   \tq1\t0.4000\n" +
		"a_measure_name_longer_than_22\tq1\t1.0000\n" +
		"num_rel               \tq2\t1\n" +
		"map                   \tq2\t0.0000\n" +
		"P_5                   \tq2\t0.0000\n" +
		"a_measure_name_longer_than_22\tq2\t1.0000\n" +
		"num_q                 \tall\t3\n" +
		"num_rel               \tall\t5\n" +
		"map                   \tall\t0.0926\n" +
		"P_5                   \tall\t0.1333\n" +
		"a_measure_name_longer_than_22\tall\t0.5000\n"
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	WriteText(&b, res, TextOptions{Decimals: 6})
	if !strings.Contains(b.String(), "map                   \tall\t0.092593\n") {
		t.Errorf("Decimals 6:\n%s", b.String())
	}
}

// TestAppendFixed4 checks the fast path of "%6.4f" against strconv's exact
// conversion on values around every rounding boundary and at random.
func TestAppendFixed4(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(v float64) {
		t.Helper()
		want := strconv.AppendFloat(nil, v, 'f', 4, 64)
		for len(want) < 6 {
			want = append([]byte{' '}, want...)
		}
		if got, ok := appendFixed4(nil, v); ok && string(got) != string(want) {
			t.Fatalf("%.17g: %q, want %q", v, got, want)
		}
	}
	for i := range 200000 {
		check(rng.Float64())
		check(rng.Float64() * 1000)
		c := (float64(i) + 0.5) / 1e4 // ties and their neighbours
		check(c)
		check(math.Nextafter(c, 0))
		check(math.Nextafter(c, 1))
		check(float64(i) / 7)
	}
	for _, v := range []float64{0, 1, 0.03125, 0.00005, 0.99995, 1<<20 - 1, 123456.78905} {
		check(v)
	}
}
