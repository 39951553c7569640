package progress

import (
	"strings"
	"testing"
	"time"
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

func TestBarNote(t *testing.T) {
	var b strings.Builder
	bar := New(&b, "seeding")
	clock := time.Unix(0, 0)
	bar.now = func() time.Time { return clock }
	bar.SetNote(1, 4, "10 chunks/s, 3s left")
	bar.SetNote(1, 4, "11 chunks/s, 3s left") // same percentage, too soon: not drawn
	clock = clock.Add(noteEvery)
	bar.SetNote(1, 4, "9 chunks/s") // a shorter note erases the rest of the line
	bar.SetNote(4, 4, "")
	bar.Done()
	want := "\rseeding [=======                       ] 1/4  10 chunks/s, 3s left\x1b[K" +
		"\rseeding [=======                       ] 1/4  9 chunks/s\x1b[K" +
		"\rseeding [==============================] 4/4" +
		"\r\x1b[K"
	if b.String() != want {
		t.Errorf("drew %q, want %q", b.String(), want)
	}
}

func TestPace(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		left time.Duration
		want string
	}{
		{1204.4, 12 * time.Second, "1,204 chunks/s, 12s left"},
		{1234567, 65 * time.Second, "1,234,567 chunks/s, 1m05s left"},
		{999.6, 2*time.Hour + 7*time.Minute + 40*time.Second, "1,000 chunks/s, 2h07m left"},
		{12, 200 * time.Millisecond, "12 chunks/s, 1s left"},
		{0, 5 * time.Second, "5s left"},
		{3, 0, "3 chunks/s"},
		{0, 0, ""},
	} {
		if got := Pace(tc.rate, "chunks", tc.left); got != tc.want {
			t.Errorf("Pace(%v, %v) = %q, want %q", tc.rate, tc.left, got, tc.want)
		}
	}
}
