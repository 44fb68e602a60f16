package sim

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/trust"
)

// TestResubmitAfterKill: a job killed at its time limit is not done: its
// user resubmits it at once, asking for twice the limit it was killed at;
// its JCT runs until its work is done. A job that does not checkpoint
// starts its work again; one that does (preempt=yes, requeueable) resumes
// from its checkpoint, paying the 30 s restart.
func TestResubmitAfterKill(t *testing.T) {
	one := ClusterSpec{Nodes: 1, GPUsPerNode: 4}
	trace := "job_id,submit_time,duration_s,gpus,time_limit_s\na,0,500,4,120\n"
	for _, tt := range []struct {
		name        string
		preemptible bool
		want        [2]float64
		kills       int
	}{
		// Killed at 120 (limit 120), 360 (240) and 840 (480); the fourth
		// run (limit 960) does the 500 s: ends at 1340.
		{name: "from scratch", want: [2]float64{0, 1340}, kills: 3},
		// 120 s done by the kill at 120; resubmitted (limit 240): 30 s
		// restart, then 210 s more by the kill at 360 (330 done); then
		// limit 480: 30 s restart and the 170 s left, done at 560.
		{name: "from its checkpoint", preemptible: true, want: [2]float64{0, 560}, kills: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, e := slurmRun(t, Config{Cluster: one, Preemptible: tt.preemptible}, trace, nil)
			if d := cmp.Diff(tt.want, got["a"]); d != "" {
				t.Errorf("(first start, end) (-want +got):\n%s", d)
			}
			r := e.result()
			if r.TimeLimitKills != tt.kills || r.Jobs != 1 || r.AvgJCT != tt.want[1] {
				t.Errorf("kills %d, jobs %d, avg JCT %v: want %d, 1, %v", r.TimeLimitKills, r.Jobs, r.AvgJCT, tt.kills, tt.want[1])
			}
		})
	}
}

// runWithRecords runs a policy in Slurm mode as RunNamed does, with the
// users' records, and calls hook after each of Strata's cycles.
func runWithRecords(t *testing.T, cfg Config, tr *Trace, name string, hook func(e *engine, t float64, p planner.Plan), prior ...trust.Outcome) (*engine, *Result) {
	t.Helper()
	cfg.Scheduler = SchedulerSlurm
	cfg = cfg.withDefaults()
	o := PolicyOptions(cfg, tr)
	cfg.popts = &o
	p, err := planner.NewPolicy(name, o)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(cfg, tr, name, p)
	e.trust = &trustState{opts: o, outcomes: prior, stale: len(prior) > 0}
	if hook != nil {
		e.afterWrites = func(_ *slurmState, t float64, p planner.Plan) { hook(e, t, p) }
	}
	if err := e.slurmLoop(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e, e.result()
}

// TestTrustFedFromFinishedRuns: Strata's cycle gets each user's record
// fitted from the runs that ended so far: a prediction is corrected only
// for a user with an ended run, only the liars' are corrected (the honest
// users' hints are true), and every liar ends distrusted. Each ended run
// is recorded with the prediction the planner made for it before any
// correction. (A running job that has already run 10× its claim counts
// as well: TestRunningLieDistrustsAtOnce.)
func TestTrustFedFromFinishedRuns(t *testing.T) {
	sc := readScalingFile(t, "testdata/pollux_scaling.csv")
	tr, liars := MakeDishonest(AssignUsers(readTraceFile(t, "testdata/pollux_workload1.csv"), 20), Honesty{Fraction: 0.1, Factor: 100, Seed: 1})
	cfg := Config{Cluster: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc}}
	corrected := map[string]bool{}
	_, r := runWithRecords(t, cfg, tr, "smd", func(e *engine, _ float64, p planner.Plan) {
		ended := map[string]bool{}
		for _, o := range e.trust.outcomes {
			ended[o.User] = true
		}
		for _, i := range e.trust.overran { // a running lie past 10× its claim counts too
			ended[e.jobs[i].pj.User] = true
		}
		for _, d := range p.Decisions {
			if !slices.Contains(d.Reasons, planner.ReasonPredictionCorrected) && !slices.Contains(d.Reasons, planner.ReasonClaimDistrusted) {
				continue
			}
			u := e.jobs[d.JobID-1].pj.User
			if !ended[u] {
				t.Fatalf("job %d of %s corrected before any run of %s ended", d.JobID, u, u)
			}
			corrected[u] = true
		}
	})
	var got []string
	for u := range corrected {
		got = append(got, u)
	}
	slices.Sort(got)
	if d := cmp.Diff(liars, got); d != "" {
		t.Errorf("users whose predictions were corrected (-liars +got):\n%s", d)
	}
	if c := r.Claims; c == nil || c.Distrusted+c.Corrected != len(liars) || c.Distrusted == 0 || c.Runs < len(tr.Jobs) {
		t.Errorf("records at the end %+v: want the %d liars corrected or distrusted (one at least distrusted), at least %d runs",
			c, len(liars), len(tr.Jobs))
	}
}

