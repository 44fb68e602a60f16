package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/daemon"
)

// newReloader returns the SIGHUP handler of `strata run`: it re-reads the
// configuration file and returns the options with every reloadable key
// taken from the new file (or its default when the file no longer sets
// it), except keys pinned at start by a flag or an environment variable,
// which keep their value. Without a configuration file it returns the
// start-up options.
func newReloader(c *cli.Context) func() (daemon.Options, error) {
	cfg := configFromContext(c.Context)
	pins := map[string]bool{}
	defaults := map[string]string{}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if !slices.Contains(reloadable, name) {
			continue
		}
		defaults[name] = flagDefault(f)
		pins[name] = cfg == nil || pinnedAtStart(c, f, cfg)
	}
	return func() (daemon.Options, error) {
		o, err := runOptionsFrom(c)
		if err != nil || cfg == nil {
			return o, err
		}
		fresh, err := loadConfigFile(cfg.Path)
		if err != nil {
			return daemon.Options{}, err
		}
		for _, name := range reloadable {
			if pins[name] {
				continue
			}
			v, ok := fresh.Values[name]
			if !ok {
				v = defaults[name]
			}
			if err := setRunOption(&o, name, v); err != nil {
				return daemon.Options{}, fmt.Errorf("configuration %s: key %q = %q: %w", cfg.Path, name, v, err)
			}
		}
		return o, o.Validate()
	}
}

// pinnedAtStart reports whether flag f was given on the command line or by
// the environment (then the file does not override it).
func pinnedAtStart(c *cli.Context, f cli.Flag, cfg *configFile) bool {
	if ev, ok := f.(interface{ GetEnvVars() []string }); ok {
		for _, e := range ev.GetEnvVars() {
			if _, set := os.LookupEnv(e); set {
				return true
			}
		}
	}
	name := f.Names()[0]
	v, inFile := cfg.Values[name]
	return c.IsSet(name) && (!inFile || v != currentValue(c, f))
}

// currentValue renders a flag's value as the flattened file would.
func currentValue(c *cli.Context, f cli.Flag) string {
	if _, ok := f.(*cli.StringSliceFlag); ok {
		return strings.Join(c.StringSlice(f.Names()[0]), ",")
	}
	return fmt.Sprint(c.Value(f.Names()[0]))
}

// flagDefault is a flag's default value in file syntax.
func flagDefault(f cli.Flag) string {
	switch f := f.(type) {
	case *cli.StringFlag:
		return f.Value
	case *cli.BoolFlag:
		return strconv.FormatBool(f.Value)
	case *cli.DurationFlag:
		return f.Value.String()
	case *cli.IntFlag:
		return strconv.Itoa(f.Value)
	case *cli.Int64Flag:
		return strconv.FormatInt(f.Value, 10)
	case *cli.StringSliceFlag:
		if f.Value == nil {
			return ""
		}
		return strings.Join(f.Value.Value(), ",")
	}
	return ""
}

// setRunOption sets one reloadable option from its file text.
func setRunOption(o *daemon.Options, name, v string) error {
	var err error
	switch name {
	case flagRunPolicy:
		o.Policy = v
	case flagRunCompare:
		o.Compare = splitList([]string{v})
	case flagRunEnforce:
		o.Enforce, err = strconv.ParseBool(v)
	case flagRunInterval:
		o.Interval, err = time.ParseDuration(v)
	case flagRunAuditRetention:
		o.AuditRetention, err = time.ParseDuration(v)
	case flagRunMaxPerCycle:
		o.Guard.MaxPerCycle, err = strconv.Atoi(v)
	case flagRunMaxPerJob:
		o.Guard.MaxPerJob, err = strconv.Atoi(v)
	case flagRunPrioHyst:
		o.Guard.PriorityHysteresis, err = strconv.ParseInt(v, 10, 64)
	case flagRunMinGPUChange:
		o.Guard.MinGPUChange, err = strconv.Atoi(v)
	case flagRunMaxDefer:
		o.Guard.MaxDefer, err = time.ParseDuration(v)
	case flagRunPartitions:
		o.Scope.Partitions = splitList([]string{v})
	case flagRunUsers:
		o.Scope.Users = splitList([]string{v})
	case flagRunNamePrefix:
		o.Scope.NamePrefix = v
	default:
		return fmt.Errorf("not reloadable")
	}
	return err
}
