package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/sim"
)

// documentedDefaults is a [planner] section that writes out the documented
// defaults (config/planner.go's comment): it must plan as no file does.
const documentedDefaults = `[planner]
energy-weight = 0.0
tardiness-weight = 0.0
bind-claims = false
shrink = false
top-tier = false
ps-comm = "overlap"
`

// TestEveryCommandPlansWithTheSiteDefaults (issue 33): `strata run`,
// `simulate` and the client commands (queue --start, explain, hint check:
// config.PlannerOptions) plan with the same options whether there is no
// configuration file, an empty one, or one that writes out the defaults;
// and a file that changes a decision key changes it for every command
// alike. Before, `simulate` without a file planned with the zero options
// (no default caps on gpus= ranges, no claim binding) while `run` used the
// site defaults.
func TestEveryCommandPlansWithTheSiteDefaults(t *testing.T) {
	noFile := planned(t, "")
	for _, tc := range []struct{ name, toml string }{
		{"empty file", ""},
		{"documented defaults", documentedDefaults},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := planned(t, writeFile(t, "site.toml", tc.toml, 0o644))
			if d := cmp.Diff(noFile, got, optsCmp...); d != "" {
				t.Errorf("%s plans otherwise than no file (-no file +%s):\n%s", tc.name, tc.name, d)
			}
		})
	}
	if d := cmp.Diff(planner.SiteDefaults().Limits, noFile.Run.Limits); d != "" {
		t.Errorf("without a file, run's caps are not the site defaults:\n%s", d)
	}
	for _, tc := range []struct{ name, toml string }{
		{"binding on", "[planner]\nbind-claims = true\nclaim-margin = 3\nclaim-floor = \"1h\"\n"},
		{"shrinking on", "[planner]\nshrink = true\n"},
		{"no caps", "[planner]\nlimits = []\n"},
		{"site caps", "[planner]\n[[planner.limits]]\npartition = \"gpu\"\nmax-weight = 4\nmax-gpus = 16\n"},
		{"weights", "[planner]\nenergy-weight = 2.5\ntardiness-weight = 1\ngpu-watts = 250\n"},
		{"time model", "[planner]\nreference-tflops = 20\nintra-node-gbps = 200\nps-comm = \"no-overlap\"\n[planner.gpu-speed]\na100 = 2.5\n"},
		{"policy", "[planner]\nlong-job = \"4h\"\nlong-job-share = 0.5\nstarvation-age = \"12h\"\nmax-options-per-job = 6\ntop-tier = true\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := planned(t, writeFile(t, "site.toml", tc.toml, 0o644))
			if d := cmp.Diff(got.Run, got.Simulate, optsCmp...); d != "" {
				t.Errorf("run and simulate plan differently (-run +simulate):\n%s", d)
			}
			if d := cmp.Diff(got.Run, got.Client, optsCmp...); d != "" {
				t.Errorf("run and the client commands plan differently (-run +client):\n%s", d)
			}
			if cmp.Equal(noFile.Run, got.Run, optsCmp...) {
				t.Errorf("%s changed nothing", tc.name)
			}
		})
	}
}

// optsCmp leaves out what a command sets for itself, not from the site: the
// predictor (history, the simulator's oracle), the catalog (built in), the interval, the node size
// and Tiresias threshold of a simulated cluster, the busy power of its GPU
// type, the restart cost of its preemptible jobs.
var optsCmp = []cmp.Option{
	cmpopts.IgnoreFields(planner.Options{}, "Predictor", "Run", "Catalog", "Interval", "NodeGPUs", "TiresiasThreshold", "GPUWatts", "RestartCost"),
	cmpopts.EquateEmpty(),
}

type plannedBy struct{ Run, Simulate, Client planner.Options }

func planned(t *testing.T, path string) plannedBy {
	t.Helper()
	var p plannedBy
	p.Run = capture(t, path, "run", func(c *cli.Context) (planner.Options, error) {
		o, err := runOptionsFrom(c, config.FileFrom(c.Context))
		return o.Planner.Resolved(), err
	})
	p.Simulate = capture(t, path, "simulate", func(c *cli.Context) (planner.Options, error) {
		o, err := simulateOptions(c)
		if err != nil {
			return planner.Options{}, err
		}
		o.Trace, o.Cluster, o.Policy = "unused.csv", "2x4", "smd"
		cfg, _, err := o.Config()
		if err != nil {
			return planner.Options{}, err
		}
		return sim.PolicyOptions(cfg, &sim.Trace{}).Resolved(), nil
	})
	p.Client = capture(t, path, "queue", func(c *cli.Context) (planner.Options, error) {
		return decide.PlannerOptions(config.PlannerOptions(config.FileFrom(c.Context)), decide.Defaults()).Resolved(), nil
	})
	return p
}
