package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/sim"
)

// Replay is what one replay on the test cluster measured. Times are
// seconds from T0, the replay's time 0 (a job with submit_s = x was due at
// T0 + x).
type Replay struct {
	Policy string    `json:"policy"`
	T0     time.Time `json:"t0"`
	Jobs   []RJob    `json:"jobs"`
	// LoadAvg is the 1-minute load average sampled at every poll (mean and
	// max over the replay): the machine's contention.
	LoadMean float64 `json:"load_mean"`
	LoadMax  float64 `json:"load_max"`
	// StrataCycles and StrataCycleMeanMS: the daemon's cycles (smd only),
	// from its log.
	StrataCycles      int     `json:"strata_cycles,omitempty"`
	StrataCycleMeanMS float64 `json:"strata_cycle_mean_ms,omitempty"`
	WallS             float64 `json:"wall_s"`
	// NeverRunnable counts jobs Slurm held for ever (BadConstraints).
	NeverRunnable int `json:"never_runnable,omitempty"`
}

// RJob is one job of a replay.
type RJob struct {
	Index int   `json:"index"`
	JobID int64 `json:"job_id"`
	// Due is when the job was to be submitted, Submit when sbatch returned.
	Due    float64 `json:"due_s"`
	Submit float64 `json:"submit_s"`
	// Start and End are the batch script's own clock (sub-second): it
	// starts right after slurmd launched it and ends when its sleep ends.
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
	// SlurmStart and SlurmEnd are Slurm's StartTime and EndTime (whole
	// seconds), -1 when never seen.
	SlurmStart float64 `json:"slurm_start_s"`
	SlurmEnd   float64 `json:"slurm_end_s"`
	// GPUs is the allocation Slurm reports (JOB_GRES); ScriptGPUs what the
	// script computed from its environment and slept for.
	GPUs       int     `json:"gpus"`
	ScriptGPUs int     `json:"script_gpus"`
	Slept      float64 `json:"slept_s"`
	State      string  `json:"state"`
	// Scheduler is Slurm's record of who started the job (Main or
	// Backfill).
	Scheduler string `json:"scheduler,omitempty"`
}

type replayer struct {
	dir, policy, clusterScript, testDir, root, out string
	s                                              Settings
	jobs                                           []Job
	t0                                             time.Time
	mu                                             sync.Mutex
	rjobs                                          []RJob
	byID                                           map[int64]int
	seen                                           map[int64]slurmJob
	loads                                          []float64
	neverRunnable                                  int
}

func cmdReplay(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory written by prepare")
	policy := fs.String("policy", "slurm", "slurm (Slurm alone) or smd (strata run --enforce --policy smd in the loop)")
	strata := fs.String("strata", "bin/strata", "strata binary (smd)")
	dbURL := fs.String("database-url", os.Getenv("STRATA_TEST_DATABASE"), "Postgres for strata run (smd)")
	clusterScript := fs.String("cluster-script", "scripts/slurm-test-cluster.sh", "the test cluster's script")
	maxWall := fs.Duration("max-wall", 40*time.Minute, "give up after this long")
	poll := fs.Duration("poll", 2*time.Second, "how often scontrol is polled")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *policy != "slurm" && *policy != "smd" {
		return fmt.Errorf("-policy %q: want slurm or smd", *policy)
	}
	testDir := os.Getenv("SLURM_TEST_DIR")
	if *dir == "" || testDir == "" {
		return errors.New("need -dir and SLURM_TEST_DIR (source the test bed's env file)")
	}
	r := &replayer{dir: *dir, policy: *policy, clusterScript: *clusterScript, testDir: testDir,
		root: filepath.Join(testDir, "root"), byID: map[int64]int{}, seen: map[int64]slurmJob{}}
	r.out = filepath.Join(r.root, "tmp", "evalslurm", r.policy)
	if err := readJSON(*dir, "settings.json", &r.s); err != nil {
		return err
	}
	if err := readJSON(*dir, "jobs.json", &r.jobs); err != nil {
		return err
	}
	if err := r.writeScripts(); err != nil {
		return err
	}
	if n, err := r.activeJobs(ctx); err != nil {
		return err
	} else if n > 0 {
		return fmt.Errorf("the test cluster in %s has %d jobs: bring it up afresh (testbed.sh up wipes jobs)", testDir, n)
	}
	r.t0 = r.pickT0()
	logf("%s: %d jobs, time 0 at %s (aligned with slurmctld's priority recalculation)", r.policy, len(r.jobs), r.t0.Format("15:04:05"))
	ctx, cancel := context.WithTimeout(ctx, *maxWall)
	defer cancel()
	var daemon *exec.Cmd
	if r.policy == "smd" {
		var err error
		if daemon, err = r.startStrata(*strata, *dbURL); err != nil {
			return err
		}
		defer stopProcess(daemon)
	}
	errc := make(chan error, 1)
	go func() { errc <- r.submitAll(ctx) }()
	err := r.pollUntilDone(ctx, *poll, errc)
	if daemon != nil {
		stopProcess(daemon)
		daemon = nil
	}
	if err != nil {
		return err
	}
	return r.finish()
}

