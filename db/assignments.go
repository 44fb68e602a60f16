package db

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// SaveAssignments inserts or closes GPU assignments of one cluster's jobs
// (Slurm's ClusterName, as UpsertJobs): an assignment is identified by
// (job, GPU UUID, From); saving it again with To set closes it. Saving the
// same assignment twice is harmless; another cluster cannot close it.
func (s *Store) SaveAssignments(ctx context.Context, cluster string, as []dcgm.Assignment) error {
	as = lastAssignments(as)
	if len(as) == 0 {
		return nil
	}
	n := len(as)
	jobs, hosts, uuids := make([]int64, n), make([]string, n), make([]string, n)
	from, to := make([]time.Time, n), make([]*time.Time, n)
	for i, a := range as {
		jobs[i], hosts[i], uuids[i], from[i] = a.Job, a.Host, a.UUID, a.From
		if !a.To.IsZero() {
			t := a.To
			to[i] = &t
		}
	}
	q, err := s.q.get("UpsertAssignments")
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, q, jobs, hosts, uuids, from, to, cluster)
	return interpretError("save assignments", err)
}

// OpenAssignments returns the assignments not yet closed, of one host or of
// all hosts when host is empty (to resume a dcgm.Tracker after a restart).
func (s *Store) OpenAssignments(ctx context.Context, host string) ([]dcgm.Assignment, error) {
	q, err := s.q.get("OpenAssignments")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, host)
	if err != nil {
		return nil, interpretError("open assignments", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dcgm.Assignment, error) {
		var a dcgm.Assignment
		err := r.Scan(&a.Job, &a.Host, &a.UUID, &a.From)
		return a, err
	})
	return out, interpretError("open assignments", err)
}

// LatestAssignmentTime returns the latest time an assignment of cluster
// opened or closed (zero when there is none): a restarted collector places
// no holding before it, so a replay started again from its beginning, or a
// clock that is behind, cannot open an interval already closed.
func (s *Store) LatestAssignmentTime(ctx context.Context, cluster string) (time.Time, error) {
	q, err := s.q.get("LatestAssignmentTime")
	if err != nil {
		return time.Time{}, err
	}
	var ts *time.Time
	if err := s.pool.QueryRow(ctx, q, cluster).Scan(&ts); err != nil {
		return time.Time{}, interpretError("latest assignment time", err)
	}
	return utcOrZero(ts), nil
}

// JobAssignments returns every assignment of one job id (of every cluster
// and every job with that id; JobReport keeps those of one job).
func (s *Store) JobAssignments(ctx context.Context, job int64) ([]dcgm.Assignment, error) {
	q, err := s.q.get("JobAssignments")
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, q, job)
	if err != nil {
		return nil, interpretError("job assignments", err)
	}
	out, err := pgx.CollectRows(rows, scanAssignment)
	return out, interpretError("job assignments", err)
}

// scanAssignment reads job_id, host, gpu_uuid, t_from, t_to.
func scanAssignment(r pgx.CollectableRow) (dcgm.Assignment, error) {
	var a dcgm.Assignment
	var to *time.Time
	err := r.Scan(&a.Job, &a.Host, &a.UUID, &a.From, &to)
	if to != nil {
		a.To = *to
	}
	return a, err
}

// UpsertJobs records Slurm jobs (identity and accounting fields used by
// reports). cluster is Slurm's ClusterName. A job is identified by
// (cluster, ID, SubmitTime), so that two clusters' jobs with one ID, and a
// job whose ID a cluster reused (Slurm's IDs wrap), stay apart: a new
// SubmitTime for a known ID is a new job. A zero SubmitTime means unknown:
// the cluster's latest job of that ID is updated (created if there is
// none, and adopted by the first SubmitTime reported later). Other times
// left zero keep what is stored; EndTime is taken from end, which the
// caller knows for finished jobs (planner.Job has no end time); pass a zero
// time when unknown.
func (s *Store) UpsertJobs(ctx context.Context, cluster string, jobs []planner.Job, end map[int64]time.Time) error {
	jobs = lastJobs(jobs)
	if len(jobs) == 0 {
		return nil
	}
	n := len(jobs)
	ids, gpus := make([]int64, n), make([]int32, n)
	names, users, accts, parts, states := make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n)
	sub, sta, en := make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
	limits := make([]*float64, n)
	var knownIDs []int64
	var knownSub []time.Time
	for i, j := range jobs {
		ids[i], gpus[i] = j.ID, int32(j.GPUs())
		names[i], users[i], accts[i], parts[i], states[i] = j.Name, j.User, j.Account, j.Partition, string(j.State)
		sub[i], sta[i], en[i] = timePtr(j.SubmitTime), timePtr(j.StartTime), timePtr(end[j.ID])
		if j.TimeLimit > 0 {
			l := j.TimeLimit.Seconds()
			limits[i] = &l
		}
		if !j.SubmitTime.IsZero() {
			knownIDs, knownSub = append(knownIDs, j.ID), append(knownSub, j.SubmitTime)
		}
	}
	adopt, err := s.q.get("AdoptJobSubmitTimes")
	if err != nil {
		return err
	}
	upsert, err := s.q.get("UpsertJobs")
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if len(knownIDs) > 0 {
			if _, err := tx.Exec(ctx, adopt, knownIDs, knownSub, cluster); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, upsert, cluster, ids, names, users, accts, parts, states, gpus, sub, sta, en, limits)
		return err
	})
	return interpretError("upsert jobs", err)
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// lastAssignments keeps the last entry of each (job, UUID, From): a batch
// may open and close the same assignment, and one statement may not touch a
// row twice.
func lastAssignments(as []dcgm.Assignment) []dcgm.Assignment {
	type key struct {
		job  int64
		uuid string
		from int64
	}
	pos := map[key]int{}
	var out []dcgm.Assignment
	for _, a := range as {
		k := key{a.Job, a.UUID, a.From.UnixNano()}
		if i, ok := pos[k]; ok {
			out[i] = a
			continue
		}
		pos[k] = len(out)
		out = append(out, a)
	}
	return out
}

// lastJobs keeps the last entry of each job (ID and SubmitTime), and drops
// the entries without a SubmitTime of an ID that has one in the batch: one
// statement may not touch a row twice.
func lastJobs(jobs []planner.Job) []planner.Job {
	type key struct {
		id     int64
		known  bool
		submit int64
	}
	known := map[int64]bool{}
	for _, j := range jobs {
		if !j.SubmitTime.IsZero() {
			known[j.ID] = true
		}
	}
	pos := map[key]int{}
	var out []planner.Job
	for _, j := range jobs {
		if j.SubmitTime.IsZero() && known[j.ID] {
			continue
		}
		k := key{j.ID, !j.SubmitTime.IsZero(), j.SubmitTime.UnixNano()}
		if i, ok := pos[k]; ok {
			out[i] = j
			continue
		}
		pos[k] = len(out)
		out = append(out, j)
	}
	return out
}
