package main

import (
	"context"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ragbaseline/ragbaseline/internal/cmdutil"
	"github.com/ragbaseline/ragbaseline/internal/kb/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/testkit/kbtest"
	"github.com/ragbaseline/ragbaseline/internal/testkit/scripttest"
)

// update rewrites what the tests compare against from what rag-seed does
// now: the scripts' cmp files (testscript's UpdateScripts) and the manual
// in doc.go (TestManual). Review the diff before committing it.
var update = flag.Bool("update", false, "rewrite the scripts' expected files and the manual from the binary's output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"rag-seed": main})
}

// run runs rag-seed in this process and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) cmdutil.ExitCode {
	f := &cmdutil.Streams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr}
	return tool.Run(ctx, tool.Command(f, version), args)
}

// cmds are the scripts' commands of package scripttest: "status N" pins
// an exit status, and "mask" writes an output with its elapsed time masked,
// so that cmp compares it whole.
var cmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){"status": scripttest.Status, "mask": scripttest.Mask}

// ragEnv are the variables of config.Defaults. The tests clear them, so
// that a sourced services.env does not switch them to the server stack.
var ragEnv = []string{"RAG_STORE", "RAG_DATA_DIR", "RAG_EMBEDDER", "RAG_EMBED_DIM", "RAG_EMBED_MODEL", "RAG_EMBED_INPUT_TYPE",
	"RAG_MYSQL_DSN", "RAG_MILVUS_ADDR", "RAG_MILVUS_COLLECTION", "RAG_REDIS_ADDR", "OPENAI_BASE_URL", "OPENAI_API_KEY"}

// TestScript runs testdata/script/*.txtar against the embedded store.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Cmds: cmds, UpdateScripts: *update, RequireExplicitExec: true, Setup: func(env *testscript.Env) error {
		for _, k := range []string{"RAG_STORE", "RAG_DATA_DIR", "RAG_EMBEDDER", "RAG_EMBED_DIM", "RAG_MILVUS_COLLECTION"} {
			env.Setenv(k, "")
		}
		// The CLI's behaviour is tested with the lexical embedder, which
		// needs no model. A script switches to the default with env
		// RAG_EMBEDDER=.
		env.Setenv("RAG_EMBEDDER", "local")
		env.Setenv("RAG_MODEL_DIR", kbtest.ModelBaseIfPresent())
		return nil
	}})
}

// TestScriptServer runs testdata/server/*.txtar against MariaDB, Redis and
// Milvus (make services), each test with its own database and collection.
func TestScriptServer(t *testing.T) {
	addr := kbtest.ServiceEnv(t, "RAG_MILVUS_ADDR")
	redis := kbtest.ServiceEnv(t, "RAG_REDIS_ADDR")
	testscript.Run(t, testscript.Params{Dir: "testdata/server", Cmds: cmds, UpdateScripts: *update, RequireExplicitExec: true, Setup: func(env *testscript.Env) error {
		env.Setenv("RAG_STORE", "server")
		env.Setenv("RAG_EMBEDDER", "local")
		dsn := kbtest.FreshMySQL(env.T().(testing.TB))
		env.Setenv("RAG_MYSQL_DSN", dsn)
		if cfg, err := mysqldrv.ParseDSN(dsn); err == nil {
			env.Setenv("MYSQL_PASSWORD", cfg.Passwd)
			env.Setenv("MYSQL_USER", cfg.User)
			env.Setenv("MYSQL_ADDR", cfg.Addr)
			env.Setenv("MYSQL_DB", cfg.DBName)
		}
		env.Setenv("RAG_MILVUS_ADDR", addr)
		env.Setenv("RAG_REDIS_ADDR", redis)
		coll := kbtest.RandomName("t_")
		env.Setenv("RAG_MILVUS_COLLECTION", coll)
		env.Defer(func() {
			ix, err := milvus.Open(context.Background(), milvus.Config{Addr: addr, Collection: coll})
			if err == nil {
				ix.Drop(context.Background())
				ix.Close()
			}
		})
		return nil
	}})
}

// stackFlags returns the rag-seed flags of each stack to test: the embedded
// store and, with the services, the server stack on a fresh database and
// collection (dropped when the test ends).
func stackFlags(t *testing.T) map[string][]string {
	stacks := map[string][]string{"embedded": {"--store", "embedded"}}
	if os.Getenv("RAG_MILVUS_ADDR") != "" || os.Getenv("RAG_REQUIRE_SERVICES") == "1" {
		coll := kbtest.RandomName("t_")
		stacks["server"] = []string{"--store", "server", "--mysql-dsn", kbtest.FreshMySQL(t),
			"--milvus-addr", kbtest.ServiceEnv(t, "RAG_MILVUS_ADDR"), "--milvus-collection", coll}
		t.Cleanup(func() {
			if ix, err := milvus.Open(context.Background(), milvus.Config{Addr: os.Getenv("RAG_MILVUS_ADDR"), Collection: coll}); err == nil {
				ix.Drop(context.Background())
				ix.Close()
			}
		})
	}
	return stacks
}

// TestShippedCorpus seeds eval/rag-retrieval/seed-docs, the corpus rag-seed
// loads by default, with the default embedder, twice on the embedded store
// and, with the services, on the server stack. Without the model it skips,
// naming make models, or fails under RAG_REQUIRE_MODEL=1.
func TestShippedCorpus(t *testing.T) {
	kbtest.ModelBase(t)
	for name, flags := range stackFlags(t) {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"--docs", "../../eval/rag-retrieval/seed-docs", "--data-dir", t.TempDir()}, flags...)
			for i, want := range []string{" 0 updated, 0 unchanged, 0 pruned", " 0 added, 0 updated, "} {
				var out, errb strings.Builder
				if code := run(context.Background(), args, &out, &errb); code != 0 {
					t.Fatalf("run %d: exit %d: %s", i+1, code, errb.String())
				}
				if !strings.Contains(out.String(), want) {
					t.Errorf("run %d: %q lacks %q", i+1, out.String(), want)
				}
			}
		})
	}
}
