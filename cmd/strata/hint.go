package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/hint"
	"github.com/strata-hpc/strata/planner"
)

func hintCommand() *cli.Command {
	return &cli.Command{
		Name:  "hint",
		Usage: "check the strata: hints of a job comment",
		Subcommands: []*cli.Command{{
			Name:      "check",
			Usage:     "check the hints of a job script, a --comment, or a script on stdin",
			ArgsUsage: "JOB_SCRIPT | 'strata: model=resnet50 batch=64 ...' | - (stdin)",
			Description: "With a job script (a file, or - / nothing for stdin) it reads the #SBATCH --comment and the\n" +
				"#BB/#DW lines, as sbatch and the burst-buffer plugin would; with text, it reads it as the\n" +
				"comment (or just its strata: segment). Every problem is reported at once, with the field,\n" +
				"the bad value, the fix and a suggestion for a misspelt key or model. Units follow Slurm:\n" +
				"mem=64000 is MB, mem=64G is 64 GiB. Exit status 0 when valid, 2 when not. A comment without\n" +
				"a strata: segment is valid (the job is planned by priority only).",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the parsed hints as JSON"}},
			Action: func(c *cli.Context) error {
				if c.NArg() > 1 {
					return usageError(errors.New("hint check: want one argument: a job script, the comment (quoted), or - for stdin"))
				}
				arg, cat := c.Args().First(), planner.DefaultCatalog()
				if arg == "" || arg == "-" {
					b, err := io.ReadAll(os.Stdin)
					if err != nil {
						return fmt.Errorf("hint check: read stdin: %w", err)
					}
					return hint.CheckScript(c.App.Writer, hint.ReadScript(string(b)), c.Bool("json"), cat)
				}
				if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
					b, err := os.ReadFile(arg)
					if err != nil {
						return fmt.Errorf("hint check: %w", err)
					}
					return hint.CheckScript(c.App.Writer, hint.ReadScript(string(b)), c.Bool("json"), cat)
				}
				return hint.Check(c.App.Writer, arg, c.Bool("json"), cat)
			},
		}},
	}
}
