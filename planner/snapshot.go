package planner

import (
	"time"
)

// Snapshot is everything a policy may look at during one plan cycle. It is
// built by the slurm adapter (or by the simulator) and never mutated by a
// policy. Slices are sorted (nodes by name, partitions by name, jobs by ID) by
// whoever builds the snapshot, so that the same cluster state always yields
// the same plan.
type Snapshot struct {
	// ID identifies the snapshot in logs, plans and the audit trail. Any
	// tie-break randomness inside a policy is seeded from it.
	ID string `json:"id"`
	// Now is the cluster time of the snapshot; policies never read a clock.
	Now time.Time `json:"now"`
	// Cluster is Slurm's ClusterName.
	Cluster    string      `json:"cluster"`
	Nodes      []Node      `json:"nodes"`
	Partitions []Partition `json:"partitions"`
	Jobs       []Job       `json:"jobs"`
	// BurstBufferPools are the burst-buffer pools with their capacity (from
	// configuration, since slurmrestd does not expose them). May be empty.
	BurstBufferPools []BurstBufferPool `json:"burst_buffer_pools,omitempty"`
	// Calibration holds the speed factors and GPU power measured on
	// finished jobs; nil = none (the time model and Options.GPUWatts as
	// configured).
	Calibration *Calibration `json:"calibration,omitempty"`
	// Ended are jobs slurmctld still lists (for MinJobAge after their end)
	// that ran and ended, with their end state and EndTime. The planner
	// never reads them: the daemon and the collector record them, so that
	// the site's model learns from every ended run (calibration, users'
	// records, history) without slurmdbd.
	Ended []Job `json:"ended,omitempty"`
}

// Node is one Slurm node as the planner sees it.
type Node struct {
	Name       string   `json:"name"`
	State      []string `json:"state"` // Slurm state flags, e.g. ["MIXED","DRAIN"]
	Partitions []string `json:"partitions"`
	CPUs       int      `json:"cpus"`
	AllocCPUs  int      `json:"alloc_cpus"`
	MemoryMB   int64    `json:"memory_mb"`
	AllocMemMB int64    `json:"alloc_memory_mb"`
	GPUs       int      `json:"gpus"`
	AllocGPUs  int      `json:"alloc_gpus"`
	GPUType    string   `json:"gpu_type,omitempty"` // "" when the GRES is untyped
}

// Usable reports whether new work may be placed on the node: it is up and
// neither drained, draining, down, powered down nor failing, nor blocked
// by a job that holds its topology segment exclusively (BLOCKED, Slurm
// 25.11 and later).
func (n Node) Usable() bool {
	for _, s := range n.State {
		switch s {
		case "DOWN", "DRAIN", "DRAINING", "DRAINED", "FAIL", "FAILING", "POWERED_DOWN",
			"POWERING_DOWN", "POWER_DOWN", "NOT_RESPONDING", "INVALID", "FUTURE", "UNKNOWN", "MAINTENANCE", "RESERVED",
			"BLOCKED":
			return false
		}
	}
	return len(n.State) > 0
}

// FreeGPUs is the number of GPUs not allocated on the node.
func (n Node) FreeGPUs() int { return max(0, n.GPUs-n.AllocGPUs) }

// Partition is one Slurm partition (a planning island).
type Partition struct {
	Name      string        `json:"name"`
	Nodes     []string      `json:"nodes"`
	MaxTime   time.Duration `json:"max_time,omitempty"` // 0 = unlimited
	TotalCPUs int           `json:"total_cpus"`
	TotalGPUs int           `json:"total_gpus"`
	Default   bool          `json:"default,omitempty"`
	// PriorityJobFactor is the partition's PriorityJobFactor (the
	// multifactor priority's partition factor, over the largest of all
	// partitions); 0 = not read.
	PriorityJobFactor int64 `json:"priority_job_factor,omitempty"`
}

// BurstBufferPool is a burst-buffer pool and its capacity.
type BurstBufferPool struct {
	Name          string  `json:"name"`
	CapacityBytes int64   `json:"capacity_bytes"`
	UsedBytes     int64   `json:"used_bytes"`
	BandwidthBps  float64 `json:"bandwidth_bps,omitempty"` // per transfer; 0 = unknown
	// TotalBandwidthBps is the pool's bandwidth shared by the transfers
	// under way (each gets an equal share, at most BandwidthBps); 0 =
	// unknown (Options.BurstBufferPoolBps), or no limit beyond BandwidthBps.
	TotalBandwidthBps float64 `json:"total_bandwidth_bps,omitempty"`
	// GranularityBytes is the pool's allocation unit (a job's space is
	// rounded up to it); 0 or 1 = bytes.
	GranularityBytes int64 `json:"granularity_bytes,omitempty"`
}

// JobState is Slurm's base job state.
type JobState string

// Job states the planner distinguishes; any other Slurm state is passed as is.
const (
	JobPending   JobState = "PENDING"
	JobRunning   JobState = "RUNNING"
	JobSuspended JobState = "SUSPENDED"
	JobCompleted JobState = "COMPLETED"
)

