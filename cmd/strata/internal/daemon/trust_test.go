package daemon

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/plannertest"
	"github.com/strata-hpc/strata/planner/trust"
)

// TestDaemonCorrectsByUserRecord (issue 22.1): a user whose finished job
// ran 100× its claim and was stopped at its limit has their next job
// timed by its time limit (claim_distrusted, said in the detail), so that
// it no longer ranks ahead of an honest shorter job; the record survives a
// Postgres outage; the liar's jobs are left out of the shared (model, GPU
// type) calibration, which stays at the honest user's factor.
func TestDaemonCorrectsByUserRecord(t *testing.T) {
	user := func(u string) plannertest.JobOpt { return func(j *planner.Job) { j.User = u } }
	snap := func() *planner.Snapshot {
		return plannertest.Cluster("snap", testNow).Partition("gpu", true).
			Nodes("node", 1, 4, 16, 64000, "gpu", "a100").
			Running(1, 4, "node0001", testNow.Add(-time.Minute)).
			Pending(10, 4, "strata: model=resnet50 batch=64 iters=2000", user("alice"), plannertest.TimeLimit(4*time.Hour),
				plannertest.Submitted(testNow.Add(-10*time.Minute))).
			Pending(11, 4, "strata: model=resnet50 batch=1 iters=1", user("mallory"), plannertest.TimeLimit(48*time.Hour),
				plannertest.Submitted(testNow.Add(-time.Minute))).
			Build()
	}
	rankOf := func(p planner.Plan, id int64) (planner.Decision, bool) {
		for _, d := range p.Decisions {
			if d.JobID == id {
				return d, true
			}
		}
		return planner.Decision{}, false
	}
	o := testOptions()
	o.Calibrate = true
	d0 := newTestDaemon(t, testBed{cl: newFakeCluster(snap()), pg: newFakePostgres(), m: NewMetrics()}, o)
	res, err := d0.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if liar, _ := rankOf(res.Plan, 11); liar.Rank != 1 {
		t.Fatalf("without a record the 1-iteration claim ranks %d, want 1 (the test's premise)", liar.Rank)
	}

	pg := newFakePostgres()
	for i := range 3 {
		end := testNow.Add(-time.Duration(10-i) * time.Hour)
		pg.outcomes = append(pg.outcomes,
			trust.Outcome{User: "mallory", JobID: int64(100 + i), End: end, Predicted: time.Minute, Real: 100 * time.Minute, TimedOut: i == 2},
			trust.Outcome{User: "alice", JobID: int64(200 + i), End: end, Predicted: time.Hour, Real: time.Hour})
		pg.calibration = append(pg.calibration,
			db.CalibrationJob{JobID: int64(100 + i), End: end, User: "mallory", Model: "resnet50", GPUType: "a100", ModelSeconds: 0.007, RealSeconds: 36000},
			db.CalibrationJob{JobID: int64(200 + i), End: end, User: "alice", Model: "resnet50", GPUType: "a100", ModelSeconds: 600, RealSeconds: 600})
	}
	d := newTestDaemon(t, testBed{cl: newFakeCluster(snap()), pg: pg, m: NewMetrics()}, o)
	check := func(when string) {
		t.Helper()
		res, err := d.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		liar, _ := rankOf(res.Plan, 11)
		honest, _ := rankOf(res.Plan, 10)
		if liar.Rank <= honest.Rank {
			t.Errorf("%s: the liar's job ranks %d, ahead of the honest job (%d)", when, liar.Rank, honest.Rank)
		}
		if !slices.Contains(liar.Reasons, planner.ReasonClaimDistrusted) || !strings.Contains(liar.Detail, "not trusted") {
			t.Errorf("%s: liar's decision %v %q: want %s explained", when, liar.Reasons, liar.Detail, planner.ReasonClaimDistrusted)
		}
		if liar.Claimed <= 0 || liar.Claimed > time.Second {
			t.Errorf("%s: liar's decision carries claimed %v, want the uncorrected ~ms prediction", when, liar.Claimed)
		}
		if slices.Contains(honest.Reasons, planner.ReasonClaimDistrusted) || slices.Contains(honest.Reasons, planner.ReasonPredictionCorrected) {
			t.Errorf("%s: the honest job is corrected: %v", when, honest.Reasons)
		}
		cal := d.calib.cal
		if cal == nil || len(cal.Speed) != 1 || cal.Speed[0].Factor != 1 {
			t.Errorf("%s: calibration %+v: want resnet50/a100 at 1 (the liar left out)", when, cal)
		}
	}
	check("after the liar's record is read")
	pg.SetDown(true)
	check("during a Postgres outage")
}

