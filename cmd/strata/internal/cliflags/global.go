// Package cliflags holds the flag groups several commands share (global,
// Slurm connection, database, plan cycle), with what turns them into
// configurations: the commands in package main list them and wire them.
package cliflags

import (
	"fmt"
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
)

func Global() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagLogLevel, Value: "info", EnvVars: []string{"STRATA_LOG_LEVEL"},
			Usage: "log level: trace, debug, info, warn, error"},
		&cli.StringFlag{Name: FlagLogFormat, Value: "logfmt", EnvVars: []string{"STRATA_LOG_FORMAT"},
			Usage: "log format on stderr: logfmt (human) or json (for log shippers)"},
		&cli.StringFlag{Name: FlagConfig, EnvVars: []string{"STRATA_CONFIG"},
			Usage: "configuration file (TOML); flags and environment override it"},
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

// usageError is invalid input: the CLI exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
func (e usageError) ExitCode() int { return 2 }

func usageErr(err error) error { return usageError{err} }