// Job is one Slurm job (pending or running) as the planner sees it.
type Job struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	User      string `json:"user"`
	Account   string `json:"account,omitempty"`
	Partition string `json:"partition"`
	// Partitions are the partitions the user allowed (sbatch -p a,b), in
	// the user's order, when more than one: Slurm's list while the job
	// names several, or Strata's record of it (the admin comment's parts=)
	// after Strata wrote one of them as the job's partition
	// (Decision.Partition). Empty: the job may run only in Partition.
	Partitions []string `json:"partitions,omitempty"`
	State      JobState `json:"state"`
	// Reason is Slurm's state reason (e.g. "Resources", "Priority").
	Reason     string        `json:"reason,omitempty"`
	SubmitTime time.Time     `json:"submit_time"`
	StartTime  time.Time     `json:"start_time,omitzero"`  // zero while pending
	EndTime    time.Time     `json:"end_time,omitzero"`    // Snapshot.Ended only
	TimeLimit  time.Duration `json:"time_limit,omitempty"` // 0 = none
	// BeginTime is the begin time the user set on a pending job (sbatch
	// --begin): Slurm does not consider the job before it, and the plan
	// leaves the job alone until then. Zero when none is set, and when the
	// begin time is one Strata wrote itself (Decision.NotBefore).
	BeginTime time.Time `json:"begin_time,omitzero"`
	// DeferredUntil is the begin time Strata itself wrote on the job
	// (Decision.NotBefore) while it is in effect; zero when none. The
	// planner ignores it (it replans every cycle); the writer compares
	// against it.
	DeferredUntil time.Time `json:"deferred_until,omitzero"`
	Priority      int64     `json:"priority"`
	// Nice is the job's nice as Slurm holds it (0: none); Slurm subtracts
	// it from the multifactor priority. SitePriority is the site's own
	// priority of the job: the multifactor priority without the nice
	// (Priority + Nice), 0 when not known (held, or a priority fixed by
	// an absolute write). The planner scales a job's weight by it
	// (sitepolicy.go).
	Nice         int64 `json:"nice,omitempty"`
	SitePriority int64 `json:"site_priority,omitempty"`
	// QOS is the job's QOS ("" = not read).
	QOS string `json:"qos,omitempty"`
	// Site is the site's policy for a pending job as read beside it
	// (slurmrestd's /shares, QOS and partitions): the planner weighs the
	// job by it where SitePriority is not known; nil when not read.
	// SiteUnread says why it could not be read ("" = read, or not asked
	// for): a job that needs it is then left untouched for the cycle.
	Site       *SiteFactors `json:"site,omitempty"`
	SiteUnread string       `json:"site_unread,omitempty"`

	// GPU request: GPUsPerNode × Nodes when requested per node
	// (tres_per_node), GPUsPerJob when requested per job (tres_per_job,
	// sbatch --gpus), or GPUsPerTask × Tasks (tres_per_task,
	// --gpus-per-task). A per-task request keeps its size: the planner
	// changes only its priority.
	GPUsPerNode int `json:"gpus_per_node,omitempty"`
	GPUsPerJob  int `json:"gpus_per_job,omitempty"`
	GPUsPerTask int `json:"gpus_per_task,omitempty"`
	Tasks       int `json:"tasks,omitempty"`
	// TasksPerNode is the job's --ntasks-per-node (0: none); a PS job
	// whose servers Strata wrote as tasks has one (Decision.TasksPerNode).
	TasksPerNode int    `json:"tasks_per_node,omitempty"`
	GPUType      string `json:"gpu_type,omitempty"`
	Nodes        int    `json:"nodes"` // minimum node count requested (≥1)
	CPUs         int    `json:"cpus"`  // total CPUs requested
	MemoryMB     int64  `json:"memory_mb,omitempty"`
	// The request as Slurm holds it, so that a rewrite loses nothing:
	// TRESPerNode and TRESPerJob are the raw TRES strings (other GRES such
	// as gres/nvme stay when the GPU count changes); CPUsPerTask and
	// MemoryPerNodeMB are what the job asked per task and per node (0: not
	// asked that way), scaled with the GPU count by the writer unless the
	// job asked for CPUs or memory per GPU (CPUsPerGPU, MemoryPerGPU), which
	// Slurm scales itself. The planner reads none of them.
	TRESPerNode     string `json:"tres_per_node,omitempty"`
	TRESPerJob      string `json:"tres_per_job,omitempty"`
	CPUsPerTask     int    `json:"cpus_per_task,omitempty"`
	MemoryPerNodeMB int64  `json:"memory_per_node_mb,omitempty"`
	CPUsPerGPU      bool   `json:"cpus_per_gpu,omitempty"`
	MemoryPerGPU    bool   `json:"memory_per_gpu,omitempty"`

	// Comment is the user's --comment; the planner parses its strata: segment.
	Comment      string `json:"comment,omitempty"`
	AdminComment string `json:"admin_comment,omitempty"`
	// BurstBuffer is the raw burst-buffer directive text; BurstBufferBytes
	// the capacity parsed from it (0 when none).
	BurstBuffer      string `json:"burst_buffer,omitempty"`
	BurstBufferPool  string `json:"burst_buffer_pool,omitempty"`
	BurstBufferBytes int64  `json:"burst_buffer_bytes,omitempty"`
	// BurstBufferState is Slurm's burst-buffer state of the job ("pending",
	// "staged-in", "running", ...); "" when the job has none.
	BurstBufferState string `json:"burst_buffer_state,omitempty"`

	// Running jobs: where they run and which GPU indices they hold per node.
	NodeList []string        `json:"node_list,omitempty"`
	GPUAlloc []GPUAllocation `json:"gpu_alloc,omitempty"`

	// AttainedGPUSeconds is the GPU service the job has received so far
	// (for least-attained-service policies). The slurm adapter fills it as
	// GPUs × elapsed; the simulator tracks it across preemptions.
	AttainedGPUSeconds float64 `json:"attained_gpu_seconds,omitempty"`
	// Restarts counts how often the job was restarted: Slurm's restart_cnt
	// (requeues), or the simulator's count of preemptions and resizes.
	Restarts int `json:"restarts,omitempty"`
	// Requeue is Slurm's record that the job may be requeued (sbatch
	// --requeue, or JobRequeue=1): without it a preempted job could not
	// come back, so Strata never preempts it (Preemptible).
	Requeue bool `json:"requeue,omitempty"`
	// NonCooperative marks a job Strata once sent its checkpoint signal and
	// that did not requeue itself in time (the slurm adapter reads the mark
	// from Strata's admin comment): it is never preempted again.
	NonCooperative bool `json:"non_cooperative,omitempty"`
	// Signalled is when Strata sent the running job its checkpoint signal
	// (zero: not signalled); the job is expected to checkpoint and requeue
	// itself, so the planner counts its GPUs as free soon and never
	// preempts it again.
	Signalled time.Time `json:"signalled,omitzero"`
	// PreemptsToday is how often Strata preempted the job in the last 24
	// hours (the daemon counts them in its audit trail, as it gives them
	// to the guard): the planner preempts it no more than
	// Options.MaxPreemptPerDay times, and spends the last one only on a
	// large gain.
	PreemptsToday int `json:"preempts_today,omitempty"`
	// ArrayJobID is the job array a job belongs to (0: none); a pending
	// array's record stands for all its remaining tasks. HetJobID is the
	// heterogeneous job a component belongs to (0: none). Strata leaves
	// pending array and heterogeneous jobs untouched (docs/slurm.md).
	ArrayJobID int64 `json:"array_job_id,omitempty"`
	HetJobID   int64 `json:"het_job_id,omitempty"`
	// SizeLocked: Strata may no longer change the job's GPU request (its
	// writer reached the per-job resize cap); the planner keeps the
	// request, as for a job without a gpus= range.
	SizeLocked bool `json:"size_locked,omitempty"`
	// Claim corrects the job's predicted run time by its user's own record
	// (planner/trust; set by decide.Annotate). Zero: no correction.
	Claim Claim `json:"claim,omitzero"`
	// Unreadable says why the adapter could not read the job fully (an
	// unparsable burst-buffer directive or GRES string): the planner leaves
	// such a job untouched. "" for jobs read completely.
	Unreadable string `json:"unreadable,omitempty"`
}

