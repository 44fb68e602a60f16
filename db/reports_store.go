package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// RefreshReportRollups recomputes the hourly per-job, per-GPU rollups of
// every UTC hour touching [from, to) from the stored samples and GPU
// assignments, replacing what was there (idempotent), and the daily and
// group rollups of the UTC days those hours lie in (from all the hours of
// those days; then the groups of days marked dirty). Assignments still open
// are counted up to now. Call it after ingesting samples (the collector does,
// for the hours it wrote) or through `strata report refresh`. idlePct is the
// utilization below which an allocated GPU counts as idle (0: the default 5).
// It returns the number of rollup rows written.
func (s *Store) RefreshReportRollups(ctx context.Context, from, to time.Time, idlePct float64) (int64, error) {
	if !from.Before(to) {
		return 0, fmt.Errorf("refresh report rollups: start %v is not before end %v", from, to)
	}
	if idlePct <= 0 {
		idlePct = DefaultIdleUtilPct
	}
	lo, hi := from.UTC().Truncate(time.Hour), to.UTC().Add(time.Hour-1).Truncate(time.Hour)
	openEnd := time.Now().UTC()
	if openEnd.After(hi) {
		openEnd = hi
	}
	del, err := s.q.get("DeleteJobGPUHours")
	if err != nil {
		return 0, err
	}
	ins, err := s.q.get("InsertJobGPUHours")
	if err != nil {
		return 0, err
	}
	var n int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The segment sorts of one hour of 1,000 GPUs need ~60 MB.
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '64MB'"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, del, lo, hi); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, ins, lo, hi, openEnd, idlePct)
		n = tag.RowsAffected()
		if err != nil {
			return err
		}
		return s.rebuildDays(ctx, tx, lo, hi, true)
	})
	return n, interpretError("refresh report rollups", err)
}

// filterArgs returns the filter parameters as non-nil arrays: users,
// accounts, partitions, jobs (the queries' $3..$6), clusters.
func filterArgs(f ReportFilter) []any {
	jobs := f.Jobs
	if jobs == nil {
		jobs = []int64{}
	}
	return []any{nonNil(f.Users), nonNil(f.Accounts), nonNil(f.Partitions), jobs, nonNil(f.Clusters)}
}

// scopeArgs returns a scope's three query parameters: limited, users,
// accounts.
func scopeArgs(s Scope) []any {
	return []any{s.Limited, nonNil(s.Users), nonNil(s.Accounts)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func hasDim(by []ReportDim, d ReportDim) bool {
	for _, b := range by {
		if b == d {
			return true
		}
	}
	return false
}

// EnergyReport groups pro-rated GPU time and energy of the window by q.By
// (no dimension: one total row, or none when nothing ran). Rows come ordered
// by bucket, then job, user, account, partition, node. It reads only the
// rollups: run RefreshReportRollups for hours whose samples changed.
func (s *Store) EnergyReport(ctx context.Context, q EnergyQuery) ([]EnergyRow, error) {
	return s.energyReport(ctx, q, false)
}

// energyReport is EnergyReport; hourlyOnly reads only the hourly rollups
// (ReportEnergy), as every report did before the daily rollups. A report
// by user, account or partition (or none), or by job, with UTC days or no
// buckets, reads the group or per-job rollups for whole days when they
// answer exactly (energyGroups), else the day rows and the hours at the
// edges (ReportEnergyDaily).
func (s *Store) energyReport(ctx context.Context, q EnergyQuery, hourlyOnly bool) ([]EnergyRow, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	bucket := ""
	if hasDim(q.By, DimDay) {
		bucket = "day"
	} else if hasDim(q.By, DimHour) {
		bucket = "hour"
	}
	tz := "UTC"
	if q.Location != nil {
		tz = q.Location.String()
		if tz == "Local" {
			tz = localZoneName()
		}
	}
	sql, err := s.q.get(energyQuery(bucket, tz, hourlyOnly))
	if err != nil {
		return nil, err
	}
	f := filterArgs(q.ReportFilter)
	args := append([]any{q.From, q.To}, f[:4]...)
	args = append(args, hasDim(q.By, DimJob), hasDim(q.By, DimUser), hasDim(q.By, DimAccount),
		hasDim(q.By, DimPartition), hasDim(q.By, DimNode), bucket, tz, f[4])
	args = append(args, scopeArgs(q.Scope)...)
	args = append(args, nonNil(q.States))
	var out []EnergyRow
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The report joins and sorts hundreds of thousands of per-job rows
		// for a month: in memory, and without seconds of JIT compilation
		// (measured: 1.3 s of a month's report by user).
		if _, err := tx.Exec(ctx, "SET LOCAL work_mem = '64MB'"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SET LOCAL jit = off"); err != nil {
			return err
		}
		if d1, d2, via := groupDays(q, bucket, tz, hourlyOnly); via != viaDays {
			var done bool
			if out, done, err = s.energyGroups(ctx, tx, q, bucket, d1, d2, via); err != nil || done {
				return err
			}
		}
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, scanEnergyRow)
		return err
	})
	return out, interpretError("energy report", err)
}

