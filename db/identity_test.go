package db_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// Two clusters in one database, each with its job 7: names, users and
// energy stay apart.
func TestTwoClustersSameJobID(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	s := dbtest.New(t)
	east := synthJob{cluster: "east", id: 7, user: "alice", gpu: "GPU-E", submit: synthT0.Add(-time.Minute),
		start: synthT0, end: synthT0.Add(20 * time.Minute), powerW: 200, util: 80}
	west := synthJob{cluster: "west", id: 7, user: "bob", gpu: "GPU-W", submit: synthT0.Add(-2 * time.Minute),
		start: synthT0.Add(5 * time.Minute), end: synthT0.Add(15 * time.Minute), powerW: 100, util: 80}
	writeSynth(t, s, east, west)
	refreshAll(t, s, synthT0.Add(-time.Hour), synthT0.Add(time.Hour))
	f := db.ReportFilter{From: synthT0.Add(-time.Hour), To: synthT0.Add(time.Hour)}
	rows, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: f, By: []db.ReportDim{db.DimUser}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]float64{}
	for _, r := range rows {
		got[r.User] = [2]float64{r.EnergyJ, float64(r.Jobs)}
	}
	want := map[string][2]float64{"alice": {east.energyJ(), 1}, "bob": {west.energyJ(), 1}}
	if d := cmp.Diff(want, got, approx(1e-6)); d != "" {
		t.Errorf("energy, jobs by user (-want +got):\n%s", d)
	}
	for _, c := range []synthJob{east, west} {
		f := f
		f.Clusters = []string{c.cluster}
		rows, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: f, By: []db.ReportDim{db.DimJob}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].User != c.user || rows[0].JobName != fmt.Sprintf("%s-7", c.user) {
			t.Errorf("cluster %s, by job: %+v; want one row of %s", c.cluster, rows, c.user)
		}
	}
	rows, err = s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: f, By: []db.ReportDim{db.DimJob}})
	if err != nil {
		t.Fatal(err)
	}
	type jobRow struct {
		Job           int64
		Cluster, User string
		Energy        float64
		Jobs          int
	}
	var byJob []jobRow
	for _, r := range rows {
		byJob = append(byJob, jobRow{r.Job, r.Cluster, r.User, r.EnergyJ, r.Jobs})
	}
	wantJobs := []jobRow{{7, "east", "alice", east.energyJ(), 1}, {7, "west", "bob", west.energyJ(), 1}}
	if d := cmp.Diff(wantJobs, byJob, approx(1e-6)); d != "" {
		t.Errorf("by job (-want +got):\n%s", d)
	}
	// The job page shows the job submitted last (east's) and only its own.
	jr, err := s.JobReport(ctx, 7, db.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if jr.Cluster != "east" || jr.User != "alice" || len(jr.GPUs) != 1 || jr.GPUs[0].UUID != "GPU-E" ||
		math.Abs(jr.Totals.EnergyJ-east.energyJ()) > 1e-6*east.energyJ() {
		t.Errorf("job page of 7: cluster %q, user %q, GPUs %v, %.1f J; want east's job: alice, GPU-E, %.1f J",
			jr.Cluster, jr.User, jr.GPUs, jr.Totals.EnergyJ, east.energyJ())
	}
	usage, err := s.UsageReport(ctx, db.UsageQuery{ReportFilter: f, By: []db.ReportDim{db.DimUser}})
	if err != nil {
		t.Fatal(err)
	}
	completed := map[string]int{}
	for _, u := range usage {
		completed[u.User] = u.Completed
	}
	if d := cmp.Diff(map[string]int{"alice": 1, "bob": 1}, completed); d != "" {
		t.Errorf("completed jobs by user (-want +got):\n%s", d)
	}
}

