// Package eq holds the one-field check of the tests: a failure names the
// field that is wrong and says what it is and what it should be, instead
// of printing a whole value.
package eq

import "testing"

// Check fails t when got is not want, naming the field name.
func Check[T comparable](t testing.TB, name string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %#v, want %#v", name, got, want)
	}
}

// Field is Check for a field of what: a flag set, a result, a manifest.
func Field[T comparable](t testing.TB, what, name string, got, want T) {
	t.Helper()
	Check(t, what+": "+name, got, want)
}
