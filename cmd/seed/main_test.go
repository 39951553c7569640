package main

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ragbaseline/ragbaseline/internal/index/milvus"
	"github.com/ragbaseline/ragbaseline/internal/kbtest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rag-seed": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScript runs testdata/script/*.txtar against the embedded store.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Setup: func(env *testscript.Env) error {
		for _, k := range []string{"RAG_STORE", "RAG_DATA_DIR", "RAG_EMBEDDER", "RAG_EMBED_DIM", "RAG_MILVUS_COLLECTION"} {
			env.Setenv(k, "")
		}
		return nil
	}})
}

// TestScriptServer runs testdata/server/*.txtar against MariaDB, Redis and
// Milvus (make services), each test with its own database and collection.
func TestScriptServer(t *testing.T) {
	addr := kbtest.ServiceEnv(t, "RAG_MILVUS_ADDR")
	redis := kbtest.ServiceEnv(t, "RAG_REDIS_ADDR")
	testscript.Run(t, testscript.Params{Dir: "testdata/server", Setup: func(env *testscript.Env) error {
		env.Setenv("RAG_STORE", "server")
		env.Setenv("RAG_MYSQL_DSN", kbtest.FreshMySQL(env.T().(testing.TB)))
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