// utcZones are the zone names whose days are UTC days.
var utcZones = map[string]bool{"UTC": true, "Etc/UTC": true, "Etc/UCT": true, "UCT": true, "Zulu": true,
	"Etc/Zulu": true, "Universal": true, "Etc/Universal": true}

// energyQuery names the energy report's query: ReportEnergyDaily, which
// reads the daily rollups for whole UTC days, when its buckets (none, or
// days cut in UTC) are made of whole UTC days; else ReportEnergy, which reads
// only hourly rows.
func energyQuery(bucket, tz string, hourlyOnly bool) string {
	if hourlyOnly || bucket == "hour" || (bucket == "day" && !utcZones[tz]) {
		return "ReportEnergy"
	}
	return "ReportEnergyDaily"
}

func scanEnergyRow(r pgx.CollectableRow) (EnergyRow, error) {
	var e EnergyRow
	var job *int64
	var name, cluster, user, account, partition, node *string
	var bucket *time.Time
	var jobs int64
	var utilSec, sampled float64
	err := r.Scan(&job, &name, &cluster, &user, &account, &partition, &node, &bucket, &jobs,
		&e.GPUSeconds, &e.EnergyJ, &utilSec, &sampled, &e.IdleGPUSeconds, &e.IdleEnergyJ)
	if err != nil {
		return e, err
	}
	e.Job, e.JobName, e.Cluster = deref(job), deref(name), deref(cluster)
	e.User, e.Account = deref(user), deref(account)
	e.Partition, e.Node, e.Jobs = deref(partition), deref(node), int(jobs)
	if bucket != nil {
		e.Bucket = bucket.UTC()
	}
	if sampled > 0 {
		e.UtilGPU = utilSec / sampled
	}
	return e, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// localZoneName names the process's local zone for Postgres ("UTC" when
// the zone has no IANA name, e.g. TZ unset in a container).
func localZoneName() string {
	name, off := time.Now().Zone()
	if _, err := time.LoadLocation(name); err == nil && name != "" && name != "Local" {
		return name
	}
	if off == 0 {
		return "UTC"
	}
	// POSIX offsets are inverted: UTC+2 is "<+02>-02".
	return fmt.Sprintf("<%+03d>%+03d", off/3600, -off/3600)
}

// UsageDimError names a grouping the usage report does not support.
type UsageDimError ReportDim

func (e UsageDimError) Error() string {
	return "report usage: --by " + string(e) + " is not supported (want user, account or partition)"
}

// CheckUsageDims accepts the groupings of the usage report: user, account,
// partition; otherwise it returns a UsageDimError.
func CheckUsageDims(by []ReportDim) error {
	for _, d := range by {
		if d != DimUser && d != DimAccount && d != DimPartition {
			return UsageDimError(d)
		}
	}
	return nil
}

// UsageReport groups GPU time (pro-rated, from the rollups) and the wait and
// completion times of the jobs that ended in the window by q.By (user,
// account and/or partition).
func (s *Store) UsageReport(ctx context.Context, q UsageQuery) ([]UsageRow, error) {
	if err := CheckUsageDims(q.By); err != nil {
		return nil, err
	}
	energy, err := s.EnergyReport(ctx, EnergyQuery{ReportFilter: q.ReportFilter, By: q.By})
	if err != nil {
		return nil, err
	}
	sql, err := s.q.get("ReportUsageCompleted")
	if err != nil {
		return nil, err
	}
	f := filterArgs(q.ReportFilter)
	args := append([]any{q.From, q.To}, f[:4]...)
	args = append(args, hasDim(q.By, DimUser), hasDim(q.By, DimAccount), hasDim(q.By, DimPartition), f[4])
	args = append(args, scopeArgs(q.Scope)...)
	args = append(args, nonNil(q.States))
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, interpretError("usage report", err)
	}
	done, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (UsageRow, error) {
		var u UsageRow
		var user, account, partition *string
		var n int64
		err := r.Scan(&user, &account, &partition, &n, &u.MeanWaitSec, &u.MaxWaitSec, &u.MeanJCTSec)
		u.User, u.Account, u.Partition, u.Completed = deref(user), deref(account), deref(partition), int(n)
		return u, err
	})
	if err != nil {
		return nil, interpretError("usage report", err)
	}
	return mergeUsage(energy, done), nil
}

