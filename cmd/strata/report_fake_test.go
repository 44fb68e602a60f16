package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/db"
)

// fakeJob runs GPUs GPUs on one node from From to To at constant power and
// utilization.
type fakeJob struct {
	ID                                   int64
	Name, User, Account, Partition, Node string
	Submit, From, To                     time.Time
	GPUs                                 int
	PowerW, Util                         float64
}

// fakeSource is an in-memory reportSource with the database's semantics:
// jobs are pro-rated to the window, idle means utilization below 5 %, and
// day/hour buckets are cut in the query's location.
type fakeSource struct {
	jobs      []fakeJob
	decisions []db.DecisionRow
	err       error
}

var _ reportSource = (*fakeSource)(nil)

func (f *fakeSource) EnergyReport(_ context.Context, q db.EnergyQuery) ([]db.EnergyRow, error) {
	if f.err != nil {
		return nil, f.err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	loc := q.Location
	if loc == nil {
		loc = time.UTC
	}
	groups := map[string]*db.EnergyRow{}
	jobsIn := map[string]map[int64]bool{}
	for _, j := range f.jobs {
		if !f.match(j, q.ReportFilter) {
			continue
		}
		for _, piece := range f.pieces(j, q, loc) {
			r := db.EnergyRow{}
			for _, d := range q.By {
				switch d {
				case db.DimJob:
					r.Job, r.JobName, r.User, r.Account, r.Partition = j.ID, j.Name, j.User, j.Account, j.Partition
				case db.DimUser:
					r.User = j.User
				case db.DimAccount:
					r.Account = j.Account
				case db.DimPartition:
					r.Partition = j.Partition
				case db.DimNode:
					r.Node = j.Node
				case db.DimDay, db.DimHour:
					r.Bucket = piece.bucket
				}
			}
			k := fmt.Sprint(r.Job, r.User, r.Account, r.Partition, r.Node, r.Bucket.Unix())
			g, ok := groups[k]
			if !ok {
				g = &r
				groups[k], jobsIn[k] = g, map[int64]bool{}
			}
			sec := piece.sec * float64(j.GPUs)
			jobsIn[k][j.ID] = true
			g.Jobs = len(jobsIn[k])
			g.GPUSeconds += sec
			g.EnergyJ += sec * j.PowerW
			g.UtilGPU += sec * j.Util // a sum until normalised below
			if j.Util < db.DefaultIdleUtilPct {
				g.IdleGPUSeconds += sec
				g.IdleEnergyJ += sec * j.PowerW
			}
		}
	}
	out := make([]db.EnergyRow, 0, len(groups))
	for _, g := range groups {
		g.UtilGPU /= g.GPUSeconds
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		return energyKey(out[i])+out[i].Bucket.String() < energyKey(out[j])+out[j].Bucket.String()
	})
	return out, nil
}

type fakePiece struct {
	bucket time.Time
	sec    float64
}

// pieces cuts a job's run inside the window into day or hour buckets (one
// piece when the query has no time dimension).
func (f *fakeSource) pieces(j fakeJob, q db.EnergyQuery, loc *time.Location) []fakePiece {
	lo, hi := fakeMax(j.From, q.From), fakeMin(j.To, q.To)
	if !lo.Before(hi) {
		return nil
	}
	step := time.Duration(0)
	for _, d := range q.By {
		if d == db.DimDay {
			step = 24 * time.Hour
		} else if d == db.DimHour && step == 0 {
			step = time.Hour
		}
	}
	if step == 0 {
		return []fakePiece{{sec: hi.Sub(lo).Seconds()}}
	}
	var out []fakePiece
	for t := lo; t.Before(hi); {
		b := t.In(loc).Truncate(time.Hour)
		if step == 24*time.Hour {
			y, m, d := t.In(loc).Date()
			b = time.Date(y, m, d, 0, 0, 0, 0, loc)
		}
		next := fakeMin(b.Add(step), hi)
		out = append(out, fakePiece{bucket: b.UTC(), sec: next.Sub(t).Seconds()})
		t = next
	}
	return out
}

