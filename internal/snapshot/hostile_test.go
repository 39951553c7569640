//go:build unix

package snapshot

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// TestOldFixtureNotAFile: an old fixture that is a symbolic link (to
// /dev/zero), a named pipe or a 2 GB sparse file stops the run before any
// lookup, as an input error naming it. Nothing is written, no staging
// directory is left, and the run neither blocks nor reads the file whole.
func TestOldFixtureNotAFile(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) },
			" is a symbolic link: the files of a fixture directory are read only as regular files (replace the link with a copy of the file); nothing was looked up or written"},
		{"named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) },
			" is a named pipe, not a regular file; nothing was looked up or written"},
		{"sparse file", func(p string) error {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				return err
			}
			return os.Truncate(p, 2<<30)
		}, " is 2 GiB, over the cap of 64 MiB on a fixture file (RAG_MAX_FIXTURE_BYTES sets it); nothing was looked up or written"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newCanned()
			parent := t.TempDir()
			dir := filepath.Join(parent, "fixtures")
			opts := baseOptions(t, p, dir)
			if _, err := Run(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			pool := filepath.Join(dir, "pool.json")
			if err := os.Remove(pool); err != nil {
				t.Fatal(err)
			}
			if err := tt.make(pool); err != nil {
				t.Fatal(err)
			}
			before := listing(t, dir)
			calls := p.calls["pool exhausted"]

			done := make(chan error, 1)
			go func() {
				_, err := Run(context.Background(), opts)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Run still blocked after 10s")
			}
			if !errors.Is(err, ErrUsage) || !errors.Is(err, contract.ErrRefused) {
				t.Fatalf("Run: %v, want an input error (ErrUsage) that refuses the file", err)
			}
			if got, want := err.Error(), pool+tt.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			if n := p.calls["pool exhausted"]; n != calls {
				t.Errorf("%d lookups after the refusal, want none", n-calls)
			}
			if after := listing(t, dir); !maps.Equal(after, before) {
				t.Errorf("the fixture directory changed: %v, was %v", after, before)
			}
			assertNoStaging(t, parent)
		})
	}
}

// TestOrphanOverTheCap: a file that matches no case and is over the cap is
// not read whole to decide whether it is a fixture. It is left in place,
// with a warning that names the cap.
func TestOrphanOverTheCap(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, p, dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "stray.json")
	if err := os.WriteFile(stray, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(stray, 2<<30); err != nil {
		t.Fatal(err)
	}
	p.excerpt["disk full"] = "a new excerpt, so that the directory is swapped"
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := stray + " matches no golden case but is not a fixture, left in place: " + stray + " is 2 GiB, over the cap of 64 MiB on a fixture file (RAG_MAX_FIXTURE_BYTES sets it)"
	var found bool
	for _, w := range sum.Warnings {
		found = found || w.Error() == want
	}
	if !found {
		t.Errorf("warnings %v, want %q", sum.Warnings, want)
	}
	if fi, err := os.Stat(stray); err != nil || fi.Size() != 2<<30 {
		t.Errorf("the stray file after the run: %v, want it left in place", err)
	}
	if !strings.Contains(listing(t, dir)["disk.json"], "a new excerpt") {
		t.Errorf("disk.json was not rewritten")
	}
}

// listing is tree without reading what may not be read: each entry of dir
// as os.Lstat sees it, and the content of the small regular files.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = fmt.Sprintf("%v %d %v", fi.Mode(), fi.Size(), fi.ModTime())
		if fi.Mode().IsRegular() && fi.Size() < 1<<20 {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m[e.Name()] += " " + string(data)
		}
	}
	return m
}

// TestSidecarDirIsTheFixtureDir: a sidecar directory that is the fixture
// directory under another path (a symbolic link) is refused as the same
// path is, before anything is written.
func TestSidecarDirIsTheFixtureDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "fixtures")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "sidecar")
	if err := os.Symlink("fixtures", link); err != nil {
		t.Fatal(err)
	}
	opts := baseOptions(t, newCanned(), dir)
	opts.Sidecar, opts.SidecarDir = newCanned(), link
	_, err := Run(context.Background(), opts)
	if want := "the sidecar fixture directory " + link + " is the fixture directory"; !errors.Is(err, ErrUsage) || err.Error() != want {
		t.Errorf("Run: %v, want %s", err, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the fixture directory holds %d entries, want none", len(entries))
	}
	assertNoStaging(t, parent)
}

// TestCasesFileIsAFixture: a golden cases file that is the fixture of one
// of its cases, or the manifest, would be replaced by the run: refused
// before any lookup, and left as it was.
func TestCasesFileIsAFixture(t *testing.T) {
	for _, name := range []string{"pool.json", contract.ManifestName} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "fixtures")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(goldenJSON), 0o644); err != nil {
				t.Fatal(err)
			}
			p := newCanned()
			opts := baseOptions(t, p, dir)
			opts.CasesPath = path
			_, err := Run(context.Background(), opts)
			want := "the golden cases file " + path + " is " + name + " of the fixture directory " + dir + ", which this run would replace; nothing was looked up or written"
			if !errors.Is(err, ErrUsage) || err.Error() != want {
				t.Errorf("Run: %v, want %s", err, want)
			}
			if data, err := os.ReadFile(path); err != nil || string(data) != goldenJSON {
				t.Errorf("the cases file after the run: %v, want it unchanged", err)
			}
			if len(p.calls) != 0 {
				t.Errorf("%d lookups, want none", len(p.calls))
			}
		})
	}
}