// GPUAllocation lists the GPU indices (Slurm's IDX, device minor order) a
// running job holds on one node.
type GPUAllocation struct {
	Node    string `json:"node"`
	Indices []int  `json:"indices"`
}

// GPUs is the total number of GPUs the job requests (or holds).
func (j Job) GPUs() int {
	if j.GPUsPerJob > 0 {
		return j.GPUsPerJob
	}
	if j.GPUsPerTask > 0 {
		return j.GPUsPerTask * max(1, j.Tasks)
	}
	return j.GPUsPerNode * max(1, j.Nodes)
}

// Claim is how far a user's claims are trusted: the correction of a job's
// predicted run time (from its hint or from history) by its user's own
// record of predicted against real run times (planner/trust).
type Claim struct {
	// Factor multiplies the prediction (0 or 1: none).
	Factor float64 `json:"factor,omitempty"`
	// Distrust: the hint's claim is not used; the job is timed by its time
	// limit (or the correction, whichever is longer).
	Distrust bool `json:"distrust,omitempty"`
	// Jobs is how many finished jobs the record holds; Note says why, in
	// words (the decision's detail).
	Jobs int    `json:"jobs,omitempty"`
	Note string `json:"note,omitempty"`
}

// IsZero reports a claim that corrects nothing.
func (c Claim) IsZero() bool { return (c.Factor == 0 || c.Factor == 1) && !c.Distrust }
