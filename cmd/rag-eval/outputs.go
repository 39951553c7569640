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

// output is one file the run writes.
type output struct {
	flag, path string
	render     func(io.Writer) error
}

// checkOutputs rejects output paths that collide with each other, with the
// cases file or with the baseline (a baseline is never overwritten by the
// run that compares against it), or that lie inside a fixture directory
// (a report there would replace a fixture, or be read as one next time).
func checkOutputs(outs []output, baseline, cases string, fixtureDirs ...string) error {
	seen := map[string]string{samePath(cases): "--cases"}
	if baseline != "" {
		seen[samePath(baseline)] = "--compare-to"
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

// writeOutputs renders every output concurrently into memory, then writes
// each atomically. A rendering error writes nothing.
func writeOutputs(outs []output) error {
	bufs := make([]bytes.Buffer, len(outs))
	errs := make([]error, len(outs))
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			if err := outs[i].render(&bufs[i]); err != nil {
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
