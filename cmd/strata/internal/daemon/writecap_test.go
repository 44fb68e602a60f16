package daemon

import (
	"testing"
	"time"

	"github.com/strata-hpc/strata/decide"
)

// TestDaemonStopsWritingToAJobWhoseWritesFail (issue 23.6): a slurmrestd
// that accepts every write and stores nothing (each read-back differs) got
// a POST per job every cycle, without end. The failed writes are counted
// from the audit trail; after --max-failed-writes (3) Strata writes to the
// job no more and says so (writes_failing).
func TestDaemonStopsWritingToAJobWhoseWritesFail(t *testing.T) {
	bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
	bed.cl.blackhole = true
	o := testOptions()
	o.Enforce, o.Cycles = true, 6
	runDaemon(t, newTestDaemon(t, bed, o), 20*time.Second)
	cs := bed.pg.Cycles()
	if len(cs) != 6 {
		t.Fatalf("%d cycles recorded, want 6", len(cs))
	}
	failed, held := 0, false
	for _, c := range cs {
		for _, d := range c.Decisions {
			if d.JobID != 10 {
				continue
			}
			failed += b2i(d.Outcome == decide.Failed)
			held = held || d.Outcome == decide.Held && d.Guard == decide.WritesFailing
		}
	}
	if failed != o.Guard.MaxFailedWrites {
		t.Errorf("job 10: %d failed writes over 6 cycles, want %d (the cap)", failed, o.Guard.MaxFailedWrites)
	}
	if !held {
		t.Errorf("job 10 never held by %s after its writes failed", decide.WritesFailing)
	}
	if bed.cl.posts > 3*o.Guard.MaxFailedWrites { // jobs 10 and 13 at most, 3 each
		t.Errorf("%d POSTs to a slurmrestd that stores nothing, want at most %d", bed.cl.posts, 3*o.Guard.MaxFailedWrites)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
