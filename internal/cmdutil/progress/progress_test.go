package progress

import (
	"strings"
	"testing"
)

func TestBar(t *testing.T) {
	var b strings.Builder
	bar := New(&b, "seeding")
	bar.Set(1, 2)
	bar.Set(1, 2) // same percentage: not drawn again
	bar.Set(2, 2)
	bar.Done()
	want := "\rseeding [===============               ] 1/2" +
		"\rseeding [==============================] 2/2" +
		"\r\x1b[K"
	if b.String() != want {
		t.Errorf("drew %q, want %q", b.String(), want)
	}

	var none *Bar // what cmdutil.Streams.Progress returns off a terminal
	none.Set(1, 2)
	none.Done()
}
