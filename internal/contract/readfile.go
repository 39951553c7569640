package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// Every file the tools read goes through OpenFile or ReadFile, so that no
// input can make them block or read without end (docs/reliability.md).
// A device such as /dev/zero is endless, a named pipe blocks until a writer
// comes, and a sparse file can claim gigabytes. Git stores symbolic links,
// so a pull request can commit any of them as a fixture.

// The caps on the files read whole.
const (
	// DefaultMaxFixtureBytes caps each fixture and each manifest: 64 MiB.
	// The largest fixture a pipeline writes is under 2 MB: 30 blocks of
	// 16,000 characters, the largest chunk.
	DefaultMaxFixtureBytes int64 = 64 << 20
	// MaxFixtureBytesEnv names the environment variable that sets another
	// cap on fixtures and manifests, as GOMEMLIMIT is written: a number of
	// bytes with an optional unit B, KiB, MiB, GiB or TiB.
	MaxFixtureBytesEnv = "RAG_MAX_FIXTURE_BYTES"
	// MaxSetFileBytes caps a golden-cases file and a baseline report: 1
	// GiB. Both grow with the number of cases, a report by about 3 KB a
	// case, and a run reads one of each.
	MaxSetFileBytes int64 = 1 << 30
)

// errReplaced is a file replaced between its lookup and its open.
var errReplaced = errors.New("replaced while it was opened")

// ErrRefused matches every *RefusedError with errors.Is.
var ErrRefused = errors.New("input file refused")

// RefusedError is an input file that is not read: it is not a regular
// file, it is a symbolic link where none is followed, or it is larger than
// its cap. Its message is Path followed by Reason.
type RefusedError struct {
	Path   string // the file as it was named
	Reason string // what it is: "is a named pipe, not a regular file"
}

func (e *RefusedError) Error() string { return e.Path + " " + e.Reason }

// Is reports whether target is ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// MaxFixtureBytes returns the cap on a fixture or manifest:
// $RAG_MAX_FIXTURE_BYTES when it is set, else DefaultMaxFixtureBytes. A
// value that is not a positive size is an error naming the variable.
func MaxFixtureBytes() (int64, error) {
	v, ok := os.LookupEnv(MaxFixtureBytesEnv)
	if !ok || v == "" {
		return DefaultMaxFixtureBytes, nil
	}
	n, ok := parseSize(v)
	if !ok {
		return 0, fmt.Errorf("%s=%q is not a size: write a number of bytes, optionally with a unit B, KiB, MiB, GiB or TiB (the default is %s)",
			MaxFixtureBytesEnv, v, formatSize(DefaultMaxFixtureBytes))
	}
	return n, nil
}

// parseSize reads a positive number of bytes with an optional unit, as
// GOMEMLIMIT is read.
func parseSize(s string) (int64, bool) {
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	shift := uint(0)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, shift = rest, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		return 0, false
	}
	return n << shift, true
}

