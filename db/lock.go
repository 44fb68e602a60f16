package db

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LockLease is how long Postgres keeps the session of a lock whose holder
// has gone silent: the lock's session ends (and the lock is released) once
// it has been idle this long (idle_session_timeout, Postgres 14+; before,
// the TCP keepalives of liveness.go alone). A holder keeps it by calling
// Check more often (the daemon: every LockHeartbeat while it waits, and
// before every write). Check accepts an answer only within LockFence of
// sending its query, so a holder that writes right after a Check that
// succeeded writes before Postgres can have given the lock to another.
const (
	LockLease     = 30 * time.Second
	LockFence     = LockLease / 2
	LockHeartbeat = LockLease / 3
)

// ErrLockLost: the session holding a Lock ended (Postgres restarted, the
// connection broke or was killed), so another process may now hold it.
var ErrLockLost = errors.New("advisory lock lost")

// Lock is a session-level Postgres advisory lock held on one dedicated
// connection of the pool. It is the "one writer" guarantee of `strata run`:
// Postgres releases it when the holder's session ends, however it ends, so
// a standby can take over from a daemon that died. A held Lock keeps its
// connection out of the pool: Release it before closing the Store.
type Lock struct {
	mu            sync.Mutex
	conn          *pgxpool.Conn // nil once released or lost
	name          string
	key           int64
	check, unlock string // queries CheckAdvisoryLock and AdvisoryUnlock
}

// LockKey maps a lock name to the 64-bit advisory-lock key (FNV-1a).
func LockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("strata-lock/" + name))
	return int64(h.Sum64())
}

// TryLock tries once to take the advisory lock called name. It returns
// (nil, false, nil) when another session holds it. The lock's session ends
// after LockLease without a Check (see LockLease).
func (s *Store) TryLock(ctx context.Context, name string) (*Lock, bool, error) {
	var q [4]string
	for i, n := range []string{"TryAdvisoryLock", "SetLockLease", "CheckAdvisoryLock", "AdvisoryUnlock"} {
		var err error
		if q[i], err = s.q.get(n); err != nil {
			return nil, false, fmt.Errorf("try lock %s: %w", name, err)
		}
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, interpretError("try lock "+name, err)
	}
	key := LockKey(name)
	var ok bool
	if err := conn.QueryRow(ctx, q[0], key).Scan(&ok); err != nil {
		conn.Release()
		return nil, false, interpretError("try lock "+name, err)
	}
	if !ok {
		conn.Release()
		return nil, false, nil
	}
	// The session is the lock's alone from now on (Release closes it), so
	// its idle timeout touches no other query.
	lease := strconv.Itoa(int(LockLease/time.Millisecond)) + "ms"
	if _, err := conn.Exec(ctx, q[1], lease); err != nil &&
		!isUndefinedParameter(err) { // Postgres 13: keepalives alone
		_ = conn.Conn().Close(ctx) // ends the session, and the lock with it
		conn.Release()
		return nil, false, interpretError("try lock "+name, err)
	}
	return &Lock{conn: conn, name: name, key: key, check: q[2], unlock: q[3]}, true, nil
}

// Check verifies that the lock is still held: its session answers and
// still owns the lock. Any failure wraps ErrLockLost, also a check that
// did not answer before ctx ended (a black-holed or stalled Postgres): the
// lock is then dropped (its connection closed, so that a standby can take
// it over) and must not be used to write. An answer is awaited LockFence at
// most, whatever ctx allows.
func (l *Lock) Check(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, LockFence)
	defer cancel()
	if l.conn == nil {
		return fmt.Errorf("check lock %s: %w", l.name, ErrLockLost)
	}
	var held bool
	err := l.conn.QueryRow(ctx, l.check, l.key).Scan(&held)
	if err == nil && held {
		return nil
	}
	l.drop()
	if ctx.Err() != nil {
		return fmt.Errorf("check lock %s: %w: no answer in time: %w", l.name, ErrLockLost, ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("check lock %s: %w: %w", l.name, ErrLockLost, interpretError("query", err))
	}
	return fmt.Errorf("check lock %s: %w: session no longer owns it", l.name, ErrLockLost)
}

// drop closes the connection so its session (and any lock) ends.
func (l *Lock) drop() {
	if l.conn != nil {
		_ = l.conn.Conn().Close(context.Background())
		l.conn.Release()
		l.conn = nil
	}
}

// Release gives the lock up and returns the connection. It is safe to call
// on a lost or released lock.
func (l *Lock) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	_, err := l.conn.Exec(ctx, l.unlock, l.key)
	l.drop() // the session has the lease's idle timeout: it goes with the lock
	if err != nil {
		return interpretError("release lock "+l.name, err)
	}
	return nil
}

// isUndefinedParameter reports Postgres's "unrecognized configuration
// parameter" (SQLSTATE 42704).
func isUndefinedParameter(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42704"
}
