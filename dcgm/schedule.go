package dcgm

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"
)

// ScheduledJob is a job of a recorded schedule: what Slurm would report for
// it (identity, accounting fields, GPU indices per node) and when it ran.
// EnergyJ, when set, is the known true GPU energy of the job (recordings
// synthesised by dcgmtest), for checking rollups.
type ScheduledJob struct {
	Job       int64        `json:"job"`
	Name      string       `json:"name"`
	User      string       `json:"user"`
	Account   string       `json:"account"`
	Partition string       `json:"partition"`
	Submit    time.Time    `json:"submit"`
	Start     time.Time    `json:"start"`
	End       time.Time    `json:"end"`
	Allocs    []SlurmAlloc `json:"allocs"`
	EnergyJ   float64      `json:"energy_j,omitempty"`
}

// Schedule is a recorded sequence of jobs, the replay counterpart of
// reading running jobs' gres_detail from Slurm.
type Schedule struct {
	Jobs []ScheduledJob `json:"jobs"`
}

// ReadSchedule reads a schedule from a JSON file.
func ReadSchedule(path string) (Schedule, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Schedule{}, fmt.Errorf("read schedule: %w", err)
	}
	var s Schedule
	if err := json.Unmarshal(b, &s); err != nil {
		return Schedule{}, fmt.Errorf("read schedule %s: %w", path, err)
	}
	sort.Slice(s.Jobs, func(i, j int) bool { return s.Jobs[i].Job < s.Jobs[j].Job })
	return s, nil
}

// Shifted returns a copy with every time moved by d (to follow a
// ReplayConfig.Shift).
func (s Schedule) Shifted(d time.Duration) Schedule {
	out := Schedule{Jobs: make([]ScheduledJob, len(s.Jobs))}
	for i, j := range s.Jobs {
		j.Submit, j.Start, j.End = j.Submit.Add(d), j.Start.Add(d), j.End.Add(d)
		out.Jobs[i] = j
	}
	return out
}

// Active returns the allocations (IndexKind ByMinor) of the jobs running at
// t, that is Start ≤ t < End, in job order.
func (s Schedule) Active(t time.Time) []SlurmAlloc {
	var out []SlurmAlloc
	for _, j := range s.Jobs {
		if t.Before(j.Start) || !t.Before(j.End) {
			continue
		}
		for _, a := range j.Allocs {
			a.Job = j.Job
			out = append(out, a)
		}
	}
	return out
}
