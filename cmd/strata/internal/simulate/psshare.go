package simulate

import (
	"errors"
	"fmt"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/sim"
)

// PSOptions is the parameter-server what-if (--ps-share, --ps-choice,
// --ps-seed; sim.MakePS): Share of the trace's jobs become PS jobs of the
// catalog's models, drawn with Seed; Choice is how P is chosen for their
// ps=auto: "" or "auto" the planner chooses, "w" P = W, "1" P = 1
// (planner.Options.PSChoice).
type PSOptions struct {
	Share  float64
	Choice string
	Seed   uint64
}

// apply checks the options and gives the policies the choice of P.
func (p PSOptions) apply(cfg *sim.Config) error {
	if p.Share < 0 || p.Share > 1 {
		return errors.New("--ps-share must be in [0, 1]")
	}
	if p.Share > 0 && cfg.Scheduler != sim.SchedulerSlurm {
		return errors.New("--ps-share is a Slurm-mode what-if (the servers a job runs with are those Strata wrote): use --scheduler slurm")
	}
	switch p.Choice {
	case "", "auto":
		return nil
	case "w", "1":
	default:
		return fmt.Errorf("--ps-choice %q: want auto, w or 1", p.Choice)
	}
	var o planner.Options
	if cfg.Planner != nil {
		o = *cfg.Planner
	}
	o.PSChoice = p.Choice
	cfg.Planner = &o
	return nil
}

// trace makes the share of PS jobs (nodes of nodeGPUs GPUs).
func (p PSOptions) trace(tr *sim.Trace, nodeGPUs int) *sim.Trace {
	return sim.MakePS(tr, p.Share, p.Seed, nodeGPUs)
}
