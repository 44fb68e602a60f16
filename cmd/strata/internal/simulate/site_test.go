package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/sim"
	"github.com/strata-hpc/strata/slurm"
)

// fakeSite is a SiteSource with fixed nodes and jobs.
type fakeSite struct {
	acct  bool
	nodes []planner.Node
	jobs  []slurm.FinishedJob
	asked [2]time.Time
	// prior is the window FinishedJobs was asked for (zero: not asked).
	prior [2]time.Time
}

func (f *fakeSite) FinishedJobs(_ context.Context, _ string, since, until time.Time) ([]slurm.FinishedJob, error) {
	f.prior = [2]time.Time{since, until}
	return []slurm.FinishedJob{{ID: 1, User: "alice", GPUs: 4, Start: since, End: since.Add(time.Hour), State: "COMPLETED"}}, nil
}

func (f *fakeSite) ServesAccounting() bool { return f.acct }
func (f *fakeSite) Snapshot(context.Context) (*planner.Snapshot, error) {
	return &planner.Snapshot{Nodes: f.nodes}, nil
}
func (f *fakeSite) EndedJobs(_ context.Context, _ string, since, until time.Time) ([]slurm.FinishedJob, error) {
	f.asked = [2]time.Time{since, until}
	return f.jobs, nil
}

func TestCompareSite(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	ht := sim.HistoryTrace{Start: t0, Trace: &sim.Trace{Jobs: []sim.TraceJob{{ID: "1", Submit: 0}, {ID: "2", Submit: 100}, {ID: "3", Submit: 200}}},
		Source: []sim.HistoryJob{{ID: 1, User: "alice", Partition: "gpu", Start: at(40), End: at(100)},
			{ID: 2, User: "bob", Partition: "gpu", Start: at(100), End: at(400)},
			{ID: 3, User: "bob", Partition: "gpua", Start: at(200), End: at(300)}}}
	f := func(v float64) *float64 { return &v }
	base := &sim.Result{Policy: "slurm", JobRows: []sim.JobRow{
		{ID: "1", Start: f(20), End: f(80), State: "done"},
		{ID: "2", Start: f(200), End: f(500), State: "done"},
		{ID: "3", Start: f(200), State: "unfinished"}}}
	smd := &sim.Result{Policy: "smd", LinearScaled: 2, JobRows: []sim.JobRow{
		{ID: "1", Start: f(10), End: f(70), State: "done"},
		{ID: "2", Start: f(150), End: f(400), State: "done"},
		{ID: "3", Start: f(200), End: f(300), State: "done"}}}
	got := compareSite(ht, base, smd)
	want := SitePolicy{Policy: "smd", Unfinished: 1, LinearScaled: 2,
		// waits: real 40 and 0, Slurm 20 and 100, smd 10 and 50; JCTs: real
		// 100 and 300, Slurm 80 and 400, smd 70 and 300.
		All: SiteGroup{Name: "jobs", Jobs: 2, WaitHistory: 20, WaitSlurm: 60, WaitPolicy: 30, WaitChange: -0.5,
			JCTHistory: 200, JCTSlurm: 240, JCTPolicy: 185, JCTChange: 185.0/240 - 1},
		Partitions: []SiteGroup{{Name: "gpu", Jobs: 2, WaitHistory: 20, WaitSlurm: 60, WaitPolicy: 30, WaitChange: -0.5,
			JCTHistory: 200, JCTSlurm: 240, JCTPolicy: 185, JCTChange: 185.0/240 - 1}},
		Users: []SiteGroup{
			{Name: "alice", Jobs: 1, WaitHistory: 40, WaitSlurm: 20, WaitPolicy: 10, WaitChange: -0.5,
				JCTHistory: 100, JCTSlurm: 80, JCTPolicy: 70, JCTChange: 70.0/80 - 1},
			{Name: "bob", Jobs: 1, WaitHistory: 0, WaitSlurm: 100, WaitPolicy: 50, WaitChange: -0.5,
				JCTHistory: 300, JCTSlurm: 400, JCTPolicy: 300, JCTChange: -0.25}}}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("compareSite (-want +got):\n%s", d)
	}
}

