package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
)

// dayT0 is the first day of the synthetic history of the daily-rollup tests.
var dayT0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// toJoule compares reports to the joule (and the GPU-second): the daily
// rollups add the same hourly values in another order.
var toJoule = cmpopts.EquateApprox(0, 0.5)

// synthHistory writes 40 days of hourly rollups of random jobs on two
// clusters, their job rows (one id reused on the same GPU within a day, one
// job without a row), and builds the daily rollups with CheckDayRollups
// (every day disagrees: none exist yet). It returns the store and a
// connection for SQL of the test's own.
func synthHistory(t *testing.T) (*db.Store, *pgx.Conn) {
	s, conn, _ := synthHistoryURL(t)
	return s, conn
}

// synthHistoryURL is synthHistory with the database's URL.
func synthHistoryURL(t *testing.T) (*db.Store, *pgx.Conn, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	ctx := context.Background()
	url := dbtest.URL(t)
	s := dbtest.Open(t, url, true)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	rng := rand.New(rand.NewPCG(35, 2))
	var hours, jobs [][]any
	addRun := func(cluster string, id int64, gpu, host string, from, to time.Time) {
		watts, util := 100+400*rng.Float64(), 100*rng.Float64()
		for h := from.Truncate(time.Hour); h.Before(to); h = h.Add(time.Hour) {
			lo, hi := maxTime(from, h), minTime(to, h.Add(time.Hour))
			sec := hi.Sub(lo).Seconds()
			idleSec, idleE := 0.0, 0.0
			if util < 10 {
				idleSec, idleE = sec, sec*watts
			}
			hours = append(hours, []any{h, cluster, id, gpu, host, lo, hi, sec, sec * watts * (0.9 + 0.2*rng.Float64()),
				util * sec, sec * 0.97, idleSec, idleE, int32(rng.IntN(20) / 19)})
		}
	}
	addJob := func(cluster string, id int64, user, account, part, state string, submit time.Time) {
		jobs = append(jobs, []any{cluster, id, fmt.Sprintf("job%d", id), user, account, part, state, submit})
	}
	users, accounts, parts := []string{"ann", "ben", "cid", "dee"}, []string{"phys", "bio"}, []string{"gpu", "gpua"}
	states := []string{"COMPLETED", "FAILED", "TIMEOUT"}
	for i := range 60 {
		cluster, id := []string{"a", "b"}[i%2], int64(100+i)
		from := dayT0.Add(time.Duration(rng.IntN(38*24*60)) * time.Minute).Add(time.Duration(rng.IntN(60)) * time.Second)
		to := from.Add(time.Duration(10+rng.IntN(5*24*60)) * time.Minute)
		n := 1 + rng.IntN(4)
		for g := range n {
			addRun(cluster, id, fmt.Sprintf("GPU-%s-%d-%d", cluster, i, g), fmt.Sprintf("node%d", i%5), from, to)
		}
		if id != 159 { // job 159 has no job row: its energy is nobody's
			addJob(cluster, id, users[rng.IntN(4)], accounts[rng.IntN(2)], parts[rng.IntN(2)], states[rng.IntN(3)],
				from.Add(-time.Duration(rng.IntN(120))*time.Minute))
		}
	}
	// Job 7 of cluster a runs twice on one GPU on day 4: the id was reused
	// at 09:30 (the day row has two owners), then again on day 6 at midnight.
	d4 := dayT0.Add(4 * 24 * time.Hour)
	addRun("a", 7, "GPU-reused", "node9", d4.Add(time.Hour+20*time.Minute), d4.Add(9*time.Hour+5*time.Minute))
	addRun("a", 7, "GPU-reused", "node9", d4.Add(10*time.Hour+10*time.Minute), d4.Add(30*time.Hour))
	addRun("a", 7, "GPU-reused", "node9", d4.Add(48*time.Hour), d4.Add(52*time.Hour))
	addJob("a", 7, "ann", "phys", "gpu", "COMPLETED", d4.Add(time.Hour))
	addJob("a", 7, "ben", "bio", "gpua", "FAILED", d4.Add(9*time.Hour+30*time.Minute))
	addJob("a", 7, "cid", "bio", "gpu", "COMPLETED", d4.Add(48*time.Hour))
	// Job 8 of cluster b (eve) has a gap of a whole day: days 32-33, then
	// day 35 (the group rows cannot count it across days 34-35).
	d32 := dayT0.Add(32 * 24 * time.Hour)
	addRun("b", 8, "GPU-gap", "node8", d32.Add(10*time.Hour), d32.Add(26*time.Hour))
	addRun("b", 8, "GPU-gap", "node8", d32.Add(77*time.Hour), d32.Add(79*time.Hour))
	addJob("b", 8, "eve", "bio", "gpu", "COMPLETED", d32.Add(9*time.Hour))
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"job_gpu_hour"},
		[]string{"hour", "cluster", "job_id", "gpu_uuid", "host", "t_lo", "t_hi", "gpu_seconds", "energy_j",
			"util_gpu_seconds", "sampled_seconds", "idle_gpu_seconds", "idle_energy_j", "counter_resets"},
		pgx.CopyFromRows(hours)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"job"},
		[]string{"cluster", "job_id", "name", "user_name", "account", "partition", "state", "submit_time"},
		pgx.CopyFromRows(jobs)); err != nil {
		t.Fatal(err)
	}
	days, err := s.CheckDayRollups(ctx, dayT0, dayT0.Add(45*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(days) < 38 {
		t.Fatalf("CheckDayRollups built %d days of a 40-day history", len(days))
	}
	return s, conn, url
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestEnergyReportDailyEqualsHourly (issue 35.1): the energy report that
// reads the daily rollups for whole days (and hourly rows at the edges)
// answers, to the joule, what the report that reads only hourly rows
// answers: every window shape, grouping and filter, a job id reused within
// a day, a job without a row.
func TestEnergyReportDailyEqualsHourly(t *testing.T) {
	s, _ := synthHistory(t)
	ctx := context.Background()
	at := func(d, h, m, sec int) time.Time {
		return dayT0.Add(time.Duration(d)*24*time.Hour + time.Duration(h)*time.Hour +
			time.Duration(m)*time.Minute + time.Duration(sec)*time.Second)
	}
	windows := []struct {
		name     string
		from, to time.Time
	}{
		{"whole month", at(0, 0, 0, 0), at(30, 0, 0, 0)},
		{"partial days at both edges", at(3, 5, 17, 23), at(17, 14, 42, 5)},
		{"inside one day", at(5, 2, 30, 0), at(5, 20, 10, 0)},
		{"across one midnight", at(5, 20, 0, 0), at(6, 4, 0, 0)},
		{"the reused id's day", at(4, 0, 0, 0), at(5, 0, 0, 0)},
		{"a year", at(-200, 0, 0, 0), at(165, 0, 0, 0)},
		{"across a job's day-long gap", at(31, 12, 0, 0), at(37, 0, 0, 0)},
		{"a job's gap at the first whole day", at(33, 12, 0, 0), at(37, 0, 0, 0)},
	}
	bys := [][]db.ReportDim{nil, {db.DimUser}, {db.DimJob}, {db.DimAccount, db.DimPartition}, {db.DimNode},
		{db.DimDay}, {db.DimUser, db.DimDay}}
	type tc struct {
		name string
		q    db.EnergyQuery
	}
	var cases []tc
	for _, w := range windows {
		for _, by := range bys {
			cases = append(cases, tc{fmt.Sprintf("%s by %v", w.name, by),
				db.EnergyQuery{ReportFilter: db.ReportFilter{From: w.from, To: w.to}, By: by}})
		}
	}
	edge := db.ReportFilter{From: at(3, 5, 17, 23), To: at(17, 14, 42, 5)}
	filtered := func(f func(*db.ReportFilter)) db.ReportFilter { r := edge; f(&r); return r }
	for _, c := range []struct {
		name string
		f    db.ReportFilter
	}{
		{"user ann", filtered(func(r *db.ReportFilter) { r.Users = []string{"ann"} })},
		{"account bio, partition gpu", filtered(func(r *db.ReportFilter) { r.Accounts, r.Partitions = []string{"bio"}, []string{"gpu"} })},
		{"job 7", filtered(func(r *db.ReportFilter) { r.Jobs = []int64{7} })},
		{"cluster b", filtered(func(r *db.ReportFilter) { r.Clusters = []string{"b"} })},
		{"state FAILED", filtered(func(r *db.ReportFilter) { r.States = []string{"FAILED"} })},
		{"scope of ben and phys", filtered(func(r *db.ReportFilter) {
			r.Scope = db.Scope{Limited: true, Users: []string{"ben"}, Accounts: []string{"phys"}}
		})},
	} {
		cases = append(cases, tc{c.name + " by job", db.EnergyQuery{ReportFilter: c.f, By: []db.ReportDim{db.DimJob}}},
			tc{c.name + " by user", db.EnergyQuery{ReportFilter: c.f, By: []db.ReportDim{db.DimUser}}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := s.EnergyReportHourlyOnly(ctx, c.q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.EnergyReport(ctx, c.q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatal("the hourly report is empty: the case tests nothing")
			}
			if d := cmp.Diff(want, got, toJoule); d != "" {
				t.Errorf("daily rollups answer otherwise (-hourly +daily):\n%s", d)
			}
		})
	}
}

// TestDayRollupMismatchRebuilt (issue 35.1, bad input): a daily rollup that
// disagrees with its hourly rows (a changed sum, a row missing, a row
// without hours) changes the report, CheckDayRollups names exactly those
// days and rebuilds them, and the report is the hourly one again.
func TestDayRollupMismatchRebuilt(t *testing.T) {
	s, conn := synthHistory(t)
	ctx := context.Background()
	day := func(d int) time.Time { return dayT0.Add(time.Duration(d) * 24 * time.Hour) }
	// By node: a report the day rows answer (not the group rows).
	q := db.EnergyQuery{ReportFilter: db.ReportFilter{From: day(0), To: day(40)}, By: []db.ReportDim{db.DimNode, db.DimDay}}
	for _, stmt := range []struct {
		sql string
		day time.Time
	}{
		{"UPDATE job_host_day SET energy_j = energy_j + 5000 WHERE day = $1", day(2)},
		{"DELETE FROM job_host_day WHERE ctid = (SELECT ctid FROM job_host_day WHERE day = $1 LIMIT 1)", day(9)},
		{"INSERT INTO job_host_day VALUES ($1, 'a', 1, 'node0', $1, $1, 1, 3600, 1e6, 0, 0, 0, 0, 0)", day(20)},
	} {
		if _, err := conn.Exec(ctx, stmt.sql, stmt.day); err != nil {
			t.Fatal(err)
		}
	}
	want, err := s.EnergyReportHourlyOnly(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.EnergyReport(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(want, before, toJoule) {
		t.Error("the report did not change with its daily rollups: it does not read them")
	}
	got, err := s.CheckDayRollups(ctx, day(0), day(40))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Time{day(2), day(9), day(20)}, got); d != "" {
		t.Errorf("days rebuilt (-want +got):\n%s", d)
	}
	after, err := s.EnergyReport(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, after, toJoule); d != "" {
		t.Errorf("after the rebuild (-hourly +daily):\n%s", d)
	}
	if again, err := s.CheckDayRollups(ctx, day(0), day(40)); err != nil || again != nil {
		t.Errorf("second check: %v, %v; want no day", again, err)
	}
}

// TestRefreshMaintainsDayRollups (issue 35.1): refreshing the hourly
// rollups from samples (the collector's and `strata report refresh`'s
// path) rebuilds the days they lie in: the day rows agree with the hours
// and a whole-day report equals the hourly one.
func TestRefreshMaintainsDayRollups(t *testing.T) {
	s, _ := demoStore(t)
	ctx := context.Background()
	d0 := demoT0.Truncate(24 * time.Hour)
	got, err := s.CheckDayRollups(ctx, d0, d0.Add(24*time.Hour))
	if err != nil || got != nil {
		t.Fatalf("CheckDayRollups after a refresh: %v, %v; want no day to rebuild", got, err)
	}
	q := db.EnergyQuery{ReportFilter: db.ReportFilter{From: d0, To: d0.Add(24 * time.Hour)}, By: []db.ReportDim{db.DimJob}}
	want, err := s.EnergyReportHourlyOnly(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.EnergyReport(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("no energy on the demo's day")
	}
	if d := cmp.Diff(want, rows, toJoule); d != "" {
		t.Errorf("(-hourly +daily):\n%s", d)
	}
}

// TestEnergyReportDailyEqualsHourlyScoped (issue 35.1): a per-user role
// (migration 008's views; its daily rows are summed from the hours it may
// see) gets, to the joule, the hourly-only answers too, a reused id's day
// included, and sees only its own jobs.
func TestEnergyReportDailyEqualsHourlyScoped(t *testing.T) {
	_, _, u := synthHistoryURL(t)
	ctx := context.Background()
	day := func(d int, h time.Duration) time.Time { return dayT0.Add(time.Duration(d)*24*time.Hour + h) }
	for _, role := range []struct {
		name, user string
		accounts   []string
	}{{"ann", "ann", nil}, {"bio", "", []string{"bio"}}} {
		s := dbtest.Open(t, scopedRole(t, u, role.name, true, role.user, role.accounts), false)
		for _, q := range []db.EnergyQuery{
			{ReportFilter: db.ReportFilter{From: day(0, 0), To: day(30, 0)}, By: []db.ReportDim{db.DimUser}},
			{ReportFilter: db.ReportFilter{From: day(3, 5*time.Hour+17*time.Minute), To: day(17, 14*time.Hour)}, By: []db.ReportDim{db.DimJob}},
			{ReportFilter: db.ReportFilter{From: day(4, 0), To: day(7, 0)}, By: []db.ReportDim{db.DimJob, db.DimDay}},
		} {
			want, err := s.EnergyReportHourlyOnly(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.EnergyReport(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("%s: the hourly report %v is empty: the case tests nothing", role.name, q.By)
			}
			if d := cmp.Diff(want, got, toJoule); d != "" {
				t.Errorf("%s %v: daily rollups answer otherwise (-hourly +daily):\n%s", role.name, q.By, d)
			}
			for _, r := range got {
				if r.User != "" && r.User != role.user && role.user != "" {
					t.Errorf("%s sees %s's energy: %+v", role.name, r.User, r)
				}
			}
		}
	}
}