// A job id reused by the same cluster (Slurm's ids wrap at MaxJobId) is a
// new job: the old one keeps its name, user and energy.
func TestReusedJobIDIsANewJob(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	s := dbtest.New(t)
	old := synthJob{id: 7, user: "alice", gpu: "GPU-A", submit: synthT0.Add(-time.Minute),
		start: synthT0, end: synthT0.Add(10 * time.Minute), powerW: 200, util: 80}
	reused := synthJob{id: 7, user: "bob", gpu: "GPU-A", submit: synthT0.Add(3 * time.Hour),
		start: synthT0.Add(3*time.Hour + time.Minute), end: synthT0.Add(3*time.Hour + 31*time.Minute), powerW: 100, util: 80}
	writeSynth(t, s, old, reused)
	refreshAll(t, s, synthT0.Add(-time.Hour), synthT0.Add(5*time.Hour))
	f := db.ReportFilter{From: synthT0.Add(-time.Hour), To: synthT0.Add(5 * time.Hour)}
	rows, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: f, By: []db.ReportDim{db.DimUser}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, r := range rows {
		got[r.User] = r.EnergyJ
	}
	if d := cmp.Diff(map[string]float64{"alice": old.energyJ(), "bob": reused.energyJ()}, got, approx(1e-6)); d != "" {
		t.Errorf("energy by user (-want +got):\n%s", d)
	}
	rows, err = s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: f, By: []db.ReportDim{db.DimJob}})
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, r := range rows {
		users = append(users, fmt.Sprintf("%d %s %s", r.Job, r.User, r.JobName))
	}
	if d := cmp.Diff([]string{"7 alice alice-7", "7 bob bob-7"}, users); d != "" {
		t.Errorf("by job (-want +got):\n%s", d)
	}
	usage, err := s.UsageReport(ctx, db.UsageQuery{ReportFilter: f, By: []db.ReportDim{db.DimUser}})
	if err != nil {
		t.Fatal(err)
	}
	wait := map[string]float64{}
	for _, u := range usage {
		wait[u.User] = u.MeanWaitSec
	}
	if d := cmp.Diff(map[string]float64{"alice": 60, "bob": 60}, wait); d != "" {
		t.Errorf("mean wait by user (-want +got):\n%s", d)
	}
	jr, err := s.JobReport(ctx, 7, db.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if jr.User != "bob" || !jr.Submit.Equal(reused.submit) || len(jr.GPUs) != 1 || !jr.GPUs[0].From.Equal(reused.start) ||
		jr.Totals.GPUSeconds != 1800 {
		t.Errorf("job page of 7: user %q, submitted %v, GPUs %v, %v GPU-s; want the reused id's job: bob, %v, one GPU from %v, 1800 GPU-s",
			jr.User, jr.Submit, jr.GPUs, jr.Totals.GPUSeconds, reused.submit, reused.start)
	}
}

