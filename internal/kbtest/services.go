package kbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"
	"time"

	drv "github.com/go-sql-driver/mysql"
)

// ServiceEnv returns the environment variable name that locates a service
// (RAG_MYSQL_DSN, RAG_MILVUS_ADDR, RAG_REDIS_ADDR). Without it the test is
// skipped with a message saying how to start the services, or fails when
// RAG_REQUIRE_SERVICES=1, so CI cannot skip integration tests silently.
func ServiceEnv(t testing.TB, name string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	const how = "run `make services && . .ragbaseline/services.env` to start MariaDB, Redis and Milvus Lite"
	if os.Getenv("RAG_REQUIRE_SERVICES") == "1" {
		t.Fatalf("%s is not set and RAG_REQUIRE_SERVICES=1: %s", name, how)
	}
	t.Skipf("%s is not set; %s", name, how)
	return ""
}

// RandomName returns prefix followed by 12 random hex digits.
func RandomName(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// FreshMySQL creates an empty database ragbaseline_test_<random> on the
// server of RAG_MYSQL_DSN, drops it when the test ends, and returns a DSN
// naming it.
func FreshMySQL(t testing.TB) string {
	t.Helper()
	cfg, err := drv.ParseDSN(ServiceEnv(t, "RAG_MYSQL_DSN"))
	if err != nil {
		t.Fatalf("RAG_MYSQL_DSN: %v", err)
	}
	admin := cfg.Clone()
	admin.DBName = ""
	db, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	name := RandomName("ragbaseline_test_")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The name is made of hex digits here; identifiers cannot be bound.
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		db.Close()
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
		db.Close()
	})
	cfg.DBName = name
	return cfg.FormatDSN()
}
