package reporttest

import (
	"fmt"
	"time"

	"github.com/strata-hpc/strata/db"
)

// DemoStart and DemoEnd bound the demo window (UTC): 2026-11-20 22:00 to
// 2026-11-21 03:00.
var (
	DemoStart = time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)
	DemoEnd   = DemoStart.Add(5 * time.Hour)
)

// Demo returns the rows of three jobs of two users on two nodes around a
// day boundary, as the database reports them for the demo window in UTC:
//
//	11 resnet alice vision gpu n1  4 GPUs 22:00-02:00 250 W 80 %
//	12 bert   bob   nlp    gpu n2  2 GPUs 23:00-00:00 100 W  2 % (idle)
//	13 gpt    alice nlp    big n2  8 GPUs 01:00-03:00 300 W 95 %
//
// and one planner decision row.
func Demo() *Source {
	at := func(h float64) time.Time { return DemoStart.Add(time.Duration(h * float64(time.Hour))) }
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	// e is a row of jobs jobs with GPU seconds, joules, mean utilization and
	// idle GPU seconds and joules.
	e := func(jobs int, sec, j, util, idleSec, idleJ float64) db.EnergyRow {
		return db.EnergyRow{Jobs: jobs, GPUSeconds: sec, EnergyJ: j, UtilGPU: util, IdleGPUSeconds: idleSec, IdleEnergyJ: idleJ}
	}
	keyed := func(r db.EnergyRow, set func(*db.EnergyRow)) db.EnergyRow { set(&r); return r }
	user := func(u string, r db.EnergyRow) db.EnergyRow { return keyed(r, func(r *db.EnergyRow) { r.User = u }) }
	account := func(a string, r db.EnergyRow) db.EnergyRow { return keyed(r, func(r *db.EnergyRow) { r.Account = a }) }
	partition := func(p string, r db.EnergyRow) db.EnergyRow {
		return keyed(r, func(r *db.EnergyRow) { r.Partition = p })
	}
	node := func(n string, r db.EnergyRow) db.EnergyRow { return keyed(r, func(r *db.EnergyRow) { r.Node = n }) }
	bucket := func(t time.Time, r db.EnergyRow) db.EnergyRow {
		return keyed(r, func(r *db.EnergyRow) { r.Bucket = t })
	}
	job := func(id int64, name, u, a, p string, r db.EnergyRow) db.EnergyRow {
		return keyed(r, func(r *db.EnergyRow) { r.Job, r.JobName, r.User, r.Account, r.Partition = id, name, u, a, p })
	}
	alice, bob := e(2, 115200, 31.68e6, 87.5, 0, 0), e(1, 7200, 720000, 2, 7200, 720000)
	resnet, gpt := e(1, 57600, 14.4e6, 80, 0, 0), e(1, 57600, 17.28e6, 95, 0, 0)
	s := &Source{
		Energy: map[string][]db.EnergyRow{
			"":        {e(3, 122400, 32.4e6, 82.47058823529412, 7200, 720000)},
			"user":    {user("alice", alice), user("bob", bob)},
			"account": {account("nlp", e(2, 64800, 18e6, 84.66666666666667, 7200, 720000)), account("vision", resnet)},
			"job": {job(13, "gpt", "alice", "nlp", "big", gpt), job(11, "resnet", "alice", "vision", "gpu", resnet),
				job(12, "bert", "bob", "nlp", "gpu", bob)},
			"hour": {bucket(at(0), e(1, 14400, 3.6e6, 80, 0, 0)), bucket(at(1), e(2, 21600, 4.32e6, 54, 7200, 720000)),
				bucket(at(2), e(1, 14400, 3.6e6, 80, 0, 0)), bucket(at(3), e(2, 43200, 12.24e6, 90, 0, 0)),
				bucket(at(4), e(1, 28800, 8.64e6, 95, 0, 0))},
			"partition": {partition("gpu", e(2, 64800, 15.12e6, 71.33333333333333, 7200, 720000)), partition("big", gpt)},
			"node":      {node("n2", e(2, 64800, 18e6, 84.66666666666667, 7200, 720000)), node("n1", resnet)},
			"day":       {bucket(day(20), e(2, 36000, 7.92e6, 64.4, 7200, 720000)), bucket(day(21), e(2, 86400, 24.48e6, 90, 0, 0))},
			"user,day": {user("alice", bucket(day(20), e(1, 28800, 7.2e6, 80, 0, 0))), user("bob", bucket(day(20), bob)),
				user("alice", bucket(day(21), e(2, 86400, 24.48e6, 90, 0, 0)))},
		},
		Usage: map[string][]db.UsageRow{
			"user": {{User: "alice", Jobs: 2, GPUSeconds: 115200, Completed: 1, MeanWaitSec: 1800, MaxWaitSec: 1800, MeanJCTSec: 16200},
				{User: "bob", Jobs: 1, GPUSeconds: 7200, Completed: 1, MeanWaitSec: 3600, MaxWaitSec: 3600, MeanJCTSec: 7200}},
		},
		Decisions: []db.DecisionRow{{Action: "update", Reason: "smd_optimal", Decisions: 3, Applied: 1, Jobs: 2, Cycles: 3,
			First: at(0.5), Last: at(1.5)}},
		Jobs: map[int64]db.JobReport{},
	}
	for _, j := range []struct {
		id                                   int64
		name, user, account, partition, node string
		submit, start, end                   time.Time
		gpus                                 int
		watts, util                          float64
	}{
		{11, "resnet", "alice", "vision", "gpu", "n1", at(-0.5), at(0), at(4), 4, 250, 80},
		{12, "bert", "bob", "nlp", "gpu", "n2", at(0), at(1), at(2), 2, 100, 2},
		{13, "gpt", "alice", "nlp", "big", "n2", at(1), at(3), at(5), 8, 300, 95},
	} {
		sec := j.end.Sub(j.start).Seconds() * float64(j.gpus)
		jr := db.JobReport{Job: j.id, Name: j.name, User: j.user, Account: j.account, Partition: j.partition,
			Submit: j.submit, Start: j.start, End: j.end,
			Totals: db.EnergyRow{Job: j.id, Jobs: 1, GPUSeconds: sec, EnergyJ: sec * j.watts, UtilGPU: j.util}}
		for g := 0; g < j.gpus; g++ {
			jr.GPUs = append(jr.GPUs, db.JobGPUSpan{Host: j.node, UUID: fmt.Sprintf("GPU-%d-%d", j.id, g), From: j.start, To: j.end})
		}
		for t := j.start; t.Before(j.end); t = t.Add(10 * time.Minute) {
			jr.Series = append(jr.Series, db.JobPoint{T: t, UtilGPU: j.util, PowerW: j.watts * float64(j.gpus)})
		}
		s.Jobs[j.id] = jr
	}
	return s
}
