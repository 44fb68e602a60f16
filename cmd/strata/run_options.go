package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// runOptions configure the daemon; built from flags, environment and the
// configuration file (flag > env > file > default), re-read on SIGHUP.
type runOptions struct {
	Policy        string
	Compare       []string
	Enforce       bool
	Interval      time.Duration
	Cycles        int
	Guard         guardOptions
	Scope         jobScope
	LockName      string
	StandbyPoll   time.Duration
	MaxBackoff    time.Duration
	MetricsListen string
	// AuditRetention: cycles older than this are deleted (0 = keep all).
	AuditRetention time.Duration
}

func (o runOptions) validate() error {
	switch {
	case o.Interval < time.Second:
		return fmt.Errorf("--%s %v: want at least 1s", flagRunInterval, o.Interval)
	case o.Guard.MaxPerCycle < 0 || o.Guard.MaxPerJob < 0:
		return fmt.Errorf("--%s and --%s must be ≥ 0", flagRunMaxPerCycle, flagRunMaxPerJob)
	case o.Guard.PriorityHysteresis < 0 || o.Guard.MinGPUChange < 0:
		return fmt.Errorf("--%s and --%s must be ≥ 0", flagRunPrioHyst, flagRunMinGPUChange)
	case o.StandbyPoll <= 0 || o.MaxBackoff <= 0:
		return fmt.Errorf("--%s and --%s must be > 0", flagRunStandbyPoll, flagRunMaxBackoff)
	case o.AuditRetention < 0:
		return fmt.Errorf("--%s must be ≥ 0", flagRunAuditRetention)
	case o.Cycles < 0:
		return fmt.Errorf("--%s must be ≥ 0", flagRunCycles)
	}
	return nil
}

func (o runOptions) plannerOptions() planner.Options {
	return planner.Options{Interval: o.Interval}
}

// runOptionsFrom reads the run flags of c.
func runOptionsFrom(c *cli.Context) (runOptions, error) {
	o := runOptions{
		Policy:   c.String(flagRunPolicy),
		Compare:  splitList(c.StringSlice(flagRunCompare)),
		Enforce:  c.Bool(flagRunEnforce),
		Interval: c.Duration(flagRunInterval),
		Cycles:   c.Int(flagRunCycles),
		Guard: guardOptions{MaxPerCycle: c.Int(flagRunMaxPerCycle), MaxPerJob: c.Int(flagRunMaxPerJob),
			PriorityHysteresis: c.Int64(flagRunPrioHyst), MinGPUChange: c.Int(flagRunMinGPUChange)},
		Scope: jobScope{Partitions: splitList(c.StringSlice(flagRunPartitions)),
			Users: splitList(c.StringSlice(flagRunUsers)), NamePrefix: c.String(flagRunNamePrefix)},
		LockName:       c.String(flagRunLockName),
		StandbyPoll:    c.Duration(flagRunStandbyPoll),
		MaxBackoff:     c.Duration(flagRunMaxBackoff),
		MetricsListen:  c.String(flagRunMetricsListen),
		AuditRetention: c.Duration(flagRunAuditRetention),
	}
	return o, o.validate()
}

// splitList flattens "a,b" entries and drops empty ones.
func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// jobScope restricts which pending jobs the daemon plans and writes (pilot
// roll-outs, shared test clusters). Running jobs always stay in the
// snapshot: they hold capacity.
type jobScope struct {
	Partitions []string
	Users      []string
	NamePrefix string
}

// apply returns the snapshot restricted to the scope and the number of
// pending jobs in it. The input is not modified.
func (s jobScope) apply(snap *planner.Snapshot) (*planner.Snapshot, int) {
	out := *snap
	out.Jobs = make([]planner.Job, 0, len(snap.Jobs))
	n := 0
	for _, j := range snap.Jobs {
		if j.State == planner.JobPending {
			if !s.admits(j) {
				continue
			}
			n++
		}
		out.Jobs = append(out.Jobs, j)
	}
	return &out, n
}

func (s jobScope) admits(j planner.Job) bool {
	return (len(s.Partitions) == 0 || slices.Contains(s.Partitions, j.Partition)) &&
		(len(s.Users) == 0 || slices.Contains(s.Users, j.User)) &&
		strings.HasPrefix(j.Name, s.NamePrefix)
}

// slurmConnector builds the Slurm client on first use; slurm.New asks
// slurmrestd for its API versions, so it fails while slurmrestd is down.
func slurmConnector(cfg slurm.Config, log zerolog.Logger) func(ctx context.Context) (cluster, error) {
	return func(ctx context.Context) (cluster, error) {
		cl, err := slurm.New(ctx, cfg, log)
		if err != nil {
			if errors.Is(err, slurm.ErrUnsupportedVersion) {
				log.Error().Err(err).Msg("slurmrestd api version unsupported")
			}
			return nil, fmt.Errorf("connect to slurmrestd: %w", err)
		}
		return cl, nil
	}
}