// formatSize writes n bytes for a message: "64 MiB", "2.0 GiB", "512
// bytes".
func formatSize(n int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift {
			if n%(1<<u.shift) == 0 {
				return strconv.FormatInt(n>>u.shift, 10) + " " + u.name
			}
			return strconv.FormatFloat(float64(n)/float64(int64(1)<<u.shift), 'f', 1, 64) + " " + u.name
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// notRegular says what a file that is not a regular file is.
func notRegular(mode fs.FileMode) string {
	what := "not a regular file"
	switch {
	case mode.IsDir():
		what = "a directory"
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeCharDevice != 0:
		what = "a character device"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	default:
		return "is not a regular file"
	}
	return "is " + what + ", not a regular file"
}

// symlinkReason is why a symbolic link in a fixture directory is refused.
const symlinkReason = "is a symbolic link: the files of a fixture directory are read only as regular files (replace the link with a copy of the file)"

// check refuses fi, path's file as looked up, when it is not a regular
// file. A symbolic link is refused when it was not followed.
func check(path string, fi fs.FileInfo) error {
	switch mode := fi.Mode(); {
	case mode.IsRegular():
		return nil
	case mode&fs.ModeSymlink != 0:
		return &RefusedError{Path: path, Reason: symlinkReason}
	default:
		return &RefusedError{Path: path, Reason: notRegular(mode)}
	}
}

// OpenFile opens path for reading when it is a regular file, and returns
// it with what it is. With follow, a symbolic link is followed, as for a
// path the user names. Without, a symbolic link is refused, as for a
// fixture or a manifest, which a fixture directory may not link to.
//
// Anything but a regular file is refused without being opened: a device,
// a named pipe, a socket or a directory. The file is opened non-blocking
// and checked to be the one looked up, so that one swapped in meanwhile is
// an error without blocking either (an *fs.PathError, as a rag-snapshot
// swapping the directory can cause it). A refusal is a *RefusedError
// (errors.Is ErrRefused). A missing file is an *fs.PathError "open PATH:
// no such file or directory", as os.Open returns it, errors.Is
// fs.ErrNotExist.
func OpenFile(path string, follow bool) (*os.File, fs.FileInfo, error) {
	stat, flags := os.Lstat, os.O_RDONLY|openNonBlock|openNoFollow
	if follow {
		stat, flags = os.Stat, os.O_RDONLY|openNonBlock
	}
	fi, err := stat(path)
	if err != nil {
		// To the user it is the open that failed, as with os.Open.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open"
		}
		return nil, nil, err
	}
	if err := check(path, fi); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, nil, err
	}
	got, err := f.Stat()
	if err == nil && (!got.Mode().IsRegular() || !os.SameFile(fi, got)) {
		// Not refused: a rag-snapshot swapping the directory does this.
		err = &fs.PathError{Op: "open", Path: path, Err: errReplaced}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, got, nil
}

// ReadFile reads the regular file at path whole, as OpenFile opens it,
// into buf (which may be nil), and returns the bytes read: buf when it was
// large enough. A file of more than limit bytes is refused before a byte
// is read, and one that grows past limit meanwhile is refused when the
// read gets there. what names the cap in that message. A limit of 0 or
// less means no cap.
func ReadFile(path string, follow bool, limit int64, what string, buf []byte) ([]byte, error) {
	buf = buf[:0]
	f, fi, err := OpenFile(path, follow)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	if limit > 0 && fi.Size() > limit {
		return buf, &RefusedError{Path: path, Reason: fmt.Sprintf("is %s, over the cap of %s on %s", formatSize(fi.Size()), formatSize(limit), what)}
	}
	if int64(cap(buf)) < fi.Size()+1 {
		buf = make([]byte, 0, fi.Size()+512)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if limit > 0 && int64(len(buf)+len(room)) > limit+1 {
			room = room[:limit+1-int64(len(buf))]
		}
		n, err := f.Read(room)
		buf = buf[:len(buf)+n]
		if limit > 0 && int64(len(buf)) > limit {
			return buf[:0], &RefusedError{Path: path, Reason: fmt.Sprintf("holds more than %s, the cap on %s", formatSize(limit), what)}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// fixtureCap names the cap on fixtures and manifests in messages.
const fixtureCap = "a fixture file (" + MaxFixtureBytesEnv + " sets it)"

// ReadFixtureFile reads a fixture or a manifest, a file found in a
// fixture directory, as ReadFile does: a symbolic link is refused, and the
// cap is MaxFixtureBytes. buf is reused as in ReadFile.
func ReadFixtureFile(path string, buf []byte) ([]byte, error) {
	limit, err := MaxFixtureBytes()
	if err != nil {
		return buf[:0], err
	}
	return ReadFile(path, false, limit, fixtureCap, buf)
}

// CheckFixtureFile reports whether ReadFixtureFile would refuse path,
// without opening it. It returns nil for a regular file within the cap and
// for a missing file, and the *RefusedError ReadFixtureFile would return
// otherwise. Another error looking path up is returned as is.
func CheckFixtureFile(path string) error {
	limit, err := MaxFixtureBytes()
	if err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	if err := check(path, fi); err != nil {
		return err
	}
	if fi.Size() > limit {
		return &RefusedError{Path: path, Reason: fmt.Sprintf("is %s, over the cap of %s on %s", formatSize(fi.Size()), formatSize(limit), fixtureCap)}
	}
	return nil
}

// ReadSetFile reads a golden-cases file or a baseline report, a file the
// user names, as ReadFile does: a symbolic link is followed, and the cap
// is MaxSetFileBytes.
func ReadSetFile(path string) ([]byte, error) {
	return ReadFile(path, true, MaxSetFileBytes, "a golden-cases file or a report", nil)
}

// bom is the UTF-8 byte order mark.
var bom = []byte("\uFEFF")

// TrimBOM returns data without one leading UTF-8 byte order mark. Every
// JSON file the tools read skips one, as RFC 8259 allows a reader to:
// golden-cases files, fixtures, manifests and reports. An editor on Windows
// may add one to any file it saves.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }
