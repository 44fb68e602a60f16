package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
)

// countingLock counts its checks; err is what they return.
type countingLock struct {
	checks int
	err    error
}

func (l *countingLock) Check(context.Context) error   { l.checks++; return l.err }
func (l *countingLock) Release(context.Context) error { return nil }

// A leader waiting between cycles keeps its lock's lease (issue 34.2: the
// lock's session ends after db.LockLease idle, shorter than the default
// one-minute interval): it checks the lock while it waits, and a lock that
// fails the check is lost at once, not at the next cycle.
func TestWaitKeepsTheLease(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantHeld bool
	}{
		{"held", nil, true},
		{"lost", db.ErrLockLost, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bed := testBed{cl: newFakeCluster(testSnapshot()), pg: newFakePostgres(), m: NewMetrics()}
			d := newTestDaemon(t, bed, testOptions())
			lock := &countingLock{err: tt.err}
			d.lock, d.heartbeatPeriod = lock, 10*time.Millisecond
			if !d.wait(context.Background(), 300*time.Millisecond) {
				t.Fatal("wait ended early")
			}
			got := struct {
				Checked bool
				Held    bool
			}{lock.checks > 0, d.lock != nil}
			want := struct {
				Checked bool
				Held    bool
			}{true, tt.wantHeld}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if !tt.wantHeld && lock.checks != 1 {
				t.Errorf("%d checks of a lost lock, want 1", lock.checks)
			}
		})
	}
}
