package simulate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/history"
	"github.com/strata-hpc/strata/sim"
	"github.com/strata-hpc/strata/slurm"
)

// SiteSource is what a site simulation reads from Slurm through
// slurmrestd (*slurm.Client): the nodes and partitions, and slurmdbd's
// record of the jobs that ended.
type SiteSource interface {
	ServesAccounting() bool
	Snapshot(ctx context.Context) (*planner.Snapshot, error)
	EndedJobs(ctx context.Context, cluster string, since, until time.Time) ([]slurm.FinishedJob, error)
	FinishedJobs(ctx context.Context, cluster string, since, until time.Time) ([]slurm.FinishedJob, error)
}

// SiteOptions are the settings of `strata simulate --from-slurmdbd`: the
// simulation's (Options; its Trace and Cluster come from the site), the
// period and which jobs.
type SiteOptions struct {
	Options
	// From and To bound the jobs' end times (sacct's -S and -E).
	From, To time.Time
	// Partitions keeps only jobs whose partition field names one of these
	// (empty: every job).
	Partitions []string
	// SlurmCluster is slurmdbd's cluster name ("" = any).
	SlurmCluster string
	// Prior is how far before From the history predictor's knowledge
	// reaches (the jobs that completed then, as the daemon reads 90 days;
	// 0 = none: it learns from the period's own jobs only).
	Prior time.Duration
}

// ParseSitePeriod reads -S and -E as sacct (and strata report) read them,
// relative to now in loc.
func ParseSitePeriod(start, end string, now time.Time, loc *time.Location) (from, to time.Time, err error) {
	if from, err = report.ParseTime(start, now, loc); err != nil {
		return from, to, UsageError{Err: fmt.Errorf("--starttime: %w", err)}
	}
	if to, err = report.ParseTime(end, now, loc); err != nil {
		return from, to, UsageError{Err: fmt.Errorf("--endtime: %w", err)}
	}
	if !from.Before(to) {
		return from, to, UsageError{Err: fmt.Errorf("--starttime %s is not before --endtime %s", from.Format(time.RFC3339), to.Format(time.RFC3339))}
	}
	return from, to, nil
}

// SitePolicies is --policy for a site simulation: Slurm alone first (what
// every policy is compared with), then the policies asked for (default
// smd).
func SitePolicies(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		s = "smd"
	}
	ps, err := Policies(s, sim.SchedulerSlurm)
	if err != nil {
		return nil, err
	}
	out := []string{sim.PolicySlurm}
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 1 {
		return nil, errors.New("--policy: name a policy to compare with Slurm alone, e.g. smd")
	}
	return out, nil
}