func fakeMax(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func fakeMin(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func (f *fakeSource) match(j fakeJob, flt db.ReportFilter) bool {
	in := func(v string, set []string) bool {
		if len(set) == 0 {
			return true
		}
		for _, s := range set {
			if s == v {
				return true
			}
		}
		return false
	}
	ids := make([]string, len(flt.Jobs))
	for i, id := range flt.Jobs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	return in(j.User, flt.Users) && in(j.Account, flt.Accounts) && in(j.Partition, flt.Partitions) &&
		in(strconv.FormatInt(j.ID, 10), ids) && in("demo", flt.Clusters)
}

func (f *fakeSource) UsageReport(ctx context.Context, q db.UsageQuery) ([]db.UsageRow, error) {
	rows, err := f.EnergyReport(ctx, db.EnergyQuery{ReportFilter: q.ReportFilter, By: q.By})
	if err != nil {
		return nil, err
	}
	var out []db.UsageRow
	for _, r := range rows {
		u := db.UsageRow{User: r.User, Account: r.Account, Partition: r.Partition, Jobs: r.Jobs, GPUSeconds: r.GPUSeconds}
		for _, j := range f.jobs {
			if (r.User == "" || r.User == j.User) && !j.To.Before(q.From) && j.To.Before(q.To) && f.match(j, q.ReportFilter) {
				wait := j.From.Sub(j.Submit).Seconds()
				u.MeanWaitSec = (u.MeanWaitSec*float64(u.Completed) + wait) / float64(u.Completed+1)
				u.MeanJCTSec = (u.MeanJCTSec*float64(u.Completed) + j.To.Sub(j.Submit).Seconds()) / float64(u.Completed+1)
				u.MaxWaitSec = max(u.MaxWaitSec, wait)
				u.Completed++
			}
		}
		out = append(out, u)
	}
	return out, nil
}

func (f *fakeSource) DecisionReport(_ context.Context, q db.DecisionQuery) ([]db.DecisionRow, error) {
	var out []db.DecisionRow
	for _, d := range f.decisions {
		if !d.Last.Before(q.From) && d.First.Before(q.To) {
			out = append(out, d)
		}
	}
	return out, f.err
}

func (f *fakeSource) JobReport(_ context.Context, id int64) (db.JobReport, error) {
	for _, j := range f.jobs {
		if j.ID != id {
			continue
		}
		sec := j.To.Sub(j.From).Seconds() * float64(j.GPUs)
		jr := db.JobReport{Job: j.ID, Name: j.Name, User: j.User, Account: j.Account, Partition: j.Partition,
			Submit: j.Submit, Start: j.From, End: j.To,
			Totals: db.EnergyRow{Job: j.ID, Jobs: 1, GPUSeconds: sec, EnergyJ: sec * j.PowerW, UtilGPU: j.Util}}
		for g := 0; g < j.GPUs; g++ {
			jr.GPUs = append(jr.GPUs, db.JobGPUSpan{Host: j.Node, UUID: fmt.Sprintf("GPU-%d-%d", j.ID, g), From: j.From, To: j.To})
		}
		for t := j.From; t.Before(j.To); t = t.Add(10 * time.Minute) {
			jr.Series = append(jr.Series, db.JobPoint{T: t, UtilGPU: j.Util, PowerW: j.PowerW * float64(j.GPUs)})
		}
		return jr, nil
	}
	return db.JobReport{}, fmt.Errorf("job report %d: %w", id, db.ErrNotFound)
}

// demoFake: two users on two nodes around one day boundary, one idle job.
func demoFake() *fakeSource {
	t0 := time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)
	at := func(h float64) time.Time { return t0.Add(time.Duration(h * float64(time.Hour))) }
	return &fakeSource{
		jobs: []fakeJob{
			{ID: 11, Name: "resnet", User: "alice", Account: "vision", Partition: "gpu", Node: "n1",
				Submit: at(-0.5), From: at(0), To: at(4), GPUs: 4, PowerW: 250, Util: 80},
			{ID: 12, Name: "bert", User: "bob", Account: "nlp", Partition: "gpu", Node: "n2",
				Submit: at(0), From: at(1), To: at(2), GPUs: 2, PowerW: 100, Util: 2},
			{ID: 13, Name: "gpt", User: "alice", Account: "nlp", Partition: "big", Node: "n2",
				Submit: at(1), From: at(3), To: at(5), GPUs: 8, PowerW: 300, Util: 95},
		},
		decisions: []db.DecisionRow{{Action: "update", Reason: "smd_optimal", Decisions: 3, Applied: 1, Jobs: 2, Cycles: 3,
			First: at(0.5), Last: at(1.5)}},
	}
}

// cliRun runs the app with a report/serve command over src and returns
// stdout.
func cliRun(src reportSource, args ...string) (string, error) {
	var out, errb strings.Builder
	app := newApp(&out, &errb)
	open := func(*cli.Context) (reportSource, func(), error) { return src, func() {}, nil }
	app.Commands = []*cli.Command{reportCommandWith(open), serveCommandWith(open)}
	err := app.Run(append([]string{"strata"}, args...))
	return out.String(), err
}
