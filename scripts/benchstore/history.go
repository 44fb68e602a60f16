package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
)

// history bulk-loads what the collector would have stored before the
// sample window: the jobs that started before w0, their GPU assignments
// (left open when the job runs past w0) and the hourly rollups of their
// GPU time. It uses COPY straight into the tables (the bulk path), not
// Strata's ingestion: the year before the window has no samples (retention
// dropped them), only what reports read. It returns the rows written.
func (s *site) history(ctx context.Context, conn *pgx.Conn, y0, w0 time.Time) (jobs, assigns, rollups int64, err error) {
	last := sort.Search(len(s.jobs), func(i int) bool { return s.jobs[i].from >= w0.Unix() })
	first := sort.Search(len(s.jobs), func(i int) bool { return s.jobs[i].to > y0.Unix() })
	i := first
	jobs, err = conn.CopyFrom(ctx, pgx.Identifier{"job"},
		[]string{"job_id", "cluster", "name", "user_name", "account", "partition", "state", "gpus",
			"submit_time", "start_time", "end_time"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i >= last {
				return nil, nil
			}
			j := s.jobs[i]
			state := "COMPLETED"
			var end any = time.Unix(j.to, 0).UTC()
			if j.to > w0.Unix() {
				state, end = "RUNNING", nil
			}
			p := s.plannerJob(i, "")
			i++
			return []any{p.ID, cluster, p.Name, p.User, p.Account, p.Partition, state, int32(p.GPUsPerJob),
				p.SubmitTime, p.StartTime, end}, nil
		}))
	if err != nil {
		return 0, 0, 0, fmt.Errorf("copy jobs: %w", err)
	}
	i, g := first, 0
	assigns, err = conn.CopyFrom(ctx, pgx.Identifier{"gpu_assignment"},
		[]string{"job_id", "host", "gpu_uuid", "t_from", "t_to", "cluster"},
		pgx.CopyFromFunc(func() ([]any, error) {
			for i < last && g >= len(s.lanes[s.jobs[i].lane].gpus) {
				i, g = i+1, 0
			}
			if i >= last {
				return nil, nil
			}
			j := s.jobs[i]
			l := s.lanes[j.lane]
			var to any = time.Unix(j.to, 0).UTC()
			if j.to > w0.Unix() {
				to = nil
			}
			row := []any{s.id(i), host(l.node), uuid(l.node, l.gpus[g]), time.Unix(j.from, 0).UTC(), to, cluster}
			g++
			return row, nil
		}))
	if err != nil {
		return 0, 0, 0, fmt.Errorf("copy assignments: %w", err)
	}
	rollups, err = s.copyRollups(ctx, conn, y0, w0)
	return jobs, assigns, rollups, err
}

// copyRollups writes the job_gpu_hour rows of [from, to) (hour-aligned)
// that the model's jobs make: per job, GPU and UTC hour, the held seconds,
// energy at the job's mean power, the utilization integral, and the idle
// parts (idle jobs run at 1 % utilization, below the 5 % threshold).
func (s *site) copyRollups(ctx context.Context, conn *pgx.Conn, from, to time.Time) (int64, error) {
	lo, hi := from.Unix(), to.Unix()
	i := sort.Search(len(s.jobs), func(i int) bool { return s.jobs[i].from >= lo-73*3600 })
	var pending [][]any
	return conn.CopyFrom(ctx, pgx.Identifier{"job_gpu_hour"},
		[]string{"hour", "cluster", "job_id", "gpu_uuid", "host", "t_lo", "t_hi", "gpu_seconds", "energy_j",
			"util_gpu_seconds", "sampled_seconds", "idle_gpu_seconds", "idle_energy_j", "counter_resets"},
		pgx.CopyFromFunc(func() ([]any, error) {
			for len(pending) == 0 {
				if i >= len(s.jobs) || s.jobs[i].from >= hi {
					return nil, nil
				}
				pending = s.rollupRows(i, lo, hi, pending)
				i++
			}
			row := pending[0]
			pending = pending[1:]
			return row, nil
		}))
}

// rollupRows appends job i's rows inside [lo, hi).
func (s *site) rollupRows(i int, lo, hi int64, out [][]any) [][]any {
	j := s.jobs[i]
	f, t := max(j.from, lo), min(j.to, hi)
	if t <= f {
		return out
	}
	l := s.lanes[j.lane]
	util, watts := power(&j)
	for h := f / 3600 * 3600; h < t; h += 3600 {
		a, b := max(f, h), min(t, h+3600)
		sec := float64(b - a)
		idleSec, idleE := 0.0, 0.0
		if util < 5 {
			idleSec, idleE = sec, sec*watts
		}
		for _, g := range l.gpus {
			out = append(out, []any{time.Unix(h, 0).UTC(), cluster, s.id(i), uuid(l.node, g), host(l.node),
				time.Unix(a, 0).UTC(), time.Unix(b, 0).UTC(), sec, sec * watts, sec * util, sec, idleSec, idleE, int32(0)})
		}
	}
	return out
}
