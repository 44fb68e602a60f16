package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/hint"
	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
)

func hintCommand() *cli.Command {
	return &cli.Command{
		Name:  "hint",
		Usage: "check the strata: hints of a job comment",
		Subcommands: []*cli.Command{{
			Name:      "check",
			Usage:     "check a job script before sbatch, a --comment, or a script on stdin",
			ArgsUsage: "JOB_SCRIPT | 'strata: model=resnet50 batch=64 ...' | - (stdin)",
			Description: "With a job script (a file, or - / nothing for stdin) it reads the script as sbatch does:\n" +
				"the #SBATCH lines before the first command, long options by any unambiguous prefix, the\n" +
				"last of a repeated option winning; the hint of --comment, the GPUs of --gres/--gpus/-N, the\n" +
				"--time limit, --partition and --account, and the #BB/#DW lines. With text (it has a\n" +
				"key=value or strata:), it reads it as the comment. Every problem is reported at once, with\n" +
				"the field, the bad value, the fix and a suggestion for a misspelt key or model.\n\n" +
				"It applies the site's caps ([[planner.limits]] of the configuration) and says so, models\n" +
				"the run time at the GPU counts the planner may choose (the script's request when the\n" +
				"size is fixed), and warns when --time is shorter than a modelled run or the deadline=\n" +
				"cannot be met. With a database (--database-url, or [database] url), it shows the spread of\n" +
				"the site's ended runs of the model on the GPU type (real / modelled, 90 % of them), else the\n" +
				"catalog's published range, else says why none is known; a --time is called too short only\n" +
				"below the fast end of that spread. Exit status: 0 valid (warnings printed), 1 warnings\n" +
				"with --strict, 2 invalid or a missing script. --json always answers with one JSON document.",
			Flags: append([]cli.Flag{
				&cli.BoolFlag{Name: "json", Usage: "print the result as JSON (also for an invalid hint)"},
				&cli.StringFlag{Name: "gpu-type", Usage: "the GPU type (Slurm GRES type, e.g. a100) to time a comment on; a script's --gres/--gpus type wins"},
				&cli.BoolFlag{Name: "strict", Usage: "exit 1 when there are warnings (a time limit shorter than the run, a deadline that cannot be met)"},
			}, cliflags.Database()...),
			Action: hintCheck,
		}},
	}
}

// recordsTimeout bounds reading the site's records: a database that does
// not answer leaves the check without them, not hanging.
const recordsTimeout = 10 * time.Second

// openRecords opens the database, when one is configured, for the spread
// of the site's runs; a database that cannot be opened is noted in
// o.RecordsErr (the check goes on without it).
func openRecords(c *cli.Context, o *hint.Options) *db.Store {
	if c.String(cliflags.FlagDatabaseURL) == "" {
		return nil
	}
	cfg, err := cliflags.DatabaseConfig(c)
	if err != nil {
		o.RecordsErr = err
		return nil
	}
	st, err := db.Open(o.Context, cfg)
	if err != nil {
		o.RecordsErr = fmt.Errorf("database %s: %w", cfg.Redacted(), err)
		return nil
	}
	o.Records = st
	return st
}

func hintCheck(c *cli.Context) error {
	o := hint.Options{JSON: c.Bool("json"), Strict: c.Bool("strict"), Now: time.Now(),
		Catalog: planner.DefaultCatalog(), Planner: config.PlannerOptions(config.FileFrom(c.Context)), GPUType: c.String("gpu-type")}
	ctx, cancel := context.WithTimeout(c.Context, recordsTimeout)
	defer cancel()
	o.Context = ctx
	if st := openRecords(c, &o); st != nil {
		defer st.Close()
	}
	// refuse answers what cannot be checked: a usage error (exit 2), and
	// with --json the same as a JSON document (--json always answers JSON).
	refuse := func(err error) error {
		if o.JSON {
			if werr := hint.WriteRefusal(c.App.Writer, err); werr != nil {
				return werr
			}
		}
		return usageError(err)
	}
	if c.NArg() > 1 {
		return refuse(errors.New("hint check: want one argument: a job script, the comment (quoted), or - for stdin"))
	}
	arg := c.Args().First()
	if arg == "" || arg == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return refuse(fmt.Errorf("hint check: read stdin: %w", err))
		}
		return hint.CheckScript(c.App.Writer, hint.ReadScript(string(b)), o)
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		b, err := os.ReadFile(arg)
		if err != nil {
			return refuse(fmt.Errorf("hint check: %w", err))
		}
		return hint.CheckScript(c.App.Writer, hint.ReadScript(string(b)), o)
	}
	if !strings.Contains(arg, "=") && !strings.Contains(strings.ToLower(arg), "strata:") {
		return refuse(fmt.Errorf("hint check: no job script %s (a comment to check has key=value pairs or strata:; quote it)", arg))
	}
	return hint.Check(c.App.Writer, arg, o)
}
