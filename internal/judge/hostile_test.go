//go:build unix

package judge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// TestRunRefusesFilesThatAreNoFixtures: a fixture or a manifest that is a
// symbolic link (to /dev/zero), a named pipe or a 2 GB sparse file stops
// Run with an error naming the first in golden-file order, without
// blocking or reading it whole. A fixture starting with a byte order mark
// is judged.
func TestRunRefusesFilesThatAreNoFixtures(t *testing.T) {
	g := goldenN(t, 4)
	valid := func(id string) string {
		return fmt.Sprintf(`{"caseId": %q, "query": "q%s", "lookupResult": {"evidenceBlocks": [{"rank": 1, "source": "s", "excerpt": "snapshot v2"}]}}`, id, id[1:])
	}
	sparse := func(p string) error {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return err
		}
		return os.Truncate(p, 2<<30)
	}
	link := " is a symbolic link: the files of a fixture directory are read only as regular files (replace the link with a copy of the file)"
	for _, tt := range []struct {
		name string
		make map[string]func(string) error // by file name
		want string
	}{
		{"a link to /dev/zero", map[string]func(string) error{"c2.json": func(p string) error { return os.Symlink("/dev/zero", p) }},
			"c2.json" + link},
		{"a named pipe", map[string]func(string) error{"c1.json": func(p string) error { return syscall.Mkfifo(p, 0o644) }},
			"c1.json is a named pipe, not a regular file"},
		{"a sparse file, and a pipe after it", map[string]func(string) error{"c1.json": sparse, "c3.json": func(p string) error { return syscall.Mkfifo(p, 0o644) }},
			"c1.json is 2 GiB, over the cap of 64 MiB on a fixture file (RAG_MAX_FIXTURE_BYTES sets it) (and 1 more fixture)"},
		{"the manifest", map[string]func(string) error{contract.ManifestName: func(p string) error { return os.Symlink("/dev/zero", p) }},
			contract.ManifestName + link},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for i := range g.Cases {
				name := g.Cases[i].CaseID + ".json"
				p := filepath.Join(dir, name)
				var err error
				if mk := tt.make[name]; mk != nil {
					err = mk(p)
				} else {
					err = os.WriteFile(p, []byte(valid(g.Cases[i].CaseID)), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if mk := tt.make[contract.ManifestName]; mk != nil {
				if err := mk(filepath.Join(dir, contract.ManifestName)); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan error, 1)
			go func() {
				_, err := Run(g, dir, Options{Workers: 2})
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Run still blocked after 10s")
			}
			if !errors.Is(err, contract.ErrRefused) {
				t.Fatalf("Run: %v, want the file refused", err)
			}
			if got, want := err.Error(), "read fixtures: "+filepath.Join(dir, tt.want); got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
		})
	}

	t.Run("a byte order mark", func(t *testing.T) {
		dir := t.TempDir()
		for i := range g.Cases {
			id := g.Cases[i].CaseID
			if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte("\uFEFF"+valid(id)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Run(g, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Cases {
			if c.Status != StatusPass {
				t.Errorf("%s: %s (%v), want pass", c.CaseID, c.Status, c.Reason)
			}
		}
	})
}
