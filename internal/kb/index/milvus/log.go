package milvus

import (
	"fmt"
	"os"
	"strings"
	"sync"

	mlog "github.com/milvus-io/milvus/pkg/v2/log"
)

// LogLevelEnv names the environment variable that sets the level of the
// Milvus client library's own log lines, such as retries and server
// warnings. The level is debug, info, warn, error, or off. warn is the
// default.
const LogLevelEnv = "RAG_MILVUS_CLIENT_LOG"

var logOnce sync.Once

// routeClientLog sends the Milvus client library's log to standard error
// at the level of LogLevelEnv. Left alone, the library logs to standard
// output, mixed into the summaries the tools print there. Its loggers
// (global and per-context ones alike) are only replaced as a whole by
// log.InitLogger, whose outputs are standard output or a file: the file
// is the process's standard error, /dev/stderr. It runs once, at the first
// Open.
func routeClientLog() {
	logOnce.Do(func() {
		level := strings.ToLower(strings.TrimSpace(os.Getenv(LogLevelEnv)))
		switch level {
		case "":
			level = "warn"
		case "off", "none":
			level = "fatal" // the client never logs fatal
		}
		cfg := &mlog.Config{Level: level, DisableErrorVerbose: true, DisableStacktrace: true}
		if _, err := os.Stat("/dev/stderr"); err == nil {
			// Never rotated: the size limit is far beyond any run.
			cfg.File = mlog.FileLogConfig{RootPath: "/dev", Filename: "stderr", MaxSize: 1 << 30}
		}
		// Without /dev/stderr (Windows) there is no output: the lines
		// are dropped rather than mixed into standard output.
		l, p, err := mlog.InitLogger(cfg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "milvus: %s=%q: %v (using warn)\n", LogLevelEnv, level, err)
			cfg.Level = "warn"
			if l, p, err = mlog.InitLogger(cfg); err != nil {
				return
			}
		}
		mlog.ReplaceGlobals(l, p)
	})
}
