package daemon

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/db"
)

// The writer lock is a lease (db.LockLease): Postgres ends the lock's
// session once it has been idle that long, so that a leader whose network
// went silent hands over to a standby within a minute instead of holding
// the lock for the kernel's two hours of TCP keepalive. A leader keeps the
// lease by checking the lock: before each write (the fence of a cycle) and,
// while it waits between cycles, every db.LockHeartbeat (heartbeat).

// heartbeatEvery is how often a waiting leader checks its lock.
func (d *Daemon) heartbeatEvery() time.Duration {
	if d.heartbeatPeriod > 0 {
		return d.heartbeatPeriod
	}
	return db.LockHeartbeat
}

// heartbeat checks the writer lock, if held, keeping its lease; a lock that
// fails the check is lost (no writes until it is taken again).
func (d *Daemon) heartbeat(ctx context.Context) {
	if d.lock == nil {
		return
	}
	lctx, cancel := d.dbContext(ctx)
	err := d.lock.Check(lctx)
	cancel()
	if err != nil && ctx.Err() == nil {
		d.log.Warn().Err(err).Msg("writer lock check between cycles failed")
		d.loseLock()
	}
}
