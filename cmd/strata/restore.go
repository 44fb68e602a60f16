package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/cliflags"
	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

const (
	restoreFlagEnforce = "enforce"
	restoreFlagJobs    = "jobs"
	restoreFlagUser    = "user"
	restoreFlagPart    = "partition"
	restoreFlagJSON    = "json"
)

func restoreCommand() *cli.Command {
	return &cli.Command{
		Name:  "restore",
		Usage: "put back what Strata wrote to pending jobs (a dry run unless --enforce)",
		Description: "For a site that turns enforcement (`strata run --enforce`) or claim binding ([planner]\n" +
			"bind-claims) off: puts back, on every pending job Strata wrote to, the user's own time limit\n" +
			"(the admin comment's limit=), the GPU request the user submitted (the audit trail's first\n" +
			"record of the job; CPUs and memory scaled back with it), the priority Slurm's priority\n" +
			"plugin computes, the begin time (now, for a job Strata deferred) and the partition list,\n" +
			"and removes Strata's segment of the admin comment (other tools' text stays). A job that\n" +
			"already started with a limit Strata lowered gets its own limit back (nothing else of a\n" +
			"running job can change), so that Slurm does not end it there.\n\n" +
			"Stop `strata run --enforce` first, or it writes again. Run without --enforce first: it\n" +
			"reads every job again and prints what it would write, and writes nothing. Then run it\n" +
			"with --enforce; each write is read back and compared, and recorded in the audit trail.\n\n" +
			"Left alone, and said so: jobs that ended, running jobs with the limit they asked for,\n" +
			"jobs whose limit, priority, GPUs, begin time or partition their user or an admin changed\n" +
			"since Strata's last write, and held jobs' priority (Slurm computes it at the release).\n" +
			"Without a database (--database-url) the GPU request cannot be known and stays as it is,\n" +
			"per job in the notes. It needs the token Strata writes with (root's or SlurmUser's: only\n" +
			"they may raise a time limit or write the admin comment). docs/slurm.md § Putting it back.",
		Flags: append(append([]cli.Flag{
			&cli.BoolFlag{Name: restoreFlagEnforce, Usage: "write (default: dry run, nothing is written)"},
			&cli.StringSliceFlag{Name: restoreFlagJobs, Aliases: []string{"j"}, Usage: "only these job IDs (comma-separated)"},
			&cli.StringSliceFlag{Name: restoreFlagUser, Aliases: []string{"u"}, Usage: "only jobs of these users"},
			&cli.StringSliceFlag{Name: restoreFlagPart, Aliases: []string{"p"}, Usage: "only jobs of these partitions"},
			&cli.BoolFlag{Name: restoreFlagJSON, Usage: "machine-readable JSON (every job's result and the summary)"},
		}, cliflags.Database()...), cliflags.Slurm()...),
		Action: restoreAction,
	}
}

// restoreSelection is which jobs restore looks at.
type restoreSelection struct {
	jobs        []int64
	users, part []string
}

func parseRestoreSelection(c *cli.Context) (restoreSelection, error) {
	sel := restoreSelection{users: cliflags.SplitList(c.StringSlice(restoreFlagUser)),
		part: cliflags.SplitList(c.StringSlice(restoreFlagPart))}
	for _, s := range cliflags.SplitList(c.StringSlice(restoreFlagJobs)) {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return sel, usageError(fmt.Errorf("--%s: %q is not a job ID (a positive number, e.g. --jobs 123,124)", restoreFlagJobs, s))
		}
		sel.jobs = append(sel.jobs, id)
	}
	return sel, nil
}

// scope is the jobs of snap that match sel, with their submit times.
func (sel restoreSelection) scope(snap *planner.Snapshot) map[int64]planner.Job {
	out := map[int64]planner.Job{}
	for _, j := range snap.Jobs {
		if len(sel.jobs) > 0 && !slices.Contains(sel.jobs, j.ID) ||
			len(sel.users) > 0 && !slices.Contains(sel.users, j.User) ||
			len(sel.part) > 0 && !slices.ContainsFunc(strings.Split(j.Partition, ","), func(p string) bool { return slices.Contains(sel.part, p) }) {
			continue
		}
		out[j.ID] = j
	}
	return out
}

