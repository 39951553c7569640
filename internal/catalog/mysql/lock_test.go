package mysql_test

import (
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ragbaseline/ragbaseline/internal/catalog/mysql"
)

// Two seeds of one kbScope on one database: the second waits (and is told
// so), times out with a *ScopeLockedError while the first holds the lock,
// and gets it once the first releases it or its connection dies. Other
// kbScopes and other databases are not held up.
func TestLockScope(t *testing.T) {
	a, cfg := openFresh(t)
	b := open(t, cfg) // a second process on the same database
	t.Cleanup(func() { b.Close() })

	unlock, err := a.LockScope(bg, "rag-eval", time.Second, func() { t.Error("the first seed was told to wait") })
	if err != nil {
		t.Fatal(err)
	}
	waited := 0
	start := time.Now()
	_, err = b.LockScope(bg, "rag-eval", 500*time.Millisecond, func() { waited++ })
	var locked *mysql.ScopeLockedError
	if !errors.As(err, &locked) || locked.KBScope != "rag-eval" {
		t.Fatalf("second seed of the same kbScope: %v, want a *ScopeLockedError", err)
	}
	if waited != 1 || time.Since(start) < 400*time.Millisecond {
		t.Errorf("waiting called %d times after %s, want once and a wait of about 500ms", waited, time.Since(start))
	}

	// Another kbScope and another database do not wait.
	other, err := b.LockScope(bg, "other-scope", 0, func() { t.Error("another kbScope waited") })
	if err != nil {
		t.Fatal(err)
	}
	other()
	c2, _ := openFresh(t)
	u2, err := c2.LockScope(bg, "rag-eval", 0, func() { t.Error("another database waited") })
	if err != nil {
		t.Fatal(err)
	}
	u2()

	// Released while the second waits: it gets the lock.
	done := make(chan error, 1)
	go func() {
		u, err := b.LockScope(bg, "rag-eval", 20*time.Second, nil)
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

	// A holder that dies (the server sees its connection go) leaves no
	// lock behind: kill every connection of the holder's user on this
	// database from the outside, as a crash would drop them.
	d := open(t, cfg)
	t.Cleanup(func() { d.Close() })
	if _, err := d.LockScope(bg, "rag-eval", 0, nil); err != nil {
		t.Fatal(err)
	}
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
	u3, err := b.LockScope(bg, "rag-eval", 5*time.Second, nil)
	if err != nil {
		t.Fatalf("after the holder closed: %v", err)
	}
	u3()
}
