package db

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// Cycle is one plan cycle of `strata run` (or `strata plan`) as kept in the
// audit trail: what the planner saw, what it decided for each job, and what
// was written to Slurm. Tables strata_cycles and strata_cycle_decisions.
type Cycle struct {
	// ID is assigned by ReserveCycleID (or by SaveCycle when zero). It is
	// the C of the admin comment "strata: ... cycle=C".
	ID         int64     `json:"id"`
	Cluster    string    `json:"cluster"`
	SnapshotID string    `json:"snapshot_id"`
	Policy     string    `json:"policy"`
	Enforce    bool      `json:"enforce"`
	StartedAt  time.Time `json:"started_at"`
	// Duration is the wall time from snapshot to the end of Apply.
	Duration time.Duration `json:"duration"`
	Inputs   CycleInputs   `json:"inputs"`
	// Decisions are the stored decisions of the cycle, by job ID. A daemon
	// may leave out decisions identical to the last stored one of the job.
	Decisions []CycleDecision `json:"decisions"`
}

// CycleInputs summarises the snapshot a cycle planned from.
type CycleInputs struct {
	PendingJobs int `json:"pending_jobs"`
	RunningJobs int `json:"running_jobs"`
	// InScope is the number of pending jobs the daemon was allowed to plan
	// (its partition/user/name filters).
	InScope     int `json:"in_scope"`
	Nodes       int `json:"nodes"`
	UsableNodes int `json:"usable_nodes"`
	TotalGPUs   int `json:"total_gpus"`
	FreeGPUs    int `json:"free_gpus"`
	// Settings are the planner and write settings the cycle ran with
	// (configuration keys → values as written; the defaults are not listed).
	Settings map[string]string `json:"settings,omitempty"`
}

// CycleDecision is the planner's decision for one job in one cycle, with
// what the daemon did with it.
type CycleDecision struct {
	planner.Decision
	// Job facts at snapshot time (for explain and reports).
	User          string           `json:"user"`
	Partition     string           `json:"partition"`
	JobName       string           `json:"job_name"`
	State         planner.JobState `json:"state"`
	RequestedGPUs int              `json:"requested_gpus"`
	CurPriority   int64            `json:"cur_priority"`
	// Outcome is what became of the decision (written, held, kept, ...).
	Outcome decide.Outcome `json:"outcome"`
	// Guard names the rule that held or trimmed the write ("" when none).
	Guard decide.Name `json:"guard,omitempty"`
	// Body is the JSON update sent to slurmrestd (or, in shadow mode, that
	// enforce mode would have sent).
	Body string `json:"body,omitempty"`
	// Resized: the write changes the job's GPU request (the guards'
	// decide.Verdict.Resizes), what the per-job resize cap counts once
	// applied (RewriteCounts).
	Resized bool `json:"resized,omitempty"`
	// OutcomeDetail says why, in words (Apply's detail or the guard's).
	OutcomeDetail string `json:"outcome_detail,omitempty"`
	// Alternatives are what other policies would have decided for the job
	// from the same snapshot.
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// HasFacts says that Model, GPUType and ModelRun are what the time
	// model said about the job (planner.ModelFacts), stored for
	// calibration (not read back); without, the GPU type is stored as not
	// known.
	HasFacts bool          `json:"has_facts,omitempty"`
	Model    string        `json:"model,omitempty"`
	GPUType  string        `json:"gpu_type,omitempty"`
	ModelRun time.Duration `json:"model_run,omitempty"`
}

// Alternative is another policy's decision for the same job and snapshot.
type Alternative struct {
	Policy         string           `json:"policy"`
	Action         planner.Action   `json:"action"`
	Workers        int              `json:"workers"`
	PS             int              `json:"ps,omitempty"`
	Rank           int              `json:"rank"`
	PredictedStart time.Time        `json:"predicted_start,omitzero"`
	PredictedEnd   time.Time        `json:"predicted_end,omitzero"`
	Reasons        []planner.Reason `json:"reasons"`
}

