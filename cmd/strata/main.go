// Command strata plans deep-learning jobs on Slurm GPU clusters and reports
// their GPU energy. See README.md and docs/ for the user guide.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliargs"
	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/cmd/strata/internal/config"
	"github.com/strata-hpc/strata/cmd/strata/internal/term"
	"github.com/urfave/cli/v2"
)

// Set by the linker: -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

// exitCoder lets a command choose the process exit status (e.g. 2 for
// "invalid input") without calling os.Exit below main.
type exitCoder interface{ ExitCode() int }

// exitError carries an exit status to main.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
func (e exitError) ExitCode() int { return e.code }

// usageError marks invalid input (exit status 2).
func usageError(err error) error { return exitError{code: 2, err: err} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runCLI(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runCLI runs the CLI and returns the exit status. Job names, comments and
// hint errors come from users: they never drive the terminal (term.Writer
// shows control characters instead of sending them).
func runCLI(ctx context.Context, args []string, out, errOut io.Writer) int {
	stdout, stderr := term.Writer(out), term.Writer(errOut)
	setHelpPrinter(helpWidth(out))
	app := newApp(stdout, stderr)
	var unknown string
	app.CommandNotFound = func(_ *cli.Context, name string) { unknown = name }
	err := app.RunContext(ctx, cliargs.Interspersed(app, args))
	if unknown != "" {
		fmt.Fprintf(stderr, "strata: unknown command %q: see `strata help` for the commands\n", unknown)
		return 2
	}
	if err == nil {
		return 0
	}
	var ec exitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			io.WriteString(stderr, errorLines(msg))
		}
		return ec.ExitCode()
	}
	io.WriteString(stderr, errorLines(err.Error()))
	return 1
}

// errorLines prefixes every error of msg with "strata: ": each line of
// several joined errors (errors.Join), not only the first; indented lines
// continue the error above them.
func errorLines(msg string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(msg, "\n"), "\n") {
		if line != "" && line[0] != ' ' && line[0] != '\t' {
			b.WriteString("strata: ")
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// newApp assembles the CLI. Every subcommand lives in its own file and is
// listed here once.
func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "strata",
		Usage: "plan deep-learning jobs on Slurm GPU clusters and account their GPU energy",
		Description: "Strata reads the Slurm queue through slurmrestd, models DL training jobs from the\n" +
			"`strata:` hints users put in --comment, chooses GPU counts and a start order, writes\n" +
			"them back to pending jobs (shadow mode first), and measures GPU energy per job.\n\n" +
			"Start with `strata queue` and `strata plan --dry-run`; docs/ has the operator guide.",
		Version:              version,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		Flags:                cliflags.Global(),
		Before: func(c *cli.Context) error {
			// The file sets the global flags (log level and format) too.
			if err := config.Start(c, c.String(cliflags.FlagConfig), []string{cliflags.FlagLogLevel, cliflags.FlagLogFormat}); err != nil {
				return err
			}
			lg, err := appLogger(c, stderr)
			if err != nil {
				return err
			}
			c.Context = lg.WithContext(c.Context)
			return nil
		},
		// Errors (and exit codes) are reported once, by main.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   cliargs.OnUsageError(usageError),
		Commands:       cliargs.WithUsageErrors(config.Wrap(withVerbose(commands())), usageError),
	}
	// -v is --verbose (as in most CLIs), not urfave/cli's --version alias.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}
	cli.VersionPrinter = func(c *cli.Context) {
		fmt.Fprintf(c.App.Writer, "strata %s (commit %s)\n", version, commit)
	}
	return app
}

// logger returns the logger built from the global flags for this command.
func logger(c *cli.Context) zerolog.Logger {
	return *zerolog.Ctx(c.Context)
}
