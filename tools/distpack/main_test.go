package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// stage writes a staging directory like make dist's.
func stage(t *testing.T, root, name string, perm os.FileMode) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		exec bool
	}{{"rag-seed", true}, {"README.md", false}, {"rag-eval", true}} {
		mode := perm
		if f.exec {
			mode |= 0o111
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte("content of "+f.name), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type entry struct {
	name    string
	mode    int64
	uid     int
	uname   string
	modTime time.Time
	body    string
}

func list(t *testing.T, path string) []entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header name %q, time %v: want none", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{h.Name, h.Mode, h.Uid, h.Uname, h.ModTime.UTC(), string(body)})
	}
}

// The archive holds the staged files under one directory, in name order,
// with fixed times, owners and modes, and the same bytes whatever the
// umask, times and owner of the staged files.
func TestPack(t *testing.T) {
	mtime := time.Unix(1767225600, 0).UTC()
	a, b := t.TempDir(), t.TempDir()
	dirA := stage(t, filepath.Join(a, "stage"), "ragbaseline_v1.0.0_linux_amd64", 0o644)
	dirB := stage(t, filepath.Join(b, "stage"), "ragbaseline_v1.0.0_linux_amd64", 0o600)
	old := time.Unix(1e9, 0)
	if err := os.Chtimes(filepath.Join(dirB, "rag-eval"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := run(filepath.Join(a, "dist"), mtime, []string{dirA}); err != nil {
		t.Fatal(err)
	}
	if err := run(filepath.Join(b, "dist"), mtime, []string{dirB + string(filepath.Separator)}); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(a, "dist", "ragbaseline_v1.0.0_linux_amd64.tar.gz")
	dataA, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	dataB, err := os.ReadFile(filepath.Join(b, "dist", "ragbaseline_v1.0.0_linux_amd64.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dataA, dataB) {
		t.Error("the same files staged with other modes and times give other bytes")
	}
	p := "ragbaseline_v1.0.0_linux_amd64/"
	want := []entry{
		{p, 0o755, 0, "", mtime, ""},
		{p + "README.md", 0o644, 0, "", mtime, "content of README.md"},
		{p + "rag-eval", 0o755, 0, "", mtime, "content of rag-eval"},
		{p + "rag-seed", 0o755, 0, "", mtime, "content of rag-seed"},
	}
	got := list(t, archive)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("entries\n%v\nwant\n%v", got, want)
	}

	sum := sha256.Sum256(dataA)
	sums, err := os.ReadFile(filepath.Join(a, "dist", "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	if want := hex.EncodeToString(sum[:]) + "  ragbaseline_v1.0.0_linux_amd64.tar.gz\n"; string(sums) != want {
		t.Errorf("SHA256SUMS %q, want %q", sums, want)
	}
}

// SHA256SUMS lists every archive of the directory in name order.
func TestChecksums(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "dist")
	var dirs []string
	for _, n := range []string{"x_linux_arm64", "x_darwin_amd64", "x_linux_amd64"} {
		dirs = append(dirs, stage(t, filepath.Join(root, "stage"), n, 0o644))
	}
	if err := run(out, time.Unix(0, 0), dirs); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range bytes.Split(bytes.TrimSuffix(sums, []byte("\n")), []byte("\n")) {
		_, name, ok := bytes.Cut(line, []byte("  "))
		if !ok {
			t.Fatalf("line %q is not HEX  NAME", line)
		}
		names = append(names, string(name))
	}
	if fmt.Sprint(names) != "[x_darwin_amd64.tar.gz x_linux_amd64.tar.gz x_linux_arm64.tar.gz]" {
		t.Errorf("SHA256SUMS lists %v", names)
	}
}