func TestSitePolicies(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", []string{"slurm", "smd"}, false},
		{"fifo,smd", []string{"slurm", "fifo", "smd"}, false},
		{"slurm,smd", []string{"slurm", "smd"}, false},
		{"slurm", nil, true},
		{"nosuch", nil, true},
	} {
		got, err := SitePolicies(tc.in)
		if (err != nil) != tc.wantErr || !cmp.Equal(tc.want, got) {
			t.Errorf("SitePolicies(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseSitePeriod(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	from, to, err := ParseSitePeriod("now-30days", "now", now, time.UTC)
	if err != nil || !from.Equal(now.AddDate(0, 0, -30)) || !to.Equal(now) {
		t.Errorf("now-30days..now = %v..%v, %v", from, to, err)
	}
	for _, bad := range [][2]string{{"now", "now-1days"}, {"yesterday-ish", "now"}} {
		var ue UsageError
		if _, _, err := ParseSitePeriod(bad[0], bad[1], now, time.UTC); !errors.As(err, &ue) {
			t.Errorf("%q..%q: %v, want a usage error", bad[0], bad[1], err)
		}
	}
}

// A whole run on a fake site: jobs of a partition it does not model and
// CPU jobs are left out and said so; the report has every user and
// partition of the jobs simulated; without accounting it refuses.
func TestRunSite(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	src := &fakeSite{acct: true, nodes: []planner.Node{
		{Name: "n1", GPUs: 4, CPUs: 32, MemoryMB: 128000, Partitions: []string{"gpu"}},
		{Name: "n2", GPUs: 4, CPUs: 32, MemoryMB: 128000, Partitions: []string{"gpu"}},
		{Name: "c1", CPUs: 64, MemoryMB: 256000, Partitions: []string{"cpu"}}}}
	for i := range 8 {
		user := []string{"alice", "bob"}[i%2]
		j := slurm.FinishedJob{ID: int64(i + 1), User: user, Partition: "gpu", GPUs: 4, Nodes: 1, TimeLimit: time.Hour,
			Submit: at(60 * i), Start: at(60*i + 30), End: at(60*i + 1800), State: "COMPLETED"}
		if i%3 == 0 {
			j.Comment = "strata: model=resnet50 batch=64 iters=20000 gpus=1-4"
		}
		src.jobs = append(src.jobs, j)
	}
	src.jobs = append(src.jobs, slurm.FinishedJob{ID: 20, User: "carol", Partition: "cpu", Submit: at(0), Start: at(1), End: at(50)},
		slurm.FinishedJob{ID: 21, User: "carol", Partition: "old", GPUs: 1, Submit: at(0), Start: at(1), End: at(50)})
	o := SiteOptions{Options: siteTestOptions(), From: t0, To: at(86400), Prior: 90 * 24 * time.Hour}
	var out bytes.Buffer
	if err := RunSite(context.Background(), src, o, Output{Out: &out, Progress: io.Discard}, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	var rep SiteReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if !src.asked[0].Equal(t0) || !src.asked[1].Equal(at(86400)) {
		t.Errorf("asked for jobs ended in %v, want the period", src.asked)
	}
	if !src.prior[0].Equal(t0.AddDate(0, 0, -90)) || !src.prior[1].Equal(t0) {
		t.Errorf("asked for the predictor's history in %v, want the 90 days before the period", src.prior)
	}
	type summary struct {
		Jobs, Hinted int
		LeftOut      map[string]int
		Cluster      string
		Predictor    string
		Policies     []string
		Users, Parts []string
		Counted      int
	}
	got := summary{Jobs: rep.Jobs, Hinted: rep.Hinted, LeftOut: rep.LeftOut, Cluster: rep.Cluster, Predictor: rep.Predictor}
	for _, p := range rep.Policies {
		got.Policies = append(got.Policies, p.Policy)
		got.Counted = p.All.Jobs
		for _, g := range p.Users {
			got.Users = append(got.Users, g.Name)
		}
		for _, g := range p.Partitions {
			got.Parts = append(got.Parts, g.Name)
		}
		for _, g := range append(p.Users, p.All) {
			if g.WaitSlurm < 0 || g.WaitPolicy < 0 || g.JCTPolicy < g.WaitPolicy || g.JCTSlurm <= 0 {
				t.Errorf("%s: implausible means %+v", g.Name, g)
			}
		}
	}
	want := summary{Jobs: 8, Hinted: 3, LeftOut: map[string]int{"no GPUs": 1, "partition not modelled": 1},
		Cluster: "2x4,cpus=32,mem=125G", Predictor: "history", Policies: []string{"smd"},
		Users: []string{"alice", "bob"}, Parts: []string{"gpu"}, Counted: 8}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	// The table says the same for people.
	o.JSON = false
	out.Reset()
	if err := RunSite(context.Background(), src, o, Output{Out: &out, Progress: io.Discard}, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"8 simulated, 3 with a hint", "1 no GPUs, 1 partition not modelled", "nodes left out: c1 (no GPUs)",
		"smd against Slurm alone", "partition gpu", "user alice", "user bob"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
	src.acct = false
	if err := RunSite(context.Background(), src, o, Output{Out: io.Discard, Progress: io.Discard}, zerolog.Nop()); err == nil ||
		!strings.Contains(err.Error(), "serves no /slurmdb") {
		t.Errorf("without accounting: %v", err)
	}
}

// siteTestOptions are the simulation settings of the flags' defaults, with
// --json.
func siteTestOptions() Options {
	return Options{Interval: time.Minute, RestartPenalty: 30 * time.Second, GPURange: 1, SlurmBackfill: "easy",
		TimeLimitFactor: 2, SchedInterval: time.Minute, BFInterval: 30 * time.Second, BatchSchedDelay: 3 * time.Second,
		PriorityWeightAge: 1000, PriorityWeightJobSize: 1000, TiresiasThreshold: 16, SpeedError: 1, Parallel: 2, JSON: true}
}
