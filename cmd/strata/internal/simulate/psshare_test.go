package simulate

import (
	"testing"

	"github.com/strata-hpc/strata/sim"
)

// --ps-share and --ps-choice: checked, Slurm mode only, the choice handed
// to the policies (issue 24.1).
func TestPSOptions(t *testing.T) {
	tests := []struct {
		name      string
		ps        PSOptions
		scheduler string
		wantErr   bool
		want      string // Planner.PSChoice; "-" = no planner options
	}{
		{"off", PSOptions{}, sim.SchedulerSlurm, false, "-"},
		{"auto", PSOptions{Share: 0.5, Choice: "auto"}, sim.SchedulerSlurm, false, "-"},
		{"P = W", PSOptions{Share: 0.5, Choice: "w"}, sim.SchedulerSlurm, false, "w"},
		{"P = 1", PSOptions{Share: 0.5, Choice: "1"}, sim.SchedulerSlurm, false, "1"},
		{"ideal mode refused", PSOptions{Share: 0.5}, sim.SchedulerIdeal, true, ""},
		{"share above 1", PSOptions{Share: 1.5}, sim.SchedulerSlurm, true, ""},
		{"unknown choice", PSOptions{Share: 0.5, Choice: "2"}, sim.SchedulerSlurm, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := sim.Config{Scheduler: tt.scheduler}
			err := tt.ps.apply(&cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			got := "-"
			if cfg.Planner != nil {
				got = cfg.Planner.PSChoice
			}
			if got != tt.want {
				t.Errorf("PSChoice %q, want %q", got, tt.want)
			}
		})
	}
}
