package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/testkit/eq"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/judge"
)

// tree reads everything under dir: each path (relative, slash-separated,
// "." for dir) maps to "dir MODE", "file MODE CONTENT" or "link TARGET".
// Nil when dir does not exist.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			m[rel] = fmt.Sprintf("dir %v", info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			m[rel] = "link " + target
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("file %v %s", info.Mode().Perm(), data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// leftovers lists the staging and moved-aside directories in parent.
func leftovers(t *testing.T, parent string) []string {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), stagingInfix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// crashOptions snapshots the first version (v1) or the second (v2) of a
// small eval set into dir, deterministically (one lookup at a time, a
// fixed clock), so that two directories given the same history are equal
// byte for byte. v2 changes one result, keeps one, drops the case cert
// and adds the case dns.
func crashOptions(t *testing.T, dir string, v2 bool) Options {
	p := newCanned()
	g := goldenJSON
	if v2 {
		p.excerpt["pool exhausted"] = "the v2 answer about the pool"
		g = strings.Replace(goldenJSON, `{"caseId": "cert", "scenario": "chat", "query": "cert expired", "expectedSources": ["cert"]}`,
			`{"caseId": "dns", "scenario": "chat", "query": "dns timeout", "expectedSources": ["dns"]}`, 1)
	}
	fixed, _ := time.Parse(time.RFC3339, "2026-11-29T12:00:00Z")
	return Options{Cases: golden(t, g), CasesPath: "golden-cases.json", FixturesDir: dir, Lookuper: p,
		Now: func() time.Time { return fixed }, Backoff: time.Millisecond, Concurrency: 1}
}

// setupV1 snapshots v1 into root/fixtures and adds what a fixture
// directory may hold besides fixtures: a README, a .gitkeep, a file
// starting with _, a subdirectory with its own mode, a symbolic link; the
// directory itself gets mode 0750.
func setupV1(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, "fixtures")
	if _, err := Run(context.Background(), crashOptions(t, dir, false)); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"README.md": "hand-written notes", ".gitkeep": "", "_baseline.json": "{}", "notes/todo.txt": "re-check dns"} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("disk.json", filepath.Join(dir, "latest")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(dir, "notes"), 0o750)
	os.Chmod(dir, 0o750)
	return dir
}

// state names a directory's state: missing, old (v1 exactly), new (v2
// exactly) or mixed.
func state(got, want1, want2 map[string]string) string {
	switch {
	case got == nil:
		return "missing"
	case maps.Equal(got, want1):
		return "old"
	case maps.Equal(got, want2):
		return "new"
	}
	return "mixed"
}

const (
	crashAtEnv      = "RAG_SNAPSHOT_TEST_CRASH_AT"
	crashDirEnv     = "RAG_SNAPSHOT_TEST_CRASH_DIR"
	crashNoExchange = "RAG_SNAPSHOT_TEST_NO_EXCHANGE"
)

// TestCrashChild is the process TestCrashDuringSwap kills: it snapshots v2
// into $RAG_SNAPSHOT_TEST_CRASH_DIR and, at the step
// $RAG_SNAPSHOT_TEST_CRASH_AT, kills itself (SIGKILL, as kill -9: no
// deferred cleanup runs, locks go with the process).
func TestCrashChild(t *testing.T) {
	at := os.Getenv(crashAtEnv)
	if at == "" {
		t.Skip("run by TestCrashDuringSwap")
	}
	noExchange = os.Getenv(crashNoExchange) != ""
	crashPoint = func(step string) {
		if step == at {
			p, _ := os.FindProcess(os.Getpid())
			p.Kill()
			select {}
		}
	}
	if _, err := Run(context.Background(), crashOptions(t, os.Getenv(crashDirEnv), true)); err != nil {
		t.Fatal(err)
	}
}

// crash runs TestCrashChild on dir, to be killed at step at; it reports
// whether the child was killed (false: it never reached the step).
func crash(t *testing.T, dir, at string, exchange bool) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashAtEnv+"="+at, crashDirEnv+"="+dir)
	if !exchange {
		cmd.Env = append(cmd.Env, crashNoExchange+"=1")
	}
	out, err := cmd.CombinedOutput()
	if err == nil {
		return false
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && !ee.Exited() {
		return true
	}
	t.Fatalf("crash child: %v\n%s", err, out)
	return false
}