// StoredDecision is a stored decision for one job with its cycle's context;
// DecisionsForJob returns them for `strata explain`.
type StoredDecision struct {
	CycleDecision
	CycleID    int64     `json:"cycle_id"`
	Cluster    string    `json:"cluster"`
	Policy     string    `json:"policy"`
	Enforce    bool      `json:"enforce"`
	SnapshotID string    `json:"snapshot_id"`
	DecidedAt  time.Time `json:"decided_at"`
	// Settings are the planner settings of the cycle (CycleInputs.Settings).
	Settings map[string]string `json:"settings,omitempty"`
}

// ReserveCycleID takes the next cycle number from the database, so that
// the admin comments written during a cycle name the cycle they belong to.
func (s *Store) ReserveCycleID(ctx context.Context) (int64, error) {
	q, err := s.q.get("ReserveCycleID")
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.pool.QueryRow(ctx, q).Scan(&id)
	return id, interpretError("reserve cycle id", err)
}

// decisionColumns are plan_decision's columns in the order of decisionRow.
var decisionColumns = []string{"cycle_id", "job_id", "user_name", "partition", "job_name", "state",
	"requested_gpus", "cur_priority", "action", "start_now", "workers", "ps", "gpus_per_node",
	"node_count", "rank", "priority", "predicted_start", "predicted_end", "reasons", "detail",
	"outcome", "guard", "body", "outcome_detail", "alternatives", "gpu_type", "model", "model_seconds",
	"claimed_seconds", "time_limit_seconds", "resized"}

func decisionRow(id int64, d CycleDecision) ([]any, error) {
	reasons := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		reasons[i] = string(r)
	}
	var modelSeconds, gpuType any
	if d.HasFacts {
		gpuType = d.GPUType
		if d.ModelRun > 0 {
			modelSeconds = d.ModelRun.Seconds()
		}
	}
	var claimed, limit any
	if d.Claimed > 0 {
		claimed = d.Claimed.Seconds()
	}
	if d.TimeLimit > 0 {
		limit = d.TimeLimit.Seconds()
	}
	var alts any
	if len(d.Alternatives) > 0 {
		b, err := json.Marshal(d.Alternatives)
		if err != nil {
			return nil, fmt.Errorf("encode alternatives of job %d: %w", d.JobID, err)
		}
		alts = string(b)
	}
	return []any{id, d.JobID, d.User, d.Partition, d.JobName, string(d.State), d.RequestedGPUs,
		d.CurPriority, string(d.Action), d.Start, d.Workers, d.PS, d.GPUsPerNode, d.NodeCount, d.Rank,
		d.Priority, timePtr(d.PredictedStart), timePtr(d.PredictedEnd), reasons, d.Detail, d.Outcome,
		d.Guard, d.Body, d.OutcomeDetail, alts, gpuType, d.Model, modelSeconds, claimed, limit, d.Resized}, nil
}

// SaveCycle stores a cycle and its decisions in one transaction (decisions
// by COPY). A zero c.ID is reserved first and set. Saving the same cycle ID
// twice stores it once, so a save retried after an uncertain commit is
// harmless.
func (s *Store) SaveCycle(ctx context.Context, c *Cycle) error {
	if c.ID == 0 {
		id, err := s.ReserveCycleID(ctx)
		if err != nil {
			return fmt.Errorf("save cycle: %w", err)
		}
		c.ID = id
	}
	ins, err := s.q.get("InsertCycle")
	if err != nil {
		return err
	}
	inputs, err := json.Marshal(c.Inputs)
	if err != nil {
		return fmt.Errorf("save cycle %d: encode inputs: %w", c.ID, err)
	}
	rows := make([][]any, 0, len(c.Decisions))
	for _, d := range c.Decisions {
		r, err := decisionRow(c.ID, d)
		if err != nil {
			return fmt.Errorf("save cycle %d: %w", c.ID, err)
		}
		rows = append(rows, r)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, ins, c.ID, c.Cluster, c.SnapshotID, c.Policy, c.Enforce, c.StartedAt,
			float64(c.Duration)/float64(time.Millisecond), string(inputs))
		if err != nil || tag.RowsAffected() == 0 {
			return err // already saved: nothing more to do
		}
		_, err = tx.CopyFrom(ctx, pgx.Identifier{"plan_decision"}, decisionColumns, pgx.CopyFromRows(rows))
		return err
	})
	return interpretError(fmt.Sprintf("save cycle %d", c.ID), err)
}