// jobRows lists the job table: cluster, id, submit time ("?" when
// unknown), user, state.
func jobRows(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT cluster, job_id,
		CASE WHEN isfinite(submit_time) THEN to_char(submit_time AT TIME ZONE 'UTC', 'HH24:MI') ELSE '?' END,
		user_name, state FROM job ORDER BY 1, 2, submit_time`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var c, sub, u, st string
		var id int64
		err := r.Scan(&c, &id, &sub, &u, &st)
		return fmt.Sprintf("%s/%d@%s %s %s", c, id, sub, u, st), err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// storeAndConn opens a migrated database of the test's own, as a Store and
// as a plain connection for reading its rows (closed at cleanup).
func storeAndConn(t *testing.T) (*db.Store, *pgx.Conn) {
	t.Helper()
	url := dbtest.URL(t)
	s := dbtest.Open(t, url, true)
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return s, conn
}

// How UpsertJobs keys jobs: (cluster, id, submit time); an unknown submit
// time updates the latest job of the id, and is adopted by the first known
// one.
func TestUpsertJobsIdentity(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	s, conn := storeAndConn(t)
	at := func(h int) time.Time { return synthT0.Add(time.Duration(h) * time.Hour) }
	job := func(id int64, user string, st planner.JobState, submit time.Time) planner.Job {
		return planner.Job{ID: id, User: user, State: st, SubmitTime: submit}
	}
	steps := []struct {
		name    string
		cluster string
		jobs    []planner.Job
		want    []string
	}{
		{"unknown submit time: a row", "a", []planner.Job{job(1, "ann", planner.JobRunning, time.Time{})},
			[]string{"a/1@? ann RUNNING"}},
		{"known submit time adopts it", "a", []planner.Job{job(1, "ann", planner.JobRunning, at(0))},
			[]string{"a/1@08:00 ann RUNNING"}},
		{"unknown again: updates the latest", "a", []planner.Job{job(1, "ann", planner.JobCompleted, time.Time{})},
			[]string{"a/1@08:00 ann COMPLETED"}},
		{"same id, other cluster: a row of its own", "b", []planner.Job{job(1, "ben", planner.JobRunning, at(1))},
			[]string{"a/1@08:00 ann COMPLETED", "b/1@09:00 ben RUNNING"}},
		{"id reused (new submit time): a new job", "a", []planner.Job{job(1, "cid", planner.JobPending, at(2))},
			[]string{"a/1@08:00 ann COMPLETED", "a/1@10:00 cid PENDING", "b/1@09:00 ben RUNNING"}},
		{"unknown: the latest of the cluster", "a", []planner.Job{job(1, "cid", planner.JobRunning, time.Time{})},
			[]string{"a/1@08:00 ann COMPLETED", "a/1@10:00 cid RUNNING", "b/1@09:00 ben RUNNING"}},
		{"one batch, known and unknown of one id", "b", []planner.Job{job(1, "ben", planner.JobCompleted, time.Time{}),
			job(1, "ben", planner.JobCompleted, at(1))},
			[]string{"a/1@08:00 ann COMPLETED", "a/1@10:00 cid RUNNING", "b/1@09:00 ben COMPLETED"}},
	}
	for _, st := range steps {
		if err := s.UpsertJobs(ctx, st.cluster, st.jobs, nil); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if d := cmp.Diff(st.want, jobRows(t, conn)); d != "" {
			t.Errorf("%s: jobs (-want +got):\n%s", st.name, d)
		}
	}
}

// A cluster's collector cannot close another cluster's assignment (it
// resumes every open assignment at start and closes those it does not see).
func TestAssignmentsClosedOnlyByTheirCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	s := dbtest.New(t)
	open := dcgm.Assignment{Job: 7, Host: "n1", UUID: "GPU-E", From: synthT0}
	if err := s.SaveAssignments(ctx, "east", []dcgm.Assignment{open}); err != nil {
		t.Fatal(err)
	}
	closed := open
	closed.To = synthT0.Add(time.Minute)
	if err := s.SaveAssignments(ctx, "west", []dcgm.Assignment{closed}); err != nil {
		t.Fatal(err)
	}
	got, err := s.OpenAssignments(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("open assignments after another cluster's close: %v; want east's still open", got)
	}
	if err := s.SaveAssignments(ctx, "east", []dcgm.Assignment{closed}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.OpenAssignments(ctx, ""); err != nil || len(got) != 0 {
		t.Errorf("open assignments after east's close: %v, %v; want none", got, err)
	}
}

// An ended run stays ended when a later report of the same run has no end
// (the collector's view from before the end, written after the daemon
// recorded the end: issue 33), and a new start without an end is a new run
// of a requeued job, which has not ended.
func TestUpsertJobsKeepsAnEndedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	t.Parallel() // a database of its own (dbtest)
	ctx := context.Background()
	s, conn := storeAndConn(t)
	at := func(m int) time.Time { return synthT0.Add(time.Duration(m) * time.Minute) }
	run := func(st planner.JobState, start time.Time) planner.Job {
		return planner.Job{ID: 5, User: "ann", State: st, SubmitTime: at(0), StartTime: start}
	}
	row := func() string {
		var st string
		var start, end *time.Time
		if err := conn.QueryRow(ctx, `SELECT state, start_time, end_time FROM job WHERE job_id = 5`).Scan(&st, &start, &end); err != nil {
			t.Fatal(err)
		}
		f := func(t *time.Time) string {
			if t == nil {
				return "-"
			}
			return t.UTC().Format("15:04")
		}
		return fmt.Sprintf("%s %s–%s", st, f(start), f(end))
	}
	steps := []struct {
		name string
		job  planner.Job
		end  time.Time
		want string
	}{
		{"running", run(planner.JobRunning, at(1)), time.Time{}, "RUNNING 08:01–-"},
		{"ended (the daemon)", run("TIMEOUT", at(1)), at(30), "TIMEOUT 08:01–08:30"},
		{"a late running report of that run", run(planner.JobRunning, at(1)), time.Time{}, "TIMEOUT 08:01–08:30"},
		{"a report without a start", run(planner.JobRunning, time.Time{}), time.Time{}, "TIMEOUT 08:01–08:30"},
		{"requeued: a new run", run(planner.JobRunning, at(40)), time.Time{}, "RUNNING 08:40–-"},
		{"the new run ends", run(planner.JobCompleted, at(40)), at(50), "COMPLETED 08:40–08:50"},
	}
	for _, st := range steps {
		var ends map[int64]time.Time
		if !st.end.IsZero() {
			ends = map[int64]time.Time{5: st.end}
		}
		if err := s.UpsertJobs(ctx, "c", []planner.Job{st.job}, ends); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := row(); got != st.want {
			t.Errorf("%s: job row %q, want %q", st.name, got, st.want)
		}
	}
}