// candidates are the jobs in scope Strata wrote to — its segment is in
// the admin comment, or the audit trail (nil: none) holds a write of its
// (a writer that may not write admin comments leaves no segment) — and
// every named job (Restore says why it leaves one alone: gone, or nothing
// of Strata's on it).
func (sel restoreSelection) candidates(scope map[int64]planner.Job, trails map[int64]slurm.Trail) []int64 {
	var ids []int64
	for id, j := range scope {
		if _, ok := decide.ParseAdminComment(j.AdminComment); ok || len(trails[id].Applied) > 0 {
			ids = append(ids, id)
		}
	}
	ids = append(ids, sel.jobs...)
	slices.Sort(ids)
	return slices.Compact(ids)
}

func restoreAction(c *cli.Context) error {
	sel, err := parseRestoreSelection(c)
	if err != nil {
		return err
	}
	cl, err := cliflags.ConnectSlurm(c, cliflags.WithoutPools)
	if err != nil {
		return err
	}
	snap, err := cl.Snapshot(c.Context)
	if err != nil {
		return fmt.Errorf("restore: read the queue: %w", err)
	}
	scope := sel.scope(snap)
	opts := slurm.RestoreOptions{DryRun: !c.Bool(restoreFlagEnforce), Now: snap.Now}
	var st *db.Store
	if c.String(cliflags.FlagDatabaseURL) != "" {
		if st, err = cliflags.OpenDatabase(c, false); err != nil {
			return fmt.Errorf("restore: the audit trail (leave out --%s to restore from the admin comments alone, "+
				"without GPU requests): %w", cliflags.FlagDatabaseURL, err)
		}
		defer st.Close()
		if opts.Trails, err = readTrails(c, st, snap.Cluster, scope); err != nil {
			return err
		}
		warnEnforcing(c, st, snap)
	}
	ids := sel.candidates(scope, opts.Trails)
	progress := c.App.ErrWriter
	opts.Progress = func(r slurm.RestoreResult, done, total int) {
		fmt.Fprintf(progress, "restore: %d/%d job %d %s\n", done, total, r.JobID, r.Outcome)
	}
	start := time.Now()
	rep, err := cl.Restore(c.Context, ids, opts)
	if st != nil && !opts.DryRun {
		if aerr := st.SaveCycle(c.Context, restoreCycle(snap, rep, start)); aerr != nil {
			err = fmt.Errorf("restore: record the writes in the audit trail: %w", aerr)
		}
	}
	if werr := writeRestore(c.App.Writer, rep, opts.Trails != nil, c.Bool(restoreFlagJSON)); werr != nil && err == nil {
		err = werr
	}
	if err == nil && rep.Count(decide.Failed) > 0 {
		err = exitError{code: 1, err: fmt.Errorf("restore: %d job(s) failed (see above)", rep.Count(decide.Failed))}
	}
	return err
}

// warnEnforcing warns when the cluster's latest cycle enforced recently: a
// daemon still enforcing writes again at its next cycle.
func warnEnforcing(c *cli.Context, st *db.Store, snap *planner.Snapshot) {
	last, err := st.LatestCycle(c.Context, snap.Cluster)
	if err != nil || !last.Enforce || last.Policy == db.RestorePolicy || snap.Now.Sub(last.StartedAt) > time.Hour {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "restore: warning: cycle %d at %s enforced: if strata run --enforce still runs, it writes "+
		"these jobs again at its next cycle (set enforce = false and reload it, or stop it, first)\n",
		last.ID, last.StartedAt.UTC().Format(time.RFC3339))
}

// readTrails reads the audit trail of the jobs in scope.
func readTrails(c *cli.Context, st *db.Store, cluster string, scope map[int64]planner.Job) (map[int64]slurm.Trail, error) {
	submitted := make(map[int64]time.Time, len(scope))
	for id, j := range scope {
		submitted[id] = j.SubmitTime
	}
	trails, err := st.RestoreTrail(c.Context, cluster, submitted)
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	out := make(map[int64]slurm.Trail, len(trails))
	for id, t := range trails {
		out[id] = slurm.Trail{FirstGPUs: t.FirstGPUs, FirstPartition: t.FirstPartition, FirstPriority: t.FirstPriority, Applied: t.Applied}
	}
	return out, nil
}

