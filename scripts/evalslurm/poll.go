package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Following the replayed jobs: scontrol reads and the wait until all are done.

func terminal(state string) bool {
	switch state {
	case "COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE":
		return true
	}
	return false
}

// activeJobs counts the jobs the cluster holds that have not ended.
func (r *replayer) activeJobs(ctx context.Context) (int, error) {
	js, err := r.scontrol(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, j := range js {
		if !terminal(j.State) {
			n++
		}
	}
	return n, nil
}

// scontrol reads every job slurmctld holds (ended jobs stay MinJobAge).
func (r *replayer) scontrol(ctx context.Context) ([]slurmJob, error) {
	out, err := r.slurm(ctx, "env", "TZ=UTC", "scontrol", "show", "job", "-d")
	if err != nil {
		return nil, err
	}
	return parseScontrol(out), nil
}

// parseScontrol parses `scontrol show job -d` (times in UTC).
func parseScontrol(out string) []slurmJob {
	var js []slurmJob
	for _, rec := range strings.Split(out, "\n\n") {
		if !strings.Contains(rec, "JobId=") {
			continue
		}
		var j slurmJob
		for _, f := range strings.Fields(rec) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			tm := func() (time.Time, bool) {
				t, err := time.ParseInLocation("2006-01-02T15:04:05", v, time.UTC)
				return t, err == nil
			}
			switch k {
			case "JobId":
				j.ID, _ = strconv.ParseInt(v, 10, 64)
			case "JobState":
				j.State = v
			case "Scheduler":
				j.Scheduler = v
			case "Reason":
				j.Reason = v
			case "SubmitTime":
				j.Submit, _ = tm()
			case "StartTime":
				j.Start, j.StartKnown = tm()
			case "EndTime":
				j.End, j.EndKnown = tm()
			case "JOB_GRES":
				if i := strings.LastIndexByte(v, ':'); i >= 0 {
					j.GPUs, _ = strconv.Atoi(strings.TrimFunc(v[i+1:], func(c rune) bool { return c < '0' || c > '9' }))
				}
			}
		}
		js = append(js, j)
	}
	return js
}

// pollUntilDone polls scontrol until every job was submitted and has
// ended, printing progress.
func (r *replayer) pollUntilDone(ctx context.Context, every time.Duration, submitted <-chan error) error {
	allIn := false
	var lastLog, stuckSince time.Time
	for {
		select {
		case err := <-submitted:
			if err != nil {
				return err
			}
			allIn = true
			submitted = nil
			logf("%s: all %d jobs submitted", r.policy, len(r.jobs))
		case <-ctx.Done():
			return fmt.Errorf("%s replay stopped before every job ended: %w", r.policy, ctx.Err())
		case <-time.After(every):
		}
		js, err := r.scontrol(ctx)
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			return err
		}
		if l, ok := loadAvg(); ok {
			r.loads = append(r.loads, l)
		}
		r.mu.Lock()
		pending, running, done := 0, 0, 0
		for _, j := range js {
			if _, ours := r.byID[j.ID]; ours {
				r.seen[j.ID] = j
			}
		}
		for id := range r.byID {
			switch j := r.seen[id]; {
			case terminal(j.State):
				done++
			case j.State == "RUNNING" || j.State == "COMPLETING":
				running++
			default:
				pending++
			}
		}
		n := len(r.byID)
		r.mu.Unlock()
		if time.Since(lastLog) >= 15*time.Second || allIn && done == n {
			logf("%s: t=%4.0fs submitted %d/%d, pending %d, running %d, done %d", r.policy, time.Since(r.t0).Seconds(), n, len(r.jobs), pending, running, done)
			lastLog = time.Now()
		}
		if allIn && done == n {
			return nil
		}
		// Jobs Slurm holds as never runnable (Reason=BadConstraints,
		// priority 0) wait for ever: once every job left is one, stop.
		if allIn && done < n && r.allStuck() {
			if stuckSince.IsZero() {
				stuckSince = time.Now()
			} else if time.Since(stuckSince) > 30*time.Second {
				logf("%s: the %d jobs left are never runnable (Reason=BadConstraints): stopping", r.policy, n-done)
				return nil
			}
		} else {
			stuckSince = time.Time{}
		}
	}
}

// allStuck reports whether every job that has not ended is pending with
// Reason=BadConstraints.
func (r *replayer) allStuck() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range r.byID {
		j := r.seen[id]
		if !terminal(j.State) && (j.State != "PENDING" || j.Reason != "BadConstraints") {
			return false
		}
	}
	return true
}

// loadAvg is the 1-minute load average.
func loadAvg() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return v, err == nil
}
