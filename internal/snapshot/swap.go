package snapshot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/contract"
	"github.com/ragbaseline/ragbaseline/internal/fslock"
)

// Names beside a fixture directory DIR, in its parent directory:
//
//	.DIR.staging-PID-RAND       a run's staging directory, where the new
//	                            state of DIR is built, and on which the run
//	                            holds an flock for as long as it lives
//	.DIR.staging-PID-RAND.old   DIR moved aside during a two-rename swap
//
// .DIR.staging-RAND (no PID) is the staging directory of an older
// rag-snapshot, which never locked it. Every one of these names matches the
// repository's .gitignore pattern .*.staging-*.
const (
	stagingInfix = contract.StagingInfix
	oldSuffix    = contract.MovedAsideSuffix
	probePrefix  = ".rag-snapshot-probe-"
)

var (
	errExchangeUnsupported = errors.New("atomic directory exchange is not supported here")
)

// Test hooks.
var (
	// crashPoint, when set, is called at each step of moving a snapshot in
	// with the step's name. The crash tests kill the process there.
	crashPoint func(step string)
	// noExchange makes swaps use the two-rename fallback even where an
	// atomic exchange is available.
	noExchange bool
)

func reach(step string) {
	if crashPoint != nil {
		crashPoint(step)
	}
}

// parentLockWait bounds the wait for another run's swap in the same parent
// directory. A swap takes milliseconds, so a run holding the lock for
// longer is stuck.
var parentLockWait = 30 * time.Second

// resolve sets t.real, t.parent and t.base: the directory that is swapped
// is the one a symbolic link at t.dir points to, so that the link stays a
// link and the staging directory is on the fixture directory's file system.
func (t *target) resolve() error {
	abs, err := filepath.Abs(t.dir)
	if err != nil {
		return fmt.Errorf("fixture directory %s: %w", t.dir, err)
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if abs, err = filepath.EvalSymlinks(abs); err != nil {
			return fmt.Errorf("fixture directory %s is a symbolic link that cannot be followed: %w", t.dir, err)
		}
	}
	t.real, t.parent, t.base = abs, filepath.Dir(abs), filepath.Base(abs)
	if t.parent == abs {
		return fmt.Errorf("fixture directory %s cannot be a file system root", t.dir)
	}
	return nil
}

func (t *target) stagingPath(token string) string {
	return filepath.Join(t.parent, "."+t.base+stagingInfix+token)
}

