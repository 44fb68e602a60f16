package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

func testCycle(cluster string, at time.Time, outcomes map[int64]decide.Outcome) *db.Cycle {
	c := &db.Cycle{Cluster: cluster, SnapshotID: cluster + "-snap", Policy: "smd", Enforce: true,
		StartedAt: at, Duration: 42 * time.Millisecond,
		Inputs: db.CycleInputs{PendingJobs: 3, RunningJobs: 1, InScope: 2, Nodes: 2, UsableNodes: 2, TotalGPUs: 8, FreeGPUs: 4}}
	for _, id := range []int64{7, 8} {
		if _, ok := outcomes[id]; !ok {
			continue
		}
		c.Decisions = append(c.Decisions, db.CycleDecision{Resized: true,
			Decision: planner.Decision{JobID: id, Action: planner.ActionUpdate, Start: true, Workers: 4, PS: 1,
				GPUsPerNode: 4, NodeCount: 1, Rank: int(id - 6), Priority: 100010,
				PredictedStart: at.Add(time.Minute), PredictedEnd: at.Add(time.Hour),
				Reasons: []planner.Reason{planner.ReasonAdmitted, planner.ReasonAllocationChanged}, Detail: "d"},
			User: "alice", Partition: "gpu", JobName: "resnet", State: planner.JobPending, RequestedGPUs: 2,
			CurPriority: 1, Outcome: outcomes[id], Body: `{"priority":100010,"tres_per_node":"gres/gpu:4"}`, OutcomeDetail: "ok",
			Alternatives: []db.Alternative{{Policy: "fifo", Action: planner.ActionUpdate, Workers: 2, Rank: 3,
				Reasons: []planner.Reason{planner.ReasonWaitResources}}},
		})
	}
	return c
}

func TestSaveCycleRoundTripAndCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel() // a database of its own (dbtest)
	st := dbtest.New(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	if _, err := st.LatestCycle(ctx, ""); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("LatestCycle on an empty trail: %v, want ErrNotFound", err)
	}
	c1 := testCycle("c1", at, map[int64]decide.Outcome{7: decide.Applied, 8: decide.DryRun})
	id, err := st.ReserveCycleID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c1.ID = id
	if err := st.SaveCycle(ctx, c1); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveCycle(ctx, c1); err != nil { // a retried save is harmless
		t.Fatalf("second save of the same cycle: %v", err)
	}
	c2 := testCycle("c1", at.Add(time.Minute), map[int64]decide.Outcome{7: decide.Applied})
	c2.Inputs.Settings = map[string]string{"planner.energy-weight": "0.5"}
	if err := st.SaveCycle(ctx, c2); err != nil || c2.ID <= c1.ID {
		t.Fatalf("save without ID: id %d, err %v", c2.ID, err)
	}
	other := testCycle("c2", at, map[int64]decide.Outcome{8: decide.Applied})
	if err := st.SaveCycle(ctx, other); err != nil {
		t.Fatal(err)
	}

	counts, err := st.RewriteCounts(ctx, "c1", map[int64]time.Time{7: at.Add(-time.Hour), 8: at, 9: at})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int64]int{7: 2}, counts); diff != "" {
		t.Errorf("rewrite counts (-want +got):\n%s", diff)
	}
	// Job 7 resubmitted under the same ID after both cycles: a fresh count.
	counts, err = st.RewriteCounts(ctx, "c1", map[int64]time.Time{7: at.Add(2 * time.Minute)})
	if err != nil || len(counts) != 0 {
		t.Errorf("counts of a reused job ID: %v, %v; want none", counts, err)
	}

	got, err := st.DecisionsForJob(ctx, 7, "c1", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].CycleID != c2.ID || got[1].CycleID != c1.ID {
		t.Fatalf("decisions for job 7: %d rows, want the two cycles newest first: %+v", len(got), got)
	}
	want := db.StoredDecision{CycleDecision: c2.Decisions[0], CycleID: c2.ID, Cluster: "c1", Policy: "smd",
		Enforce: true, SnapshotID: "c1-snap", DecidedAt: c2.StartedAt, Settings: c2.Inputs.Settings}
	if diff := cmp.Diff(want, got[0]); diff != "" {
		t.Errorf("stored decision round trip (-want +got):\n%s", diff)
	}
	last, err := st.LatestCycle(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if last.ID != c2.ID || !cmp.Equal(last.Inputs, c2.Inputs) || last.Duration != c2.Duration {
		t.Errorf("latest cycle %+v, want cycle %d with its inputs", last, c2.ID)
	}
	n, err := st.PruneCycles(ctx, at.Add(30*time.Second))
	if err != nil || n != 2 {
		t.Fatalf("prune: %d cycles, %v; want the 2 older ones", n, err)
	}
	if got, _ := st.DecisionsForJob(ctx, 7, "", 10); len(got) != 1 {
		t.Errorf("after prune %d decisions for job 7, want 1 (cascade)", len(got))
	}
}

// The per-job cap counts resizes (the stored verdict, issue 33): a write
// of the priority or the begin time alone is not counted, whatever its
// body's text.
func TestRewriteCountsCountResizesOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: needs Postgres (make test)")
	}
	t.Parallel() // a database of its own (dbtest)
	st := dbtest.New(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for k, body := range []string{`{"priority":100010,"tres_per_node":"gres/gpu:4"}`, `{"priority":100020}`,
		`{"begin_time":{"number":1795525434,"set":true}}`, `{"tres_per_job":"gres/gpu:2"}`} {
		c := testCycle("resize", at.Add(time.Duration(k)*time.Minute), map[int64]decide.Outcome{7: decide.Applied})
		c.Decisions[0].Body = body
		c.Decisions[0].Resized = strings.Contains(body, "tres_per_")
		if err := st.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	counts, err := st.RewriteCounts(ctx, "resize", map[int64]time.Time{7: at.Add(-time.Hour)})
	if err != nil || counts[7] != 2 {
		t.Errorf("resizes of job 7: %v, %v; want 2 (two GPU-request writes of four)", counts, err)
	}
}
