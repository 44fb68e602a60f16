package db_test

import (
	"context"
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
	save("c1", "smd", 0, decide.Kept, "", 4)                                         // first record: 4 GPUs
	save("c1", "smd", 1, decide.Applied, `{"tres_per_node":"gres/gpu:2"}`, 4)
	save("c1", "smd", 2, decide.Failed, `{"tres_per_node":"gres/gpu:1"}`, 2)
	save("c1", "smd", 3, decide.Applied, `{"priority":{"set":true,"number":88888}}`, 2)
	save("c1", db.RestorePolicy, 4, decide.Applied, `{"priority":{"infinite":true}}`, 2)
	save("c2", "smd", 1, decide.Applied, `{"tres_per_node":"gres/gpu:3"}`, 4)
	got, err := st.RestoreTrail(ctx, "c1", map[int64]time.Time{7: at.Add(-time.Minute), 8: at})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]db.JobTrail{7: {FirstGPUs: 4, FirstPartition: "gpu", FirstPriority: 1,
		Applied: []string{`{"tres_per_node":"gres/gpu:2"}`, `{"priority":{"set":true,"number":88888}}`}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("trail (-want +got):\n%s", diff)
	}
}