// TestRunningLieDistrustsAtOnce (issue 30: a new user's first large
// lie): a liar whose first job claims a hundredth of its 4,172 s is
// distrusted once that job has run 10× its claim, while it still runs:
// the liar's second job, submitted meanwhile, is timed by its limit from
// then on, not only after the first ends.
func TestRunningLieDistrustsAtOnce(t *testing.T) {
	sc := readScalingFile(t, "testdata/pollux_scaling.csv")
	tr := mustTrace(t, "job_id,submit_time,duration_s,gpus,nodes,model,batch_size,iterations,user\n"+
		"lie,0,4172,6,2,deepspeech2,320,2254,liar\n"+
		"blocker,0,6000,2,1,,,,honest\n"+
		"next,60,4172,6,2,deepspeech2,320,2254,liar\n")
	for _, k := range []int{0, 2} {
		tr.Jobs[k].Dishonest, tr.Jobs[k].ClaimScale = true, 0.01
	}
	cfg := Config{Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc}}
	firstDistrust, claimed := -1.0, 0.0
	e, _ := runWithRecords(t, cfg, tr, "smd", func(e *engine, now float64, p planner.Plan) {
		if c := e.jobs[0].predicted; c > 0 {
			claimed = c // the lie's prediction while it runs
		}
		for _, d := range p.Decisions {
			if d.JobID == 3 && slices.Contains(d.Reasons, planner.ReasonClaimDistrusted) && firstDistrust < 0 {
				firstDistrust = now
				if !strings.Contains(d.Detail, "still running") {
					t.Errorf("detail %q: want it to say the lie still runs", d.Detail)
				}
			}
		}
	})
	if lie := &e.jobs[0]; firstDistrust < 0 || claimed == 0 || firstDistrust >= lie.end || firstDistrust < lie.firstStart+10*claimed {
		t.Errorf("the liar's second job distrusted at %v; the lie ran %v–%v: want distrusted while it runs, after 10× its claim",
			firstDistrust, lie.firstStart, lie.end)
	}
}

// TestBoundClaimKilledAndResubmitted: a liar's job (deepspeech2 whose
// hint claims a hundredth of its 4,172 s), of a user whose record already
// shows 3× understatement (binding is only for such users), waits behind
// a job holding the cluster; Strata lowers its limit (2 × 4,172 s) to the 30-minute floor of
// margin 2 over its claimed minute; Slurm kills it there; its user
// resubmits it with the limit asked at first, and by then its record
// distrusts the claim (timed by that limit, not lowered again): the job
// is done only when its work is, far later than the lie promised.
func TestBoundClaimKilledAndResubmitted(t *testing.T) {
	sc := readScalingFile(t, "testdata/pollux_scaling.csv")
	tr := mustTrace(t, "job_id,submit_time,duration_s,gpus,nodes,model,batch_size,iterations,user\n"+
		"blocker,0,600,8,2,,,,honest\n"+
		"lie,10,4172,6,2,deepspeech2,320,2254,liar\n")
	tr.Jobs[1].Dishonest, tr.Jobs[1].ClaimScale = true, 0.01
	cfg := Config{Cluster: ClusterSpec{Nodes: 2, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc}, JobRows: true,
		Planner: &planner.Options{BindClaims: true, ClaimMargin: 2}}
	var limits []float64
	before := []trust.Outcome{{User: "liar", JobID: 100, End: simTime(-3600), Predicted: 20 * time.Minute, Real: time.Hour, GPUs: 4}}
	e, r := runWithRecords(t, cfg, tr, "smd", func(e *engine, _ float64, _ planner.Plan) {
		if j := &e.jobs[1]; len(limits) == 0 || limits[len(limits)-1] != j.limit {
			limits = append(limits, j.limit)
		}
	}, before...)
	// 8,400 s asked (2 × 4,172 in whole minutes), 1,800 s bound, 8,400 s
	// again at the resubmission. (Later ones double: distrusted, the job is
	// timed by its limit at every size, smd plans it on fewer GPUs, and it
	// outruns the limit its user asked for.)
	if len(limits) < 3 || !cmp.Equal([]float64{8400, 1800, 8400}, limits[:3]) {
		t.Errorf("the liar job's limit over the cycles %v: want 8400, 1800, 8400 first", limits)
	}
	row := r.JobRows[1]
	if row.Resubmits < 1 || r.LimitsLowered != 1 || row.State != "done" || !row.Dishonest || row.User != "liar" {
		t.Errorf("liar row %+v, limits lowered %d: want resubmitted, 1 lowered, done", row, r.LimitsLowered)
	}
	// Killed 1,800 s after its start at 600; its 4,172 s again after that.
	if row.JCT == nil || *row.JCT < 600+1800+4172-10 {
		t.Errorf("liar JCT %v: want at least %v (the run lost at the bound limit, then the whole work)", row.JCT, 600+1800+4172-10)
	}
	if c := e.trust.claims["liar"]; !c.Distrust {
		t.Errorf("liar's claim at the end %+v: want distrusted (a claim broken at its limit)", c)
	}
}

