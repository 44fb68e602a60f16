package daemon

import (
	"context"
	"time"
)

// Clock skew between this host and slurmctld (issue 23.8). The plan's
// times are this host's (the snapshot's Now); the begin times Strata
// writes, the run times it reads and the deferrals it checks are
// slurmctld's. A skew of more than maxSkew misplaces them: warn, and
// publish it (strata_clock_skew_seconds), every skewEvery.
const (
	maxSkew   = 30 * time.Second
	skewEvery = 10 * time.Minute
)

// checkClock compares the clocks when the last comparison is skewEvery
// old. A failed comparison is logged at debug level and tried next cycle.
func (d *Daemon) checkClock(ctx context.Context, cl Cluster) {
	now := d.deps.Now()
	if !d.lastSkew.IsZero() && now.Sub(d.lastSkew) < skewEvery {
		return
	}
	skew, err := cl.ClockSkew(ctx)
	if err != nil {
		d.log.Debug().Err(err).Msg("clock skew unknown")
		return
	}
	d.lastSkew = now
	d.m.clockSkew.Set(skew.Seconds())
	if skew > maxSkew || skew < -maxSkew {
		d.log.Warn().Dur("skew", skew).Str("limit", maxSkew.String()).
			Msg("this host's clock differs from slurmctld's: begin times and run times Strata computes are off by as much; " +
				"synchronise both hosts (chrony or systemd-timesyncd)")
	}
}
