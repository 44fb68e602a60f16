package sim

import (
	"fmt"
	"time"

	"github.com/strata-hpc/strata/decide"
)

// Schedulers a run can use.
const (
	// SchedulerSlurm: a model of slurmctld starts jobs (main scheduler and
	// backfill) from the priorities, requests and begin times the policy's
	// plans wrote through the daemon's guards — what Strata does on a real
	// cluster. The default.
	SchedulerSlurm = "slurm"
	// SchedulerIdeal: Strata starts the jobs its plan admits itself, at
	// every interval ("ideal": for comparison with published simulators,
	// which start jobs themselves).
	SchedulerIdeal = "ideal"
)

// SlurmConfig are the slurmctld settings the Slurm mode models (Slurm
// 24.11 defaults unless said otherwise; slurm.conf(5) names in brackets).
type SlurmConfig struct {
	// SchedInterval: the main scheduler's full pass [sched_interval], 60 s.
	SchedInterval time.Duration
	// BatchSchedDelay: the least time between event-triggered main passes
	// after submissions and updates [batch_sched_delay], 3 s. A job's end
	// triggers a pass at once.
	BatchSchedDelay time.Duration
	// QueueDepth: the jobs an event-triggered pass looks at
	// [default_queue_depth], 100; the full pass has no limit.
	QueueDepth int
	// BFInterval: the backfill cycle [bf_interval], 30 s; a cycle runs only
	// when jobs or resources changed since the previous one.
	BFInterval time.Duration
	// BFResolution rounds reservations [bf_resolution], 60 s; BFWindow is
	// how far ahead backfill plans [bf_window], 1 day; BFMaxJobTest the
	// jobs one cycle tests [bf_max_job_test], 500.
	BFResolution time.Duration
	BFWindow     time.Duration
	BFMaxJobTest int
	// Reservations is how many blocked jobs per cycle get a reservation: 1
	// is EASY backfill [bf_job_part_count_reserve=1], the default here; 0
	// reserves for every blocked job (conservative, Slurm's own default).
	Reservations int
	// Priority/multifactor: Age and JobSize weights
	// [PriorityWeightAge, PriorityWeightJobSize], 1000 each here (Slurm's
	// default is 0: FIFO), age saturating at PriorityMaxAge (7 days),
	// recomputed every PriorityCalcPeriod (5 min), at submission and after
	// updates. A priority Strata wrote sticks.
	PriorityWeightAge     float64
	PriorityWeightJobSize float64
	PriorityMaxAge        time.Duration
	PriorityCalcPeriod    time.Duration
	// The site's policy (sitepolicy.go), off by default:
	// [PriorityWeightFairshare] with classic fairshare over equal shares
	// per user, usage decayed with FairshareHalfLife
	// [PriorityDecayHalfLife, 7 days]; [PriorityWeightQOS] for the jobs of
	// a QOSHigh fraction of the users, drawn with QOSSeed (QOS priority
	// normalized to 1; the others' 0).
	PriorityWeightFairshare float64
	PriorityWeightQOS       float64
	FairshareHalfLife       time.Duration
	// Accounts: the users dealt in turn to this many accounts of equal
	// shares (0: every user an account of its own); FairTree: the fair
	// tree algorithm instead of classic fairshare (fairtree.go).
	Accounts int
	FairTree bool
	// PartitionPriority gives partitions their PriorityTier and
	// PriorityJobFactor, "NAME=TIER[/JOBFACTOR],...", the factor weighed
	// by PriorityWeightPartition (partprio.go).
	PartitionPriority       string
	PriorityWeightPartition float64
	QOSHigh                 float64
	QOSSeed                 uint64
	// TimeLimitFactor sets a job's time limit when the trace gives none:
	// duration × factor, rounded up to whole minutes (Slurm's unit). 2.
	TimeLimitFactor float64
	// RequeueDelay: a requeued job is pending again with its begin time
	// this far after the requeue [AuthInfo cred_expire (120 s) + 1 s, set
	// by batch_requeue_fini() in job_mgr.c], 121 s.
	RequeueDelay time.Duration
}

func (c SlurmConfig) withDefaults() SlurmConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.SchedInterval, 60*time.Second)
	def(&c.BatchSchedDelay, 3*time.Second)
	def(&c.BFInterval, 30*time.Second)
	def(&c.BFResolution, 60*time.Second)
	def(&c.BFWindow, 24*time.Hour)
	def(&c.PriorityMaxAge, 7*24*time.Hour)
	def(&c.PriorityCalcPeriod, 5*time.Minute)
	def(&c.FairshareHalfLife, 7*24*time.Hour)
	def(&c.RequeueDelay, 121*time.Second)
	if c.QueueDepth <= 0 {
		c.QueueDepth = 100
	}
	if c.BFMaxJobTest <= 0 {
		c.BFMaxJobTest = 500
	}
	if c.Reservations < 0 {
		c.Reservations = 1
	}
	if c.TimeLimitFactor <= 0 {
		c.TimeLimitFactor = 2
	}
	return c
}

// DefaultSlurmConfig is the model's configuration unless told otherwise:
// EASY backfill, age and job-size priority weights of 1000.
func DefaultSlurmConfig() SlurmConfig {
	return SlurmConfig{Reservations: 1, PriorityWeightAge: 1000, PriorityWeightJobSize: 1000}.withDefaults()
}

// Validate names the first setting out of range.
func (c SlurmConfig) Validate() error {
	if c.PriorityWeightAge < 0 || c.PriorityWeightJobSize < 0 || c.PriorityWeightFairshare < 0 || c.PriorityWeightQOS < 0 {
		return fmt.Errorf("priority weights must be ≥ 0")
	}
	if c.PriorityWeightPartition < 0 {
		return fmt.Errorf("priority weights must be ≥ 0")
	}
	if _, err := ParsePartitionPriority(c.PartitionPriority); err != nil {
		return err
	}
	if c.Accounts < 0 {
		return fmt.Errorf("accounts %d: want 0 (every user an account) or more", c.Accounts)
	}
	if c.Reservations < 0 {
		return fmt.Errorf("backfill reservations %d: want 0 (conservative) or more (1 = EASY)", c.Reservations)
	}
	return nil
}

// guardOptions are the write limits of the Strata cycle in Slurm mode: the
// daemon's defaults unless the run sets its own.
func (c Config) guardOptions() decide.Options {
	if c.Guard != nil {
		return *c.Guard
	}
	return decide.Defaults()
}
