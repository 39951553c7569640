package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// lockSlice is the longest single GET_LOCK wait.
const lockSlice = 5 * time.Second

// ScopeLockedError reports that another seed held the lock of a kbScope
// for longer than the caller would wait.
type ScopeLockedError struct {
	KBScope string
	Waited  time.Duration
	Label   string
}

func (e *ScopeLockedError) Error() string {
	return fmt.Sprintf("%s: another rag-seed of kb_scope %q is running on this database (waited %s for it); try again when it has finished",
		e.Label, e.KBScope, e.Waited.Round(time.Second))
}

// LockScope takes the advisory lock of kbScope on this database
// (MySQL/MariaDB GET_LOCK), so two seeds of one kbScope never interleave
// their writes: a second one waits, calling waiting once if the lock is
// taken, for up to wait, then fails with a *ScopeLockedError. The lock is
// held by one connection of its own and released by unlock, or by the
// server when the process dies and the connection closes, so a killed seed
// never leaves it behind. Seeds of other kbScopes or other databases do
// not wait.
func (c *Catalog) LockScope(ctx context.Context, kbScope string, wait time.Duration, waiting func()) (unlock func() error, err error) {
	conn, err := c.DB().Conn(ctx)
	if err != nil {
		return nil, c.lockErr(kbScope, err)
	}
	var db string
	if err := conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db); err != nil {
		conn.Close()
		return nil, c.lockErr(kbScope, err)
	}
	// GET_LOCK names are at most 64 characters on MySQL and global to the
	// server: a hash of the database and the kbScope.
	sum := sha256.Sum256([]byte(db + "\x00" + kbScope))
	name := "ragbaseline-seed-" + hex.EncodeToString(sum[:20])
	try := func(seconds float64) (bool, error) {
		var got sql.NullInt64
		if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", name, seconds).Scan(&got); err != nil {
			return false, err
		}
		if !got.Valid {
			return false, errors.New("GET_LOCK returned NULL")
		}
		return got.Int64 == 1, nil
	}
	ok, err := try(0)
	if err == nil && !ok {
		if waiting != nil {
			waiting()
		}
		// Wait in slices shorter than the connection's read timeout
		// (DefaultIOTimeout), which a single long GET_LOCK would hit.
		deadline := time.Now().Add(wait)
		for err == nil && !ok {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			ok, err = try(min(left, lockSlice).Seconds())
		}
	}
	if err != nil {
		conn.Close()
		return nil, c.lockErr(kbScope, err)
	}
	if !ok {
		conn.Close()
		return nil, &ScopeLockedError{KBScope: kbScope, Waited: wait, Label: c.label()}
	}
	return func() error {
		// Closing the connection releases the lock even if RELEASE_LOCK
		// cannot be sent.
		ctx, cancel := context.WithTimeout(context.Background(), DefaultIOTimeout)
		defer cancel()
		_, rerr := conn.ExecContext(ctx, "DO RELEASE_LOCK(?)", name)
		return errors.Join(rerr, conn.Close())
	}, nil
}

func (c *Catalog) label() string { return c.Catalog.Label() }

func (c *Catalog) lockErr(kbScope string, err error) error {
	return fmt.Errorf("%s: lock kb_scope %q for seeding: %w", c.label(), kbScope, err)
}
