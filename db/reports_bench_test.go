package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// benchCluster is 1 day × 1,000 GPUs (125 nodes × 8) sampled every 10 s:
// 8.64 M samples. Each node is shared by two jobs at a time (GPUs 0–3 and
// 4–7), each running back-to-back jobs of 1–4 hours; every 7th job idles.
type benchCluster struct {
	start time.Time
	nodes int
	jobs  []benchJob
}

type benchJob struct {
	id         int64
	node, half int
	from, to   time.Time
	idle       bool
}

func newBenchCluster(start time.Time) *benchCluster {
	c := &benchCluster{start: start, nodes: 125}
	id := int64(1)
	for n := 0; n < c.nodes; n++ {
		for half := 0; half < 2; half++ {
			t := start.Add(time.Duration((n+half)%3) * 20 * time.Minute)
			for k := 0; t.Before(start.Add(24 * time.Hour)); k++ {
				d := time.Duration(1+(k*7+n+half)%4) * time.Hour
				end := t.Add(d)
				if lim := start.Add(24 * time.Hour); end.After(lim) {
					end = lim
				}
				c.jobs = append(c.jobs, benchJob{id: id, node: n, half: half, from: t, to: end, idle: id%7 == 0})
				id++
				t = end.Add(5 * time.Minute)
			}
		}
	}
	return c
}

func benchUUID(node, gpu int) string { return fmt.Sprintf("GPU-bench-%03d-%d", node, gpu) }
func benchHost(node int) string      { return fmt.Sprintf("n%03d", node) }

// jobAt returns the job running on a node half at t (nil when none).
func (c *benchCluster) jobAt(byHalf map[[2]int][]benchJob, node, half int, t time.Time) *benchJob {
	for i, j := range byHalf[[2]int{node, half}] {
		if !t.Before(j.from) && t.Before(j.to) {
			return &byHalf[[2]int{node, half}][i]
		}
	}
	return nil
}

// load writes the samples hour by hour (COPY through InsertSamples), the
// jobs and their assignments, and returns the number of samples.
func (c *benchCluster) load(ctx context.Context, s *db.Store) (int, error) {
	return c.loadHours(ctx, s, 24)
}

// loadHours loads the first hours of the day.
func (c *benchCluster) loadHours(ctx context.Context, s *db.Store, hours int) (int, error) {
	byHalf := map[[2]int][]benchJob{}
	for _, j := range c.jobs {
		byHalf[[2]int{j.node, j.half}] = append(byHalf[[2]int{j.node, j.half}], j)
	}
	energy := make([]uint64, c.nodes*8)
	total := 0
	for h := 0; h < hours; h++ {
		batch := make([]dcgm.Sample, 0, 360*c.nodes*8)
		for step := 0; step < 360; step++ {
			t := c.start.Add(time.Duration(h)*time.Hour + time.Duration(step)*10*time.Second)
			for n := 0; n < c.nodes; n++ {
				for g := 0; g < 8; g++ {
					util, power := 0.0, 60.0
					if j := c.jobAt(byHalf, n, g/4, t); j != nil {
						util, power = 90, 300
						if j.idle {
							util, power = 2, 70
						}
					}
					energy[n*8+g] += uint64(power * 10 * 1000)
					batch = append(batch, dcgm.Sample{Time: t, Host: benchHost(n), UUID: benchUUID(n, g), Index: g,
						Minor: g, UtilGPU: util, PowerW: power, EnergyMJ: energy[n*8+g], Source: "replay"})
				}
			}
		}
		if err := s.InsertSamples(ctx, batch); err != nil {
			return total, err
		}
		total += len(batch)
	}
	return total, c.saveJobs(ctx, s)
}

func (c *benchCluster) saveJobs(ctx context.Context, s *db.Store) error {
	var jobs []planner.Job
	var as []dcgm.Assignment
	ends := map[int64]time.Time{}
	for _, j := range c.jobs {
		user := fmt.Sprintf("user%02d", j.id%20)
		jobs = append(jobs, planner.Job{ID: j.id, Name: "train", User: user, Account: fmt.Sprintf("acct%d", j.id%20%5),
			Partition: "gpu", State: planner.JobCompleted, SubmitTime: j.from.Add(-time.Minute), StartTime: j.from,
			GPUsPerJob: 4})
		ends[j.id] = j.to
		for g := j.half * 4; g < j.half*4+4; g++ {
			as = append(as, dcgm.Assignment{Job: j.id, Host: benchHost(j.node), UUID: benchUUID(j.node, g), From: j.from, To: j.to})
		}
	}
	if err := s.UpsertJobs(ctx, "bench", jobs, ends); err != nil {
		return err
	}
	return s.SaveAssignments(ctx, "bench", as)
}

// BenchmarkReportEnergyByUser: the by-user energy report over 1 day of
// 1,000 GPUs at 10 s (8.64 M samples, rolled up hourly). Target ≤ 2 s per
// report. Setup (load + rollup refresh) runs once and is reported as
// metrics, not timed.
func BenchmarkReportEnergyByUser(b *testing.B) {
	ctx := context.Background()
	s := dbtest.New(b)
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	c := newBenchCluster(start)
	t0 := time.Now()
	n, err := c.load(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	loadSec := time.Since(t0).Seconds()
	t0 = time.Now()
	var rollups int64
	for h := 0; h < 24; h++ {
		from := start.Add(time.Duration(h) * time.Hour)
		r, err := s.RefreshReportRollups(ctx, from, from.Add(time.Hour), 0)
		if err != nil {
			b.Fatal(err)
		}
		rollups += r
	}
	refreshSec := time.Since(t0).Seconds()
	b.Logf("%d samples, %d jobs loaded in %.1f s (%.0f samples/s); %d rollup rows refreshed in %.1f s",
		n, len(c.jobs), loadSec, float64(n)/loadSec, rollups, refreshSec)
	q := db.EnergyQuery{ReportFilter: db.ReportFilter{From: start, To: start.Add(24 * time.Hour)},
		By: []db.ReportDim{db.DimUser}}
	var rows []db.EnergyRow
	for b.Loop() {
		rows, err = s.EnergyReport(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
	}
	if len(rows) != 20 {
		b.Fatalf("by-user report: %d rows, want 20 users", len(rows))
	}
	b.ReportMetric(float64(n), "samples")
	b.ReportMetric(float64(rollups), "rollup_rows")
	b.ReportMetric(refreshSec, "refresh_s")
}