// The record reads at most every trustEvery, keeps its corrections while
// Postgres is down, keeps at most trustPerUser jobs of a user, and forgets
// jobs older than trustWindow.
func TestTrustKeeperRefresh(t *testing.T) {
	pg := newFakePostgres()
	for i := range trustPerUser + 5 {
		pg.outcomes = append(pg.outcomes, trust.Outcome{User: "mallory", JobID: int64(i + 1),
			End: testNow.Add(-time.Duration(trustPerUser+5-i) * time.Minute), Predicted: time.Minute, Real: 100 * time.Minute})
	}
	var k trustKeeper
	log := zerolog.Nop()
	distrusted := func() bool { return k.claims["mallory"].Distrust }
	k.refresh(context.Background(), pg, "c", nil, testNow, log)
	if !distrusted() || len(k.outs) != trustPerUser || !k.unreliable["mallory"] {
		t.Fatalf("first read: claims %v, %d jobs kept, unreliable %v: want mallory distrusted, %d jobs", k.claims, len(k.outs), k.unreliable, trustPerUser)
	}
	pg.outcomes = append(pg.outcomes, trust.Outcome{User: "mallory", JobID: 999, End: testNow.Add(time.Minute), Predicted: time.Hour, Real: time.Hour})
	k.refresh(context.Background(), pg, "c", nil, testNow.Add(time.Minute), log)
	if _, ok := k.outs[calibKey{999, testNow.Add(time.Minute)}]; ok {
		t.Error("re-read before trustEvery")
	}
	pg.SetDown(true)
	k.refresh(context.Background(), pg, "c", nil, testNow.Add(trustEvery+time.Minute), log)
	if !distrusted() {
		t.Error("an outage dropped the record")
	}
	pg.SetDown(false)
	k.refresh(context.Background(), pg, "c", nil, testNow.Add(trustWindow+time.Hour), log)
	if len(k.claims) != 0 || len(k.outs) != 0 {
		t.Errorf("after the window: claims %v, %d jobs, want none", k.claims, len(k.outs))
	}
}

// TestDaemonDistrustsARunningLie (issue 30: a new user's first large lie):
// a user with no ended job whose running job has already run 10× its
// claim is distrusted at once — their next job is timed by its limit and
// ranks behind an honest one — and not while it has run less.
func TestDaemonDistrustsARunningLie(t *testing.T) {
	user := func(u string) plannertest.JobOpt { return func(j *planner.Job) { j.User = u } }
	snap := func(ranFor time.Duration) *planner.Snapshot {
		return plannertest.Cluster("snap", testNow).Partition("gpu", true).
			Nodes("node", 1, 8, 16, 64000, "gpu", "a100").
			Running(1, 4, "node0001", testNow.Add(-ranFor), user("mallory")).
			Pending(10, 4, "strata: model=resnet50 batch=64 iters=2000", user("alice"), plannertest.TimeLimit(4*time.Hour),
				plannertest.Submitted(testNow.Add(-10*time.Minute))).
			Pending(11, 4, "strata: model=resnet50 batch=1 iters=1", user("mallory"), plannertest.TimeLimit(48*time.Hour),
				plannertest.Submitted(testNow.Add(-time.Minute))).
			Build()
	}
	for _, tc := range []struct {
		name     string
		ranFor   time.Duration
		distrust bool
	}{
		{"the lie has run 9x its claim: trusted still", 54 * time.Minute, false},
		{"the lie has run 12x its claim: distrusted while it runs", 72 * time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := newFakePostgres()
			pg.claimed = map[int64]time.Duration{1: 6 * time.Minute}
			d := newTestDaemon(t, testBed{cl: newFakeCluster(snap(tc.ranFor)), pg: pg, m: NewMetrics()}, testOptions())
			res, err := d.RunOnce(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var liar, honest planner.Decision
			for _, dc := range res.Plan.Decisions {
				switch dc.JobID {
				case 10:
					honest = dc
				case 11:
					liar = dc
				}
			}
			distrusted := slices.Contains(liar.Reasons, planner.ReasonClaimDistrusted)
			if distrusted != tc.distrust || (liar.Rank > honest.Rank) != tc.distrust {
				t.Errorf("liar's job: rank %d (honest %d), reasons %v: want distrusted %v", liar.Rank, honest.Rank, liar.Reasons, tc.distrust)
			}
			if tc.distrust && !strings.Contains(liar.Detail, "still running") {
				t.Errorf("detail %q: want it to say the overrunning job still runs", liar.Detail)
			}
		})
	}
}