// TestCrashDuringSwap kills rag-snapshot (kill -9) at every step of moving
// a snapshot in, with the atomic exchange and with the two-rename
// fallback. After each kill a reader finds the complete old directory or
// the complete new one (manifest included), or, in the one window of the
// fallback, no directory; never a mix. Recovery (recoverLeftovers, run
// first by the next rag-snapshot) then leaves a complete directory and no
// leftovers, and the next run converges on the new snapshot and says what
// it cleaned up, in one line.
func TestCrashDuringSwap(t *testing.T) {
	refRoot := t.TempDir()
	refDir := setupV1(t, refRoot)
	want1 := tree(t, refDir)
	if _, err := Run(context.Background(), crashOptions(t, refDir, true)); err != nil {
		t.Fatal(err)
	}
	want2 := tree(t, refDir)
	if maps.Equal(want1, want2) {
		t.Fatal("v2 does not change the directory")
	}
	// An uninterrupted run keeps the files that are not fixtures.
	eq.Check(t, "README.md", want2["README.md"], want1["README.md"])
	eq.Check(t, "latest", want2["latest"], "link disk.json")
	eq.Check(t, "notes", want2["notes"], "dir -rwxr-x---")
	eq.Check(t, ".", want2["."], "dir -rwxr-x---")
	if t.Failed() {
		t.FailNow()
	}

	steps := []struct {
		at                string
		exchange          bool
		after, recovered  string
		finishedBySomeone bool
	}{
		{at: "lookups-done", exchange: true, after: "old", recovered: "old"},
		{at: "staged", exchange: true, after: "old", recovered: "old"},
		{at: "exchanged", exchange: true, after: "new", recovered: "new"},
		{at: "lookups-done", after: "old", recovered: "old"},
		{at: "staged", after: "old", recovered: "old"},
		{at: "moved-aside", after: "missing", recovered: "new", finishedBySomeone: true},
		{at: "swapped", after: "new", recovered: "new"},
	}
	note := func(dir string, finished bool) *regexp.Regexp {
		f := ""
		if finished {
			f = "finished moving in the complete snapshot of an interrupted run; "
		}
		return regexp.MustCompile(`^beside ` + regexp.QuoteMeta(dir) + `: ` + f +
			`removed 1 directory left by interrupted runs \(\d+(\.\d)? (bytes|kB)\)$`)
	}
	for _, st := range steps {
		mode := "exchange"
		if !st.exchange {
			mode = "renames"
		}
		t.Run(mode+"/"+st.at, func(t *testing.T) {
			// Killed, then recoverLeftovers on the state the kill left.
			root := t.TempDir()
			dir := setupV1(t, root)
			if got := tree(t, dir); !maps.Equal(got, want1) {
				t.Fatal("setup is not deterministic")
			}
			if !crash(t, dir, st.at, st.exchange) {
				t.Skipf("the run never reached %s (no atomic exchange on this file system?)", st.at)
			}
			if got := state(tree(t, dir), want1, want2); got != st.after {
				t.Fatalf("after a kill at %s a reader finds the directory %s, want %s:\n%v", st.at, got, st.after, tree(t, dir))
			}
			if len(leftovers(t, root)) == 0 {
				t.Fatal("the kill left nothing to recover from")
			}
			tg := &target{dir: dir}
			if err := tg.resolve(); err != nil {
				t.Fatal(err)
			}
			unlock, err := lockParent(tg.parent)
			if err != nil {
				t.Fatal(err)
			}
			msg, err := tg.recoverLeftovers()
			unlock()
			if err != nil {
				t.Fatal(err)
			}
			if got := state(tree(t, dir), want1, want2); got != st.recovered {
				t.Errorf("after recovery the directory is %s, want %s", got, st.recovered)
			}
			if l := leftovers(t, root); len(l) != 0 {
				t.Errorf("left behind: %v", l)
			}
			if !note(dir, st.finishedBySomeone).MatchString(msg) {
				t.Errorf("recovery said %q", msg)
			}

			// Killed again, and simply run again: the next run recovers,
			// converges on v2 and reports the cleanup.
			root = t.TempDir()
			dir = setupV1(t, root)
			if !crash(t, dir, st.at, st.exchange) {
				t.Fatal("the second run was not killed")
			}
			sum, err := Run(context.Background(), crashOptions(t, dir, true))
			if err != nil {
				t.Fatal(err)
			}
			if got := state(tree(t, dir), want1, want2); got != "new" {
				t.Errorf("after the next run the directory is %s, want new", got)
			}
			if l := leftovers(t, root); len(l) != 0 {
				t.Errorf("left behind: %v", l)
			}
			if re := note(dir, st.finishedBySomeone); len(sum.Warnings) != 1 || !re.MatchString(sum.Warnings[0].Error()) {
				t.Errorf("warnings %v, want one matching %s", sum.Warnings, re)
			}
		})
	}
}