// RewriteCounts returns, for the given jobs of a cluster (job ID → submit
// time), how many times each was resized (applied writes of a new GPU
// request) in cycles since its submission, so that a reused job ID does
// not inherit an older job's count. Jobs never resized are absent.
func (s *Store) RewriteCounts(ctx context.Context, cluster string, jobs map[int64]time.Time) (map[int64]int, error) {
	out := map[int64]int{}
	if len(jobs) == 0 {
		return out, nil
	}
	q, err := s.q.get("RewriteCounts")
	if err != nil {
		return nil, err
	}
	ids, since := jobsSince(jobs)
	rows, err := s.pool.Query(ctx, q, cluster, ids, since)
	if err != nil {
		return nil, interpretError("count rewrites", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, interpretError("count rewrites", err)
		}
		out[id] = int(n)
	}
	return out, interpretError("count rewrites", rows.Err())
}

// WriteCounts returns, for the given jobs of a cluster (job ID → submit
// time), how many writes were attempted on each since its submission
// (applied or failed; not signals) and how many of those failed, for the
// guards' per-job write caps. Jobs never written to are absent.
func (s *Store) WriteCounts(ctx context.Context, cluster string, jobs map[int64]time.Time) (writes, failed map[int64]int, err error) {
	writes, failed = map[int64]int{}, map[int64]int{}
	if len(jobs) == 0 {
		return writes, failed, nil
	}
	q, err := s.q.get("WriteCounts")
	if err != nil {
		return nil, nil, err
	}
	ids, since := jobsSince(jobs)
	rows, err := s.pool.Query(ctx, q, cluster, ids, since)
	if err != nil {
		return nil, nil, interpretError("count writes", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n, f int64
		if err := rows.Scan(&id, &n, &f); err != nil {
			return nil, nil, interpretError("count writes", err)
		}
		writes[id] = int(n)
		if f > 0 {
			failed[id] = int(f)
		}
	}
	return writes, failed, interpretError("count writes", rows.Err())
}

// PreemptionCounts says how often each of jobs was sent its checkpoint
// signal (outcome signalled) since since, for the per-day preemption cap.
func (s *Store) PreemptionCounts(ctx context.Context, cluster string, since time.Time, jobs []int64) (map[int64]int, error) {
	out := map[int64]int{}
	if len(jobs) == 0 {
		return out, nil
	}
	q, err := s.q.get("PreemptionCounts")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, cluster, since, jobs)
	if err != nil {
		return nil, interpretError("count preemptions", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, interpretError("count preemptions", err)
		}
		out[id] = int(n)
	}
	return out, interpretError("count preemptions", rows.Err())
}

// DecisionsForJob returns the stored decisions for a job, newest first (at
// most limit; cluster "" = any cluster). An unknown job gives no rows and no
// error.
func (s *Store) DecisionsForJob(ctx context.Context, jobID int64, cluster string, limit int) ([]StoredDecision, error) {
	q, err := s.q.get("DecisionsForJob")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, jobID, cluster, limit)
	if err != nil {
		return nil, interpretError("read decisions", err)
	}
	defer rows.Close()
	var out []StoredDecision
	for rows.Next() {
		d, err := scanStoredDecision(rows)
		if err != nil {
			return nil, interpretError("read decisions", err)
		}
		out = append(out, d)
	}
	return out, interpretError("read decisions", rows.Err())
}

