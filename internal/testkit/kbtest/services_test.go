package kbtest

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"testing"
	"time"

	drv "github.com/go-sql-driver/mysql"
)

func TestStale(t *testing.T) {
	now := time.Unix(1764590000, 0)
	fresh := RandomName("t_")
	if Stale(fresh, SweepAge, time.Now()) {
		t.Errorf("a name made now is stale: %s", fresh)
	}
	if !Stale(fresh, SweepAge, time.Now().Add(2*time.Hour)) {
		t.Errorf("a name made two hours ago is not stale: %s", fresh)
	}
	for name, want := range map[string]bool{
		"ragbaseline_test_1764580000_9f8e7d6c5b4a": true,  // 2h47m old
		"ragbaseline_test_1764589000_9f8e7d6c5b4a": false, // 17 minutes old
		"t_lookup_1764580000_9f8e7d6c5b4a":         true,
		"t_9f8e7d6c5b4a":                           true, // an earlier build's
		"ragbaseline_test_9f8e7d6c5b4a":            true,
		"rag_eval":                                 false, // a user's collection
		"ragbaseline":                              false,
		"t_users":                                  false,
		"t_9f8e7d6c5b4aX":                          false,
		"ragbaseline_test_1764580000_9f8e7d6c5b4":  false,
	} {
		if got := Stale(name, SweepAge, now); got != want {
			t.Errorf("Stale(%q) = %v, want %v", name, got, want)
		}
	}
}

// SweepMySQL drops a leftover of a killed run and keeps a database in use.
func TestSweepMySQL(t *testing.T) {
	dsn := ServiceEnv(t, "RAG_MYSQL_DSN")
	inUse := FreshMySQL(t)
	cfg, err := drv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	old := "ragbaseline_test_" + strconv.FormatInt(time.Now().Add(-2*time.Hour).Unix(), 10) + "_0123456789ab"
	if _, err := db.Exec("CREATE DATABASE `" + old + "`"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("DROP DATABASE IF EXISTS `" + old + "`") })
	dropped, err := SweepMySQL(context.Background(), dsn, SweepAge)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(dropped, old) {
		t.Errorf("dropped %v, want %s among them", dropped, old)
	}
	inUseCfg, _ := drv.ParseDSN(inUse)
	if slices.Contains(dropped, inUseCfg.DBName) {
		t.Errorf("dropped the database in use, %s", inUseCfg.DBName)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN (?, ?)", old, inUseCfg.DBName).Scan(&n); err != nil || n != 1 {
		t.Errorf("databases left of the two: %d, %v; want the one in use", n, err)
	}
}