// TestStaleStagingRemoved: the staging directories of killed runs
// (including an older rag-snapshot's, which never locked them) are removed
// by the next run, with one line saying so; a live run's (locked) is left
// alone until it is gone; other directories' and other names are never
// touched.
func TestStaleStagingRemoved(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "fixtures")
	opts := baseOptions(t, newCanned(), dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, size int) {
		path := filepath.Join(root, name, "sub", "x.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(".fixtures.staging-123456", 2<<20)       // an older rag-snapshot's
	mk(".fixtures.staging-99999-42", 1<<20)     // a killed run's
	mk(".fixtures.staging-99999-43.old", 1024)  // a killed run's previous directory
	mk(".fixtures.staging-7-7", 10)             // a live run's
	mk(".fixtures-dense.staging-1-1", 10)       // another directory's
	mk(".fixtures.staging-1-2.staging-3-4", 10) // the staging directory of "fixtures.staging-1-2"
	mk(".fixtures.staging-mine", 10)            // not a staging name
	live, err := lockDir(filepath.Join(root, ".fixtures.staging-7-7"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := "beside " + dir + ": removed 3 directories left by interrupted runs (3.0 MB); left 1 staging directory alone: another rag-snapshot is using it"
	if len(sum.Warnings) != 1 || sum.Warnings[0].Error() != want {
		t.Errorf("warnings %v, want %q", sum.Warnings, want)
	}
	if got, want := leftovers(t, root), []string{".fixtures-dense.staging-1-1", ".fixtures.staging-1-2.staging-3-4", ".fixtures.staging-7-7", ".fixtures.staging-mine"}; !slices.Equal(got, want) {
		t.Errorf("left %v, want %v", got, want)
	}

	live.Close()
	sum, err = Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "beside " + dir + ": removed 1 directory left by interrupted runs (10 bytes)"; len(sum.Warnings) != 1 || sum.Warnings[0].Error() != want {
		t.Errorf("warnings %v, want %q", sum.Warnings, want)
	}
	if sum, _ := Run(context.Background(), opts); len(sum.Warnings) != 0 {
		t.Errorf("nothing left to clean, but warnings %v", sum.Warnings)
	}
}

// TestSwapKeepsEverything: the swapped-in directory is a complete copy of
// the final state. Through a symbolic link to the fixture directory (which
// stays a link), with --partial and a failed case: every kept file is the
// same file (hard link: bytes, mode and modification time), the failed
// case keeps its old fixture, the subdirectory, the link and the modes
// are kept, the fixture of a removed case is gone.
func TestSwapKeepsEverything(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "data", "fixtures-real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "fixtures")
	if err := os.Symlink(real, dir); err != nil {
		t.Fatal(err)
	}
	p := newCanned()
	opts := baseOptions(t, p, dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"README.md": "notes", ".gitkeep": "", "_baseline.json": "{}", "notes.json": `["not a fixture"]`, "sub/deeper/todo.txt": "x"} {
		path := filepath.Join(real, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(data), 0o600)
	}
	os.Symlink("disk.json", filepath.Join(real, "latest"))
	os.Chmod(filepath.Join(real, "sub"), 0o700)
	os.Chmod(real, 0o750)
	ageFiles(t, real)
	os.Chtimes(filepath.Join(real, "sub", "deeper", "todo.txt"), time.Unix(1e9, 0), time.Unix(1e9, 0))
	kept := []string{"README.md", ".gitkeep", "_baseline.json", "notes.json", "sub/deeper/todo.txt", "disk.json", "cert.json"}
	before := map[string]os.FileInfo{}
	for _, name := range append(kept, ".") {
		fi, err := os.Lstat(filepath.Join(real, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		before[name] = fi
	}

	// pool changes, cert fails (--partial keeps its old fixture), and a
	// case that is gone from the golden file loses its fixture.
	p.set(func(c *cannedPipeline) {
		c.excerpt["pool exhausted"] = "changed"
		c.fail["cert expired"], c.permanent["cert expired"] = -1, true
	})
	opts.Partial = true
	opts.Cases = golden(t, strings.Replace(goldenJSON, `{"caseId": "disk", "scenario": "aiops", "query": "disk full", "expectedSources": ["disk"]},`, "", 1))
	os.WriteFile(filepath.Join(real, "disk-old.json"), mustRead(t, filepath.Join(real, "disk.json")), 0o644)
	opts.Cases.Cases = append(opts.Cases.Cases, contract.Case{CaseID: "disk", Scenario: "aiops", Query: "disk full", ExpectedSources: []string{"disk"}})
	sum, err := Run(context.Background(), opts)
	var fe *FailedError
	if !errors.As(err, &fe) || !fe.Moved {
		t.Fatalf("err = %v, want a *FailedError with Moved", err)
	}
	eq.Check(t, "summary.Removed", sum.Removed, 1)
	eq.Check(t, "summary.Changed", sum.Changed, 1)
	if fi, err := os.Lstat(dir); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the fixture directory's symbolic link was replaced: %v %v", fi, err)
	}
	if fi, _ := os.Stat(real); os.SameFile(fi, before["."]) {
		t.Error("the directory was not swapped")
	} else if fi.Mode().Perm() != 0o750 {
		t.Errorf("directory mode %v, want 0750", fi.Mode().Perm())
	}
	for _, name := range kept {
		fi, err := os.Lstat(filepath.Join(real, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !os.SameFile(fi, before[name]) {
			t.Errorf("%s is not the same file any more", name)
		}
		if !fi.ModTime().Equal(before[name].ModTime()) {
			t.Errorf("%s modified at %v, want %v as before", name, fi.ModTime(), before[name].ModTime())
		}
		if fi.Mode() != before[name].Mode() {
			t.Errorf("%s mode %v, want %v as before", name, fi.Mode(), before[name].Mode())
		}
	}
	if fi, _ := os.Stat(filepath.Join(real, "sub")); fi.Mode().Perm() != 0o700 {
		t.Errorf("sub mode %v", fi.Mode().Perm())
	}
	if target, err := os.Readlink(filepath.Join(real, "latest")); err != nil || target != "disk.json" {
		t.Errorf("link latest: %q %v", target, err)
	}
	if _, err := os.Stat(filepath.Join(real, "disk-old.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the fixture of a removed case is still there: %v", err)
	}
	if !strings.Contains(string(mustRead(t, filepath.Join(real, "pool.json"))), "changed") {
		t.Error("pool.json was not updated")
	}
	m, _ := contract.ReadManifest(dir)
	if len(m.Failed) != 1 || m.Failed[0].CaseID != "cert" {
		t.Errorf("manifest.Failed = %+v, want only cert", m.Failed)
	}
	eq.Check(t, "manifest.Removed", m.Removed, 1)
	for _, parent := range []string{root, filepath.Join(root, "data")} {
		if l := leftovers(t, parent); len(l) != 0 {
			t.Errorf("left in %s: %v", parent, l)
		}
	}
	if entries, _ := os.ReadDir(real); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), probePrefix) }) {
		t.Error("a probe file was left")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestNoSwapWithoutFixtureChanges: when no fixture changes, the directory
// is not replaced (same directory, same files); a manifest that changes
// alone (a --partial run whose failure is new) is replaced on its own.
func TestNoSwapWithoutFixtureChanges(t *testing.T) {
	p := newCanned()
	dir := filepath.Join(t.TempDir(), "fixtures")
	opts := baseOptions(t, p, dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	fi1, _ := os.Stat(dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	p.set(func(c *cannedPipeline) { c.fail["cert expired"], c.permanent["cert expired"] = -1, true })
	opts.Partial = true
	sum, _ := Run(context.Background(), opts)
	if !sum.ManifestWritten {
		t.Error("the manifest was not rewritten")
	}
	if fi2, _ := os.Stat(dir); !os.SameFile(fi1, fi2) {
		t.Error("the directory was replaced although no fixture changed")
	}
	if m, _ := contract.ReadManifest(dir); len(m.Failed) != 1 {
		t.Errorf("manifest.Failed = %+v, want one failure", m.Failed)
	}
}

// TestSwapRefusedWhenReplaced: when another process replaces the fixture
// directory while the lookups run, nothing is moved in (the comparison
// with the old fixtures was made against another directory).
func TestSwapRefusedWhenReplaced(t *testing.T) {
	p := newCanned()
	root := t.TempDir()
	dir := filepath.Join(root, "fixtures")
	opts := baseOptions(t, p, dir)
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	p.set(func(c *cannedPipeline) { c.excerpt["pool exhausted"] = "changed" })
	opts.Progress = func(done, _ int) {
		if done == 1 {
			os.Rename(dir, filepath.Join(root, "elsewhere"))
			os.Mkdir(dir, 0o755)
		}
	}
	_, err := Run(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), dir+" was replaced by another process while this run looked its cases up; nothing was moved in") {
		t.Errorf("err %v", err)
	}
	if got := tree(t, dir); len(got) != 1 {
		t.Errorf("the replacing directory was touched: %v", got)
	}
	if l := leftovers(t, root); len(l) != 0 {
		t.Errorf("left %v", l)
	}
}

// TestRecoverLeftovers: the states recovery repairs, built by hand.
func TestRecoverLeftovers(t *testing.T) {
	setup := func(t *testing.T) (*target, string) {
		root := t.TempDir()
		dir := filepath.Join(root, "fixtures")
		if _, err := Run(context.Background(), baseOptions(t, newCanned(), dir)); err != nil {
			t.Fatal(err)
		}
		tg := &target{dir: dir}
		if err := tg.resolve(); err != nil {
			t.Fatal(err)
		}
		return tg, root
	}
	recoverIn := func(tg *target) (string, error) {
		unlock, err := lockParent(tg.parent)
		if err != nil {
			return "", err
		}
		defer unlock()
		return tg.recoverLeftovers()
	}

	t.Run("incomplete staging", func(t *testing.T) {
		// The staging directory has no manifest: it is not complete, so the
		// previous directory is put back.
		tg, root := setup(t)
		want := tree(t, tg.dir)
		os.Rename(tg.dir, tg.stagingPath("5-6")+oldSuffix)
		os.MkdirAll(filepath.Join(tg.stagingPath("5-6")), 0o755)
		os.WriteFile(filepath.Join(tg.stagingPath("5-6"), "pool.json"), []byte("{}"), 0o644)
		msg, err := recoverIn(tg)
		if want := "put back the fixture directory an interrupted run had moved aside; removed 1 directory"; err != nil || !strings.Contains(msg, want) {
			t.Errorf("recover: %q, %v; want a message with %q", msg, err, want)
		}
		if got := tree(t, tg.dir); !maps.Equal(got, want) {
			t.Errorf("not put back: %s holds %v, want %v", tg.dir, got, want)
		}
		if l := leftovers(t, root); len(l) != 0 {
			t.Errorf("left in %s: %v", root, l)
		}
	})
	t.Run("moved aside only", func(t *testing.T) {
		tg, root := setup(t)
		want := tree(t, tg.dir)
		os.Rename(tg.dir, tg.stagingPath("5-6")+oldSuffix)
		if msg, err := recoverIn(tg); err != nil || msg != "beside "+tg.dir+": put back the fixture directory an interrupted run had moved aside" {
			t.Errorf("recover: %q, %v; want %q", msg, err, "beside "+tg.dir+": put back the fixture directory an interrupted run had moved aside")
		}
		if got := tree(t, tg.dir); !maps.Equal(got, want) {
			t.Errorf("not put back: %s holds %v, want %v", tg.dir, got, want)
		}
		if l := leftovers(t, root); len(l) != 0 {
			t.Errorf("left in %s: %v", root, l)
		}
	})
	t.Run("several moved aside", func(t *testing.T) {
		tg, _ := setup(t)
		os.Rename(tg.dir, tg.stagingPath("5-6")+oldSuffix)
		os.Mkdir(tg.stagingPath("5-7")+oldSuffix, 0o755)
		if _, err := recoverIn(tg); err == nil || !strings.Contains(err.Error(), "interrupted runs left several earlier versions of it") {
			t.Errorf("err %v", err)
		}
		if _, err := os.Stat(tg.stagingPath("5-6") + oldSuffix); err != nil {
			t.Error("an earlier version was removed")
		}
	})
	t.Run("live swap", func(t *testing.T) {
		tg, _ := setup(t)
		os.Rename(tg.dir, tg.stagingPath("5-6")+oldSuffix)
		os.Mkdir(tg.stagingPath("5-6"), 0o755)
		os.WriteFile(filepath.Join(tg.stagingPath("5-6"), contract.ManifestName), []byte("{}"), 0o644)
		f, err := lockDir(tg.stagingPath("5-6"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := recoverIn(tg); err == nil || !strings.Contains(err.Error(), "while another rag-snapshot is moving") {
			t.Errorf("err %v", err)
		}
	})
}

// TestReadersNeverSeeAMix: while rag-snapshot swaps two versions of a
// fixture directory in and out, again and again, every judgement a reader
// (judge.Run) gets is of one version: all cases pass (v2) or all fail (v1),
// and no fixture disagrees with the manifest read with it. With the
// atomic exchange a reader never fails; with the two-rename fallback it
// may find no directory in the window between the renames.
func TestReadersNeverSeeAMix(t *testing.T) {
	g := golden(t, strings.ReplaceAll(goldenJSON, `"expectedSources"`, `"expectedKeywords": ["v2"], "expectedSources"`))
	for _, exch := range []bool{true, false} {
		t.Run(fmt.Sprintf("exchange=%v", exch), func(t *testing.T) {
			noExchange = !exch
			t.Cleanup(func() { noExchange = false })
			p := newCanned()
			dir := filepath.Join(t.TempDir(), "fixtures")
			opts := baseOptions(t, p, dir)
			opts.Cases = g
			set := func(v int) {
				p.set(func(c *cannedPipeline) {
					c.version = strconv.Itoa(v)
					for _, q := range []string{"disk full", "pool exhausted", "cert expired"} {
						c.excerpt[q] = fmt.Sprintf("v%d answer to %s", v, q)
					}
				})
			}
			set(1)
			if _, err := Run(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			var reads, missing atomic.Int64
			done := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
					}
					res, err := judge.Run(g, dir, judge.Options{Workers: 2})
					if err != nil {
						if exch || !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "was replaced") {
							t.Errorf("reader: %v", err)
						}
						missing.Add(1)
						continue
					}
					reads.Add(1)
					for _, c := range res.Cases {
						if c.Status != res.Cases[0].Status {
							t.Errorf("a reader saw a mix: %s %s, %s %s", res.Cases[0].Case.CaseID, res.Cases[0].Status, c.Case.CaseID, c.Status)
						}
					}
					if len(res.Warnings) != 0 {
						t.Errorf("a reader saw a mix: %v", res.Warnings)
					}
				}
			})
			for i := range 30 {
				set(2 - i%2)
				if _, err := Run(context.Background(), opts); err != nil {
					t.Error(err)
				}
			}
			close(done)
			wg.Wait()
			if reads.Load() == 0 {
				t.Error("no reader ever got a judgement")
			}
			t.Logf("%d judgements, %d without a directory", reads.Load(), missing.Load())
		})
	}
}
