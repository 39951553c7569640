package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"time"
)

// perRunFields are the fixture and manifest fields that change on every
// run even when retrieval does not: a fixture's retrievedAt and its
// attempts' latencyMs, and the manifest's run times and counts.
const perRunFields = `^[[:space:]]*"(retrievedAt|latencyMs|started|finished|written|changed|unchanged|removed)": `

// timestampOnly reports whether dir, inside a git work tree, differs from
// the committed version only in perRunFields. That happens after a
// retrieval change was tried and undone: the fixtures hold the same
// results as the commit, with newer timestamps. It is a hint, never an
// error. Without git, outside a work tree, with nothing changed or with a
// real change, it is false.
func timestampOnly(ctx context.Context, dir string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	command := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-C", dir}, args...)...)
		// The directory's own repository, whatever a calling hook set, and
		// no wait for a helper process that keeps the pipe open.
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") && !strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "GIT_OPTIONAL_LOCKS=0")
		cmd.WaitDelay = time.Second
		return cmd
	}
	git := func(args ...string) (int, error) {
		err := command(args...).Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		if err != nil {
			return -1, err
		}
		return 0, nil
	}
	// New or deleted fixtures are real changes. Only modified tracked files
	// can be timestamp-only.
	out, err := command("status", "--porcelain", "--untracked-files=all", "--", ".").Output()
	if err != nil || len(out) == 0 {
		return false
	}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if len(line) < 2 || line[0] != ' ' || line[1] != 'M' {
			return false
		}
	}
	if code, err := git("diff", "--quiet", "-I", perRunFields, "--", "."); err != nil || code != 0 {
		return false
	}
	return true
}
