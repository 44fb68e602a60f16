package main

import (
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/sim"
)

// limitsSeen are the write limits and the planner's preemption limits a
// command derived from its flags and configuration.
type limitsSeen struct {
	Guard                decide.Options
	MinRun               float64 // minutes
	MaxPreemptPerDay     int
	MaxDisturbedGPUHours float64
}

// TestRunAndSimulateDeriveTheSameOptions (issue 25): `strata run` and
// `strata simulate` read the same configuration into the same write limits
// and the same planner preemption limits. Before decide.PlannerOptions,
// run mapped only max-preempt-per-day 0 to "none": with
// max-disturbed-gpu-hours = 0 it planned with the default 64 and proposed
// preemptions its guard refused, while the simulator did not.
func TestRunAndSimulateDeriveTheSameOptions(t *testing.T) {
	for _, tc := range []struct{ name, toml string }{
		{"defaults", ""},
		{"no disturbance", "max-disturbed-gpu-hours = 0\n"},
		{"no minimum run", "min-run-before-preempt = \"0s\"\nmax-rewrites-per-job = 1\n"},
		{"site values", "max-preempt-per-day = 4\nmax-disturbed-gpu-hours = 12.5\nmax-rewrites-per-cycle = 7\npriority-hysteresis = 50\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "site.toml", tc.toml, 0o644)
			run := captureLimits(t, path, "run", func(c *cli.Context) (limitsSeen, error) {
				o, err := runOptionsFrom(c, config.FileFrom(c.Context))
				return seen(o.Guard, o.Planner), err
			})
			simulated := captureLimits(t, path, "simulate", func(c *cli.Context) (limitsSeen, error) {
				o, err := simulateOptions(c)
				if err != nil {
					return limitsSeen{}, err
				}
				o.Trace, o.Cluster, o.Policy = "unused.csv", "2x4", "smd"
				cfg, _, err := o.Config()
				if err != nil {
					return limitsSeen{}, err
				}
				if cfg.Guard == nil {
					t.Fatal("simulate left the write limits unset")
				}
				return seen(*cfg.Guard, sim.PolicyOptions(cfg, &sim.Trace{})), nil
			})
			if d := cmp.Diff(run, simulated); d != "" {
				t.Errorf("run and simulate derived different limits (-run +simulate):\n%s", d)
			}
		})
	}
}

func seen(g decide.Options, po planner.Options) limitsSeen {
	return limitsSeen{Guard: g, MinRun: po.MinRunBeforePreempt.Minutes(), MaxPreemptPerDay: po.MaxPreemptPerDay,
		MaxDisturbedGPUHours: po.MaxDisturbedGPUHours}
}

// captureLimits runs `strata --config path <cmd>` with the command's
// Action replaced by f, and returns what f derived.
func captureLimits(t *testing.T, path, cmd string, f func(*cli.Context) (limitsSeen, error)) limitsSeen {
	t.Helper()
	return capture(t, path, cmd, f)
}

// capture runs `strata [--config path] <cmd>` (no --config when path is
// empty: no file) with the command's Action replaced by f, and returns
// what f derived.
func capture[T any](t *testing.T, path, cmd string, f func(*cli.Context) (T, error)) T {
	t.Helper()
	app := newApp(io.Discard, io.Discard)
	var got T
	found := false
	for _, c := range app.Commands {
		if c.Name == cmd {
			found = true
			c.Action = func(c *cli.Context) error {
				var err error
				got, err = f(c)
				return err
			}
		}
	}
	if !found {
		t.Fatalf("no command %q", cmd)
	}
	args := []string{"strata", "--config", path, cmd}
	if path == "" {
		args = []string{"strata", cmd}
	}
	if err := app.RunContext(context.Background(), args); err != nil {
		t.Fatalf("strata %s: %v", cmd, err)
	}
	return got
}
