package db

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
)

// maxJobPoints bounds the per-job series (bins widen for long jobs).
const maxJobPoints = 300

// jobOwner restricts the per-job page to one job of an id: its cluster
// (nil: any, when the id has no job row) and the time from which its rows
// are its own (nil: always; later than the previous job of the id's).
type jobOwner struct {
	cluster *string
	from    *time.Time
}

// JobReport returns one job's facts, GPU assignments, rollup totals (of the
// job and of each of its GPUs), its GPUs' utilization, memory and power
// over time (from that job's samples only, in at most 300 bins) and the
// planner's decisions about it. When several jobs have the id, it is the
// one submitted last, and only its own assignments and rollups count.
//
// scope is the reader's: a job outside it is not found, as an unknown one
// is (the answer does not tell that it exists); a limited scope sees a job
// without a job row only through decisions whose user or account it
// covers, and never unattributed GPU assignments. A job with decisions but
// no telemetry has facts from its decisions and no GPUs. An unknown job (no
// job row, assignment or decision in scope) gives an error wrapping
// ErrNotFound.
func (s *Store) JobReport(ctx context.Context, job int64, scope Scope) (JobReport, error) {
	jr := JobReport{Job: job}
	own, found, err := s.loadJobFacts(ctx, &jr, scope)
	if err != nil {
		return jr, err
	}
	if found || scope.All() {
		if err := s.loadJobAssignments(ctx, &jr, own); err != nil {
			return jr, err
		}
	}
	if err := s.loadJobDecisions(ctx, &jr, own, scope, !found); err != nil {
		return jr, err
	}
	if !found && len(jr.GPUs) == 0 && len(jr.Decisions) == 0 {
		return jr, fmt.Errorf("job report %d: %w", job, ErrNotFound)
	}
	jr.Series, jr.PerGPU = []JobPoint{}, []JobGPU{}
	if len(jr.GPUs) == 0 {
		return jr, nil
	}
	if err := s.loadJobTotals(ctx, &jr, own); err != nil {
		return jr, err
	}
	if err := s.loadJobGPUs(ctx, &jr, own); err != nil {
		return jr, err
	}
	return jr, s.loadJobSeries(ctx, &jr, own)
}

func (s *Store) loadJobFacts(ctx context.Context, jr *JobReport, scope Scope) (jobOwner, bool, error) {
	q, err := s.q.get("ReportJob")
	if err != nil {
		return jobOwner{}, false, err
	}
	var submit, start, end, from *time.Time
	args := append([]any{jr.Job}, scopeArgs(scope)...)
	err = s.pool.QueryRow(ctx, q, args...).Scan(&jr.Job, &jr.Cluster, &jr.Name, &jr.User, &jr.Account, &jr.Partition,
		&submit, &start, &end, &from)
	if errors.Is(err, pgx.ErrNoRows) {
		return jobOwner{}, false, nil // assignments or decisions may still exist
	}
	jr.Submit, jr.Start, jr.End = utcOrZero(submit), utcOrZero(start), utcOrZero(end)
	return jobOwner{cluster: &jr.Cluster, from: from}, err == nil, interpretError("job report", err)
}

func (s *Store) loadJobAssignments(ctx context.Context, jr *JobReport, own jobOwner) error {
	q, err := s.q.get("ReportJobAssignments")
	if err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, q, jr.Job, own.cluster, own.from)
	if err != nil {
		return interpretError("job report assignments", err)
	}
	as, err := pgx.CollectRows(rows, scanAssignment)
	if err != nil {
		return interpretError("job report assignments", err)
	}
	for _, a := range as {
		jr.GPUs = append(jr.GPUs, JobGPUSpan{Host: a.Host, UUID: a.UUID, From: a.From.UTC(), To: a.To.UTC()})
	}
	return nil
}

func utcOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func (s *Store) loadJobTotals(ctx context.Context, jr *JobReport, own jobOwner) error {
	q, err := s.q.get("ReportJobTotals")
	if err != nil {
		return err
	}
	t := &jr.Totals
	var n int64
	var utilSec, sampled float64
	err = s.pool.QueryRow(ctx, q, jr.Job, own.cluster, own.from).Scan(&n, &t.GPUSeconds, &t.EnergyJ, &utilSec, &sampled,
		&t.IdleGPUSeconds, &t.IdleEnergyJ)
	if n > 0 {
		t.Jobs = 1
	}
	t.Job, t.JobName, t.Cluster, t.User, t.Account, t.Partition = jr.Job, jr.Name, jr.Cluster, jr.User, jr.Account, jr.Partition
	if sampled > 0 {
		t.UtilGPU = utilSec / sampled
	}
	return interpretError("job report totals", err)
}

