package dcgm

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The sweep clock steps back (issue 23.3): no assignment closes before it
// opened (Postgres refuses it: gpu_assignment_check), and a mapping seen at
// a time already passed changes nothing, so no holding is counted twice.
func TestTrackerClockStepsBack(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	a1 := JobGPU{Job: 101, Host: "gpu-a", UUID: "A0"}
	b2 := JobGPU{Job: 102, Host: "gpu-a", UUID: "A2"}
	type step struct {
		now          time.Time
		cur          []JobGPU
		opened, shut []Assignment
		latestAfter  time.Time
	}
	tests := []struct {
		name   string
		resume []Assignment
		steps  []step
	}{
		{"one sweep stamped 160 s early", nil, []step{
			{at(190), []JobGPU{a1, b2}, []Assignment{{Job: 101, Host: "gpu-a", UUID: "A0", From: at(190)},
				{Job: 102, Host: "gpu-a", UUID: "A2", From: at(190)}}, nil, at(190)},
			// the stepped sweep: its mapping (102 not started yet) is not placed
			{at(40), []JobGPU{a1}, nil, nil, at(190)},
			{at(210), []JobGPU{a1, b2}, nil, nil, at(210)},
			{at(300), []JobGPU{a1}, nil, []Assignment{{Job: 102, Host: "gpu-a", UUID: "A2", From: at(190), To: at(300)}}, at(300)},
		}},
		{"resumed after a restart whose clock is behind", []Assignment{{Job: 102, Host: "gpu-a", UUID: "A2", From: at(60)}}, []step{
			// a restarted replay begins before the resumed holding began
			{at(0), nil, nil, nil, at(60)},
			{at(50), []JobGPU{a1}, nil, nil, at(60)},
			{at(60), []JobGPU{a1, b2}, []Assignment{{Job: 101, Host: "gpu-a", UUID: "A0", From: at(60)}}, nil, at(60)},
			{at(70), nil, nil, []Assignment{{Job: 101, Host: "gpu-a", UUID: "A0", From: at(60), To: at(70)},
				{Job: 102, Host: "gpu-a", UUID: "A2", From: at(60), To: at(70)}}, at(70)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker(tt.resume)
			for i, s := range tt.steps {
				opened, shut := tr.Observe(s.now, s.cur)
				if d := cmp.Diff(s.opened, opened); d != "" {
					t.Errorf("step %d opened (-want +got):\n%s", i, d)
				}
				if d := cmp.Diff(s.shut, shut); d != "" {
					t.Errorf("step %d closed (-want +got):\n%s", i, d)
				}
				for _, a := range shut {
					if a.To.Before(a.From) {
						t.Errorf("step %d: %+v closes before it opened", i, a)
					}
				}
				if !tr.Latest().Equal(s.latestAfter) {
					t.Errorf("step %d: Latest %v, want %v", i, tr.Latest(), s.latestAfter)
				}
			}
		})
	}
}
