package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
)

// TestEnergyReportGroupsEqualHourly (issue 35.1): the group rollups
// (energy_group_day) answer, to the joule and the job, what the hourly rows
// answer, whenever they say they can: whole and partial days, a job id
// reused within a day, a job without a row, filters and a reader's scope;
// and they refuse (the day rows answer then) a count of jobs across a
// job's day-long gap. The per-job rollups (energy_job_day) likewise for
// reports by job, with job and state filters too.
func TestEnergyReportGroupsEqualHourly(t *testing.T) {
	s, _ := synthHistory(t)
	ctx := context.Background()
	at := func(d, h, m int) time.Time {
		return dayT0.Add(time.Duration(d)*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
	}
	windows := []struct {
		name     string
		from, to time.Time
	}{
		{"whole month", at(0, 0, 0), at(30, 0, 0)},
		{"partial days at both edges", at(3, 5, 17), at(17, 14, 42)},
		{"the reused id's days", at(3, 23, 59), at(7, 0, 1)},
		{"one whole day", at(4, 0, 0), at(5, 0, 0)},
		{"a year", at(-200, 0, 0), at(165, 0, 0)},
		{"across a job's day-long gap", at(31, 12, 0), at(37, 0, 0)},
	}
	bys := [][]db.ReportDim{nil, {db.DimUser}, {db.DimAccount, db.DimPartition}, {db.DimDay},
		{db.DimUser, db.DimDay}, {db.DimPartition, db.DimUser, db.DimAccount}, {db.DimJob}, {db.DimJob, db.DimDay}}
	filters := []struct {
		name string
		f    func(*db.ReportFilter)
	}{
		{"", func(*db.ReportFilter) {}},
		{" user ann", func(r *db.ReportFilter) { r.Users = []string{"ann"} }},
		{" account bio, partition gpu", func(r *db.ReportFilter) { r.Accounts, r.Partitions = []string{"bio"}, []string{"gpu"} }},
		{" cluster b", func(r *db.ReportFilter) { r.Clusters = []string{"b"} }},
		{" scope of ben and phys", func(r *db.ReportFilter) {
			r.Scope = db.Scope{Limited: true, Users: []string{"ben"}, Accounts: []string{"phys"}}
		}},
		{" state FAILED", func(r *db.ReportFilter) { r.States = []string{"FAILED"} }},
		{" jobs 7, 8, 159", func(r *db.ReportFilter) { r.Jobs = []int64{7, 8, 159} }},
	}
	used := map[string]bool{}
	for _, w := range windows {
		for _, by := range bys {
			for _, f := range filters {
				name := fmt.Sprintf("%s by %v%s", w.name, by, f.name)
				q := db.EnergyQuery{ReportFilter: db.ReportFilter{From: w.from, To: w.to}, By: by}
				f.f(&q.ReportFilter)
				t.Run(name, func(t *testing.T) {
					want, err := s.EnergyReportHourlyOnly(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					got, ok, err := s.EnergyReportGroupsOnly(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					used[name] = ok
					if !ok {
						return
					}
					if len(want) == 0 {
						t.Fatal("the hourly report is empty: the case tests nothing")
					}
					if d := cmp.Diff(want, got, toJoule); d != "" {
						t.Errorf("group rollups answer otherwise (-hourly +groups):\n%s", d)
					}
				})
			}
		}
	}
	for name, want := range map[string]bool{
		"whole month by [user]": true,
		"a year by []":          false, // job 8's gap lies inside
		"a year by [day]":       true,  // a day counts its own jobs
		"partial days at both edges by [user] user ann":    true,
		"the reused id's days by [account partition]":      true,
		"across a job's day-long gap by [user]":            false,
		"across a job's day-long gap by [user day]":        true,
		"whole month by [job]":                             true,
		"across a job's day-long gap by [job]":             true, // a job is one row: no count across days
		"the reused id's days by [job day] jobs 7, 8, 159": true,
		"a year by [job] state FAILED":                     true,
		"whole month by [user] state FAILED":               false, // a group has no state
	} {
		if used[name] != want {
			t.Errorf("%s: group rollups used %v, want %v", name, used[name], want)
		}
	}
}

// TestGroupDayMismatchRebuilt (issue 35.1, bad input): a group or per-job
// rollup that disagrees with its hourly rows (a changed sum, a row missing,
// another count of jobs) changes the report by user or by job,
// CheckDayRollups names exactly those days and rebuilds them, and the
// reports are the hourly ones again.
func TestGroupDayMismatchRebuilt(t *testing.T) {
	s, conn := synthHistory(t)
	ctx := context.Background()
	day := func(d int) time.Time { return dayT0.Add(time.Duration(d) * 24 * time.Hour) }
	q := db.EnergyQuery{ReportFilter: db.ReportFilter{From: day(0), To: day(30)}, By: []db.ReportDim{db.DimUser}}
	for _, stmt := range []struct {
		sql string
		day time.Time
	}{
		{"UPDATE energy_group_day SET energy_j = energy_j + 5000 WHERE day = $1", day(2)},
		{"DELETE FROM energy_group_day WHERE ctid = (SELECT ctid FROM energy_group_day WHERE day = $1 LIMIT 1)", day(9)},
		{"UPDATE energy_group_day SET jobs_first = jobs_first + 1 WHERE ctid = (SELECT ctid FROM energy_group_day WHERE day = $1 LIMIT 1)", day(12)},
		{"UPDATE energy_job_day SET energy_j = energy_j + 7000 WHERE ctid = (SELECT ctid FROM energy_job_day WHERE day = $1 LIMIT 1)", day(15)},
	} {
		if tag, err := conn.Exec(ctx, stmt.sql, stmt.day); err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("%s: %v, %d rows", stmt.sql, err, tag.RowsAffected())
		}
	}
	byJob := q
	byJob.By = []db.ReportDim{db.DimJob}
	want, err := s.EnergyReportHourlyOnly(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	wantJobs, err := s.EnergyReportHourlyOnly(ctx, byJob)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    db.EnergyQuery
		want []db.EnergyRow
	}{{"by user", q, want}, {"by job", byJob, wantJobs}} {
		before, err := s.EnergyReport(ctx, c.q)
		if err != nil {
			t.Fatal(err)
		}
		if cmp.Equal(c.want, before, toJoule) {
			t.Errorf("the report %s did not change with its rollups: it does not read them", c.name)
		}
	}
	got, err := s.CheckDayRollups(ctx, day(0), day(40))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Time{day(2), day(9), day(12), day(15)}, got); d != "" {
		t.Errorf("days rebuilt (-want +got):\n%s", d)
	}
	after, err := s.EnergyReport(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, after, toJoule); d != "" {
		t.Errorf("after the rebuild (-hourly +groups):\n%s", d)
	}
	afterJobs, err := s.EnergyReport(ctx, byJob)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantJobs, afterJobs, toJoule); d != "" {
		t.Errorf("by job after the rebuild (-hourly +per-job rollups):\n%s", d)
	}
	if again, err := s.CheckDayRollups(ctx, day(0), day(40)); err != nil || again != nil {
		t.Errorf("second check: %v, %v; want no day", again, err)
	}
}

