package db_test

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

// scopedRole creates a login role with the grants docs/operations.md gives
// a per-user role (schema strata_user only, its search path first), maps
// it to slurmUser and accounts unless mapped is false, and returns the
// database URL that logs in as it. The role is dropped when the test ends.
func scopedRole(t *testing.T, dbURL, name string, mapped bool, slurmUser string, accounts []string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	role := name + "_" + time.Now().Format("150405.000000")[7:] // unique on the shared server
	id := pgx.Identifier{role}.Sanitize()
	stmts := []string{"CREATE ROLE " + id + " LOGIN",
		"GRANT USAGE ON SCHEMA strata_user TO " + id,
		"GRANT SELECT ON ALL TABLES IN SCHEMA strata_user TO " + id,
		"GRANT SELECT ON strata_schema_version TO " + id,
		"ALTER ROLE " + id + " IN DATABASE " + pgx.Identifier{conn.Config().Database}.Sanitize() + " SET search_path = strata_user, public"}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dbURL)
		if err != nil {
			t.Logf("drop role %s: %v", role, err)
			return
		}
		defer c.Close(context.Background())
		for _, s := range []string{"DROP OWNED BY " + id, "ALTER ROLE " + id + " RESET ALL", "DROP ROLE " + id} {
			if _, err := c.Exec(context.Background(), s); err != nil {
				t.Logf("%s: %v", s, err)
			}
		}
	})
	if accounts == nil {
		accounts = []string{}
	}
	if mapped {
		if _, err := conn.Exec(ctx, "INSERT INTO strata_user_scope VALUES ($1, $2, $3)", role, slurmUser, accounts); err != nil {
			t.Fatal(err)
		}
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

// A Postgres role mapped to alice reads only alice's jobs and their rows
// through SQL (migration 008's views), and cannot read the tables; the
// reports and the job page run unchanged as that role and hold alice's
// jobs only. A coordinator's role sees its account; an unmapped role
// nothing.
func TestUserScopeViews(t *testing.T) {
	s, _, u := demoDatabase(t)
	ctx := context.Background()
	dec := func(job int64, user string) db.CycleDecision {
		return db.CycleDecision{Decision: planner.Decision{JobID: job, Action: planner.ActionKeep}, User: user, Outcome: decide.Kept}
	}
	if err := s.SaveCycle(ctx, &db.Cycle{Cluster: "c", SnapshotID: "s", Policy: "smd", StartedAt: demoT0,
		Decisions: []db.CycleDecision{dec(101, "alice"), dec(102, "bob"), dec(104, "carol")}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		mapped    bool
		user      string
		accounts  []string
		jobs      []int64 // job, job_gpu_hour, gpu_assignment, energy_hour
		decisions []int64
	}{
		{"alice", true, "alice", nil, []int64{101, 103}, []int64{101}},
		{"nlp coordinator", true, "", []string{"nlp"}, []int64{102, 103}, []int64{102}},
		{"unmapped", false, "", nil, []int64{}, []int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ru := scopedRole(t, u, "strata_t_user", tt.mapped, tt.user, tt.accounts)
			conn, err := pgx.Connect(ctx, ru)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			ids := func(q string) []int64 {
				rows, err := conn.Query(ctx, q)
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
				return out
			}
			for _, table := range []string{"job", "job_gpu_hour", "gpu_assignment", "energy_hour"} {
				if d := cmp.Diff(tt.jobs, ids("SELECT DISTINCT job_id FROM "+table)); d != "" {
					t.Errorf("%s: job ids (-want +got):\n%s", table, d)
				}
			}
			if d := cmp.Diff(tt.decisions, ids("SELECT DISTINCT job_id FROM plan_decision")); d != "" {
				t.Errorf("plan_decision: job ids (-want +got):\n%s", d)
			}
			// Samples: only those of GPUs while the role's jobs held them.
			outside := ids(`SELECT count(*) FROM gpu_sample s WHERE NOT EXISTS (SELECT 1 FROM gpu_assignment a
				WHERE a.gpu_uuid = s.gpu_uuid AND s.ts > a.t_from AND (a.t_to IS NULL OR s.ts <= a.t_to))`)
			inside := ids("SELECT count(*) FROM gpu_sample")
			if outside[0] != 0 || (len(tt.jobs) > 0) != (inside[0] > 0) {
				t.Errorf("gpu_sample: %d samples outside the role's assignments, %d in all", outside[0], inside[0])
			}
			if _, err := conn.Exec(ctx, "SELECT count(*) FROM public.job"); err == nil {
				t.Errorf("the role reads public.job")
			}

			st, err := db.Open(ctx, db.Config{URL: ru})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.CheckSchema(ctx); err != nil {
				t.Errorf("check schema as the role: %v", err)
			}
			rows, err := st.EnergyReport(ctx, db.EnergyQuery{ReportFilter: window(0, time.Hour), By: []db.ReportDim{db.DimJob}})
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{}
			for _, r := range rows {
				got = append(got, r.Job)
			}
			if d := cmp.Diff(tt.jobs, got); d != "" {
				t.Errorf("energy report as the role: jobs (-want +got):\n%s", d)
			}
			for _, job := range []int64{101, 102, 103, 104} {
				_, err := st.JobReport(ctx, job, db.Scope{})
				visible := false
				for _, j := range tt.jobs {
					visible = visible || j == job
				}
				if visible != (err == nil) || (!visible && !errors.Is(err, db.ErrNotFound)) {
					t.Errorf("job %d as the role: err = %v, visible %v", job, err, visible)
				}
			}
		})
	}
}
