package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompareIdentical: a replay that did exactly what the simulator did
// compares as ratio 1, ρ 1 and no GPU mismatch; one job 10 s late shows.
func TestCompareIdentical(t *testing.T) {
	dir := t.TempDir()
	if err := cmdPrepare([]string{"-dir", dir, "-jobs", "12", "-scale", "60",
		"-trace", "../../sim/testdata/pollux_workload1.csv",
		"-scaling", "../../sim/testdata/pollux_scaling.csv"}); err != nil {
		t.Fatal(err)
	}
	var s Settings
	var jobs []Job
	if err := readJSON(dir, "settings.json", &s); err != nil {
		t.Fatal(err)
	}
	if err := readJSON(dir, "jobs.json", &jobs); err != nil {
		t.Fatal(err)
	}
	_, truth, err := loadInputs(s)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := scaledTrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := simConfig(s, truth)
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulate(context.Background(), cfg, tr, "slurm", s.GPUSpeed)
	if err != nil {
		t.Fatal(err)
	}
	rep := Replay{Policy: "slurm", T0: time.Unix(0, 0)}
	for k, o := range res.Outcomes {
		rep.Jobs = append(rep.Jobs, RJob{Index: jobs[k].Index, JobID: int64(k + 1), Due: o.Submit, Submit: o.Submit,
			Start: o.Start, End: o.End, SlurmStart: o.Start, GPUs: o.GPUs, State: "COMPLETED", Slept: o.End - o.Start})
	}
	c, err := compareOne(context.Background(), dir, s, jobs, rep)
	if err != nil {
		t.Fatal(err)
	}
	if c.Jobs != 12 || c.JCTRatio != 1 || c.Spearman != 1 || c.GPUMismatch != 0 || c.MeanAbsStartDiff != 0 || c.ReplayMakespan != c.SimMakespan {
		t.Errorf("identical replay: %+v", c)
	}
	// The last job starts and ends 10 real seconds late: its JCT grows by
	// 600 trace seconds, the average by 50.
	last := &rep.Jobs[len(rep.Jobs)-1]
	last.Start, last.End = last.Start+10, last.End+10
	c, err = compareOne(context.Background(), dir, s, jobs, rep)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.ReplayAvgJCT - c.SimAvgJCT; d < 49.8 || d > 50.2 {
		t.Errorf("one job 10 s late: avg JCT %v vs %v, want +50", c.ReplayAvgJCT, c.SimAvgJCT)
	}
	if c.GPUMismatch != 0 || c.MeanAbsStartDiff < 49.8 || c.MeanAbsStartDiff > 50.2 {
		t.Errorf("one job 10 s late: %+v", c)
	}
}

func TestParseScontrol(t *testing.T) {
	out := `JobId=7 JobName=cifar10-0
   JobState=COMPLETED Reason=None Dependency=(null)
   SubmitTime=2026-11-24T15:35:41 EligibleTime=2026-11-24T15:35:41
   StartTime=2026-11-24T15:35:47 EndTime=2026-11-24T15:36:03 Deadline=N/A
   LastSchedEval=2026-11-24T15:35:47 Scheduler=Backfill
   JOB_GRES=gpu:scaled:6
     Nodes=node[1-2] CPU_IDs=12-47 Mem=147456 GRES=gpu:scaled:3(IDX:0-2)

JobId=8 JobName=ncf-2
   JobState=PENDING Reason=Resources Dependency=(null)
   SubmitTime=2026-11-24T15:35:42 EligibleTime=2026-11-24T15:35:42
   StartTime=Unknown EndTime=Unknown Deadline=N/A
   JOB_GRES=(null)
`
	js := parseScontrol(out)
	if len(js) != 2 {
		t.Fatalf("jobs = %d, want 2", len(js))
	}
	j := js[0]
	if j.ID != 7 || j.State != "COMPLETED" || j.GPUs != 6 || j.Scheduler != "Backfill" || !j.StartKnown ||
		!j.Start.Equal(time.Date(2026, 11, 24, 15, 35, 47, 0, time.UTC)) || j.End.Sub(j.Start) != 16*time.Second {
		t.Errorf("job 7 = %+v", j)
	}
	if p := js[1]; p.ID != 8 || p.State != "PENDING" || p.Reason != "Resources" || p.StartKnown || p.GPUs != 0 {
		t.Errorf("job 8 = %+v", p)
	}
}

// TestScripts: the batch script sleeps the run time of the GPU count it got.
func TestScripts(t *testing.T) {
	r := &replayer{policy: "slurm", out: t.TempDir(), s: Settings{Scale: 60},
		jobs: []Job{{Index: 1, TraceID: "0", GPUs: 2, GPUsPerNode: 2, Nodes: 1, Durations: []float64{20, 11.5}}}}
	if err := r.writeScripts(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(r.out, "job-1.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1) d=20.000 ;;", "2) d=11.500 ;;", "*) d=11.500 ;;", "SLURM_GPUS_ON_NODE", "/tmp/evalslurm/slurm/1"} {
		if !contains(string(b), want) {
			t.Errorf("script lacks %q:\n%s", want, b)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
