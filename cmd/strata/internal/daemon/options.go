package daemon

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// Options configure the daemon; built by the command from flags,
// environment and the configuration file, re-read on SIGHUP.
type Options struct {
	Policy   string
	Compare  []string
	Enforce  bool
	Interval time.Duration
	Cycles   int
	Guard    decide.Options
	Scope    Scope
	LockName string
	// Planner are the policies' settings; Interval is set from the cycle
	// interval.
	Planner planner.Options
	// Settings are the configuration's planner settings as written, stored
	// with each cycle so that strata explain can show what a decision used.
	Settings    map[string]string
	StandbyPoll time.Duration
	MaxBackoff  time.Duration
	// AuditRetention: cycles older than this are deleted (0 = keep all).
	AuditRetention time.Duration
	// DBTimeout bounds each round of database calls of a cycle (lock,
	// history, save, housekeeping); 0 = 10 s.
	DBTimeout time.Duration
	// Calibrate corrects the time model and the GPU power of the energy
	// term by what finished jobs measured (needs a database; refreshed
	// every 5 minutes, the last calibration kept while it is unreachable).
	Calibrate bool
	// HistorySource is where the duration predictor learns from:
	// HistoryAuto (""), HistorySlurmdbd or HistoryStrata (history.go).
	HistorySource string
}

func (o Options) dbTimeout() time.Duration {
	if o.DBTimeout > 0 {
		return o.DBTimeout
	}
	return 10 * time.Second
}

// Validate reports every invalid option at once, naming its flag.
func (o Options) Validate() error {
	var errs []error
	if o.Interval < time.Second {
		errs = append(errs, fmt.Errorf("--interval %v: want at least 1s", o.Interval))
	}
	if !slices.Contains(planner.PolicyNames(), o.Policy) {
		errs = append(errs, fmt.Errorf("--policy %q: choose one of %s", o.Policy, strings.Join(planner.PolicyNames(), ", ")))
	}
	for _, c := range o.Compare {
		if !slices.Contains(planner.PolicyNames(), c) {
			errs = append(errs, fmt.Errorf("--compare %q: choose from %s", c, strings.Join(planner.PolicyNames(), ", ")))
		}
	}
	if err := o.Guard.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.plannerOptions().Validate(); err != nil {
		errs = append(errs, fmt.Errorf("planner: %w", err))
	}
	if o.StandbyPoll <= 0 {
		errs = append(errs, fmt.Errorf("--standby-poll %v: must be > 0", o.StandbyPoll))
	}
	if o.MaxBackoff <= 0 {
		errs = append(errs, fmt.Errorf("--max-backoff %v: must be > 0", o.MaxBackoff))
	}
	if o.AuditRetention < 0 {
		errs = append(errs, fmt.Errorf("--audit-retention %v: must be ≥ 0", o.AuditRetention))
	}
	if err := validHistorySource(o.HistorySource); err != nil {
		errs = append(errs, err)
	}
	if o.Cycles < 0 {
		errs = append(errs, fmt.Errorf("--cycles %d: must be ≥ 0", o.Cycles))
	}
	return errors.Join(errs...)
}

// plannerOptions are the policies' settings with the cycle interval.
func (o Options) plannerOptions() planner.Options {
	p := o.Planner
	p.Interval = o.Interval
	return p
}

// Scope restricts which pending jobs the daemon plans and writes (pilot
// roll-outs, shared test clusters). Running jobs always stay in the
// snapshot: they hold capacity.
type Scope struct {
	Partitions []string
	Users      []string
	NamePrefix string
}

// apply returns the snapshot restricted to the scope and the number of
// pending jobs in it. The input is not modified.
func (s Scope) apply(snap *planner.Snapshot) (*planner.Snapshot, int) {
	out := *snap
	out.Jobs = make([]planner.Job, 0, len(snap.Jobs))
	n := 0
	for _, j := range snap.Jobs {
		if j.State == planner.JobPending {
			if !s.admits(j) {
				continue
			}
			n++
		}
		out.Jobs = append(out.Jobs, j)
	}
	return &out, n
}

func (s Scope) admits(j planner.Job) bool {
	return (len(s.Partitions) == 0 || slices.Contains(s.Partitions, j.Partition)) &&
		(len(s.Users) == 0 || slices.Contains(s.Users, j.User)) &&
		strings.HasPrefix(j.Name, s.NamePrefix)
}
