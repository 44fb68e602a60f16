package daemon

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/slurm"
)

// acctCluster is a Cluster that also reads slurmdbd (AccountingHistory).
type acctCluster struct {
	Cluster
	serves bool
	jobs   []slurm.FinishedJob
	err    error
	reads  int
}

func (a *acctCluster) ServesAccounting() bool { return a.serves }

func (a *acctCluster) FinishedJobs(_ context.Context, _ string, since, until time.Time) ([]slurm.FinishedJob, error) {
	a.reads++
	if a.err != nil {
		return nil, a.err
	}
	var out []slurm.FinishedJob
	for _, j := range a.jobs {
		if j.End.After(since) && !j.End.After(until) {
			out = append(out, j)
		}
	}
	return out, nil
}

func TestHistorySourceChoice(t *testing.T) {
	st := StoreOf(nil)
	for _, tc := range []struct {
		name   string
		option string
		cl     Cluster
		st     Store
		want   string // "" = none
	}{
		{"auto, slurmdbd served", HistoryAuto, &acctCluster{serves: true}, st, HistorySlurmdbd},
		{"auto, slurmdbd served, no database", "", &acctCluster{serves: true}, nil, HistorySlurmdbd},
		{"auto, no slurmdbd", HistoryAuto, &acctCluster{}, st, HistoryStrata},
		{"auto, a cluster without history", HistoryAuto, &fakeCluster{}, st, HistoryStrata},
		{"auto, neither", HistoryAuto, &acctCluster{}, nil, ""},
		{"slurmdbd asked, not served: tried (and its failure logged)", HistorySlurmdbd, &acctCluster{}, st, HistorySlurmdbd},
		{"strata asked, slurmdbd served", HistoryStrata, &acctCluster{serves: true}, st, HistoryStrata},
		{"strata asked, no database", HistoryStrata, &acctCluster{serves: true}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Daemon{opts: Options{HistorySource: tc.option}}
			got := ""
			if src := d.historySource(tc.cl, tc.st); src != nil {
				got = src.name()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("source (-want +got):\n%s", diff)
			}
		})
	}
}

// A slurmdbd outage keeps the predictions learned so far; the read is tried
// again the next cycle, not only after learnEvery.
func TestLearnFromSlurmdbdKeepsPredictionsThroughOutage(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	done := func(min int, end time.Time) slurm.FinishedJob {
		return slurm.FinishedJob{User: "bob", Name: "train", Partition: "gpu", GPUs: 1, State: "COMPLETED",
			Start: end.Add(-time.Duration(min) * time.Minute), End: end}
	}
	a := &acctCluster{serves: true, jobs: []slurm.FinishedJob{done(20, now.Add(-time.Hour)), done(20, now.Add(-30*time.Minute))}}
	src := slurmdbdHistory{a}
	var l learner
	pending := planner.Job{User: "bob", Name: "train", Partition: "gpu", GPUsPerNode: 1, Nodes: 1}
	predict := func() time.Duration {
		d, ok := l.predictor().Predict(&pending, 1)
		if !ok {
			return 0
		}
		return d
	}
	steps := []struct {
		name      string
		at        time.Duration // after now
		err       error
		wantReads int
		want      time.Duration
	}{
		{"first read", 0, nil, 1, 20 * time.Minute},
		{"before learnEvery: no read", time.Minute, nil, 1, 20 * time.Minute},
		{"slurmdbd down: predictions kept", learnEvery + time.Minute, slurm.ErrUnavailable, 2, 20 * time.Minute},
		{"still down: tried again at once", learnEvery + 2*time.Minute, slurm.ErrUnavailable, 3, 20 * time.Minute},
		{"back", learnEvery + 3*time.Minute, nil, 4, 20 * time.Minute},
	}
	for _, s := range steps {
		a.err = s.err
		err := l.learn(context.Background(), src, "c", now.Add(s.at), zerolog.Nop())
		if !errors.Is(err, s.err) {
			t.Errorf("%s: learn error %v, want %v", s.name, err, s.err)
		}
		if got := [2]any{a.reads, predict()}; got != [2]any{s.wantReads, s.want} {
			t.Errorf("%s: reads, prediction = %v, want %v", s.name, got, [2]any{s.wantReads, s.want})
		}
	}
}

// TestLearnTimesGenericNamesByLimit: slurmdbd's jobs carry their time
// limits to the predictor; on a site whose job names say nothing
// ("pod-0001", ...) and whose limits follow the runs, the limit's share
// answers once scored, and the log says which way answers and why.
func TestLearnTimesGenericNamesByLimit(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var jobs []slurm.FinishedJob
	for i := range 60 {
		run := time.Duration(1+i%7*5) * time.Hour
		end := now.Add(-time.Duration(200-i) * time.Hour)
		jobs = append(jobs, slurm.FinishedJob{User: "bob", Name: fmt.Sprintf("pod-%04d", i), Partition: "gpu", GPUs: 1,
			State: "COMPLETED", TimeLimit: 2 * run, Start: end.Add(-run), End: end})
	}
	var l learner
	var logs strings.Builder
	if err := l.learn(context.Background(), slurmdbdHistory{&acctCluster{serves: true, jobs: jobs}}, "c", now, zerolog.New(&logs)); err != nil {
		t.Fatal(err)
	}
	// A new pod of bob's asking 20 h: half of it, as bob's jobs use half.
	pending := planner.Job{User: "bob", Name: "pod-9999", Partition: "gpu", GPUsPerNode: 1, Nodes: 1, TimeLimit: 20 * time.Hour}
	if d, ok := l.predictor().Predict(&pending, 1); !ok || d < 9*time.Hour || d > 11*time.Hour {
		t.Errorf("predicted %v (%v): want about 10 h, half its limit", d, ok)
	}
	if b := l.predictor().(planner.PredictionBasis).Basis(&pending); !strings.Contains(b, "time limit") {
		t.Errorf("basis %q: want the limit's share named (the decision's detail)", b)
	}
	if !strings.Contains(logs.String(), `"best":"limit_share"`) {
		t.Errorf("log %s: want the limit's share named the best way", logs.String())
	}
}
