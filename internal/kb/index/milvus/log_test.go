package milvus

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	mlog "github.com/milvus-io/milvus/pkg/v2/log"
)

// The client library's log lines (global and per-context loggers) go to
// standard error at the level of RAG_MILVUS_CLIENT_LOG, never to standard
// output where the tools print their summaries. Each case runs in a child
// process, since the library's loggers are process-wide.
func TestClientLogGoesToStderr(t *testing.T) {
	if os.Getenv("RAG_TEST_MILVUS_LOG_CHILD") == "1" {
		routeClientLog()
		mlog.Warn("global-warn-line")
		mlog.Ctx(context.Background()).Warn("ctx-warn-line")
		mlog.Ctx(context.Background()).Info("ctx-info-line")
		return
	}
	for _, tc := range []struct {
		level     string
		want, not []string
	}{
		{"", []string{"global-warn-line", "ctx-warn-line"}, []string{"ctx-info-line"}},
		{"info", []string{"global-warn-line", "ctx-warn-line", "ctx-info-line"}, nil},
		{"off", nil, []string{"global-warn-line", "ctx-warn-line", "ctx-info-line"}},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClientLogGoesToStderr$", "-test.count=1")
		cmd.Env = append(os.Environ(), "RAG_TEST_MILVUS_LOG_CHILD=1", LogLevelEnv+"="+tc.level)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("level %q: %v\n%s", tc.level, err, stderr.String())
		}
		if strings.Contains(stdout.String(), "-line") {
			t.Errorf("level %q: log lines on standard output:\n%s", tc.level, stdout.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("level %q: %s missing from standard error:\n%s", tc.level, w, stderr.String())
			}
		}
		for _, n := range tc.not {
			if strings.Contains(stderr.String(), n) {
				t.Errorf("level %q: %s logged:\n%s", tc.level, n, stderr.String())
			}
		}
	}
}

func TestRedactAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:19530":                         "127.0.0.1:19530",
		"http://root:s3cret@milvus.example:19530": "http://root:xxxxx@milvus.example:19530",
		"https://milvus.example:443":              "https://milvus.example:443",
	} {
		if got := redactAddr(in); got != want || strings.Contains(got, "s3cret") {
			t.Errorf("redactAddr(%q) = %q, want %q", in, got, want)
		}
	}
}