func scanStoredDecision(rows pgx.Rows) (StoredDecision, error) {
	var (
		d          StoredDecision
		state, act string
		ps, pe     *time.Time
		reasons    []string
		alts       []byte
		settings   []byte
		claimed    *float64
		limit      *float64
	)
	err := rows.Scan(&d.CycleID, &d.Cluster, &d.Policy, &d.Enforce, &d.SnapshotID, &d.DecidedAt,
		&d.JobID, &d.User, &d.Partition, &d.JobName, &state, &d.RequestedGPUs, &d.CurPriority,
		&act, &d.Start, &d.Workers, &d.PS, &d.GPUsPerNode, &d.NodeCount, &d.Rank, &d.Priority,
		&ps, &pe, &reasons, &d.Detail, &d.Outcome, &d.Guard, &d.Body, &d.OutcomeDetail, &alts, &settings, &claimed, &limit, &d.Resized)
	if err != nil {
		return d, err
	}
	if claimed != nil {
		d.Claimed = seconds(*claimed)
	}
	if limit != nil {
		d.TimeLimit = seconds(*limit)
	}
	d.State, d.Action = planner.JobState(state), planner.Action(act)
	if ps != nil {
		d.PredictedStart = ps.UTC()
	}
	if pe != nil {
		d.PredictedEnd = pe.UTC()
	}
	d.DecidedAt = d.DecidedAt.UTC()
	for _, r := range reasons {
		d.Reasons = append(d.Reasons, planner.Reason(r))
	}
	if len(alts) > 0 {
		if err := json.Unmarshal(alts, &d.Alternatives); err != nil {
			return d, fmt.Errorf("decode alternatives of job %d: %w", d.JobID, err)
		}
	}
	if len(settings) > 0 && string(settings) != "null" {
		if err := json.Unmarshal(settings, &d.Settings); err != nil {
			return d, fmt.Errorf("decode settings of cycle %d: %w", d.CycleID, err)
		}
	}
	return d, nil
}

// LatestCycle returns the newest stored cycle (of cluster; "" = any),
// without its decisions; ErrNotFound when there is none.
func (s *Store) LatestCycle(ctx context.Context, cluster string) (Cycle, error) {
	q, err := s.q.get("LatestCycle")
	if err != nil {
		return Cycle{}, err
	}
	var (
		c      Cycle
		ms     float64
		inputs []byte
	)
	err = s.pool.QueryRow(ctx, q, cluster).Scan(&c.ID, &c.Cluster, &c.SnapshotID, &c.Policy, &c.Enforce,
		&c.StartedAt, &ms, &inputs)
	if err != nil {
		return Cycle{}, interpretError("read latest cycle", err)
	}
	c.StartedAt = c.StartedAt.UTC()
	c.Duration = time.Duration(ms * float64(time.Millisecond))
	if err := json.Unmarshal(inputs, &c.Inputs); err != nil {
		return Cycle{}, fmt.Errorf("read latest cycle: decode inputs: %w", err)
	}
	return c, nil
}

// PruneCycles deletes the cycles (and their decisions) started before
// cutoff and returns how many cycles went.
func (s *Store) PruneCycles(ctx context.Context, cutoff time.Time) (int64, error) {
	q, err := s.q.get("PruneCycles")
	if err != nil {
		return 0, err
	}
	tag, err := s.pool.Exec(ctx, q, cutoff)
	if err != nil {
		return 0, interpretError("prune cycles", err)
	}
	return tag.RowsAffected(), nil
}

// LatestSampleTime returns the time of the newest GPU sample after since
// (zero when there is none): the daemon's telemetry ingestion-lag gauge.
func (s *Store) LatestSampleTime(ctx context.Context, since time.Time) (time.Time, error) {
	q, err := s.q.get("LatestSampleTime")
	if err != nil {
		return time.Time{}, err
	}
	var ts *time.Time
	if err := s.pool.QueryRow(ctx, q, since).Scan(&ts); err != nil {
		return time.Time{}, interpretError("read latest sample time", err)
	}
	return utcOrZero(ts), nil
}

// jobsSince splits jobs (ID → submit time) into the parallel arrays the
// per-job count queries take, sorted by ID.
func jobsSince(jobs map[int64]time.Time) ([]int64, []time.Time) {
	ids := make([]int64, 0, len(jobs))
	for id := range jobs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	since := make([]time.Time, len(ids))
	for i, id := range ids {
		since[i] = jobs[id]
	}
	return ids, since
}
