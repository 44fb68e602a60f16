package db_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
)

// --state keeps the jobs whose final state is listed (as sacct --state),
// in the energy and the usage report; no states keep every job.
func TestReportsFilterByState(t *testing.T) {
	s, _, u := demoDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The demo's jobs all completed; 102 ran out of time, 104 failed.
	if _, err := conn.Exec(ctx, `UPDATE job SET state = CASE job_id WHEN 102 THEN 'TIMEOUT' WHEN 104 THEN 'FAILED' END
		WHERE job_id IN (102, 104)`); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		states []string
		want   []int64
	}{
		{"all", nil, []int64{101, 102, 103, 104}},
		{"completed", []string{"COMPLETED"}, []int64{101, 103}},
		{"timeout,failed", []string{"TIMEOUT", "FAILED"}, []int64{102, 104}},
		{"none match", []string{"CANCELLED"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := window(0, time.Hour)
			f.States = tt.states
			rows, err := s.EnergyReport(ctx, db.EnergyQuery{ReportFilter: f, By: []db.ReportDim{db.DimJob}})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range rows {
				got = append(got, r.Job)
			}
			sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("energy report jobs (-want +got):\n%s", d)
			}
			usage, err := s.UsageReport(ctx, db.UsageQuery{ReportFilter: f})
			if err != nil {
				t.Fatal(err)
			}
			var jobs, completed int
			for _, r := range usage {
				jobs += r.Jobs
				completed += r.Completed
			}
			if jobs != len(tt.want) || completed != len(tt.want) {
				t.Errorf("usage report: %d jobs, %d completed; want %d of each", jobs, completed, len(tt.want))
			}
		})
	}
}
