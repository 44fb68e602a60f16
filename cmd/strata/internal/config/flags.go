package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

// Context returns a fresh context for flags, as the command line would
// have produced it: each flag's default, then its environment variable,
// then values (the file's keys), then pinned (values that must win, such as
// those given on the command line at start-up). parent may be nil. Every
// value that does not parse is reported, naming its key.
//
// `config check` uses it to validate a file exactly as the command would
// read it, and `strata run` to reload the file on SIGHUP: the flag
// definitions are the only table of keys, types and defaults.
func Context(app *cli.App, flags []cli.Flag, values, pinned map[string]string, parent *cli.Context) (*cli.Context, error) {
	set := flag.NewFlagSet("config", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	var errs []error
	for _, f := range flags {
		if err := f.Apply(set); err != nil {
			errs = append(errs, fmt.Errorf("key %q from the environment: %w", f.Names()[0], err))
		}
	}
	for _, f := range flags {
		name := f.Names()[0]
		if v, ok := pinned[name]; ok {
			if err := set.Set(name, v); err != nil {
				errs = append(errs, fmt.Errorf("key %q = %q: %w", name, v, err))
			}
			continue
		}
		if fromEnv(f) {
			continue
		}
		if v, ok := values[name]; ok {
			if err := set.Set(name, v); err != nil {
				errs = append(errs, fmt.Errorf("key %q = %q: %w", name, v, hint(f, v, err)))
			}
		}
	}
	return cli.NewContext(app, set, parent), errors.Join(errs...)
}

// hint says what a flag's type wants when its value v did not parse: a
// value too large for the type is told so.
func hint(f cli.Flag, v string, err error) error {
	switch f.(type) {
	case *cli.BoolFlag:
		return fmt.Errorf("want true or false")
	case *cli.DurationFlag:
		if _, err := parseDuration(v); errors.Is(err, errTooLarge) {
			return err
		}
		return fmt.Errorf("want a duration such as \"30s\" or \"5m\"")
	case *cli.IntFlag, *cli.Int64Flag:
		if err := numberRange(v, kindInt); err != nil {
			return err
		}
		return fmt.Errorf("want a whole number")
	case *cli.UintFlag, *cli.Uint64Flag:
		if err := numberRange(v, kindUint); err != nil {
			return err
		}
		return fmt.Errorf("want a whole number ≥ 0")
	case *cli.Float64Flag:
		if err := numberRange(v, kindFloat); err != nil {
			return err
		}
		return fmt.Errorf("want a number")
	}
	return err
}

// fromEnv reports whether one of the flag's environment variables is set.
func fromEnv(f cli.Flag) bool {
	if ev, ok := f.(interface{ GetEnvVars() []string }); ok {
		for _, e := range ev.GetEnvVars() {
			if _, set := os.LookupEnv(e); set {
				return true
			}
		}
	}
	return false
}