// restoreCycle is the audit record of a restore run: one row per job
// written (or whose write failed), under policy "restore".
func restoreCycle(snap *planner.Snapshot, rep slurm.RestoreReport, start time.Time) *db.Cycle {
	rec := &db.Cycle{Cluster: snap.Cluster, SnapshotID: snap.ID, Policy: db.RestorePolicy, Enforce: true,
		StartedAt: start.UTC(), Duration: time.Since(start), Inputs: db.CycleInputs{Settings: map[string]string{"command": "restore"}}}
	jobs := map[int64]planner.Job{}
	for _, j := range snap.Jobs {
		jobs[j.ID] = j
	}
	for _, r := range rep.Results {
		if r.Outcome != decide.Applied && r.Outcome != decide.Failed {
			continue
		}
		j := jobs[r.JobID]
		rec.Decisions = append(rec.Decisions, db.CycleDecision{
			Decision: planner.Decision{JobID: r.JobID, Action: db.RestoreAction, Priority: r.Priority,
				Detail: strings.Join(r.Restored, "; ")},
			User: j.User, Partition: j.Partition, JobName: j.Name, State: j.State, RequestedGPUs: j.GPUs(), CurPriority: j.Priority,
			Outcome: r.Outcome, Body: r.Body, OutcomeDetail: strings.Join(append([]string{r.Detail}, r.Notes...), "; ")})
	}
	return rec
}

// restoreSummary counts a report's results for its last line.
type restoreSummary struct {
	DryRun   bool `json:"dry_run"`
	Restored int  `json:"restored"`
	Changed  int  `json:"left_changed"`
	Ended    int  `json:"left_not_pending"`
	Other    int  `json:"left_other"`
	Failed   int  `json:"failed"`
	AuditDB  bool `json:"audit_trail"`
}

func summarise(rep slurm.RestoreReport, audit bool) restoreSummary {
	s := restoreSummary{DryRun: rep.DryRun, AuditDB: audit, Restored: rep.Count(decide.Applied) + rep.Count(decide.DryRun),
		Changed: rep.Count(slurm.SkippedChanged), Ended: rep.Count(decide.SkippedNotPending) + rep.Count(decide.SkippedGone),
		Failed: rep.Count(decide.Failed)}
	s.Other = len(rep.Results) - s.Restored - s.Changed - s.Ended - s.Failed
	return s
}

func writeRestore(w io.Writer, rep slurm.RestoreReport, audit, asJSON bool) error {
	sum := summarise(rep, audit)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			slurm.RestoreReport
			Summary restoreSummary `json:"summary"`
		}{rep, sum})
	}
	for _, r := range rep.Results {
		fmt.Fprintf(w, "job %d (%s): %s", r.JobID, orDash(r.User), r.Outcome)
		if r.Detail != "" && r.Outcome != decide.Applied && r.Outcome != decide.DryRun {
			fmt.Fprintf(w, ": %s", r.Detail)
		}
		fmt.Fprintln(w)
		for _, s := range r.Restored {
			fmt.Fprintf(w, "  %s %s\n", map[bool]string{true: "would put back", false: "put back"}[rep.DryRun], s)
		}
		for _, s := range r.Notes {
			fmt.Fprintf(w, "  note: %s\n", s)
		}
	}
	verb, next := "restored", ""
	if rep.DryRun {
		verb, next = "would be restored", "; nothing written (dry run): run again with --enforce to write"
	}
	trail := "with the audit trail"
	if !audit {
		trail = "without a database: GPU requests left as they are"
	}
	_, err := fmt.Fprintf(w, "restore: %d job(s) %s, %d left alone (changed since Strata's last write), %d not pending, "+
		"%d other, %d failed (%s)%s\n", sum.Restored, verb, sum.Changed, sum.Ended, sum.Other, sum.Failed, trail, next)
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
