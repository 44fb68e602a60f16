-- The writer lock of `strata run` (db/lock.go): a session-level advisory
-- lock, its lease and its check.

-- name: TryAdvisoryLock
SELECT pg_try_advisory_lock($1);

-- name: SetLockLease
-- The lock's session ends after this long idle (Postgres 14+), releasing
-- the lock of a holder gone silent.
SELECT set_config('idle_session_timeout', $1, false);

-- name: CheckAdvisoryLock
SELECT EXISTS (SELECT 1 FROM pg_locks
    WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
      AND ((classid::bigint << 32) | objid::bigint) = $1);

-- name: AdvisoryUnlock
SELECT pg_advisory_unlock($1);
