package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ragbaseline/ragbaseline/internal/atomicfile"
	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// output is one file a command writes: the flag that names it, its path,
// and how to render it from the command's result R.
type output[R any] struct {
	flag, path string
	render     func(R, io.Writer) error
}

// outputs are the files a command writes, declared before any work, in the
// order they are checked and written. As benchstat picks its format, each
// command picks the renderers once, before it has a result to render.
type outputs[R any] []output[R]

// add declares the output named by flag, rendered by render. An output
// without a path is not written.
func (outs *outputs[R]) add(flag, path string, render func(R, io.Writer) error) {
	if path != "" {
		*outs = append(*outs, output[R]{flag, path, render})
	}
}

// input is a file a command reads, named as its messages name it.
type input struct{ name, path string }

// check rejects an output path that would replace a file the run reads,
// that collides with an earlier output, or that lies inside a fixture
// directory. A baseline is never overwritten by the run that compares
// against it. A report inside a fixture directory would replace a fixture,
// or be read as one next time. The rules apply in this order, the first
// that applies naming the collision:
//
//  1. each output, in turn, by path against the inputs, the earlier outputs
//     and the fixture directories (when two inputs are one file, the later
//     one names it)
//  2. every output by path against the runs
//  3. every output that exists, as a file (os.SameFile), against the inputs,
//     the runs and the .json files of the fixture directories: a path
//     string can hide a file behind a hard link, or behind another spelling
//     on a case-insensitive file system
//  4. every output, as a file, inside one of the fixture directories, or
//     inside another directory that holds a manifest (_snapshot.json): a
//     fixture directory this run does not read is still one
func (outs outputs[R]) check(inputs []input, fixtureDirs []string, runs []string) error {
	seen := map[string]string{}
	for _, in := range inputs {
		seen[samePath(in.path)] = in.name
	}
	for _, o := range outs {
		key := samePath(o.path)
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%s %s is the same file as %s", o.flag, o.path, prev)
		}
		seen[key] = o.flag
		for _, d := range fixtureDirs {
			if rel, err := filepath.Rel(samePath(d), key); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return fmt.Errorf("%s %s is inside the fixture directory %s", o.flag, o.path, d)
			}
		}
	}
	for _, o := range outs {
		for _, r := range runs {
			if samePath(o.path) == samePath(r) {
				return fmt.Errorf("%s %s is the same file as the run %s", o.flag, o.path, r)
			}
		}
	}
	if err := outs.checkFiles(inputs, fixtureDirs, runs); err != nil {
		return err
	}
	return outs.checkDirs(fixtureDirs)
}

// read is a file the run reads, named as a collision message names it.
type read struct {
	name string
	fi   os.FileInfo
}

// checkFiles is rule 3 of check: no output that exists is, as a file, one
// that the run reads. An output that does not exist yet replaces nothing.
func (outs outputs[R]) checkFiles(inputs []input, fixtureDirs []string, runs []string) error {
	type existing struct {
		o       output[R]
		st, lst os.FileInfo // the file the path leads to, and the path's own entry
	}
	var exist []existing
	for _, o := range outs {
		st, serr := os.Stat(o.path)
		lst, lerr := os.Lstat(o.path)
		if serr == nil || lerr == nil {
			exist = append(exist, existing{o, st, lst})
		}
	}
	if len(exist) == 0 {
		return nil
	}
	var reads []read
	for _, in := range inputs {
		if fi, err := os.Stat(in.path); err == nil {
			reads = append(reads, read{in.name, fi})
		}
	}
	for _, r := range runs {
		if fi, err := os.Stat(r); err == nil {
			reads = append(reads, read{"the run " + r, fi})
		}
	}
	for _, d := range fixtureDirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			// Lstat, as the judge reads a fixture: never through a link.
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
				reads = append(reads, read{"the fixture " + filepath.Join(d, e.Name()), fi})
			}
		}
	}
	for _, x := range exist {
		for _, r := range reads {
			if x.st != nil && os.SameFile(x.st, r.fi) || x.lst != nil && os.SameFile(x.lst, r.fi) {
				return fmt.Errorf("%s %s is the same file as %s", x.o.flag, x.o.path, r.name)
			}
		}
	}
	return nil
}

// checkDirs is rule 4 of check: no output is inside a fixture directory,
// compared as directories, or inside a directory that holds a manifest.
func (outs outputs[R]) checkDirs(fixtureDirs []string) error {
	var dirs []read
	for _, d := range fixtureDirs {
		if fi, err := os.Stat(d); err == nil {
			dirs = append(dirs, read{d, fi})
		}
	}
	for _, o := range outs {
		abs, err := filepath.Abs(o.path)
		if err != nil {
			continue
		}
		// The output's own directory holds the file it replaces. A
		// manifest there makes it a fixture directory.
		parent := filepath.Dir(abs)
		if _, err := os.Lstat(filepath.Join(parent, contract.ManifestName)); err == nil {
			return fmt.Errorf("%s %s is inside %s, a fixture directory (it holds %s)", o.flag, o.path, filepath.Dir(o.path), contract.ManifestName)
		}
		for p := abs; ; p = filepath.Dir(p) {
			if fi, err := os.Stat(p); err == nil {
				for _, d := range dirs {
					if os.SameFile(fi, d.fi) {
						return fmt.Errorf("%s %s is inside the fixture directory %s", o.flag, o.path, d.name)
					}
				}
			}
			if filepath.Dir(p) == p {
				break
			}
		}
	}
	return nil
}

// samePath returns a key that is equal for two paths naming the same file.
func samePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	} else if errors.Is(err, os.ErrNotExist) {
		if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			return filepath.Join(d, filepath.Base(abs))
		}
	}
	return abs
}

// write renders every output from r concurrently into memory, then writes
// each atomically, in order. A rendering error writes nothing. A failed
// write leaves the outputs before it written.
func (outs outputs[R]) write(r R) error {
	bufs := make([]bytes.Buffer, len(outs))
	errs := make([]error, len(outs))
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			if err := outs[i].render(r, &bufs[i]); err != nil {
				errs[i] = fmt.Errorf("render %s: %w", outs[i].path, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, out := range outs {
		if err := atomicfile.WriteFile(out.path, bufs[i].Bytes(), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", out.path, err)
		}
	}
	return nil
}