// leftoverToken parses a name in the parent directory: a staging directory
// of base (token PID-RAND, or RAND for an older rag-snapshot's), or a
// directory moved aside (old).
func leftoverToken(name, base string) (token string, old, ok bool) {
	rest, found := strings.CutPrefix(name, "."+base+stagingInfix)
	if !found {
		return "", false, false
	}
	rest, old = strings.CutSuffix(rest, oldSuffix)
	a, b, two := strings.Cut(rest, "-")
	if !digits(a) || two && !digits(b) {
		return "", false, false
	}
	return rest, old, true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// lockParent takes the lock that every rag-snapshot holds while it
// recovers, cleans up beside or swaps a directory of parent: an flock on
// parent itself, so no lock file is left behind, and a killed run's lock
// goes with it. It waits up to parentLockWait for another run's swap to
// end. Where the directory cannot be opened or locks are not supported it
// goes on unlocked.
func lockParent(parent string) (unlock func(), err error) {
	f, err := os.Open(parent)
	if err != nil {
		return func() {}, nil
	}
	deadline := time.Now().Add(parentLockWait)
	for {
		err := fslock.TryLock(f, false)
		switch {
		case err == nil:
			return func() { f.Close() }, nil
		case errors.Is(err, fslock.ErrBusy) && time.Now().Before(deadline):
			time.Sleep(10 * time.Millisecond)
		case errors.Is(err, fslock.ErrBusy):
			f.Close()
			return nil, fmt.Errorf("another rag-snapshot has been moving fixtures into %s for %s; try again when it is done", parent, parentLockWait)
		default:
			f.Close()
			return func() {}, nil
		}
	}
}

// createStaging creates and locks t's staging directory beside t.real
// (the parent lock held).
func (t *target) createStaging() error {
	prefix := "." + t.base + stagingInfix + strconv.Itoa(os.Getpid()) + "-"
	for tries := 0; ; tries++ {
		path := filepath.Join(t.parent, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := os.Mkdir(path, 0o755)
		if errors.Is(err, fs.ErrExist) && tries < 1000 {
			continue
		}
		if err != nil {
			return fmt.Errorf("create staging directory beside %s: %w", t.dir, err)
		}
		f, err := os.Open(path)
		if err == nil {
			if err = fslock.TryLock(f, false); errors.Is(err, fslock.ErrUnsupported) {
				err = nil
			}
			if err != nil {
				f.Close()
			}
		}
		if err != nil {
			os.Remove(path)
			return fmt.Errorf("lock staging directory %s: %w", path, err)
		}
		t.staging, t.stagingLock = path, f
		return nil
	}
}

// cleanup removes what is left of t's staging directory and releases its
// lock.
func (t *target) cleanup() {
	if t.staging != "" {
		os.RemoveAll(t.staging)
		t.staging = ""
	}
	if t.stagingLock != nil {
		t.stagingLock.Close()
		t.stagingLock = nil
	}
}

type leftover struct{ staging, old bool }

// recoverLeftovers, called with the parent lock held, brings t.real back
// from any state an interrupted run left it in, and removes the
// directories killed runs left beside it. It returns a one-line account of
// what it did ("" when nothing).
//
// Only one state needs repair: a run killed between the two renames of the
// fallback swap leaves no t.real, the previous directory at
// .DIR.staging-T.old and its complete new state at .DIR.staging-T. The swap
// is then finished (the staging directory was complete, manifest included,
// before the old directory was moved aside). When a .old directory is there
// without its staging directory (and t.real is missing), it is put back:
// nothing is ever deleted that is the only copy of a fixture directory.
//
// A staging directory is removed only when its lock can be taken: its run
// is gone. One another live run holds is left alone, and so is every one
// where locks are not supported. A .old directory beside an existing
// t.real is the previous state of a completed swap: it is removed.
func (t *target) recoverLeftovers() (string, error) {
	entries, err := os.ReadDir(t.parent)
	if err != nil {
		return "", nil
	}
	found := map[string]*leftover{}
	var tokens []string
	for _, e := range entries {
		tok, old, ok := leftoverToken(e.Name(), t.base)
		if !ok || !e.IsDir() {
			continue
		}
		lo := found[tok]
		if lo == nil {
			lo = &leftover{}
			found[tok] = lo
			tokens = append(tokens, tok)
		}
		if old {
			lo.old = true
		} else {
			lo.staging = true
		}
	}
	if len(tokens) == 0 {
		return "", nil
	}
	sort.Strings(tokens)

	var notes []string
	if _, err := os.Lstat(t.real); errors.Is(err, fs.ErrNotExist) {
		var olds, oldToks []string
		for _, tok := range tokens {
			if found[tok].old {
				olds = append(olds, t.stagingPath(tok)+oldSuffix)
				oldToks = append(oldToks, tok)
			}
		}
		if len(olds) > 1 {
			return "", fmt.Errorf("%s is missing and interrupted runs left several earlier versions of it: %s; move the right one back to %s by hand",
				t.dir, strings.Join(olds, ", "), t.dir)
		}
		if len(olds) == 1 {
			tok := oldToks[0]
			lo := found[tok]
			staging := t.stagingPath(tok)
			complete := false
			if lo.staging {
				f, err := lockDir(staging)
				if errors.Is(err, fslock.ErrBusy) {
					return "", fmt.Errorf("%s is missing while another rag-snapshot is moving %s into its place; try again when it is done", t.dir, staging)
				}
				if f != nil {
					f.Close() // the parent lock keeps other runs out
				}
				_, err = os.Stat(filepath.Join(staging, contract.ManifestName))
				complete = err == nil
			}
			if complete {
				if err := os.Rename(staging, t.real); err != nil {
					return "", fmt.Errorf("finish moving the snapshot of an interrupted run into %s: %w", t.dir, err)
				}
				lo.staging = false
				notes = append(notes, "finished moving in the complete snapshot of an interrupted run")
			} else {
				if err := os.Rename(olds[0], t.real); err != nil {
					return "", fmt.Errorf("put back %s, which an interrupted run had moved to %s: %w", t.dir, olds[0], err)
				}
				lo.old = false
				notes = append(notes, "put back the fixture directory an interrupted run had moved aside")
			}
			syncDir(t.parent)
		}
	}

	removed, inUse, unknown := 0, 0, 0
	var size int64
	var failures []string
	remove := func(path string) {
		n := diskUsage(path)
		if err := os.RemoveAll(path); err != nil {
			failures = append(failures, fmt.Sprintf("could not remove %s: %v", path, err))
			return
		}
		removed++
		size += n
	}
	for _, tok := range tokens {
		lo := found[tok]
		if lo.old {
			remove(t.stagingPath(tok) + oldSuffix)
		}
		if !lo.staging {
			continue
		}
		path := t.stagingPath(tok)
		f, err := lockDir(path)
		switch {
		case err == nil:
			remove(path)
			f.Close()
		case errors.Is(err, fslock.ErrBusy):
			inUse++
		default:
			unknown++
		}
	}
	if removed > 0 {
		notes = append(notes, fmt.Sprintf("removed %d %s left by interrupted runs (%s)", removed, plural(removed, "directory", "directories"), humanBytes(size)))
	}
	if inUse > 0 {
		notes = append(notes, fmt.Sprintf("left %d staging %s alone: another rag-snapshot is using it", inUse, plural(inUse, "directory", "directories")))
	}
	if unknown > 0 {
		notes = append(notes, fmt.Sprintf("left %d staging %s alone: without file locks here, a live run's cannot be told from a dead one's", unknown, plural(unknown, "directory", "directories")))
	}
	notes = append(notes, failures...)
	if len(notes) == 0 {
		return "", nil
	}
	return "beside " + t.dir + ": " + strings.Join(notes, "; "), nil
}

// lockDir locks the directory path without waiting. The returned file
// holds the lock until it is closed. The error is fslock.ErrBusy when another
// run holds it.
func lockDir(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if err := fslock.TryLock(f, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// diskUsage sums the sizes of the regular files under path.
func diskUsage(path string) int64 {
	var n int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// carryOver gives dst, the staging directory that already holds the new
// fixtures, every entry of src (listed in entries) that the new state
// keeps. That is every entry but those skip names and those dst already
// has: a new fixture, and on a case-insensitive file system one whose name
// differs in case too.
func carryOver(src string, entries []os.DirEntry, dst string, skip func(name string) bool) error {
	for _, e := range entries {
		name := e.Name()
		if skip(name) {
			continue
		}
		d := filepath.Join(dst, name)
		if _, err := os.Lstat(d); err == nil {
			continue
		}
		if err := carry(filepath.Join(src, name), d); err != nil {
			return err
		}
	}
	return nil
}

// carry gives dst the entry src. A regular file is hard-linked, so it
// stays the same file, byte for byte, modification time included. Where
// the file system refuses the link it is copied with its mode and
// modification time. A directory is rebuilt with its mode and its entries
// carried in turn. A symbolic link is recreated. Anything else, such as a
// FIFO, a socket or a device, is an error, before anything was moved.
func carry(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch mode := fi.Mode(); {
	case mode.IsRegular():
		if err := os.Link(src, dst); err == nil {
			return nil
		}
		return copyFile(src, dst, fi)
	case mode.IsDir():
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := carry(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
		}
		syncDir(dst)
		return os.Chmod(dst, mode&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	}
	return fmt.Errorf("%s is not a regular file, a directory or a symbolic link; move it out of the fixture directory", src)
}

func copyFile(src, dst string, fi fs.FileInfo) (err error) {
	// Opened as a fixture is: a named pipe swapped in meanwhile is refused,
	// not waited on.
	in, _, err := contract.OpenFile(src, false)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err = io.Copy(out, in); err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chtimes(dst, time.Time{}, fi.ModTime())
}

// swap puts the complete staging directory in t.real's place (the parent
// lock held), and removes the previous directory.
//
// Where the kernel and file system can (Linux renameat2 RENAME_EXCHANGE on
// ext4, xfs, btrfs, tmpfs, …), the two directories are exchanged in one
// atomic step: at every instant t.real is either the complete previous
// directory or the complete new one. Elsewhere it is two renames, t.real
// to .DIR.staging-T.old, then the staging directory to t.real: between them
// t.real does not exist (a reader gets "no such file or directory", never a
// mix), and a run killed there is finished by the next run
// (recoverLeftovers). Without a previous directory it is one rename.
func (t *target) swap(exists bool) error {
	reach("staged")
	if !exists {
		if err := os.Rename(t.staging, t.real); err != nil {
			return fmt.Errorf("move the new fixture directory into place: %w", err)
		}
		t.staging = ""
		syncDir(t.parent)
		return nil
	}
	if !noExchange {
		err := exchange(t.staging, t.real)
		if err == nil {
			reach("exchanged")
			syncDir(t.parent)
			// The staging name now holds the previous directory.
			t.removePrevious(t.staging)
			t.staging = ""
			return nil
		}
		if !errors.Is(err, errExchangeUnsupported) {
			return fmt.Errorf("swap %s with its staging directory: %w", t.dir, err)
		}
	}
	old := t.staging + oldSuffix
	if err := os.Rename(t.real, old); err != nil {
		return fmt.Errorf("move the previous fixture directory aside: %w", err)
	}
	reach("moved-aside")
	if err := os.Rename(t.staging, t.real); err != nil {
		if rerr := os.Rename(old, t.real); rerr != nil {
			return fmt.Errorf("move the new fixture directory into place: %w; putting the previous one back failed too (%v): the next rag-snapshot run restores %s", err, rerr, t.dir)
		}
		return fmt.Errorf("move the new fixture directory into place: %w (the previous one was put back)", err)
	}
	t.staging = ""
	reach("swapped")
	syncDir(t.parent)
	t.removePrevious(old)
	return nil
}

func (t *target) removePrevious(path string) {
	if err := os.RemoveAll(path); err != nil {
		t.warnings = append(t.warnings, fmt.Errorf("could not remove the previous fixture directory, now at %s (the next run removes it): %v", path, err))
	}
}
