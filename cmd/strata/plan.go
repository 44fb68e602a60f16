package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
	"github.com/strata-hpc/strata/cmd/strata/internal/plan"
)

const (
	planFlagDryRun = "dry-run"
	planFlagJSON   = "json"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "run one plan cycle: snapshot → policy → guards → apply (shadow by default)",
		Description: "Reads the queue, runs the policy once and shows, per job, what Strata decides and why.\n" +
			"Shadow mode (the default) sends nothing and prints the request bodies it would send.\n" +
			"--enforce rewrites pending jobs (priority, GPU request, begin time, admin comment) through the\n" +
			"same guards and one-writer lock as `strata run --enforce`, so it needs --database-url too\n" +
			"(the audit trail and the lock). A daemon holding the lock makes it stop (exit 1).",
		Flags: append(append(append(cliflags.Cycle(),
			&cli.BoolFlag{Name: planFlagDryRun, Usage: "shadow mode: compute and show, write nothing; what plan does without --enforce"},
			&cli.BoolFlag{Name: planFlagJSON, Usage: "machine-readable JSON (plan, guard verdicts, apply report)"},
		), cliflags.Database()...), cliflags.Slurm()...),
		Action: runPlan,
	}
}

func runPlan(c *cli.Context) error {
	if c.Bool(planFlagDryRun) && c.Bool(cliflags.FlagRunEnforce) {
		return exitError{code: 2, err: errors.New("--dry-run and --enforce exclude each other")}
	}
	opts := cliflags.CycleOptions(c, config.FileFrom(c.Context))
	if err := opts.Validate(); err != nil {
		return exitError{code: 2, err: err}
	}
	log := logger(c).With().Str("component", "plan").Logger()
	if err := checkSiteNames(c, config.FileFrom(c.Context), log); err != nil {
		return err
	}
	deps, err := daemonDeps(c, log)
	if err != nil {
		return err
	}
	if !opts.Enforce {
		// Shadow mode records nothing and so takes no writer lock: it runs
		// beside a daemon. (strata run keeps the audit trail.)
		deps.Open = nil
	}
	d, err := daemon.New(log, opts, deps, daemon.NewMetrics())
	if err != nil {
		return exitError{code: 2, err: err}
	}
	defer d.Close()
	res, err := d.RunOnce(c.Context)
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	return plan.Print(c.App.Writer, res, c.Bool(planFlagJSON), res.Report.APIVersion)
}
