package simulate

import (
	"context"
	"errors"
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"io"
	"os"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/strata-hpc/strata/sim"
)

// UsageError is invalid input (flags, trace, scaling curves): the CLI exits
// with status 2.
type UsageError = inputerr.Error

// Output is where a run writes: the report to Out, the progress bar to
// Progress (redrawn in place when TTY is set).
type Output struct {
	Out      io.Writer
	Progress io.Writer
	TTY      bool
}

// Run simulates every policy of o on its trace and writes the report (and
// the plots of o.Plot). Trace rows left out and policies whose decisions
// the simulator could not apply are logged as warnings.
func Run(ctx context.Context, o Options, out Output, log zerolog.Logger) error {
	if o.TraceOnly() {
		var cfg sim.Config
		if o.SynthDeadlines != nil {
			if o.Cluster == "" {
				return UsageError{Err: errors.New("--synth-deadlines needs --cluster (and --scaling) to time the jobs")}
			}
			var err error
			if cfg, err = o.baseConfig(); err != nil {
				return UsageError{Err: err}
			}
		}
		_, _, err := o.trace(cfg, log)
		return err
	}
	cfg, policies, err := o.Config()
	if err != nil {
		return UsageError{Err: err}
	}
	tr, truth, err := o.trace(cfg, log)
	if err != nil {
		return err
	}
	if tr.Skipped > 0 || tr.CPUOnly > 0 {
		log.Warn().Int("skipped_rows", tr.Skipped).Int("cpu_only_rows", tr.CPUOnly).Msg("trace rows not simulated")
	}
	rep := &sim.Report{Trace: o.Trace, Label: o.Label, Cluster: cfg.Cluster.String(), IntervalS: cfg.Interval.Seconds(),
		TraceJobs: len(tr.Jobs), SkippedBad: tr.Skipped, CPUOnly: tr.CPUOnly, Published: sim.Published(tr), SpeedTruth: truth}
	if o.Knowledge == sim.KnowledgeRealistic {
		rep.Knowledge = sim.KnowledgeRealistic
	}
	rep.Results, err = runAll(ctx, cfg, tr, policies, o.Parallel, out)
	if err != nil {
		return err
	}
	for _, r := range rep.Results {
		log.Debug().Str("policy", r.Policy).Int("plan_calls", r.PlanCalls).Dur("plan_time_ms", r.PlanTime).Msg("policy run done")
		if r.HonestyViolations+r.RejectedStarts+r.RejectedResizes > 0 {
			log.Warn().Str("policy", r.Policy).Int("honesty_violations", r.HonestyViolations).
				Int("rejected_starts", r.RejectedStarts).Int("rejected_resizes", r.RejectedResizes).
				Msg("policy returned decisions the simulator could not apply")
		}
	}
	if o.Plot != "" {
		if err := sim.WritePlots(o.Plot, rep); err != nil {
			return err
		}
	}
	if o.JSON {
		return rep.WriteJSON(out.Out)
	}
	return rep.WriteTable(out.Out)
}

// runAll runs every policy (parallel at once) and returns the results in
// the order the policies were given.
func runAll(ctx context.Context, cfg sim.Config, tr *sim.Trace, policies []string, parallel int, o Output) ([]*sim.Result, error) {
	bar := sim.NewProgress(o.Progress, o.TTY, len(policies))
	defer bar.Close()
	out := make([]*sim.Result, len(policies))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, parallel))
	for i, name := range policies {
		g.Go(func() error {
			pc := cfg
			pc.Progress = bar.Func(i)
			r, err := sim.RunNamed(gctx, pc, tr, name)
			if err != nil {
				return err
			}
			bar.Finish(i)
			out[i] = r
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// trace reads the trace, applies --synth-bb (with the catalog that knows
// its models), --speed-error (returning the
// true speed factors by model) and --synth-deadlines (timed by cfg's truth
// on its cluster), and writes --write-trace.
func (o Options) trace(cfg sim.Config, log zerolog.Logger) (*sim.Trace, map[string]float64, error) {
	if o.Trace == "" {
		return nil, nil, UsageError{Err: errors.New("simulate needs --trace FILE")}
	}
	tr, err := readTrace(o.Trace, o.SkipBad)
	if err != nil {
		return nil, nil, UsageError{Err: err}
	}
	if o.SynthBB != nil {
		cat, err := sim.PickBBCatalog(tr, o.SynthBBCatalog)
		if err != nil {
			return nil, nil, UsageError{Err: fmt.Errorf("--synth-bb-catalog: %w", err)}
		}
		if u := cat.Unknown(tr); len(u) > 0 {
			log.Warn().Str("catalog", cat.Name).Strs("models", u).Msg("--synth-bb: jobs of these models get no burst-buffer data or memory")
		}
		tr = sim.SynthBurstBuffer(tr, *o.SynthBB, cat)
	}
	tr = o.users(tr)
	tr = o.PS.trace(tr, cfg.Cluster.GPUsPerNode)
	truth := sim.PerturbSpeeds(tr, sim.SpeedError{Spread: o.SpeedError, Noise: o.SpeedNoise, Seed: o.SpeedErrorSeed})
	if o.SynthDeadlines != nil {
		tr = sim.SynthDeadlines(tr, *o.SynthDeadlines, cfg.Truth, cfg.Range, cfg.Cluster.TotalGPUs())
	}
	if o.WriteTrace != "" {
		if err := writeTrace(o.WriteTrace, tr); err != nil {
			return nil, nil, err
		}
	}
	return tr, truth, nil
}

func writeTrace(path string, tr *sim.Trace) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--write-trace: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("--write-trace: %w", cerr)
		}
	}()
	return sim.WriteTrace(f, tr)
}
