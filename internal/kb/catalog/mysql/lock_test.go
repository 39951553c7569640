package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	drv "github.com/go-sql-driver/mysql"

	"github.com/ragbaseline/ragbaseline/internal/kb/catalog/mysql"
)

// killOthers kills, from the outside, every connection to cfg's database
// but its own, as a crash or a network failure would drop them.
func killOthers(t *testing.T, cfg *drv.Config) {
	t.Helper()
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	conn, err := admin.Conn(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(bg, "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()", cfg.DBName)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		if _, err := conn.ExecContext(bg, fmt.Sprintf("KILL %d", id)); err != nil {
			t.Logf("kill %d: %v", id, err)
		}
	}
}

// Two seeds of one database and collection: the second waits (and is told
// so), times out with a *SeedLockedError while the first holds the lock,
// and gets it once the first releases it or dies. Another collection or
// another database is not held up.
func TestLockSeed(t *testing.T) {
	a, cfg := openFresh(t)
	b := open(t, cfg) // a second process on the same database
	t.Cleanup(func() { b.Close() })

	_, unlock, err := a.LockSeed(bg, "rag_eval", time.Second, func() { t.Error("the first seed was told to wait") })
	if err != nil {
		t.Fatal(err)
	}
	waited := 0
	start := time.Now()
	_, _, err = b.LockSeed(bg, "rag_eval", 500*time.Millisecond, func() { waited++ })
	var locked *mysql.SeedLockedError
	if !errors.As(err, &locked) || locked.Collection != "rag_eval" {
		t.Fatalf("second seed of the same collection: %v, want a *SeedLockedError", err)
	}
	if waited != 1 || time.Since(start) < 400*time.Millisecond {
		t.Errorf("waiting called %d times after %s, want once and a wait of about 500ms", waited, time.Since(start))
	}

	// Another collection and another database do not wait.
	_, other, err := b.LockSeed(bg, "other_collection", 0, func() { t.Error("another collection waited") })
	if err != nil {
		t.Fatal(err)
	}
	other()
	c2, _ := openFresh(t)
	_, u2, err := c2.LockSeed(bg, "rag_eval", 0, func() { t.Error("another database waited") })
	if err != nil {
		t.Fatal(err)
	}
	u2()

	// Released while the second waits: it gets the lock.
	done := make(chan error, 1)
	go func() {
		_, u, err := b.LockSeed(bg, "rag_eval", 20*time.Second, nil)
		if err == nil {
			err = u()
		}
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("after the release: %v", err)
	}
}

// A holder whose connection dies loses the lock: its context is cancelled
// with ErrSeedLockLost (it must stop, not go on unprotected), and the next
// seed gets the lock.
func TestLockSeedLost(t *testing.T) {
	defer mysql.SetLockCheckEvery(100 * time.Millisecond)()
	_, cfg := openFresh(t)
	d := open(t, cfg)
	t.Cleanup(func() { d.Close() })
	held, unlock, err := d.LockSeed(bg, "rag_eval", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	select {
	case <-held.Done():
		t.Fatal("the lock's context ended while the lock was held")
	case <-time.After(300 * time.Millisecond):
	}
	killOthers(t, cfg)
	select {
	case <-held.Done():
		if !errors.Is(context.Cause(held), mysql.ErrSeedLockLost) {
			t.Errorf("cause %v, want ErrSeedLockLost", context.Cause(held))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lost lock was not noticed")
	}
	e := open(t, cfg)
	t.Cleanup(func() { e.Close() })
	_, u3, err := e.LockSeed(bg, "rag_eval", 5*time.Second, nil)
	if err != nil {
		t.Fatalf("after the holder's connection died: %v", err)
	}
	u3()
}
