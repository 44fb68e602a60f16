package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
)

// TestEnergyReportGroupsEqualHourly (issue 35.1): the group rollups
// (energy_group_day) answer, to the joule and the job, what the hourly rows
// answer, whenever they say they can: whole and partial days, a job id
// reused within a day, a job without a row, filters and a reader's scope;
// and they refuse (the day rows answer then) a count of jobs across a
// job's day-long gap.
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
		{db.DimUser, db.DimDay}, {db.DimPartition, db.DimUser, db.DimAccount}}
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
		"partial days at both edges by [user] user ann": true,
		"the reused id's days by [account partition]":   true,
		"across a job's day-long gap by [user]":         false,
		"across a job's day-long gap by [user day]":     true,
	} {
		if used[name] != want {
			t.Errorf("%s: group rollups used %v, want %v", name, used[name], want)
		}
	}
}

// TestGroupDayMismatchRebuilt (issue 35.1, bad input): a group rollup that
// disagrees with its hourly rows (a changed sum, a row missing, another
// count of jobs) changes the report by user, CheckDayRollups names exactly
// those days and rebuilds them, and the report is the hourly one again.
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
	} {
		if tag, err := conn.Exec(ctx, stmt.sql, stmt.day); err != nil || tag.RowsAffected() == 0 {
			t.Fatalf("%s: %v, %d rows", stmt.sql, err, tag.RowsAffected())
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
		t.Error("the report did not change with its group rollups: it does not read them")
	}
	got, err := s.CheckDayRollups(ctx, day(0), day(40))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Time{day(2), day(9), day(12)}, got); d != "" {
		t.Errorf("days rebuilt (-want +got):\n%s", d)
	}
	after, err := s.EnergyReport(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, after, toJoule); d != "" {
		t.Errorf("after the rebuild (-hourly +groups):\n%s", d)
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