// mergeUsage joins the GPU-time groups with the completed-job groups on
// their keys, keeping the energy rows' order and appending groups that only
// completed jobs have.
func mergeUsage(energy []EnergyRow, done []UsageRow) []UsageRow {
	key := func(u, a, p string) string { return u + "\x00" + a + "\x00" + p }
	byKey := map[string]int{}
	out := make([]UsageRow, 0, len(energy))
	for _, e := range energy {
		byKey[key(e.User, e.Account, e.Partition)] = len(out)
		out = append(out, UsageRow{User: e.User, Account: e.Account, Partition: e.Partition,
			Jobs: e.Jobs, GPUSeconds: e.GPUSeconds})
	}
	for _, d := range done {
		i, ok := byKey[key(d.User, d.Account, d.Partition)]
		if !ok {
			i = len(out)
			out = append(out, UsageRow{User: d.User, Account: d.Account, Partition: d.Partition})
		}
		out[i].Completed, out[i].MeanWaitSec, out[i].MaxWaitSec, out[i].MeanJCTSec =
			d.Completed, d.MeanWaitSec, d.MaxWaitSec, d.MeanJCTSec
	}
	return out
}

// DecisionReport counts the planner's stored decisions of cycles started in
// the window by action and reason code (a decision with several reasons
// counts once under each). Accounts are not known to decisions: that filter
// is ignored.
func (s *Store) DecisionReport(ctx context.Context, q DecisionQuery) ([]DecisionRow, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	sql, err := s.q.get("ReportDecisions")
	if err != nil {
		return nil, err
	}
	f := filterArgs(q.ReportFilter)
	args := append([]any{q.From, q.To, f[0], f[2], f[3], f[4]}, scopeArgs(q.Scope)...)
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, interpretError("decision report", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DecisionRow, error) {
		var d DecisionRow
		var n, applied, jobs, cycles int64
		err := r.Scan(&d.Action, &d.Reason, &n, &applied, &jobs, &cycles, &d.First, &d.Last)
		d.Decisions, d.Applied, d.Jobs, d.Cycles = int(n), int(applied), int(jobs), int(cycles)
		d.First, d.Last = d.First.UTC(), d.Last.UTC()
		return d, err
	})
	return out, interpretError("decision report", err)
}

// ReportFreshness returns how far the report rollups reach (the last
// allocated instant rolled up) and how far GPU assignments reach (now while
// one is open); zero times when there are none. Reports are stale when the
// second is well past the first: run RefreshReportRollups.
func (s *Store) ReportFreshness(ctx context.Context) (rolledUp, activity time.Time, err error) {
	q, err := s.q.get("ReportFreshness")
	if err != nil {
		return rolledUp, activity, err
	}
	var r, a *time.Time
	err = s.pool.QueryRow(ctx, q).Scan(&r, &a)
	return utcOrZero(r), utcOrZero(a), interpretError("report freshness", err)
}
