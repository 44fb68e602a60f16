package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-hpc/strata/planner/history"
	"github.com/strata-hpc/strata/slurm"
)

// Sources of the duration predictor's history (--history-source).
const (
	// HistoryAuto: slurmdbd when slurmrestd serves /slurmdb, else Strata's
	// records. Not both: slurmdbd already has every job the collector saw.
	HistoryAuto = "auto"
	// HistorySlurmdbd: slurmdbd's job records, through slurmrestd.
	HistorySlurmdbd = "slurmdbd"
	// HistoryStrata: the collector's job records in Postgres.
	HistoryStrata = "strata"
)

// HistorySources are the values of --history-source.
var HistorySources = []string{HistoryAuto, HistorySlurmdbd, HistoryStrata}

// AccountingHistory is what the daemon reads from slurmdbd, part of its
// Cluster (passed explicitly, not discovered by type assertion);
// *slurm.Client satisfies it.
type AccountingHistory interface {
	// ServesAccounting says whether slurmrestd serves /slurmdb.
	ServesAccounting() bool
	// FinishedJobs lists the jobs that completed in (since, until],
	// oldest first.
	FinishedJobs(ctx context.Context, cluster string, since, until time.Time) ([]slurm.FinishedJob, error)
}

// finishedJob is one completed job for the estimator, with its end time
// (the next read starts after it).
type finishedJob struct {
	history.Record
	End time.Time
}

// historySource is where the learner reads completed jobs.
type historySource interface {
	name() string
	// finished lists jobs that completed after since, oldest first, at
	// most about limit (a source may return more).
	finished(ctx context.Context, cluster string, since, now time.Time, limit int) ([]finishedJob, error)
}

type storeHistory struct{ st Store }

func (storeHistory) name() string { return HistoryStrata }

func (s storeHistory) finished(ctx context.Context, cluster string, since, _ time.Time, limit int) ([]finishedJob, error) {
	jobs, err := s.st.FinishedJobs(ctx, cluster, since, limit)
	if err != nil {
		return nil, err
	}
	out := make([]finishedJob, len(jobs))
	for i, j := range jobs {
		out[i] = finished(j.User, j.Name, j.Partition, j.GPUs, j.TimeLimit, j.Start, j.End)
	}
	return out, nil
}

// finished is a completed job as the estimator and the learner take it.
func finished(user, name, partition string, gpus int, limit time.Duration, start, end time.Time) finishedJob {
	return finishedJob{history.Record{User: user, Name: name, Partition: partition, GPUs: gpus, Duration: end.Sub(start), Limit: limit}, end}
}

type slurmdbdHistory struct{ h AccountingHistory }

func (slurmdbdHistory) name() string { return HistorySlurmdbd }

// finished reads up to a minute past now: slurmctld's clock, which stamps
// the end times, may run ahead of the snapshot's.
func (s slurmdbdHistory) finished(ctx context.Context, cluster string, since, now time.Time, _ int) ([]finishedJob, error) {
	jobs, err := s.h.FinishedJobs(ctx, cluster, since, now.Add(time.Minute))
	if err != nil {
		return nil, err
	}
	out := make([]finishedJob, len(jobs))
	for i, j := range jobs {
		out[i] = finished(j.User, j.Name, j.Partition, j.GPUs, j.TimeLimit, j.Start, j.End)
	}
	return out, nil
}

// historySource picks this cycle's source from --history-source, the Slurm
// client and the store (nil: no database); nil when there is none.
func (d *Daemon) historySource(cl Cluster, st Store) historySource {
	var acct AccountingHistory = cl
	switch d.opts.HistorySource {
	case HistorySlurmdbd:
		if cl != nil {
			return slurmdbdHistory{acct}
		}
	case HistoryStrata:
		if st != nil {
			return storeHistory{st}
		}
	default:
		if cl != nil && acct.ServesAccounting() {
			return slurmdbdHistory{acct}
		}
		if st != nil {
			return storeHistory{st}
		}
	}
	return nil
}

// learnHistory feeds the duration predictor from this cycle's source.
// slurmdbd gets longer than a database round: its first read spans 90 days.
func (d *Daemon) learnHistory(ctx context.Context, cl Cluster, st Store, cluster string, now time.Time) {
	src := d.historySource(cl, st)
	if src == nil {
		return
	}
	timeout := d.opts.dbTimeout()
	if src.name() == HistorySlurmdbd {
		timeout = max(timeout, time.Minute)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := d.hist.learn(ctx, src, cluster, now, d.log); err != nil {
		d.m.errors.WithLabelValues(string(StageHistory)).Inc()
	}
}

func validHistorySource(s string) error {
	for _, v := range HistorySources {
		if s == v || s == "" {
			return nil
		}
	}
	return fmt.Errorf("--history-source %q: choose one of %v", s, HistorySources)
}
