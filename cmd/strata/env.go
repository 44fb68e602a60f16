package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/slurm/guard"
)

const (
	flagEnvJob          = "job"
	flagEnvAdminComment = "admin-comment"
)

func envCommand() *cli.Command {
	return &cli.Command{
		Name:  "env",
		Usage: "inside a job: print Strata's decision as shell exports for the training script",
		Description: "Prints `export STRATA_WORKERS=... STRATA_PS=...` lines; use it in a job script:\n\n" +
			"    eval \"$(strata env)\"\n    torchrun --nproc-per-node \"$STRATA_WORKERS\" train.py\n\n" +
			"The decision is the admin comment Strata wrote on the job (\"strata: workers=W ps=P rank=R\n" +
			"cycle=C\"), read with `scontrol show job $SLURM_JOB_ID` (no credentials needed for one's own\n" +
			"job), else from the database when --database-url is set. Without a decision STRATA_DECIDED=0\n" +
			"and STRATA_WORKERS is the job's own GPU allocation (SLURM_GPUS_ON_NODE × SLURM_JOB_NUM_NODES).",
		Flags: append([]cli.Flag{
			&cli.Int64Flag{Name: flagEnvJob, EnvVars: []string{"SLURM_JOB_ID"}, Usage: "job ID (default: $SLURM_JOB_ID)"},
			&cli.StringFlag{Name: flagEnvAdminComment, Usage: "use this admin comment instead of asking scontrol"},
		}, databaseFlags()...),
		Action: envAction,
	}
}

func envAction(c *cli.Context) error {
	id := c.Int64(flagEnvJob)
	if id <= 0 {
		return exitError{code: 2, err: errors.New("no job: run inside a Slurm job or pass --job ID")}
	}
	log := logger(c)
	a, ok, source := guard.Written{}, false, "none"
	if s := c.String(flagEnvAdminComment); c.IsSet(flagEnvAdminComment) {
		a, ok = guard.ParseAdminComment(s)
		source = "flag"
	} else if s, err := scontrolAdminComment(c.Context, id); err == nil {
		a, ok = guard.ParseAdminComment(s)
		source = "scontrol"
	} else {
		log.Debug().Err(err).Msg("scontrol cannot tell")
	}
	if !ok && c.String(flagDatabaseURL) != "" {
		if d, found, err := dbAdminDecision(c, id); err != nil {
			log.Warn().Err(err).Msg("database cannot tell")
		} else if found {
			a, ok, source = d, true, "database"
		}
	}
	return writeEnv(c.App.Writer, id, a, ok, source, os.Getenv)
}

// scontrolAdminComment asks scontrol for the job's admin comment.
func scontrolAdminComment(ctx context.Context, id int64) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "scontrol", "show", "job", "-o", strconv.FormatInt(id, 10)).Output()
	if err != nil {
		return "", fmt.Errorf("scontrol show job %d: %w", id, err)
	}
	_, after, found := strings.Cut(string(out), "AdminComment=")
	if !found {
		return "", fmt.Errorf("scontrol show job %d: no AdminComment field", id)
	}
	return after, nil
}

// dbAdminDecision is the latest decision written to the job.
func dbAdminDecision(c *cli.Context, id int64) (guard.Written, bool, error) {
	st, err := openDatabase(c, false)
	if err != nil {
		return guard.Written{}, false, err
	}
	defer st.Close()
	ds, err := st.DecisionsForJob(c.Context, id, "", 50)
	if err != nil {
		return guard.Written{}, false, err
	}
	for _, d := range ds {
		if d.Outcome == guard.Applied {
			return guard.Written{Workers: d.Workers, PS: d.PS, Rank: d.Rank, Cycle: d.CycleID}, true, nil
		}
	}
	return guard.Written{}, false, nil
}

// writeEnv prints the exports. Values are integers, so no quoting is needed.
func writeEnv(w io.Writer, id int64, a guard.Written, ok bool, source string, getenv func(string) string) error {
	decided := 0
	if ok {
		decided = 1
	} else {
		a = guard.Written{Workers: ownGPUs(getenv)}
	}
	_, err := fmt.Fprintf(w, "export STRATA_JOB_ID=%d\nexport STRATA_DECIDED=%d\nexport STRATA_WORKERS=%d\n"+
		"export STRATA_PS=%d\nexport STRATA_RANK=%d\nexport STRATA_CYCLE=%d\n# source: %s\n",
		id, decided, a.Workers, a.PS, a.Rank, a.Cycle, source)
	return err
}

// ownGPUs is the job's GPU allocation from Slurm's job environment.
func ownGPUs(getenv func(string) string) int {
	atoi := func(k string) int { n, _ := strconv.Atoi(getenv(k)); return n }
	if n := atoi("SLURM_GPUS"); n > 0 {
		return n
	}
	return atoi("SLURM_GPUS_ON_NODE") * max(1, atoi("SLURM_JOB_NUM_NODES"))
}
