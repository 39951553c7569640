package judge

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ragbaseline/ragbaseline/internal/contract"
)

// Result is the judgement of a golden file against a fixture directory.
type Result struct {
	Golden *contract.GoldenFile
	// Fixtures is the fixture directory that was judged.
	Fixtures string
	// FlagK is --k (0 when unset).
	FlagK int
	// Cases are in golden-file order.
	Cases []CaseResult
	// Warnings are problems that did not stop the run (orphan fixtures).
	Warnings []error
}

// Options tune a run.
type Options struct {
	// FlagK is --k; 0 when unset.
	FlagK int
	// Workers is the number of cases judged at once; 0 means GOMAXPROCS.
	Workers int
}

// FixturePath returns where the fixture of caseID lives in dir.
func FixturePath(dir, caseID string) string {
	return filepath.Join(dir, caseID+".json")
}

// Run judges every case of g against the fixtures in dir. A missing fixture
// makes its case not_run and a broken one makes it error; neither stops the
// run. Run fails only when dir itself cannot be read (including when it does
// not exist or is not a directory).
func Run(g *contract.GoldenFile, dir string, opts Options) (*Result, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		// A missing or unreadable directory is an input error, not a set of
		// not_run cases: a mistyped --fixtures must not replace a report.
		return nil, fmt.Errorf("read fixtures: %w", err)
	}
	res := &Result{Golden: g, Fixtures: dir, FlagK: opts.FlagK, Cases: make([]CaseResult, len(g.Cases))}

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(len(g.Cases), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // reused for every fixture this worker reads
			for {
				i := int(next.Add(1)) - 1
				if i >= len(g.Cases) {
					return
				}
				c := &g.Cases[i]
				res.Cases[i], buf = judgeFile(c, g.ResolveK(c, opts.FlagK), FixturePath(dir, c.CaseID), g.KBScope, buf)
			}
		}()
	}
	wg.Wait()

	// Orphans: fixtures that match no case.
	known := make(map[string]bool, len(g.Cases))
	for i := range g.Cases {
		known[g.Cases[i].CaseID+".json"] = true
	}
	var orphans []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, "_") || !strings.HasSuffix(name, ".json") || known[name] {
			continue
		}
		orphans = append(orphans, name)
	}
	sort.Strings(orphans)
	for _, o := range orphans {
		res.Warnings = append(res.Warnings, fmt.Errorf("orphan fixture %s matches no golden case", filepath.Join(dir, o)))
	}
	return res, nil
}

func judgeFile(c *contract.Case, k int, path, kbScope string, buf []byte) (CaseResult, []byte) {
	data, err := readFile(path, buf)
	if errors.Is(err, fs.ErrNotExist) {
		return notRun(c, k, "no fixture at "+path), data
	}
	if err != nil {
		return broken(c, k, fmt.Sprintf("read fixture: %v", err)), data
	}
	// data is this worker's reused buffer: JudgeFixture copies every
	// string it keeps, so the fixture may borrow it.
	f, err := contract.ParseFixtureBorrowed(path, data)
	if err != nil {
		return broken(c, k, fmt.Sprintf("invalid fixture: %v", err)), data
	}
	return JudgeFixture(c, k, f, kbScope), data
}

// readFile reads path into buf, growing it as needed, and returns the
// bytes read; reusing one buffer per worker spares allocating and zeroing a
// fresh one for every fixture.
func readFile(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	buf = buf[:0]
	if fi, err := f.Stat(); err == nil && int64(cap(buf)) < fi.Size()+1 {
		buf = make([]byte, 0, fi.Size()+512)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