// loadJobGPUs reads each GPU's rollup totals and memory size.
func (s *Store) loadJobGPUs(ctx context.Context, jr *JobReport, own jobOwner) error {
	q, err := s.q.get("ReportJobGPUs")
	if err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, q, jr.Job, own.cluster, own.from)
	if err != nil {
		return interpretError("job report gpus", err)
	}
	jr.PerGPU, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (JobGPU, error) {
		var g JobGPU
		var utilSec, sampled float64
		err := r.Scan(&g.UUID, &g.Host, &g.GPUSeconds, &g.EnergyJ, &utilSec, &sampled, &g.IdleGPUSeconds,
			&g.IdleEnergyJ, &g.MemTotalBytes)
		if sampled > 0 {
			g.UtilGPU = utilSec / sampled
			g.PowerW = g.EnergyJ / sampled
		}
		return g, err
	})
	return interpretError("job report gpus", err)
}

// loadJobSeries reads each GPU's bins (jr.PerGPU[i].Series, its memory
// peak) and the job's series: per bin the mean utilization of the GPUs
// sampled in it and their summed power.
func (s *Store) loadJobSeries(ctx context.Context, jr *JobReport, own jobOwner) error {
	var lo, hi time.Time
	for _, g := range jr.GPUs {
		to := g.To
		if to.IsZero() {
			to = time.Now().UTC()
		}
		if lo.IsZero() || g.From.Before(lo) {
			lo = g.From
		}
		hi = maxTime(hi, to)
	}
	step := math.Max(10, math.Ceil(hi.Sub(lo).Seconds()/maxJobPoints))
	q, err := s.q.get("ReportJobGPUSeries")
	if err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, q, jr.Job, own.cluster, own.from, step)
	if err != nil {
		return interpretError("job report series", err)
	}
	type bin struct {
		uuid string
		p    GPUPoint
	}
	bins, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (bin, error) {
		var b bin
		err := r.Scan(&b.uuid, &b.p.T, &b.p.UtilGPU, &b.p.MemUsedBytes, &b.p.PowerW)
		b.p.T = b.p.T.UTC()
		return b, err
	})
	if err != nil {
		return interpretError("job report series", err)
	}
	byUUID := map[string]int{}
	for i, g := range jr.PerGPU {
		byUUID[g.UUID] = i
	}
	type acc struct {
		util, power float64
		n           int
	}
	byT := map[time.Time]*acc{}
	for _, b := range bins {
		i, ok := byUUID[b.uuid]
		if !ok { // sampled but not rolled up yet
			i = len(jr.PerGPU)
			byUUID[b.uuid] = i
			jr.PerGPU = append(jr.PerGPU, JobGPU{UUID: b.uuid, Host: hostOf(jr.GPUs, b.uuid)})
		}
		g := &jr.PerGPU[i]
		g.Series = append(g.Series, b.p)
		g.MemPeakBytes = max(g.MemPeakBytes, b.p.MemUsedBytes)
		a := byT[b.p.T]
		if a == nil {
			a = &acc{}
			byT[b.p.T] = a
		}
		a.util, a.power, a.n = a.util+b.p.UtilGPU, a.power+b.p.PowerW, a.n+1
	}
	for t, a := range byT {
		jr.Series = append(jr.Series, JobPoint{T: t, UtilGPU: a.util / float64(a.n), PowerW: a.power})
	}
	sort.Slice(jr.Series, func(i, j int) bool { return jr.Series[i].T.Before(jr.Series[j].T) })
	return nil
}

func hostOf(spans []JobGPUSpan, uuid string) string {
	for _, g := range spans {
		if g.UUID == uuid {
			return g.Host
		}
	}
	return ""
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// loadJobDecisions reads the decisions about the job in scope; facts: the
// job has no job row, so its name, user and partition come from its latest
// decision.
func (s *Store) loadJobDecisions(ctx context.Context, jr *JobReport, own jobOwner, scope Scope, facts bool) error {
	q, err := s.q.get("ReportJobDecisions")
	if err != nil {
		return err
	}
	args := append([]any{jr.Job, own.from}, scopeArgs(scope)...)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return interpretError("job report decisions", err)
	}
	var user, name, partition string
	jr.Decisions, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (JobDecision, error) {
		var d JobDecision
		err := r.Scan(&d.Cycle, &d.At, &d.Action, &d.Reason, &d.Detail, &user, &name, &partition)
		d.At = d.At.UTC()
		return d, err
	})
	if facts && len(jr.Decisions) > 0 {
		jr.User, jr.Name, jr.Partition = user, name, partition
	}
	return interpretError("job report decisions", err)
}
