package sim

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// slurmRun runs Slurm alone (policy nil) or a policy in Slurm mode and
// returns each job's first start and end, by trace job ID.
func slurmRun(t *testing.T, cfg Config, trace string, p planner.Policy) (map[string][2]float64, *engine) {
	t.Helper()
	cfg.Scheduler = SchedulerSlurm
	cfg = cfg.withDefaults()
	e := newEngine(cfg, mustTrace(t, trace), "test", p)
	if err := e.slurmLoop(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]float64{}
	for i := range e.jobs {
		j := &e.jobs[i]
		out[j.tj.ID] = [2]float64{math.Round(j.firstStart*10) / 10, math.Round(j.end*10) / 10}
	}
	return out, e
}

func TestSlurmModel(t *testing.T) {
	fifo := SlurmConfig{Reservations: 1}.withDefaults() // all priority weights 0: FIFO by submission
	one := ClusterSpec{Nodes: 1, GPUsPerNode: 4, GPUType: "t4"}
	two := ClusterSpec{Nodes: 2, GPUsPerNode: 4, GPUType: "t4"}
	tests := []struct {
		name  string
		cl    ClusterSpec
		conf  SlurmConfig
		trace string
		want  map[string][2]float64
	}{{
		// a holds the node; b (4 GPUs) blocks the queue; c (1 GPU) fits
		// nowhere until a ends, and then b comes first; c after b.
		// Submissions trigger passes at most every 3 s; a's end one at once.
		name: "main scheduler in order, a blocked head waits", cl: one, conf: fifo,
		trace: "job_id,submit_time,duration_s,gpus\na,0,100,4\nb,1,100,4\nc,2,50,1\n",
		want:  map[string][2]float64{"a": {0, 100}, "b": {100, 200}, "c": {200, 250}},
	}, {
		// a holds 3 of 4 GPUs until 100 (limit 200); b (4 GPUs) blocks; c
		// (1 GPU, limit 60 s) fits now and ends by its limit before b's
		// reservation at a's limit (200): backfill starts it at the first
		// backfill cycle (t=30). d (1 GPU, limit 400) would delay b: waits.
		name: "EASY backfill by time limits", cl: one, conf: fifo,
		trace: "job_id,submit_time,duration_s,gpus,time_limit_s\na,0,100,3,200\nb,1,100,4,200\nc,2,20,1,60\nd,3,20,1,400\n",
		want:  map[string][2]float64{"a": {0, 100}, "b": {100, 200}, "c": {30, 50}, "d": {200, 220}},
	}, {
		// With no time limits in the trace each job gets 2 × its duration.
		// a (2 GPUs, limit 1200) on node 1; b needs both nodes (2×4):
		// blocks; c (2 GPUs, 10 s, limit 60) backfills on the free node 2
		// (b's reservation covers both nodes only from 1200).
		name: "derived limits and multi-node reservation", cl: two, conf: fifo,
		trace: "job_id,submit_time,duration_s,gpus,nodes\na,0,600,2,1\nb,1,100,8,2\nc,2,10,2,1\n",
		want:  map[string][2]float64{"a": {0, 600}, "b": {600, 700}, "c": {30, 40}},
	}, {
		// A job still running at its time limit is killed then, and its
		// user resubmits it at once asking for twice the limit (it does
		// not checkpoint: its work starts again): killed at 120 and 360
		// (limit 240), at 840 (limit 480), done at 840 + 500 (limit 960).
		name: "time-limit kill and resubmission", cl: one, conf: fifo,
		trace: "job_id,submit_time,duration_s,gpus,time_limit_s\na,0,500,4,120\n",
		want:  map[string][2]float64{"a": {0, 1340}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := slurmRun(t, Config{Cluster: tt.cl, Slurm: tt.conf}, tt.trace, nil)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(start, end) per job (-want +got):\n%s", d)
			}
		})
	}
}

// Conservative backfill (a reservation for every blocked job) keeps d
// waiting where EASY (only the first blocked job reserved) starts it: on 2
// nodes × 4 GPUs, x holds node 2 until 1000 and a 2 GPUs of node 1 until
// 100; b (both nodes) is reserved from 1000; c (one node) would be reserved
// on node 1 from 100 only by conservative backfill; d (2 GPUs, limit 200)
// fits node 1 now, in c's way.
func TestSlurmEASYAgainstConservative(t *testing.T) {
	trace := "job_id,submit_time,duration_s,gpus,nodes,time_limit_s\n" +
		"x,0,1000,4,1,1000\n" + "a,0,100,2,1,100\n" +
		"b,1,100,8,2,200\n" + "c,2,300,4,1,300\n" + "d,3,150,2,1,200\n"
	run := func(reservations int) map[string][2]float64 {
		got, _ := slurmRun(t, Config{Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 4},
			Slurm: SlurmConfig{Reservations: reservations}.withDefaults()}, trace, nil)
		return got
	}
	easy, cons := run(1), run(0)
	if easy["d"][0] != 30 {
		t.Errorf("EASY: d starts at %v, want 30 (the first backfill cycle)", easy["d"][0])
	}
	if cons["d"][0] <= 30 {
		t.Errorf("conservative: d starts at %v, want later than 30 (c's reservation)", cons["d"][0])
	}
	if easy["x"][0] != 0 || easy["a"][0] != 0 {
		t.Errorf("x and a start at %v, %v; want 0", easy["x"][0], easy["a"][0])
	}
}

// A begin time keeps a job out of both schedulers until it comes; a
// priority written by Strata sticks through recalculations.
func TestSlurmBeginTimeAndStickyPriority(t *testing.T) {
	cfg := Config{Cluster: ClusterSpec{Nodes: 1, GPUsPerNode: 4}, Slurm: DefaultSlurmConfig()}.withDefaults()
	e := newEngine(cfg, mustTrace(t, "job_id,submit_time,duration_s,gpus\na,0,100,1\nb,0,100,1\n"), "test", nil)
	for i := range e.jobs {
		e.initSlurmJob(&e.jobs[i])
	}
	e.jobs[0].begin = 500 // as if Strata deferred a to t=500
	e.jobs[1].prio, e.jobs[1].prioSet = 777, true
	if err := e.slurmLoop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a := e.jobs[0].firstStart; a < 500 {
		t.Errorf("a started at %v, before its begin time 500", a)
	}
	if b := e.jobs[1]; b.firstStart != 0 || b.prio != 777 {
		t.Errorf("b started at %v with priority %d; want 0 and the written 777", b.firstStart, b.prio)
	}
}
