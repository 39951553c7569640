package kb

import "testing"

func TestCorpusFingerprint(t *testing.T) {
	a := map[string]string{"s/a": "01", "s/b": "02"}
	fa := CorpusFingerprint(a)
	if len(fa) != 64 {
		t.Fatalf("fingerprint %q is not a hex SHA-256", fa)
	}
	// Pinned: the documented form is sha256("s/a\x0001\ns/b\x0002\n").
	if want := "1a835b5ff3e144d3e6bc04cf16378693faf82fd11202d80ceeb84c9e8fd62603"; fa != want {
		t.Errorf("fingerprint %s, want %s", fa, want)
	}
	for name, m := range map[string]map[string]string{
		"changed content": {"s/a": "01", "s/b": "03"},
		"renamed":         {"s/a": "01", "s/c": "02"},
		"added":           {"s/a": "01", "s/b": "02", "s/c": "03"},
		"removed":         {"s/a": "01"},
		"swapped":         {"s/a": "02", "s/b": "01"},
		"empty":           {},
	} {
		if CorpusFingerprint(m) == fa {
			t.Errorf("%s: same fingerprint", name)
		}
	}
	if CorpusFingerprint(map[string]string{"s/b": "02", "s/a": "01"}) != fa {
		t.Error("the fingerprint depends on map order")
	}
}
