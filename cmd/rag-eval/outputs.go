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

// check rejects an output path that collides with an input, with an
// earlier output or with a run, or that lies inside a fixture directory.
// A baseline is never overwritten by the run that compares against it. A
// report inside a fixture directory would replace a fixture, or be read as
// one next time. Each output is checked against the inputs, the earlier
// outputs and the directories in turn, then every output against the runs.
// When two inputs are one file, the later one names it.
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
