// Package atomicfile writes files so that readers see either the old
// content or the new content, never a half-written file: the data goes to a
// temporary file in the same directory, is synced, and is renamed over the
// target.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// WriteFile atomically replaces path with data, creating parent directories
// as needed. The file gets mode perm (before umask) if it is new, and keeps
// its mode otherwise.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write atomically replaces path with what fn writes. If fn fails, path is
// left as it was and the temporary file is removed.
func Write(path string, perm os.FileMode, fn func(io.Writer) error) error {
	return WriteAll([]string{path}, perm, func(ws []io.Writer) error { return fn(ws[0]) })
}

// WriteAll is Write for files written together: fn writes paths[i] through
// ws[i]. Only when fn succeeds and every file is synced are they renamed
// into place, in order, each whole. If fn or a sync fails, no path changes
// and the temporary files are removed.
func WriteAll(paths []string, perm os.FileMode, fn func(ws []io.Writer) error) (err error) {
	tmps := make([]*os.File, 0, len(paths))
	defer func() {
		if err != nil {
			for _, t := range tmps {
				t.Close()
				os.Remove(t.Name())
			}
		}
	}()
	ws := make([]io.Writer, len(paths))
	for i, path := range paths {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
		if err != nil {
			return err
		}
		tmps = append(tmps, tmp)
		ws[i] = tmp
	}
	if err = fn(ws); err != nil {
		return err
	}
	for i, tmp := range tmps {
		mode := perm
		if fi, serr := os.Stat(paths[i]); serr == nil {
			mode = fi.Mode().Perm()
		}
		if err = tmp.Chmod(mode); err != nil {
			return err
		}
		if err = tmp.Sync(); err != nil {
			return err
		}
		if err = tmp.Close(); err != nil {
			return err
		}
	}
	for i, tmp := range tmps {
		if err = os.Rename(tmp.Name(), paths[i]); err != nil {
			return err
		}
		if d, derr := os.Open(filepath.Dir(paths[i])); derr == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}
