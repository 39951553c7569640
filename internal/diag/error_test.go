package diag

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{File: "g.json", Line: 3, Where: `case "a": field "k"`, Msg: "bad"}, `g.json:3: case "a": field "k": bad`},
		{&Error{File: "g.json", Line: 3, Msg: "bad"}, `g.json:3: bad`},
		{&Error{File: "g.json", Where: `field "k"`, Msg: "bad"}, `g.json: field "k": bad`},
		{&Error{File: "svc.yaml", Line: 6, Where: "headers.Authorization", Msg: "bad"}, `svc.yaml:6: headers.Authorization: bad`},
		{&Error{File: "qrels", Msg: "no judgments"}, `qrels: no judgments`},
		{&Error{Where: `case "a\n"`, Msg: "bad"}, `case "a\n": bad`},
		{&Error{Msg: "bad"}, `bad`},
		{&Error{Line: 12, Where: `field "query"`, Msg: "bad"}, `line 12: field "query": bad`},
		{&Error{File: "f", Line: 0, Msg: "m", Err: errors.New("not printed")}, `f: m`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestList(t *testing.T) {
	at := func(line int) *Error { return &Error{File: "f", Line: line, Msg: "m"} }
	list := List{at(1), at(2)}
	if got, want := list.Error(), "f:1: m\nf:2: m"; got != want {
		t.Errorf("List.Error() = %q, want %q", got, want)
	}
	if got, want := List(nil).Error(), "no errors"; got != want {
		t.Errorf("empty List.Error() = %q, want %q", got, want)
	}
	var e *Error
	if !errors.As(fmt.Errorf("read: %w", list), &e) || e != list[0] {
		t.Errorf("errors.As(List, *Error) does not give the first error")
	}
	var l List
	if !errors.As(fmt.Errorf("read: %w", list), &l) || len(l) != 2 {
		t.Errorf("errors.As(wrapped List, List) = %v", l)
	}
}

type causeError struct{ what string }

func (e *causeError) Error() string { return e.what }

// TestErrorCause: a caller finds the Err of a problem in a List with
// errors.As, and the message stays Msg.
func TestErrorCause(t *testing.T) {
	cause := &causeError{"declared x"}
	list := List{{File: "a", Line: 1, Msg: "other"}, {File: "b", Line: 2, Msg: "mismatch", Err: cause}}
	var ce *causeError
	if !errors.As(list, &ce) || ce != cause {
		t.Errorf("errors.As(List, *causeError) = %v", ce)
	}
	if errors.As(list[0], &ce) {
		t.Errorf("errors.As finds a cause in a problem without one")
	}
	if got, want := list.Error(), "a:1: other\nb:2: mismatch"; got != want {
		t.Errorf("List.Error() = %q, want %q", got, want)
	}
}