// TestLiesDoNotPay: with a tenth of the users understating 100-fold and
// claims bound at margin 2, every job of Pollux workload 1 finishes (those
// killed at a limit are resubmitted), no JCT is shorter than the job's
// true run time on any allowed size, and the per-job rows name each job's
// user and honesty.
func TestLiesDoNotPay(t *testing.T) {
	sc := readScalingFile(t, "testdata/pollux_scaling.csv")
	tr, liars := MakeDishonest(AssignUsers(readTraceFile(t, "testdata/pollux_workload1.csv"), 20), Honesty{Fraction: 0.1, Factor: 100, Seed: 1})
	cfg := Config{Cluster: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc}, JobRows: true,
		Planner: &planner.Options{BindClaims: true, ClaimMargin: 2}}
	r, err := RunNamed(context.Background(), cfg, tr, "smd")
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs != len(tr.Jobs) || r.Unfinished != 0 || r.Honesty == nil {
		t.Fatalf("%d of %d jobs done, %d unfinished, honesty %+v", r.Jobs, len(tr.Jobs), r.Unfinished, r.Honesty)
	}
	for k, row := range r.JobRows {
		tj := &tr.Jobs[k]
		if row.User != tj.User || row.Dishonest != slices.Contains(liars, tj.User) {
			t.Errorf("row %s: user %q dishonest %v, want %q %v", row.ID, row.User, row.Dishonest, tj.User, !row.Dishonest)
		}
		fastest := tj.Duration
		for w := 1; w <= 64; w++ {
			d, _ := cfg.Truth.Duration(tj, w)
			fastest = min(fastest, d)
		}
		if row.JCT == nil || *row.JCT < fastest-1 {
			t.Errorf("job %s (user %s, %d resubmits): JCT %v below its fastest run %v", row.ID, row.User, row.Resubmits, row.JCT, fastest)
		}
	}
}

// TestNoRecordWithoutUsers: a trace without users keeps no record (its
// jobs share a placeholder user, whose record would be everyone's); with
// --users each user has one.
func TestNoRecordWithoutUsers(t *testing.T) {
	sc := readScalingFile(t, "testdata/pollux_scaling.csv")
	cfg := Config{Cluster: ClusterSpec{Nodes: 16, GPUsPerNode: 4, GPUType: "t4"}, Truth: Truth{Scaling: sc}}
	for _, tt := range []struct {
		name  string
		users int
		want  int
	}{{"no users", 0, 0}, {"20 users", 20, 20}} {
		t.Run(tt.name, func(t *testing.T) {
			tr := AssignUsers(readTraceFile(t, "testdata/pollux_workload1.csv"), tt.users)
			e, _ := runWithRecords(t, cfg, tr, "smd", nil)
			users := map[string]bool{}
			for _, o := range e.trust.outcomes {
				users[o.User] = true
			}
			if len(users) != tt.want {
				t.Errorf("records of %d users, want %d", len(users), tt.want)
			}
		})
	}
}
