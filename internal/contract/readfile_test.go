//go:build unix

package contract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test when it has not returned after a few
// seconds: a named pipe that is opened or read blocks forever.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still blocked after 5s", what)
	}
}

// TestReadFixtureFileRefuses: a fixture that is not a regular file, or is
// over the cap, is refused with a message naming it and what it is,
// before a byte is read and without blocking.
func TestReadFixtureFileRefuses(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(path("real.json"), []byte(`{"caseId":"a"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero.json": "/dev/zero", "inside.json": "real.json", "dangling.json": "nowhere.json"} {
		if err := os.Symlink(target, path(name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(path("fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path("dir.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A sparse file: 2 GB that take no disk, and must take no memory.
	if err := os.WriteFile(path("sparse.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path("sparse.json"), 2<<30); err != nil {
		t.Fatal(err)
	}
	link := " is a symbolic link: the files of a fixture directory are read only as regular files (replace the link with a copy of the file)"
	for _, tt := range []struct{ name, want string }{
		{"zero.json", link},
		{"inside.json", link},
		{"dangling.json", link},
		{"fifo.json", " is a named pipe, not a regular file"},
		{"dir.json", " is a directory, not a regular file"},
		{"sparse.json", " is 2 GiB, over the cap of 64 MiB on a fixture file (RAG_MAX_FIXTURE_BYTES sets it)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var data []byte
			var err error
			within(t, "ReadFixtureFile", func() { data, err = ReadFixtureFile(path(tt.name), make([]byte, 10)) })
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("ReadFixtureFile: %d bytes, error %v, want it refused", len(data), err)
			}
			if got, want := err.Error(), path(tt.name)+tt.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			if len(data) != 0 {
				t.Errorf("%d bytes returned with the refusal, want none", len(data))
			}
			if cerr := CheckFixtureFile(path(tt.name)); cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("CheckFixtureFile: %v, want %v", cerr, err)
			}
		})
	}
	t.Run("a regular file", func(t *testing.T) {
		data, err := ReadFixtureFile(path("real.json"), nil)
		if err != nil || string(data) != `{"caseId":"a"}` {
			t.Errorf("ReadFixtureFile: %q, %v", data, err)
		}
		if err := CheckFixtureFile(path("real.json")); err != nil {
			t.Errorf("CheckFixtureFile: %v", err)
		}
	})
	t.Run("a missing file", func(t *testing.T) {
		_, err := ReadFixtureFile(path("missing.json"), nil)
		if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrRefused) {
			t.Errorf("ReadFixtureFile: %v, want a missing file", err)
		}
		// The message is os.Open's.
		if want := "open " + path("missing.json") + ": no such file or directory"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %s", err, want)
		}
		if err := CheckFixtureFile(path("missing.json")); err != nil {
			t.Errorf("CheckFixtureFile: %v, want nil", err)
		}
	})
}

// TestReadSetFile: a file the user names may be a symbolic link to a
// regular file, but not to a device or a named pipe.
func TestReadSetFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "golden-cases.json")
	if err := os.WriteFile(real, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	link, zero, fifo := filepath.Join(dir, "link.json"), filepath.Join(dir, "zero.json"), filepath.Join(dir, "fifo")
	if err := os.Symlink("golden-cases.json", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadSetFile(link); err != nil || string(data) != "[]" {
		t.Errorf("through a link: %q, %v, want the file", data, err)
	}
	for p, want := range map[string]string{
		zero:        zero + " is a character device, not a regular file",
		"/dev/null": "/dev/null is a character device, not a regular file",
		fifo:        fifo + " is a named pipe, not a regular file",
	} {
		var err error
		within(t, "ReadSetFile", func() { _, err = ReadSetFile(p) })
		if !errors.Is(err, ErrRefused) || err.Error() != want {
			t.Errorf("ReadSetFile(%s): %v, want %s", p, err, want)
		}
	}
}

// TestReadFileGrowsPastTheCap: a file whose size says nothing, as in /proc,
// is cut at the cap by the read itself.
func TestReadFileGrowsPastTheCap(t *testing.T) {
	const proc = "/proc/self/status"
	fi, err := os.Stat(proc)
	if err != nil || fi.Size() != 0 {
		t.Skipf("no %s of size 0 here (%v)", proc, err)
	}
	_, err = ReadFile(proc, true, 16, "a test file", nil)
	if want := proc + " holds more than 16 bytes, the cap on a test file"; !errors.Is(err, ErrRefused) || err.Error() != want {
		t.Errorf("ReadFile: %v, want %s", err, want)
	}
	data, err := ReadFile(proc, true, 1<<20, "a test file", nil)
	if err != nil || !strings.Contains(string(data), "Name:") {
		t.Errorf("ReadFile under the cap: %q, %v", data, err)
	}
}

// TestReadFileReusesTheBuffer: a buffer large enough is filled in place.
func TestReadFileReusesTheBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3, 64)
	data, err := ReadFile(path, false, 10, "a test file", buf)
	if err != nil || string(data) != "0123456789" || &data[0] != &buf[:1][0] {
		t.Errorf("ReadFile: %q, %v, want the file read into the buffer given", data, err)
	}
	// Exactly at the cap is within it.
	if _, err := ReadFile(path, false, 9, "a test file", buf); !errors.Is(err, ErrRefused) {
		t.Errorf("one byte over the cap: %v, want it refused", err)
	}
}

// TestMaxFixtureBytes: RAG_MAX_FIXTURE_BYTES sets the cap, written as
// GOMEMLIMIT is, and a value that is no size is an error naming it.
func TestMaxFixtureBytes(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  int64
	}{
		{"", DefaultMaxFixtureBytes}, {"1", 1}, {"100B", 100}, {"3KiB", 3 << 10}, {"128MiB", 128 << 20}, {"2GiB", 2 << 30}, {"1TiB", 1 << 40},
	} {
		t.Setenv(MaxFixtureBytesEnv, tt.value)
		if got, err := MaxFixtureBytes(); err != nil || got != tt.want {
			t.Errorf("%s=%q: %d, %v, want %d", MaxFixtureBytesEnv, tt.value, got, err, tt.want)
		}
	}
	for _, v := range []string{"0", "-1", "1.5MiB", "64MB", "MiB", "lots", "99999999999TiB"} {
		t.Setenv(MaxFixtureBytesEnv, v)
		_, err := MaxFixtureBytes()
		want := MaxFixtureBytesEnv + "=\"" + v + "\" is not a size: write a number of bytes, optionally with a unit B, KiB, MiB, GiB or TiB (the default is 64 MiB)"
		if err == nil || err.Error() != want {
			t.Errorf("%s=%q: %v, want %s", MaxFixtureBytesEnv, v, err, want)
		}
	}
	t.Setenv(MaxFixtureBytesEnv, "8B")
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, []byte(`{"caseId":"a"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFixtureFile(path, nil)
	if want := path + " is 14 bytes, over the cap of 8 bytes on a fixture file (RAG_MAX_FIXTURE_BYTES sets it)"; err == nil || err.Error() != want {
		t.Errorf("under an 8-byte cap: %v, want %s", err, want)
	}
}

// TestTrimBOM: one byte order mark goes, nothing else.
func TestTrimBOM(t *testing.T) {
	for in, want := range map[string]string{"\uFEFF{}": "{}", "\uFEFF\uFEFF{}": "\uFEFF{}", " \uFEFF{}": " \uFEFF{}", "{}": "{}", "": "", "\xef\xbb": "\xef\xbb"} {
		if got := string(TrimBOM([]byte(in))); got != want {
			t.Errorf("TrimBOM(%q) = %q, want %q", in, got, want)
		}
	}
}