// RunSite reads the site's nodes and the jobs that ended in the period,
// simulates Slurm alone and each policy on them in Slurm mode, and writes
// the comparison (SiteReport) as a table or, with o.JSON, as JSON.
func RunSite(ctx context.Context, src SiteSource, o SiteOptions, out Output, log zerolog.Logger) error {
	if !src.ServesAccounting() {
		return errors.New("simulate --from-slurmdbd: slurmrestd serves no /slurmdb (no accounting, or slurmrestd runs without " +
			"openapi/slurmdbd): the site's history is read from slurmdbd")
	}
	snap, err := src.Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("simulate --from-slurmdbd: read the nodes: %w", err)
	}
	site, err := sim.SiteCluster(siteNodes(snap.Nodes))
	if err != nil {
		return fmt.Errorf("simulate --from-slurmdbd: %w", err)
	}
	if len(site.LeftOut) > 0 {
		log.Warn().Strs("nodes", site.LeftOut).Msg("nodes not simulated")
	}
	ended, err := src.EndedJobs(ctx, o.SlurmCluster, o.From, o.To)
	if err != nil {
		return fmt.Errorf("simulate --from-slurmdbd: %w", err)
	}
	ht := sim.FromHistory(historyJobs(ended, o.Partitions), site)
	if len(ht.Trace.Jobs) == 0 {
		return fmt.Errorf("simulate --from-slurmdbd: no job with GPUs in a simulated partition ended between %s and %s (%d ended in all)",
			o.From.Format(time.RFC3339), o.To.Format(time.RFC3339), len(ended))
	}
	policies, err := SitePolicies(o.Policy)
	if err != nil {
		return UsageError{Err: err}
	}
	so := o.Options
	so.Trace, so.Cluster, so.Policy, so.Scheduler = "slurmdbd", site.Cluster.String(), strings.Join(policies, ","), sim.SchedulerSlurm
	so.TruthModel, so.JSON, so.Jobs = true, true, true
	if so.Predictor == "" {
		so.Predictor = sim.PredictorHistory // jobs without a hint are timed from history, as the daemon times them
	}
	cfg, _, err := so.Config()
	if err != nil {
		return UsageError{Err: err}
	}
	cfg.Cluster = site.Cluster // with its partition's name, which the spec's text leaves out
	if cfg.Predictor == sim.PredictorHistory && o.Prior > 0 {
		done, err := src.FinishedJobs(ctx, o.SlurmCluster, o.From.Add(-o.Prior), o.From)
		if err != nil {
			return fmt.Errorf("simulate --from-slurmdbd: the history before the period: %w", err)
		}
		cfg.HistoryPrior = priorRecords(done)
	}
	if o.WriteTrace != "" {
		if err := writeTrace(o.WriteTrace, ht.Trace); err != nil {
			return err
		}
	}
	results, err := runAll(ctx, cfg, ht.Trace, policies, o.Parallel, out)
	if err != nil {
		return err
	}
	rep := &SiteReport{From: o.From, To: o.To, Cluster: site.Cluster.String(), Islands: site.Islands, NodesLeftOut: site.LeftOut,
		Jobs: len(ht.Trace.Jobs), LeftOut: ht.LeftOut, Predictor: cmp.Or(cfg.Predictor, sim.PredictorOracle)}
	for _, j := range ht.Trace.Jobs {
		if j.Hint != "" {
			rep.Hinted++
		}
	}
	for _, r := range results[1:] {
		rep.Policies = append(rep.Policies, compareSite(ht, results[0], r))
	}
	if o.JSON {
		return report.WriteJSON(out.Out, rep)
	}
	return rep.WriteTable(out.Out)
}

// siteNodes are the snapshot's nodes as the site's cluster takes them.
func siteNodes(ns []planner.Node) []sim.SiteNode {
	out := make([]sim.SiteNode, len(ns))
	for i, n := range ns {
		out[i] = sim.SiteNode{Name: n.Name, GPUs: n.GPUs, GPUType: n.GPUType, CPUs: n.CPUs, MemoryMB: n.MemoryMB,
			Partitions: n.Partitions}
	}
	return out
}

// historyJobs are slurmdbd's jobs as FromHistory takes them, only those of
// partitions (empty: all).
func historyJobs(js []slurm.FinishedJob, partitions []string) []sim.HistoryJob {
	var out []sim.HistoryJob
	for _, j := range js {
		if len(partitions) > 0 && !slices.ContainsFunc(strings.Split(j.Partition, ","), func(p string) bool {
			return slices.Contains(partitions, p)
		}) {
			continue
		}
		out = append(out, sim.HistoryJob{ID: j.ID, User: j.User, Account: j.Account, Name: j.Name, Partition: j.Partition,
			State: j.State, GPUs: j.GPUs, Nodes: j.Nodes, TimeLimit: j.TimeLimit, Submit: j.Submit, Eligible: j.Eligible,
			Start: j.Start, End: j.End, Comment: j.Comment})
	}
	return out
}

// priorRecords are the jobs that completed before the period as the
// daemon's estimator takes them.
func priorRecords(js []slurm.FinishedJob) []history.Record {
	out := make([]history.Record, len(js))
	for i, j := range js {
		out[i] = history.Record{User: j.User, Name: j.Name, Partition: j.Partition, GPUs: j.GPUs, Duration: j.End.Sub(j.Start), Limit: j.TimeLimit}
	}
	return out
}
