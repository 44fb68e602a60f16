package main

import (
	"errors"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/jobenv"
)

const (
	flagEnvJob          = "job"
	flagEnvAdminComment = "admin-comment"
	flagEnvMultiProg    = "multi-prog"
	flagEnvWorker       = "worker"
	flagEnvServer       = "server"
	flagEnvPSPort       = "ps-port"
)

func envCommand() *cli.Command {
	return &cli.Command{
		Name:  "env",
		Usage: "inside a job: print Strata's decision as shell exports for the training script",
		Description: "Prints `export STRATA_WORKERS=... STRATA_PS=...` lines; use it in a job script:\n\n" +
			"    eval \"$(strata env)\"\n" +
			"    srun --ntasks-per-node=1 torchrun --nnodes \"$SLURM_JOB_NUM_NODES\" \\\n" +
			"        --nproc-per-node \"$SLURM_GPUS_ON_NODE\" train.py --ps \"$STRATA_PS\"\n\n" +
			"STRATA_WORKERS is the job's GPU workers in total, across all its nodes (the world size),\n" +
			"not per node: size torchrun's --nproc-per-node from $SLURM_GPUS_ON_NODE.\n\n" +
			"The decision is the admin comment Strata wrote on the job (\"strata: workers=W ps=P rank=R\n" +
			"cycle=C\"), read with `scontrol show job $SLURM_JOB_ID` (no credentials needed for one's own\n" +
			"job), else from the database when --database-url is set. Without a decision STRATA_DECIDED=0\n" +
			"and STRATA_WORKERS is the job's own GPU allocation (SLURM_GPUS_ON_NODE × SLURM_JOB_NUM_NODES).\n\n" +
			"A parameter-server job (arch=ps) is written as STRATA_WORKERS + STRATA_PS tasks; --multi-prog FILE\n" +
			"writes srun's --multi-prog file that gives each task its role (on each node the first\n" +
			"GPUs-per-node ranks are workers with one GPU each, the rest servers on --ps-port + index)\n" +
			"and exports STRATA_TASKS, STRATA_PS_ADDRS (host:port of every server) and STRATA_MULTI_PROG:\n\n" +
			"    eval \"$(strata env --multi-prog ps.conf --worker 'python train.py')\"\n" +
			"    srun --distribution=block --multi-prog \"$STRATA_MULTI_PROG\"",
		Flags: append([]cli.Flag{
			&cli.Int64Flag{Name: flagEnvJob, EnvVars: []string{"SLURM_JOB_ID"}, Usage: "job ID (default: $SLURM_JOB_ID)"},
			&cli.StringFlag{Name: flagEnvAdminComment, Usage: "use this admin comment instead of asking scontrol"},
			&cli.StringFlag{Name: flagEnvMultiProg, Usage: "write srun's --multi-prog `FILE` giving a PS job's tasks their roles"},
			&cli.StringFlag{Name: flagEnvWorker, Usage: "with --multi-prog: the workers' command line (STRATA_ROLE=worker)"},
			&cli.StringFlag{Name: flagEnvServer, Usage: "with --multi-prog: the servers' command line (default: the workers'; STRATA_ROLE=server)"},
			&cli.IntFlag{Name: flagEnvPSPort, Value: 29500, Usage: "with --multi-prog: server i listens on this port + i"},
		}, cliflags.Database()...),
		Action: envAction,
	}
}

func envAction(c *cli.Context) error {
	id := c.Int64(flagEnvJob)
	if id <= 0 {
		return exitError{code: 2, err: errors.New("no job: run inside a Slurm job or pass --job ID")}
	}
	l := jobenv.Lookup{Log: logger(c)}
	if c.IsSet(flagEnvAdminComment) {
		s := c.String(flagEnvAdminComment)
		l.AdminComment = &s
	}
	if c.String(cliflags.FlagDatabaseURL) != "" {
		l.Open = func() (jobenv.Decisions, func(), error) {
			st, err := cliflags.OpenDatabase(c, false)
			if err != nil {
				return nil, nil, err
			}
			return st, st.Close, nil
		}
	}
	a, ok, source := l.Find(c.Context, id)
	if err := jobenv.Write(c.App.Writer, id, a, ok, source, os.Getenv); err != nil {
		return err
	}
	if path := c.String(flagEnvMultiProg); path != "" {
		server := c.String(flagEnvServer)
		if server == "" {
			server = c.String(flagEnvWorker)
		}
		return jobenv.MultiProgFile(c.App.Writer, path, a, os.Getenv, c.String(flagEnvWorker), server, c.Int(flagEnvPSPort))
	}
	return nil
}
