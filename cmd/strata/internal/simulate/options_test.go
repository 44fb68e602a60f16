package simulate

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/sim"
)

// valid are the flag defaults of `strata simulate` with the three required
// flags set.
func valid() Options {
	return Options{Trace: "t.csv", Cluster: "4x4:t4", Policy: "fifo", Scheduler: sim.SchedulerSlurm,
		SlurmBackfill: "easy", TimeLimitFactor: 2, PriorityWeightAge: 1000, PriorityWeightJobSize: 1000,
		SchedInterval: time.Minute, BFInterval: 30 * time.Second, BatchSchedDelay: 3 * time.Second,
		Interval: time.Minute, RestartPenalty: 30 * time.Second, GPURange: 1, TiresiasThreshold: 16}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Options)
		wantErr string
	}{
		{"defaults", func(*Options) {}, ""},
		{"no trace", func(o *Options) { o.Trace = "" }, "simulate needs --trace FILE"},
		{"bad cluster", func(o *Options) { o.Cluster = "4by4" }, "want NODESxGPUS"},
		{"bad burst buffer", func(o *Options) { o.BurstBuffer = "lots" }, "--burst-buffer"},
		{"zero interval", func(o *Options) { o.Interval = 0 }, "--interval must be > 0"},
		{"narrow range", func(o *Options) { o.GPURange = 0.5 }, "--gpu-range ≥ 1"},
		{"bad scheduler", func(o *Options) { o.Scheduler = "magic" }, `--scheduler "magic"`},
		{"bad backfill", func(o *Options) { o.SlurmBackfill = "nope" }, `--slurm-backfill "nope"`},
		{"short time limits", func(o *Options) { o.TimeLimitFactor = 0.5 }, "--time-limit-factor must be ≥ 1"},
		{"bad power", func(o *Options) { o.Power = []string{"t4"} }, "t4"},
		{"missing scaling file", func(o *Options) { o.Scaling = "/nonexistent.csv" }, "open scaling curves"},
		{"unknown policy", func(o *Options) { o.Policy = "fifo,nope" }, `--policy "nope"`},
		{"negative users", func(o *Options) { o.Users = -1 }, "--users must be ≥ 0"},
		{"dishonest without factor", func(o *Options) { o.Dishonest = "0.1" }, "--dishonest"},
		{"dishonest factor below 1", func(o *Options) { o.Dishonest = "0.1:0.5" }, "--dishonest"},
		{"unknown knowledge", func(o *Options) { o.Knowledge = "psychic" }, `--knowledge "psychic"`},
		{"margin below 1", func(o *Options) { o.ClaimMargin = 0.5 }, "--claim-margin"},
		{"accountability", func(o *Options) {
			o.Users, o.Dishonest, o.Knowledge, o.ClaimMargin = 20, "0.1:100", sim.KnowledgeRealistic, 2
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := valid()
			tt.edit(&o)
			_, _, err := o.Config()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Config: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Config: err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestConfigCarriesSettings(t *testing.T) {
	o := valid()
	o.Power, o.BurstBuffer, o.SlurmBackfill = []string{"t4=10:70"}, "1T", "conservative"
	o.Planner = &planner.Options{EnergyWeight: 0.5}
	cfg, policies, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	got := []any{cfg.Cluster.BurstBufferBytes > 0, cfg.Power.Overrides["t4"], cfg.Slurm.Reservations,
		cfg.TiresiasThreshold, cfg.Planner.EnergyWeight, policies}
	want := []any{true, sim.GPUPower{IdleW: 10, BusyW: 70, Source: "configured"}, 0, 16 * 3600.0, 0.5, []string{"fifo"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("configuration (-want +got):\n%s", diff)
	}
}

// TestClaimMarginBindsOverSiteSettings: --claim-margin turns binding on at
// its margin and keeps the rest of the site's [planner]; --no-trust
// reaches the simulator.
func TestClaimMarginBindsOverSiteSettings(t *testing.T) {
	o := valid()
	o.Planner, o.ClaimMargin, o.NoTrust = &planner.Options{EnergyWeight: 0.5}, 3, true
	cfg, _, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	got := []any{cfg.Planner.BindClaims, cfg.Planner.ClaimMargin, cfg.Planner.EnergyWeight, cfg.NoTrust, o.Planner.BindClaims}
	if d := cmp.Diff([]any{true, 3.0, 0.5, true, false}, got); d != "" {
		t.Errorf("bind, margin, site weight, no trust, site options untouched (-want +got):\n%s", d)
	}
}

// TestUsersAppliedToTrace: --users, --knowledge realistic and --dishonest
// reach the trace in that order (the users first, so that the liars are
// drawn among them).
func TestUsersAppliedToTrace(t *testing.T) {
	tr, err := sim.ReadTrace(strings.NewReader("job_id,submit_time,duration_s,gpus\na,0,60,1\nb,1,60,1\nc,2,60,1\nd,3,60,1\n"), sim.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := valid()
	o.Users, o.Dishonest, o.Knowledge, o.KnowledgeSeed = 2, "0.5:10", sim.KnowledgeRealistic, 1
	got := o.users(tr)
	var users []string
	liars := map[string]bool{}
	for _, j := range got.Jobs {
		users = append(users, j.User)
		if j.Dishonest {
			liars[j.User] = true
		}
		if j.TimeLimit < j.Duration {
			t.Errorf("job %s: limit %v below its run time (realistic knowledge not applied)", j.ID, j.TimeLimit)
		}
	}
	if d := cmp.Diff([]string{"u1", "u2", "u1", "u2"}, users); d != "" {
		t.Errorf("users (-want +got):\n%s", d)
	}
	if len(liars) != 1 {
		t.Errorf("liars %v: want one of the two users", liars)
	}
}

func TestPolicies(t *testing.T) {
	all := planner.PolicyNames()
	tests := []struct {
		name, in, scheduler string
		want                []string
		wantErr             bool
	}{
		{"list", " fifo , smd", sim.SchedulerSlurm, []string{"fifo", "smd"}, false},
		{"all in Slurm mode", "all", sim.SchedulerSlurm, append([]string{sim.PolicySlurm}, all...), false},
		{"all in ideal mode", "all", sim.SchedulerIdeal, all, false},
		{"slurm alone needs Slurm mode", "slurm", sim.SchedulerIdeal, nil, true},
		{"unknown", "fifo,nope", sim.SchedulerSlurm, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Policies(tt.in, tt.scheduler)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Policies(%q): err = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Policies(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
