package contract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadManifest(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadManifest(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing manifest: %v, want fs.ErrNotExist", err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"manifestVersion": 1, "status": "unavailable", "reason": "sidecar unreachable", "future": [1]}`)
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusUnavailable {
		t.Fatalf("status %q, want %q", m.Status, StatusUnavailable)
	}
	if m.Reason != "sidecar unreachable" {
		t.Fatalf("reason %q, want sidecar unreachable", m.Reason)
	}
	for _, bad := range []string{`{"status": "Unavailable"}`, `{"reason": "no status"}`, `{"status": 1}`, `[`} {
		write(bad)
		if _, err := ReadManifest(dir); err == nil || !strings.Contains(err.Error(), ManifestName) {
			t.Errorf("%s: err %v, want an error naming the file", bad, err)
		}
	}
}
