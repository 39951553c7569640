package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestTimestampOnly(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "fixtures")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		for _, kv := range os.Environ() { // the test's own repository, even under a git hook
			if !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") && !strings.HasPrefix(kv, "GIT_INDEX_FILE=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fixture := func(at, latency, source string) string {
		return "{\n  \"caseId\": \"c\",\n  \"retrievedAt\": \"" + at + "\",\n  \"attempts\": [\n    {\n      \"latencyMs\": " + latency + "\n    }\n  ],\n  \"source\": \"" + source + "\"\n}\n"
	}
	manifest := func(started string, changed string) string {
		return "{\n  \"started\": \"" + started + "\",\n  \"finished\": \"" + started + "\",\n  \"written\": 1,\n  \"changed\": " + changed + ",\n  \"unchanged\": 0,\n  \"removed\": 0\n}\n"
	}
	ctx := context.Background()
	if timestampOnly(ctx, filepath.Join(root, "nowhere")) {
		t.Error("a missing directory: true")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write("c.json", fixture("2026-01-01T00:00:00Z", "3", "a"))
	if timestampOnly(ctx, dir) {
		t.Error("outside a git work tree: true")
	}
	git("init", "-q")
	write("_snapshot.json", manifest("2026-01-01T00:00:00Z", "1"))
	git("add", ".")
	git("commit", "-qm", "fixtures")
	if timestampOnly(ctx, dir) {
		t.Error("nothing changed: true")
	}
	write("c.json", fixture("2026-02-02T00:00:00Z", "7", "a"))
	write("_snapshot.json", manifest("2026-02-02T00:00:00Z", "0"))
	if !timestampOnly(ctx, dir) {
		t.Error("only retrievedAt, latencyMs and the manifest's run fields changed: false")
	}
	t.Setenv("GIT_DIR", filepath.Join(root, "elsewhere")) // as a git hook would have it
	if !timestampOnly(ctx, dir) {
		t.Error("with GIT_DIR set elsewhere: false")
	}
	os.Unsetenv("GIT_DIR")
	write("c.json", fixture("2026-02-02T00:00:00Z", "7", "b"))
	if timestampOnly(ctx, dir) {
		t.Error("a result changed: true")
	}
	write("c.json", fixture("2026-02-02T00:00:00Z", "7", "a"))
	write("d.json", fixture("2026-02-02T00:00:00Z", "7", "a"))
	if timestampOnly(ctx, dir) {
		t.Error("a new fixture: true")
	}
	if err := os.Remove(filepath.Join(dir, "d.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "_snapshot.json")); err != nil {
		t.Fatal(err)
	}
	if timestampOnly(ctx, dir) {
		t.Error("a deleted file: true")
	}
}