// writeScripts writes one batch script per job into the chroot: it finds
// the GPUs it got (per node × nodes: every request here is per node, and
// Strata keeps the per-node form when it resizes), sleeps its run time on
// that many GPUs, and records its own start, end and GPU count.
func (r *replayer) writeScripts() error {
	if err := os.RemoveAll(r.out); err != nil {
		return err
	}
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return fmt.Errorf("%w (is the test cluster up in %s?)", err, r.testDir)
	}
	if err := os.Chmod(r.out, 0o1777); err != nil {
		return err
	}
	inside := "/tmp/evalslurm/" + r.policy
	for _, j := range r.jobs {
		var b strings.Builder
		fmt.Fprintf(&b, "#!/bin/bash\n# evalslurm: trace job %s, %d GPUs requested; run times scaled 1/%g\n", j.TraceID, j.GPUs, r.s.Scale)
		b.WriteString("t0=$(date +%s.%N)\n")
		b.WriteString("g=$(( ${SLURM_GPUS_ON_NODE:-0} * ${SLURM_JOB_NUM_NODES:-1} ))\n")
		if j.GPUsPerJob > 0 { // a per-job request may spread unevenly: ask Slurm
			b.WriteString("g=$(scontrol show job -d \"$SLURM_JOB_ID\" | sed -n 's/.*JOB_GRES=gpu:\\([a-z0-9_]*:\\)\\{0,1\\}\\([0-9]*\\).*/\\2/p' | head -1)\n")
		}
		b.WriteString("case $g in\n")
		for g, d := range j.Durations {
			fmt.Fprintf(&b, "  %d) d=%.3f ;;\n", g+1, d)
		}
		fmt.Fprintf(&b, "  *) d=%.3f ;;\nesac\n", j.Durations[j.GPUs-1])
		b.WriteString("sleep \"$d\"\n")
		fmt.Fprintf(&b, "echo \"$SLURM_JOB_ID $g $t0 $(date +%%s.%%N) $d\" > %s/%d\n", inside, j.Index)
		if err := os.WriteFile(filepath.Join(r.out, fmt.Sprintf("job-%d.sh", j.Index)), []byte(b.String()), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// pickT0 is the first moment at least 5 s from now that is a whole number
// of PriorityCalcPeriods after slurmctld started (its priority
// recalculation runs then): the simulator recalculates at multiples of the
// period from time 0.
func (r *replayer) pickT0() time.Time {
	now := time.Now()
	earliest := now.Add(5 * time.Second)
	period := time.Duration(r.s.PriorityCalcPeriodMin) * time.Minute
	start, ok := slurmctldStart(r.root)
	if !ok {
		logf("warning: slurmctld's start time unknown: priority recalculations not aligned")
		return earliest
	}
	k := math.Ceil(earliest.Sub(start).Seconds() / period.Seconds())
	return start.Add(time.Duration(k) * period)
}

// slurmctldStart is when the chroot's slurmctld process started.
func slurmctldStart(root string) (time.Time, bool) {
	b, err := os.ReadFile(filepath.Join(root, "run/slurm/slurmctld.pid"))
	if err != nil {
		return time.Time{}, false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%s/stat", strings.TrimSpace(string(b))))
	if err != nil {
		return time.Time{}, false
	}
	f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseFloat(f[19], 64) // field 22: starttime, clock ticks after boot
	if err != nil {
		return time.Time{}, false
	}
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}, false
	}
	u, err := strconv.ParseFloat(strings.Fields(string(up))[0], 64)
	if err != nil {
		return time.Time{}, false
	}
	boot := time.Now().Add(-time.Duration(u * float64(time.Second)))
	return boot.Add(time.Duration(ticks / 100 * float64(time.Second))), true
}

// startStrata starts the daemon 3 s before time 0, so that it runs
// cycles before the first submission.
func (r *replayer) startStrata(bin, dbURL string) (*exec.Cmd, error) {
	if dbURL == "" {
		return nil, errors.New("smd needs -database-url (or STRATA_TEST_DATABASE)")
	}
	if os.Getenv("SLURM_REST_URL") == "" || os.Getenv("SLURM_JWT") == "" {
		return nil, errors.New("smd needs SLURM_REST_URL and SLURM_JWT (source the test bed's env file)")
	}
	time.Sleep(time.Until(r.t0.Add(-3 * time.Second)))
	logf("smd: starting strata run --enforce --policy smd --interval %ds", r.s.StrataInterval)
	log, err := os.Create(filepath.Join(r.dir, "strata-smd.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--config", filepath.Join(r.dir, "strata.toml"), "run", "--enforce", "--policy", "smd",
		"--interval", fmt.Sprintf("%ds", r.s.StrataInterval), "--database-url", dbURL,
		"--metrics-listen", "", "--compare", "")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { _ = cmd.Wait(); log.Close() }()
	return cmd, nil
}

// stopProcess sends SIGTERM and waits up to 15 s for the process to go.
func stopProcess(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	for range 150 {
		if cmd.Process.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
}

// slurm runs a command inside the test cluster's chroot.
func (r *replayer) slurm(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, r.clusterScript, append([]string{"exec"}, args...)...)
	cmd.Env = append(os.Environ(), "SLURM_TEST_DIR="+r.testDir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// submitAll submits every job at T0 + its submit time, as its user.
func (r *replayer) submitAll(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(r.jobs))
	for k, j := range r.jobs {
		due := r.t0.Add(time.Duration(j.Submit * float64(time.Second)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(due)):
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.submit(ctx, k, j); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs // nil when none
}

func (r *replayer) submit(ctx context.Context, k int, j Job) error {
	spec, _ := sim.ParseCluster(r.s.Cluster)
	args := []string{"runuser", "-u", j.User, "--", "sbatch", "--parsable", "-D", "/tmp", "-o", "/dev/null",
		"-J", j.Name, "-p", spec.Partition, "-N", strconv.Itoa(j.Nodes), "-t", strconv.Itoa(j.LimitMin)}
	if r.s.JobCPUs == "per-gpu" {
		args = append(args, "--cpus-per-gpu", strconv.Itoa(spec.CPUsPerNode/spec.GPUsPerNode),
			"--mem-per-gpu", strconv.FormatInt(spec.MemoryMBPerNode/int64(spec.GPUsPerNode), 10))
	}
	if j.GPUsPerNode > 0 {
		args = append(args, "--gres", fmt.Sprintf("gpu:%s:%d", spec.GPUType, j.GPUsPerNode))
	} else {
		args = append(args, "--gpus", fmt.Sprintf("%s:%d", spec.GPUType, j.GPUsPerJob))
	}
	if j.Comment != "" {
		args = append(args, "--comment", j.Comment)
	}
	args = append(args, fmt.Sprintf("/tmp/evalslurm/%s/job-%d.sh", r.policy, j.Index))
	out, err := r.slurm(ctx, args...)
	at := time.Since(r.t0).Seconds()
	if err != nil {
		return fmt.Errorf("submit job %d (trace %s): %w", j.Index, j.TraceID, err)
	}
	id, err := strconv.ParseInt(strings.TrimSpace(strings.Split(strings.TrimSpace(out), ";")[0]), 10, 64)
	if err != nil {
		return fmt.Errorf("submit job %d: sbatch printed %q", j.Index, out)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rjobs = append(r.rjobs, RJob{Index: j.Index, JobID: id, Due: j.Submit, Submit: at, Start: -1, End: -1, SlurmStart: -1, SlurmEnd: -1})
	r.byID[id] = len(r.rjobs) - 1
	return nil
}

// slurmJob is what scontrol show job -d says about one job.
type slurmJob struct {
	ID                       int64
	State, Scheduler, Reason string
	Submit, Start, End       time.Time
	GPUs                     int
	StartKnown, EndKnown     bool
}

// finish merges Slurm's records and the scripts' own, and writes
// DIR/replay-POLICY.json.
func (r *replayer) finish() error {
	rel := func(t time.Time) float64 { return round3(t.Sub(r.t0).Seconds()) }
	missing := 0
	for k := range r.rjobs {
		rj := &r.rjobs[k]
		sj := r.seen[rj.JobID]
		rj.State, rj.GPUs, rj.Scheduler = sj.State, sj.GPUs, sj.Scheduler
		if sj.State == "PENDING" && sj.Reason == "BadConstraints" {
			rj.State = "NEVER_RUNNABLE"
			r.neverRunnable++
		}
		if sj.StartKnown {
			rj.SlurmStart = rel(sj.Start)
		}
		if sj.EndKnown {
			rj.SlurmEnd = rel(sj.End)
		}
		b, err := os.ReadFile(filepath.Join(r.out, strconv.Itoa(rj.Index)))
		if err != nil {
			missing++
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 5 {
			missing++
			continue
		}
		rj.ScriptGPUs, _ = strconv.Atoi(f[1])
		t0, _ := strconv.ParseFloat(f[2], 64)
		t1, _ := strconv.ParseFloat(f[3], 64)
		rj.Slept, _ = strconv.ParseFloat(f[4], 64)
		unix := float64(r.t0.UnixNano()) / 1e9
		rj.Start, rj.End = round3(t0-unix), round3(t1-unix)
	}
	rep := Replay{Policy: r.policy, T0: r.t0, Jobs: r.rjobs, WallS: round3(time.Since(r.t0).Seconds()), NeverRunnable: r.neverRunnable}
	for _, l := range r.loads {
		rep.LoadMean += l / float64(len(r.loads))
		rep.LoadMax = max(rep.LoadMax, l)
	}
	rep.LoadMean = round3(rep.LoadMean)
	if r.policy == "smd" {
		rep.StrataCycles, rep.StrataCycleMeanMS = strataCycles(filepath.Join(r.dir, "strata-smd.log"))
	}
	sortRJobs(rep.Jobs)
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(r.dir, "replay-"+r.policy+".json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	logf("%s: wrote %s (%d jobs, %d without the script's record, load mean %.2f max %.2f)", r.policy, path, len(rep.Jobs), missing, rep.LoadMean, rep.LoadMax)
	return nil
}

func sortRJobs(js []RJob) {
	for i := 1; i < len(js); i++ {
		for k := i; k > 0 && js[k].Index < js[k-1].Index; k-- {
			js[k], js[k-1] = js[k-1], js[k]
		}
	}
}

// strataCycles counts the daemon's cycles and their mean duration from its
// log lines with duration=.
func strataCycles(path string) (int, float64) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	n, sum := 0, 0.0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		key := "duration_ms=" // the daemon's cycle line: duration_ms=30.38
		i := strings.Index(line, key)
		if i < 0 {
			key = "duration="
			i = strings.Index(line, key)
		}
		if i < 0 || !strings.Contains(line, "cycle") {
			continue
		}
		v := strings.Fields(line[i+len(key):])[0]
		if d, err := time.ParseDuration(strings.Trim(v, `"`)); err == nil {
			n++
			sum += float64(d.Microseconds()) / 1000
		} else if ms, err := strconv.ParseFloat(v, 64); err == nil {
			n++
			sum += ms
		}
	}
	if n == 0 {
		return 0, 0
	}
	return n, round3(sum / float64(n))
}