// TestJobChangeMarksDaysDirty (issue 35.1): a job row that moves to
// another user marks the days of its hours dirty, and the report by user
// reads the day rows over them (the hourly answer, not the stale groups);
// a change of state alone marks nothing; CheckDayRollups rebuilds the dirty
// days, and the group rows answer again.
func TestJobChangeMarksDaysDirty(t *testing.T) {
	s, conn := synthHistory(t)
	ctx := context.Background()
	day := func(d int) time.Time { return dayT0.Add(time.Duration(d) * 24 * time.Hour) }
	dirty := func() []time.Time {
		t.Helper()
		rows, err := conn.Query(ctx, "SELECT day FROM rollup_dirty_day ORDER BY day")
		if err != nil {
			t.Fatal(err)
		}
		var out []time.Time
		for rows.Next() {
			var d time.Time
			if err := rows.Scan(&d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d.UTC())
		}
		return out
	}
	if _, err := conn.Exec(ctx, "UPDATE job SET state = 'FAILED' WHERE cluster = 'b' AND job_id = 8"); err != nil {
		t.Fatal(err)
	}
	if d := dirty(); d != nil {
		t.Errorf("a change of state marked %v dirty", d)
	}
	if _, err := conn.Exec(ctx, "UPDATE job SET user_name = 'zed' WHERE cluster = 'b' AND job_id = 8"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Time{day(32), day(33), day(35)}, dirty()); d != "" {
		t.Errorf("dirty days after job 8 moved to zed (-want +got):\n%s", d)
	}
	q := db.EnergyQuery{ReportFilter: db.ReportFilter{From: day(30), To: day(34)}, By: []db.ReportDim{db.DimUser}}
	want, err := s.EnergyReportHourlyOnly(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if _, used, err := s.EnergyReportGroupsOnly(ctx, q); err != nil || used {
		t.Errorf("group rollups used over dirty days: %v, %v", used, err)
	}
	got, err := s.EnergyReport(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, toJoule); d != "" {
		t.Errorf("over dirty days (-hourly +report):\n%s", d)
	}
	rebuilt, err := s.CheckDayRollups(ctx, day(0), day(40))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Time{day(32), day(33), day(35)}, rebuilt); d != "" {
		t.Errorf("days rebuilt (-want +got):\n%s", d)
	}
	if d := dirty(); d != nil {
		t.Errorf("dirty days left after the rebuild: %v", d)
	}
	groups, used, err := s.EnergyReportGroupsOnly(ctx, q)
	if err != nil || !used {
		t.Fatalf("group rollups after the rebuild: used %v, %v", used, err)
	}
	if d := cmp.Diff(want, groups, toJoule); d != "" {
		t.Errorf("after the rebuild (-hourly +groups):\n%s", d)
	}
}

