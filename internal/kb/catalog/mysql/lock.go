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

// lockSlice is the longest single GET_LOCK wait: shorter than the
// connection's read timeout (DefaultIOTimeout), which one long GET_LOCK
// would hit.
const lockSlice = 5 * time.Second

// lockCheckEvery is how often a held seed lock is checked to still be held.
var lockCheckEvery = 10 * time.Second

// SeedLockedError reports that another seed held the lock for longer than
// the caller would wait.
type SeedLockedError struct {
	Collection string
	Waited     time.Duration
	Label      string
}

func (e *SeedLockedError) Error() string {
	return fmt.Sprintf("%s: another rag-seed is writing to this database and collection %s (waited %s for it); try again when it has finished",
		e.Label, e.Collection, e.Waited.Round(time.Second))
}

// ErrSeedLockLost is the cause of the context LockSeed returns when the
// lock is lost while held (its connection closed: a server restart, a
// wait_timeout, a proxy's idle timeout).
var ErrSeedLockLost = errors.New("the seed lock was lost (its database connection closed); rerun rag-seed")

// LockSeed takes the advisory lock of seeding collection from this
// database, so two seeds never interleave their writes. The lock is
// MySQL/MariaDB GET_LOCK on the hash of the database and collection names.
// Every seed of one database and collection takes it, whatever its kbScope,
// because a --recreate drops the collection every kbScope shares. A second
// seed waits for up to wait, calling waiting once if the lock is taken,
// then fails with a *SeedLockedError.
//
// The lock is held by a connection of its own, with a long wait_timeout. It
// is released by unlock, or by the server when the process dies. The
// returned context is ctx. It is cancelled with ErrSeedLockLost as its
// cause if the lock is found not held any more, which is checked every 10
// s. So the seed stops instead of going on unprotected.
func (c *Catalog) LockSeed(ctx context.Context, collection string, wait time.Duration, waiting func()) (held context.Context, unlock func() error, err error) {
	conn, err := c.DB().Conn(ctx)
	if err != nil {
		return nil, nil, c.lockErr(err)
	}
	fail := func(err error) (context.Context, func() error, error) {
		conn.Close()
		return nil, nil, err
	}
	var db string
	if err := conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db); err != nil {
		return fail(c.lockErr(err))
	}
	// An idle connection must not be closed by the server while held.
	if _, err := conn.ExecContext(ctx, "SET SESSION wait_timeout = 31536000"); err != nil {
		return fail(c.lockErr(err))
	}
	// GET_LOCK names are at most 64 characters and global to the server.
	sum := sha256.Sum256([]byte(db + "\x00" + collection))
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
		return fail(c.lockErr(err))
	}
	if !ok {
		return fail(&SeedLockedError{Collection: collection, Waited: wait, Label: c.label()})
	}

	held, cancel := context.WithCancelCause(ctx)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(lockCheckEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-held.Done():
				return
			case <-t.C:
				var mine sql.NullBool
				cctx, ccancel := context.WithTimeout(context.Background(), DefaultIOTimeout)
				err := conn.QueryRowContext(cctx, "SELECT IS_USED_LOCK(?) = CONNECTION_ID()", name).Scan(&mine)
				ccancel()
				if err != nil || !mine.Valid || !mine.Bool {
					cancel(ErrSeedLockLost)
					return
				}
			}
		}
	}()
	return held, func() error {
		close(stop)
		<-done
		cancel(nil)
		// Closing the connection releases the lock even if RELEASE_LOCK
		// cannot be sent.
		ctx, ccancel := context.WithTimeout(context.Background(), DefaultIOTimeout)
		defer ccancel()
		_, rerr := conn.ExecContext(ctx, "DO RELEASE_LOCK(?)", name)
		return errors.Join(rerr, conn.Close())
	}, nil
}

func (c *Catalog) label() string { return c.Catalog.Label() }

func (c *Catalog) lockErr(err error) error {
	return fmt.Errorf("%s: lock for seeding: %w", c.label(), err)
}
