package decide

import (
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/calib"
	"github.com/strata-hpc/strata/planner/trust"
)

// What Strata learns from the runs that ended, the one learner of `strata
// run` (from Postgres) and the simulator (from the runs ended so far):
// each user's record of predicted against real run times (Records), and
// the shared calibration of the time model and GPU power (Calibrate),
// which leaves out the users whose own record is unreliable. Both count
// every ended run: a run stopped at its time limit is a censored
// observation (trust.Outcome.TimedOut, calib.Job.Censored), never a
// missing one.

// Records fits every user's record from the ended runs outs and returns
// the records, the corrections by user (History.Claims) and the users the
// shared calibration leaves out.
func Records(outs []trust.Outcome) ([]trust.Record, map[string]planner.Claim, map[string]bool) {
	recs := trust.Fit(outs, trust.Config{})
	return recs, trust.Claims(recs), trust.Unreliable(recs)
}

// Calibrate fits the shared calibration from the ended runs jobs, without
// the runs of the users in unreliable (Records).
func Calibrate(jobs []calib.Job, unreliable map[string]bool) *planner.Calibration {
	return calib.Fit(jobs, calib.Config{Exclude: unreliable})
}
