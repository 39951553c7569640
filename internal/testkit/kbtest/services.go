package kbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	drv "github.com/go-sql-driver/mysql"

	"github.com/ragbaseline/ragbaseline/internal/kb/embed/usem3"
)

// ServiceEnv returns the environment variable name that locates a service
// (RAG_MYSQL_DSN, RAG_MILVUS_ADDR, RAG_REDIS_ADDR). Without it the test is
// skipped with a message saying how to start the services, or fails when
// RAG_REQUIRE_SERVICES=1, so CI cannot skip integration tests silently.
func ServiceEnv(t testing.TB, name string) string {
	t.Helper()
	return RequiredEnv(t, name, "RAG_REQUIRE_SERVICES", "run `make services && . .ragbaseline/services.env` to start MariaDB, Redis and Milvus Lite")
}

// RequiredEnv returns the value of the environment variable name. When it
// is not set the test is skipped, saying how to set it with how. It fails
// instead when the variable require is 1, as in CI, so a test cannot be
// skipped silently.
func RequiredEnv(t testing.TB, name, require, how string) string {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	if os.Getenv(require) == "1" {
		t.Fatalf("%s is not set and %s=1: %s", name, require, how)
	}
	t.Skipf("%s is not set; %s", name, how)
	return ""
}

// ModelBase returns the directory to pass as RAG_MODEL_DIR so that a child
// process finds the model `make models` installed. Such a child is a
// testscript, whose HOME is not the user's. The directory is the parent of
// usem3.ModelDir(). Without the model the test is skipped, saying how to
// install it. It fails instead when RAG_REQUIRE_MODEL=1, as in CI, so model
// tests cannot be skipped silently.
func ModelBase(t testing.TB) string {
	t.Helper()
	if base := ModelBaseIfPresent(); base != "" {
		return base
	}
	const how = "the use-multilingual-v3 model is not installed: run `make models`"
	if os.Getenv("RAG_REQUIRE_MODEL") == "1" {
		t.Fatalf("%s (RAG_REQUIRE_MODEL=1)", how)
	}
	t.Skip(how)
	return ""
}

// ModelBaseIfPresent is ModelBase without skipping: "" when the model is
// not installed.
func ModelBaseIfPresent() string {
	dir, err := usem3.ModelDir()
	if err != nil {
		return ""
	}
	if _, err := os.Stat(filepath.Join(dir, usem3.WeightsFile)); err != nil {
		return ""
	}
	return filepath.Dir(dir)
}

// RandomName returns prefix followed by the Unix time in seconds, '_' and
// 12 random hex digits: "t_1764590000_9f8e7d6c5b4a". The time lets Sweep
// tell the leftovers of killed test runs from databases and collections
// that are in use.
func RandomName(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + strconv.FormatInt(time.Now().Unix(), 10) + "_" + hex.EncodeToString(b[:])
}

// testName matches the names RandomName gives with the prefixes the tests
// use, "ragbaseline_test_", "t_" and "t_lookup_". It also matches the names
// of earlier builds, which had no time, such as "t_9f8e7d6c5b4a".
var testName = regexp.MustCompile(`^(?:ragbaseline_test_|t_|t_lookup_)(?:([0-9]{10})_)?[0-9a-f]{12}$`)

// Stale reports whether name is a test database or collection left over
// for longer than maxAge at now: one made by RandomName more than maxAge
// ago, or one of an earlier build (no time in its name). Other names are
// never stale.
func Stale(name string, maxAge time.Duration, now time.Time) bool {
	m := testName.FindStringSubmatch(name)
	if m == nil {
		return false
	}
	if m[1] == "" {
		return true
	}
	sec, err := strconv.ParseInt(m[1], 10, 64)
	return err == nil && now.Sub(time.Unix(sec, 0)) > maxAge
}

// SweepAge is how old a test database or collection must be before Sweep
// removes it: far longer than any test run.
const SweepAge = time.Hour

// SweepMySQL drops the test databases (ragbaseline_test_*) of the server
// of dsn that are Stale: integration tests drop their own when they end,
// so these are the leftovers of killed runs. It returns the names dropped.
func SweepMySQL(ctx context.Context, dsn string, maxAge time.Duration) ([]string, error) {
	cfg, err := drv.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SHOW DATABASES LIKE 'ragbaseline\_test\_%'`)
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		if Stale(n, maxAge, time.Now()) {
			names = append(names, n)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var dropped []string
	for _, n := range names {
		// n matched testName: hex digits, digits and '_' only.
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+n+"`"); err != nil {
			return dropped, fmt.Errorf("drop %s: %w", n, err)
		}
		dropped = append(dropped, n)
	}
	return dropped, nil
}

var sweepOnce sync.Once

// FreshMySQL creates an empty database ragbaseline_test_<random> on the
// server of RAG_MYSQL_DSN, drops it when the test ends, and returns a DSN
// naming it.
func FreshMySQL(t testing.TB) string {
	t.Helper()
	cfg, err := drv.ParseDSN(ServiceEnv(t, "RAG_MYSQL_DSN"))
	if err != nil {
		t.Fatalf("RAG_MYSQL_DSN: %v", err)
	}
	// Once per test process, the leftovers of killed runs go.
	sweepOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if dropped, err := SweepMySQL(ctx, cfg.FormatDSN(), SweepAge); err != nil {
			t.Logf("sweep stale test databases: %v", err)
		} else if len(dropped) > 0 {
			t.Logf("dropped %d stale test databases of killed runs", len(dropped))
		}
	})
	admin := cfg.Clone()
	admin.DBName = ""
	db, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	name := RandomName("ragbaseline_test_")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The name is made of hex digits here. Identifiers cannot be bound.
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
