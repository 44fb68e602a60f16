package db

import (
	"fmt"
	"strings"
	"time"
)

// ReportDim is a grouping dimension of a report (the --by values).
type ReportDim string

// Grouping dimensions. DimHour is used by the web page's time series.
const (
	DimJob       ReportDim = "job"
	DimUser      ReportDim = "user"
	DimAccount   ReportDim = "account"
	DimPartition ReportDim = "partition"
	DimNode      ReportDim = "node"
	DimDay       ReportDim = "day"
	DimHour      ReportDim = "hour"
)

// reportDims lists the valid dimensions in their canonical column order.
var reportDims = []ReportDim{DimJob, DimUser, DimAccount, DimPartition, DimNode, DimDay, DimHour}

// ParseReportDims parses --by values ("user", "user,day", "Account") into
// dimensions in the order given, refusing unknown and duplicate names.
func ParseReportDims(values []string) ([]ReportDim, error) {
	var out []ReportDim
	seen := map[ReportDim]bool{}
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			d := ReportDim(strings.ToLower(strings.TrimSpace(s)))
			if d == "" {
				continue
			}
			if !validDim(d) {
				return nil, fmt.Errorf("parse --by %q: want job, user, account, partition, node, day or hour", s)
			}
			if seen[d] {
				return nil, fmt.Errorf("parse --by: %q given twice", s)
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	return out, nil
}

func validDim(d ReportDim) bool {
	for _, v := range reportDims {
		if v == d {
			return true
		}
	}
	return false
}

// ReportFilter selects the time window and the jobs of a report. From and To
// are required (From < To); jobs running across either edge are pro-rated to
// the part of their run inside [From, To). Empty lists do not filter.
type ReportFilter struct {
	From, To   time.Time
	Users      []string
	Accounts   []string
	Partitions []string
	Jobs       []int64
	// Clusters are Slurm ClusterNames (the job rows' and plan cycles'
	// cluster).
	Clusters []string
	// States are Slurm job states as the job table stores them (upper
	// case, long forms: COMPLETED, TIMEOUT, FAILED, ...), as sacct --state.
	States []string
	// Scope is what the reader may see, applied in SQL on top of the
	// filters (the zero Scope sees everything).
	Scope Scope
}

// Scope limits reports to one reader's jobs, as sacct does for users and
// account coordinators: a Limited scope sees the jobs whose Slurm user is
// in Users or whose account is in Accounts, and nothing else (rows whose
// job is unknown included). The zero Scope is an administrator's: every
// job. The filters of a ReportFilter narrow within the scope, never widen
// it.
type Scope struct {
	Limited  bool
	Users    []string
	Accounts []string
}

// All is the unlimited scope (an administrator's).
func (s Scope) All() bool { return !s.Limited }

// Validate checks the window.
func (f ReportFilter) Validate() error {
	if f.From.IsZero() || f.To.IsZero() {
		return fmt.Errorf("report window: start and end are required")
	}
	if !f.From.Before(f.To) {
		return fmt.Errorf("report window: start %s is not before end %s",
			f.From.Format(time.RFC3339), f.To.Format(time.RFC3339))
	}
	return nil
}

// DefaultIdleUtilPct is the GPU utilization below which an allocated GPU
// counts as idle.
const DefaultIdleUtilPct = 5.0

// EnergyQuery asks for GPU energy grouped by dimensions (none: one total row).
type EnergyQuery struct {
	ReportFilter
	By []ReportDim
	// Location is the time zone that day/hour buckets are cut in (nil: UTC).
	Location *time.Location
}

// EnergyRow is one group of an energy report. Only the fields of the
// query's dimensions are set (grouping by job also sets the job's cluster,
// user, account and partition); the others are zero. GPU-seconds, energies
// and the utilization integral are pro-rated to the window. Grouping by job
// gives one row per job, not per id: two clusters' jobs with one id, or a
// job whose id its cluster reused later, are separate rows.
type EnergyRow struct {
	Job       int64     `json:"job,omitempty"`
	JobName   string    `json:"job_name,omitempty"`
	Cluster   string    `json:"cluster,omitempty"`
	User      string    `json:"user,omitempty"`
	Account   string    `json:"account,omitempty"`
	Partition string    `json:"partition,omitempty"`
	Node      string    `json:"node,omitempty"`
	Bucket    time.Time `json:"bucket,omitzero"` // start of the day or hour

	// Jobs counts the distinct jobs with GPU time in the group.
	Jobs int `json:"jobs"`
	// GPUSeconds is allocated GPU time (one GPU for one second = 1).
	GPUSeconds float64 `json:"gpu_seconds"`
	// EnergyJ is the GPUs' energy, from counter deltas, in joules.
	EnergyJ float64 `json:"energy_j"`
	// UtilGPU is the mean GPU utilization in percent, weighted by GPU time.
	UtilGPU float64 `json:"util_gpu_pct"`
	// IdleGPUSeconds and IdleEnergyJ cover the sample intervals where an
	// allocated GPU ran below the idle threshold.
	IdleGPUSeconds float64 `json:"idle_gpu_seconds"`
	IdleEnergyJ    float64 `json:"idle_energy_j"`
}

// UsageQuery asks for GPU time, queueing and completion times grouped by
// user, account and/or partition.
type UsageQuery struct {
	ReportFilter
	By []ReportDim
}

// UsageRow is one group of a usage report. GPUSeconds is pro-rated to the
// window; the wait and JCT figures cover the jobs that ended inside it
// (Completed of them).
type UsageRow struct {
	User      string `json:"user,omitempty"`
	Account   string `json:"account,omitempty"`
	Partition string `json:"partition,omitempty"`

	Jobs        int     `json:"jobs"`
	GPUSeconds  float64 `json:"gpu_seconds"`
	Completed   int     `json:"completed"`
	MeanWaitSec float64 `json:"mean_wait_seconds"`
	MaxWaitSec  float64 `json:"max_wait_seconds"`
	MeanJCTSec  float64 `json:"mean_jct_seconds"`
}

// DecisionQuery asks what the planner changed in the window.
type DecisionQuery struct {
	ReportFilter
}

// DecisionRow counts the planner's decisions of one action and reason.
type DecisionRow struct {
	Action    string    `json:"action"`
	Reason    string    `json:"reason"`
	Decisions int       `json:"decisions"`
	Applied   int       `json:"applied"`
	Jobs      int       `json:"jobs"`
	Cycles    int       `json:"cycles"`
	First     time.Time `json:"first"`
	Last      time.Time `json:"last"`
}

// JobReport is everything the per-job page shows. When several jobs have
// the id (clusters sharing the database, or an id reused), it shows the one
// submitted last.
type JobReport struct {
	Job       int64     `json:"job"`
	Cluster   string    `json:"cluster,omitempty"`
	Name      string    `json:"name"`
	User      string    `json:"user"`
	Account   string    `json:"account"`
	Partition string    `json:"partition"`
	Submit    time.Time `json:"submit,omitzero"`
	Start     time.Time `json:"start,omitzero"`
	End       time.Time `json:"end,omitzero"`

	GPUs      []JobGPUSpan  `json:"gpus"`
	Totals    EnergyRow     `json:"totals"`
	Series    []JobPoint    `json:"series"`
	Decisions []JobDecision `json:"decisions"`
	// PerGPU are the job's GPUs one by one: rollup totals, memory and
	// their series (empty without telemetry).
	PerGPU []JobGPU `json:"per_gpu"`
}

// JobGPU is one GPU of a job: its rollup totals (GPU time, energy, mean
// utilization, idle time and energy), mean power over its sampled time,
// memory peak and size, and its bins over time.
type JobGPU struct {
	UUID           string  `json:"uuid"`
	Host           string  `json:"host"`
	GPUSeconds     float64 `json:"gpu_seconds"`
	EnergyJ        float64 `json:"energy_j"`
	UtilGPU        float64 `json:"util_gpu_pct"`
	PowerW         float64 `json:"power_w"`
	IdleGPUSeconds float64 `json:"idle_gpu_seconds"`
	IdleEnergyJ    float64 `json:"idle_energy_j"`
	// MemPeakBytes is the most GPU memory used in any bin; MemTotalBytes
	// the GPU's size (0: unknown).
	MemPeakBytes  int64      `json:"mem_peak_bytes"`
	MemTotalBytes int64      `json:"mem_total_bytes"`
	Series        []GPUPoint `json:"series"`
}

// GPUPoint is one GPU in one bin: mean utilization, peak memory used and
// mean power.
type GPUPoint struct {
	T            time.Time `json:"t"`
	UtilGPU      float64   `json:"util_gpu_pct"`
	MemUsedBytes int64     `json:"mem_used_bytes"`
	PowerW       float64   `json:"power_w"`
}

// JobGPUSpan is one interval during which the job held a GPU.
type JobGPUSpan struct {
	Host string    `json:"host"`
	UUID string    `json:"uuid"`
	From time.Time `json:"from"`
	To   time.Time `json:"to,omitzero"`
}

// JobPoint is the job's GPUs at one time: mean utilization and total power.
type JobPoint struct {
	T       time.Time `json:"t"`
	UtilGPU float64   `json:"util_gpu_pct"`
	PowerW  float64   `json:"power_w"`
}

// JobDecision is one planner decision about the job.
type JobDecision struct {
	Cycle  int64     `json:"cycle"`
	At     time.Time `json:"at"`
	Action string    `json:"action"`
	Reason string    `json:"reason"`
	Detail string    `json:"detail,omitempty"`
}
