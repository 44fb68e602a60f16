package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/decide"
)

// TestRestoreTrail: strata restore reads, per job, the request Strata first
// recorded and its applied writes in order; a write that failed, restore's
// own rows, another cluster's and an older job of the same ID are not in
// it (issue 30.4).
func TestRestoreTrail(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs Postgres (make test)")
	}
	st := dbtest.New(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	save := func(cluster, policy string, minute int, o decide.Outcome, body string, gpus int) {
		t.Helper()
		c := testCycle(cluster, at.Add(time.Duration(minute)*time.Minute), map[int64]decide.Outcome{7: o})
		c.Policy, c.Decisions[0].Body, c.Decisions[0].RequestedGPUs = policy, body, gpus
		if err := st.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	save("c1", "smd", -90, decide.Applied, `{"priority":{"set":true,"number":1}}`, 8) // an older job 7
	save("c1", "smd", 0, decide.Kept, "", 4)                                          // first record: 4 GPUs
	save("c1", "smd", 1, decide.Applied, `{"tres_per_node":"gres/gpu:2"}`, 4)
	save("c1", "smd", 2, decide.Failed, `{"tres_per_node":"gres/gpu:1"}`, 2)
	save("c1", "smd", 3, decide.Applied, `{"priority":{"set":true,"number":88888}}`, 2)
	save("c2", "smd", 1, decide.Applied, `{"tres_per_node":"gres/gpu:3"}`, 4)
	jobs := map[int64]time.Time{7: at.Add(-time.Minute), 8: at}
	check := func(what string, applied ...string) {
		t.Helper()
		got, err := st.RestoreTrail(ctx, "c1", jobs)
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]db.JobTrail{7: {FirstGPUs: 4, FirstPartition: "gpu", FirstPriority: 1, Applied: applied}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("trail %s (-want +got):\n%s", what, diff)
		}
	}
	check("before a restore", `{"tres_per_node":"gres/gpu:2"}`, `{"priority":{"set":true,"number":88888}}`)
	save("c1", db.RestorePolicy, 4, decide.Applied, `{"priority":{"infinite":true}}`, 2)
	save("c1", "smd", 5, decide.Kept, "", 4)
	check("after a restore: its writes are undone")
	save("c1", "smd", 6, decide.Applied, `{"priority":{"set":true,"number":99999}}`, 4)
	check("with a write since the restore", `{"priority":{"set":true,"number":99999}}`)
}

// TestLoweredLimit: explain's lowered limit is the latest applied write
// that lowered it, until strata restore wrote the job (issue 30.4).
func TestLoweredLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs Postgres (make test)")
	}
	st := dbtest.New(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	save := func(policy string, minute int, limit time.Duration, detail string) {
		t.Helper()
		c := testCycle("c1", at.Add(time.Duration(minute)*time.Minute), map[int64]decide.Outcome{7: decide.Applied})
		c.Policy, c.Decisions[0].TimeLimit, c.Decisions[0].Detail = policy, limit, detail
		if err := st.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.LoweredLimit(ctx, 7, "c1"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("no write yet: %v, want ErrNotFound", err)
	}
	save("smd", 0, 40*time.Minute, "time limit lowered from 02:00:00 to 00:40:00")
	save("smd", 1, 30*time.Minute, "time limit lowered from 02:00:00 to 00:30:00")
	save("smd", 2, 0, "")
	got, err := st.LoweredLimit(ctx, 7, "c1")
	if err != nil || got.Limit != 30*time.Minute || got.Detail != "time limit lowered from 02:00:00 to 00:30:00" {
		t.Errorf("lowered limit %+v, %v; want the 30-min write", got, err)
	}
	save(db.RestorePolicy, 3, 0, "")
	if got, err := st.LoweredLimit(ctx, 7, "c1"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("after restore: %+v, %v; want ErrNotFound", got, err)
	}
}
