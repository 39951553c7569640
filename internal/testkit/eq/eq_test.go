package eq

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that keeps the failure messages.
type recorder struct {
	testing.TB
	msgs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func TestCheck(t *testing.T) {
	r := &recorder{TB: t}
	Check(r, "summary.Added", 0, 3)
	Field(r, "manifest", "status", "unavailable", "available")
	Check(r, "same", "x", "x")
	want := []string{`summary.Added = 0, want 3`, `manifest: status = "unavailable", want "available"`}
	if len(r.msgs) != len(want) {
		t.Fatalf("messages %q, want %q", r.msgs, want)
	}
	for i := range want {
		if r.msgs[i] != want[i] {
			t.Errorf("message %d = %q, want %q", i, r.msgs[i], want[i])
		}
	}
}
