package slurm

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// Jobs slurmctld still lists after their end go to Snapshot.Ended with
// their start and end (the daemon and the collector record them, so that
// the site's model learns from every ended run: issue 33); the planner's
// Jobs keep only pending, running and suspended ones. A job cancelled
// before it started, or still completing, is in neither.
func TestEndedJobsGoToSnapshotEnded(t *testing.T) {
	at := func(s int64) noValV0042 { return noValV0042{Set: true, Number: s} }
	in := []jobWireV0042{
		{JobID: 1, JobState: []string{"COMPLETED"}, TresPerNode: "gres/gpu:2", SubmitTime: at(100), StartTime: at(110), EndTime: at(200)},
		{JobID: 2, JobState: []string{"TIMEOUT"}, TresPerNode: "gres/gpu:1", SubmitTime: at(100), StartTime: at(120), EndTime: at(180)},
		{JobID: 3, JobState: []string{"CANCELLED"}, TresPerNode: "gres/gpu:1", SubmitTime: at(100), StartTime: at(0), EndTime: at(150)},
		{JobID: 4, JobState: []string{"COMPLETING"}, TresPerNode: "gres/gpu:1", SubmitTime: at(100), StartTime: at(110), EndTime: at(190)},
		{JobID: 5, JobState: []string{"RUNNING"}, TresPerNode: "gres/gpu:1", SubmitTime: at(100), StartTime: at(130), EndTime: at(9999)},
		{JobID: 6, JobState: []string{"FAILED"}, TresPerNode: "gres/gpu:4", SubmitTime: at(100), StartTime: at(140), EndTime: at(141)},
	}
	jobs, _ := jobsFromV0042(in)
	s := buildSnapshot(time.Unix(300, 0), "c", jobs, nil, nil)
	type run struct {
		ID         int64
		State      planner.JobState
		Start, End int64
	}
	var ended, planned []run
	for _, j := range s.Ended {
		ended = append(ended, run{j.ID, j.State, j.StartTime.Unix(), j.EndTime.Unix()})
	}
	for _, j := range s.Jobs {
		planned = append(planned, run{ID: j.ID, State: j.State, Start: j.StartTime.Unix()})
		if !j.EndTime.IsZero() {
			t.Errorf("job %d (%s) carries an end time %v", j.ID, j.State, j.EndTime)
		}
	}
	want := []run{{1, "COMPLETED", 110, 200}, {2, "TIMEOUT", 120, 180}, {6, "FAILED", 140, 141}}
	if d := cmp.Diff(want, ended); d != "" {
		t.Errorf("Snapshot.Ended (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]run{{ID: 5, State: "RUNNING", Start: 130}}, planned); d != "" {
		t.Errorf("Snapshot.Jobs (-want +got):\n%s", d)
	}
}
