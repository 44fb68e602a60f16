package main

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
	flagLogLevel  = "log-level"
	flagLogFormat = "log-format"
	flagConfig    = "config"
)

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagLogLevel, Value: "info", EnvVars: []string{"STRATA_LOG_LEVEL"},
			Usage: "log level: trace, debug, info, warn, error"},
		&cli.StringFlag{Name: flagLogFormat, Value: "logfmt", EnvVars: []string{"STRATA_LOG_FORMAT"},
			Usage: "log format on stderr: logfmt (human) or json (for log shippers)"},
		&cli.StringFlag{Name: flagConfig, EnvVars: []string{"STRATA_CONFIG"},
			Usage: "configuration file (TOML); flags and environment override it"},
	}
}

// newLogger builds the one logger of the process. It is injected into every
// component; nothing below cmd uses a global logger.
func newLogger(level, format string, w io.Writer) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(strings.ToLower(level))
	if err != nil || level == "" {
		return zerolog.Nop(), fmt.Errorf("--%s %q: want trace, debug, info, warn or error", flagLogLevel, level)
	}
	var out io.Writer
	switch strings.ToLower(format) {
	case "json":
		out = w
	case "logfmt", "text", "console":
		out = zerolog.ConsoleWriter{Out: w, NoColor: true, TimeFormat: time.RFC3339,
			FormatLevel: func(i any) string { return fmt.Sprintf("level=%v", i) }}
	default:
		return zerolog.Nop(), fmt.Errorf("--%s %q: want logfmt or json", flagLogFormat, format)
	}
	return zerolog.New(out).Level(lvl).With().Timestamp().Logger(), nil
}
