// Package cliflags holds the flag groups several commands share (global,
// Slurm connection, database, plan cycle), with what turns them into
// configurations: the commands in package main list them and wire them.
package cliflags

import (
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"io"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"
)

// Global flag names (constants so wiring code cannot misspell them).
const (
	FlagLogLevel  = "log-level"
	FlagLogFormat = "log-format"
	FlagConfig    = "config"
	FlagVerbose   = "verbose"
)

// daemons are the commands whose log is their output: they log at info
// unless --log-level says otherwise. Every other command (queue, explain,
// hint, report, ...) is a client at a person's terminal: it logs warnings
// and errors only, and info lines with -v.
var daemons = map[string]bool{"run": true, "collect": true, "serve": true, "db": true, "report refresh": true}

// DefaultLogLevel is the log level of the command path (e.g. ["report",
// "refresh"]) when --log-level is not set: info for the daemons and the
// admin's batch commands, warn for client commands unless verbose.
func DefaultLogLevel(path []string, verbose bool) string {
	if verbose || len(path) > 0 && daemons[path[0]] || len(path) > 1 && daemons[path[0]+" "+path[1]] {
		return "info"
	}
	return "warn"
}

// VerboseFlag is -v, which every command accepts (after its name too).
func VerboseFlag() cli.Flag {
	return &cli.BoolFlag{Name: FlagVerbose, Aliases: []string{"v"},
		Usage: "log info lines too (client commands log only warnings and errors unless --log-level is set)"}
}

// Global returns the flags every command accepts before its name.
func Global() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagLogLevel, EnvVars: []string{"STRATA_LOG_LEVEL"},
			Usage: "log level: trace, debug, info, warn, error (default: info for run, collect, serve, db and report refresh; warn for the other commands, info with -v)"},
		&cli.StringFlag{Name: FlagLogFormat, Value: "logfmt", EnvVars: []string{"STRATA_LOG_FORMAT"},
			Usage: "log format on stderr: logfmt (human) or json (for log shippers)"},
		&cli.StringFlag{Name: FlagConfig, EnvVars: []string{"STRATA_CONFIG"},
			Usage: "configuration file (TOML); flags and environment override it"},
		VerboseFlag(),
	}
}

// NewLogger builds the one logger of the process. It is injected into every
// component; nothing below cmd uses a global logger.
func NewLogger(level, format string, w io.Writer) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(strings.ToLower(level))
	if err != nil || level == "" {
		return zerolog.Nop(), fmt.Errorf("--%s %q: want trace, debug, info, warn or error", FlagLogLevel, level)
	}
	var out io.Writer
	switch strings.ToLower(format) {
	case "json":
		out = w
	case "logfmt", "text", "console":
		out = zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: time.RFC3339,
			FormatLevel: func(i any) string { return fmt.Sprintf("level=%v", i) }}
	default:
		return zerolog.Nop(), fmt.Errorf("--%s %q: want logfmt or json", FlagLogFormat, format)
	}
	return zerolog.New(out).Level(lvl).With().Timestamp().Logger(), nil
}

func usageErr(err error) error { return inputerr.Error{Err: err} }