// TestMigrate011BuildsGroups (issue 35.1): migration 011 builds the group
// rollups of the hours already stored (an upgraded site's history), so
// the check finds nothing to rebuild and the report by user reads them
// and answers what the hours answer.
func TestMigrate011BuildsGroups(t *testing.T) {
	ctx := context.Background()
	s, conn := atVersion(t, 10)
	d0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	var hours [][]any
	for i := range 6 { // job 1: days 0-2, one GPU; job 2: day 1 only, two GPUs
		for h := d0.Add(time.Duration(i*9) * time.Hour); h.Before(d0.Add(time.Duration(i*9+9) * time.Hour)); h = h.Add(time.Hour) {
			hours = append(hours, []any{h, "c", int64(1), "GPU-1", "n1", h, h.Add(time.Hour), 3600.0, 1e6, 3e5, 3600.0, 0.0, 0.0, int32(0)})
		}
	}
	for g := range 2 {
		for h := d0.Add(26 * time.Hour); h.Before(d0.Add(30 * time.Hour)); h = h.Add(time.Hour) {
			hours = append(hours, []any{h, "c", int64(2), fmt.Sprintf("GPU-2-%d", g), "n2", h, h.Add(45 * time.Minute),
				2700.0, 5e5, 1e5, 2700.0, 100.0, 2e4, int32(0)})
		}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"job_gpu_hour"},
		[]string{"hour", "cluster", "job_id", "gpu_uuid", "host", "t_lo", "t_hi", "gpu_seconds", "energy_j",
			"util_gpu_seconds", "sampled_seconds", "idle_gpu_seconds", "idle_energy_j", "counter_resets"},
		pgx.CopyFromRows(hours)); err != nil {
		t.Fatal(err)
	}
	for _, j := range [][]any{{int64(1), "ann", "phys"}, {int64(2), "ben", "bio"}} {
		if _, err := conn.Exec(ctx, `INSERT INTO job (cluster, job_id, name, user_name, account, partition, state, submit_time)
			VALUES ('c', $1, 'x', $2, $3, 'gpu', 'COMPLETED', $4)`, j[0], j[1], j[2], d0); err != nil {
			t.Fatal(err)
		}
	}
	// The day rows as migration 009 or a refresh would have left them.
	if _, err := conn.Exec(ctx, `INSERT INTO job_host_day
		SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', cluster, job_id, host, min(t_hi), max(t_hi),
		       count(*), sum(gpu_seconds), sum(energy_j), sum(util_gpu_seconds), sum(sampled_seconds),
		       sum(idle_gpu_seconds), sum(idle_energy_j), sum(counter_resets)
		FROM job_gpu_hour GROUP BY 1, 2, 3, 4`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MigrateTo(ctx, 11); err != nil {
		t.Fatal(err)
	}
	if days, err := s.CheckDayRollups(ctx, d0, d0.Add(4*24*time.Hour)); err != nil || days != nil {
		t.Fatalf("CheckDayRollups after migration 011: %v, %v; want nothing to rebuild", days, err)
	}
	q := db.EnergyQuery{ReportFilter: db.ReportFilter{From: d0, To: d0.Add(3 * 24 * time.Hour)}, By: []db.ReportDim{db.DimUser}}
	want, err := s.EnergyReportHourlyOnly(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	got, used, err := s.EnergyReportGroupsOnly(ctx, q)
	if err != nil || !used {
		t.Fatalf("group rollups after migration 011: used %v, %v", used, err)
	}
	if len(want) != 2 || want[0].Jobs != 1 {
		t.Fatalf("hourly answer %+v: want ann's and ben's one job each", want)
	}
	if d := cmp.Diff(want, got, toJoule); d != "" {
		t.Errorf("(-hourly +groups):\n%s", d)
	}
}
