package cmdutil

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestUsage(t *testing.T) {
	err := fmt.Errorf("load: %w", Usagef("bad --k %d", 0))
	if !IsUsage(err) || IsUsage(errors.New("x")) {
		t.Fatal("IsUsage")
	}
	var b strings.Builder
	PrintError(&b, "rag-x", errors.New("problems:\na.md:1: one\nb.md:2: two\n"))
	if want := "rag-x: problems:\nrag-x: a.md:1: one\nrag-x: b.md:2: two\n"; b.String() != want {
		t.Errorf("PrintError wrote %q, want %q", b.String(), want)
	}
}
