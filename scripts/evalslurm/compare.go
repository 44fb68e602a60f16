package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/sim"
)

// Comparison is one policy's replay against the simulator. Times are in
// trace seconds (real seconds × Scale) unless named _real_s.
type Comparison struct {
	// Config is the label of the configuration (Settings.Label).
	Config string `json:"config"`
	Policy string `json:"policy"`
	Jobs   int    `json:"jobs"`
	// AvgJCT: end − submit, averaged; JCTRatio = replay / simulator.
	ReplayAvgJCT float64 `json:"replay_avg_jct_s"`
	SimAvgJCT    float64 `json:"sim_avg_jct_s"`
	JCTRatio     float64 `json:"jct_ratio"`
	// Spearman is the rank correlation of the jobs' start times.
	Spearman         float64 `json:"spearman_start"`
	ReplayMakespan   float64 `json:"replay_makespan_s"`
	SimMakespan      float64 `json:"sim_makespan_s"`
	ReplayAvgQueue   float64 `json:"replay_avg_queue_s"`
	SimAvgQueue      float64 `json:"sim_avg_queue_s"`
	MeanAbsStartDiff float64 `json:"mean_abs_start_diff_s"`
	// GPUMismatch counts jobs that started on another GPU count than the
	// simulator's; ReplayChanged and SimChanged those that started on
	// another count than they asked for.
	GPUMismatch   int `json:"gpu_mismatch"`
	ReplayChanged int `json:"replay_changed_gpus"`
	SimChanged    int `json:"sim_changed_gpus"`
	// The simulator given the replay's actual submission times (sbatch
	// returned) instead of the due times: what submission lag explains.
	SimActualAvgJCT   float64 `json:"sim_actual_submit_avg_jct_s"`
	SpearmanActual    float64 `json:"spearman_start_actual_submit"`
	JCTRatioActual    float64 `json:"jct_ratio_actual_submit"`
	SimBackfilled     int     `json:"-"`
	ReplayBackfilled  int     `json:"replay_backfilled"`
	TimeLimitKills    int     `json:"replay_time_limit_kills"`
	SimTimeLimitKills int     `json:"sim_time_limit_kills"`
	// Overheads of the real cluster, in real seconds: submission lag (sbatch
	// returned − due), launch (the script's start − Slurm's StartTime,
	// whole seconds), the job's run beyond its sleep, and the load.
	SubmitLagReal float64 `json:"submit_lag_real_s"`
	// Start latencies of the real cluster (real seconds, median): for jobs
	// the simulator starts on arrival, real start − submission; for jobs it
	// starts when others end, real start − those jobs' real end.
	ArrivalLatencyReal    float64 `json:"arrival_start_latency_real_s"`
	CompletionLatencyReal float64 `json:"completion_start_latency_real_s"`
	ArrivalStarts         int     `json:"arrival_starts"`
	CompletionStarts      int     `json:"completion_starts"`
	LaunchReal            float64 `json:"launch_real_s"`
	RunOverReal           float64 `json:"run_overhead_real_s"`
	LoadMean              float64 `json:"load_mean"`
	LoadMax               float64 `json:"load_max"`
	WallReal              float64 `json:"wall_real_s"`
	StrataCycles          int     `json:"strata_cycles,omitempty"`
	StrataCycleMS         float64 `json:"strata_cycle_mean_ms,omitempty"`
	StrataWrites          int     `json:"sim_strata_writes,omitempty"`
	FailedOrKilled        int     `json:"replay_not_completed"`
	// NeverRunnable: jobs Slurm held for ever after Strata's rewrite
	// (BadConstraints), left out of every statistic.
	NeverRunnable int `json:"replay_never_runnable"`
	// PerJob: trace id, submit, start, end and GPUs on both sides.
	PerJob []JobPair `json:"per_job"`
}

// JobPair is one job on both sides (trace seconds).
type JobPair struct {
	TraceID     string  `json:"trace_id"`
	Submit      float64 `json:"submit_s"`
	ReplayStart float64 `json:"replay_start_s"`
	ReplayEnd   float64 `json:"replay_end_s"`
	ReplayGPUs  int     `json:"replay_gpus"`
	SimStart    float64 `json:"sim_start_s"`
	SimEnd      float64 `json:"sim_end_s"`
	SimGPUs     int     `json:"sim_gpus"`
}

// Evaluation is docs/evaluation-slurm.json.
type Evaluation struct {
	Generated   string       `json:"generated"`
	Commit      string       `json:"commit,omitempty"`
	Configs     []Settings   `json:"configs"`
	Comparisons []Comparison `json:"comparisons"`
	// Sensitivity: the simulator on the unscaled trace subset with the
	// settings that could not be scaled exactly at their scaled value vs
	// the model's defaults (avg JCT, s).
	Sensitivity []Sensitivity `json:"sensitivity"`
}

// Sensitivity is one what-if of the unscaled model.
type Sensitivity struct {
	Policy  string  `json:"policy"`
	What    string  `json:"what"`
	AvgJCT  float64 `json:"avg_jct_s"`
	Default float64 `json:"default_avg_jct_s"`
}

func cmdCompare(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	dir := fs.String("dir", "", "directories written by prepare and replay, comma-separated (one per configuration)")
	jsonOut := fs.String("json", "docs/evaluation-slurm.json", "where to write the numbers")
	doc := fs.String("doc", "docs/evaluation.d/10-slurm-model.md", "doc whose generated table is replaced ('' = none)")
	commit := fs.String("commit", "", "commit the replays ran at (recorded)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return errors.New("need -dir")
	}
	ev := Evaluation{Generated: time.Now().UTC().Format("2006-01-02T15:04Z"), Commit: *commit}
	for _, d := range strings.Split(*dir, ",") {
		var s Settings
		if err := readJSON(d, "settings.json", &s); err != nil {
			return err
		}
		var jobs []Job
		if err := readJSON(d, "jobs.json", &jobs); err != nil {
			return err
		}
		ev.Configs = append(ev.Configs, s)
		for _, p := range []string{"slurm", "smd"} {
			var rep Replay
			if err := readJSON(d, "replay-"+p+".json", &rep); err != nil {
				logf("compare: %s: no %s replay: skipped", d, p)
				continue
			}
			c, err := compareOne(ctx, d, s, jobs, rep)
			if err != nil {
				return err
			}
			c.Config = s.Label
			logf("compare %s %s: avg JCT replay %.0f s, simulator %.0f s (ratio %.3f); Spearman of starts %.3f; GPU counts differ on %d jobs",
				s.Label, p, c.ReplayAvgJCT, c.SimAvgJCT, c.JCTRatio, c.Spearman, c.GPUMismatch)
			ev.Comparisons = append(ev.Comparisons, c)
		}
	}
	if len(ev.Comparisons) == 0 {
		return errors.New("no replay to compare: run evalslurm replay first")
	}
	var err error
	if ev.Sensitivity, err = sensitivity(ctx, ev.Configs[0]); err != nil {
		return err
	}
	b, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
		return err
	}
	logf("compare: wrote %s", *jsonOut)
	if *doc != "" {
		if err := updateDoc(*doc, ev); err != nil {
			return err
		}
		logf("compare: updated the generated table in %s", *doc)
	}
	return nil
}

// simConfig is the simulator's configuration for the scaled jobs: the
// same scaled settings the test cluster runs with, in real seconds.
func simConfig(s Settings, truth sim.Truth) (sim.Config, error) {
	cs, err := sim.ParseCluster(s.Cluster)
	if err != nil {
		return sim.Config{}, err
	}
	sec := func(v int) time.Duration { return time.Duration(v) * time.Second }
	sc := sim.DefaultSlurmConfig()
	sc.SchedInterval, sc.BFInterval, sc.BFResolution = sec(s.SchedInterval), sec(s.BFInterval), sec(s.BFResolution)
	// 0 means "the default" (3 s) to the model: a microsecond is 0 here.
	sc.BatchSchedDelay = max(sec(s.BatchSchedDelay), time.Microsecond)
	sc.BFWindow = time.Duration(s.BFWindowMin) * time.Minute
	sc.PriorityWeightAge, sc.PriorityWeightJobSize = s.PriorityWeightAge, s.PriorityWeightJobSize
	sc.PriorityCalcPeriod = time.Duration(s.PriorityCalcPeriodMin) * time.Minute
	sc.TimeLimitFactor = s.TimeLimitFactor
	return sim.Config{Cluster: cs, Scheduler: sim.SchedulerSlurm, Slurm: sc, Truth: truth,
		Interval: sec(s.StrataInterval)}, nil
}

// simulate runs policy p over tr with cfg and the planner options strata
// run had in the replay: the site's defaults (planner.SiteDefaults: the
// default caps on gpus= ranges, the nice priority mode, …) with what
// strata.toml sets (strataConf: the node size and the GPU type's speed
// factor), and calibration on, as strata run with a database. Before, the
// simulator planned with bare options (no caps, absolute priorities) and
// chose GPU counts the daemon could not.
func simulate(ctx context.Context, cfg sim.Config, tr *sim.Trace, p string, gpuSpeed float64) (*sim.Result, error) {
	o := planner.SiteDefaults()
	o.NodeGPUs = cfg.Cluster.GPUsPerNode
	if gpuSpeed > 0 && cfg.Cluster.GPUType != "" {
		o.GPUSpeed = map[string]float64{cfg.Cluster.GPUType: gpuSpeed}
	}
	cfg.Planner, cfg.Calibrate = &o, true
	return sim.RunNamed(ctx, cfg, tr, p)
}

// scaledTrace reads DIR/trace-scaled.csv.
func scaledTrace(dir string) (*sim.Trace, error) {
	f, err := os.Open(filepath.Join(dir, "trace-scaled.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return sim.ReadTrace(f, sim.ReadOptions{})
}

func compareOne(ctx context.Context, dir string, s Settings, jobs []Job, rep Replay) (Comparison, error) {
	c := Comparison{Policy: rep.Policy, NeverRunnable: rep.NeverRunnable, LoadMean: rep.LoadMean, LoadMax: rep.LoadMax, WallReal: rep.WallS,
		StrataCycles: rep.StrataCycles, StrataCycleMS: rep.StrataCycleMeanMS}
	_, truth, err := loadInputs(s)
	if err != nil {
		return c, err
	}
	tr, err := scaledTrace(dir)
	if err != nil {
		return c, err
	}
	cfg, err := simConfig(s, truth)
	if err != nil {
		return c, err
	}
	res, err := simulate(ctx, cfg, tr, rep.Policy, s.GPUSpeed)
	if err != nil {
		return c, err
	}
	c.StrataWrites = res.Writes
	simBy := map[string]sim.JobOutcome{}
	for _, o := range res.Outcomes {
		simBy[o.ID] = o
	}
	repBy := map[int]RJob{}
	for _, j := range rep.Jobs {
		repBy[j.Index] = j
	}
	// The same jobs submitted when sbatch actually returned.
	actual := &sim.Trace{Jobs: append([]sim.TraceJob(nil), tr.Jobs...)}
	byTrace := map[string]int{}
	for k := range actual.Jobs {
		byTrace[actual.Jobs[k].ID] = k
	}
	rs, ss, re, se, rSub, sSub, lag, launch, over := c.pairJobs(jobs, repBy, simBy, actual, byTrace, s.Scale)
	c.Jobs = len(rs)
	if c.Jobs < 2 {
		return c, fmt.Errorf("%s: only %d jobs both ran in the replay and in the simulator", rep.Policy, c.Jobs)
	}
	sc := s.Scale
	c.ReplayAvgJCT, c.SimAvgJCT = round1(mean(diff(re, rSub))*sc), round1(mean(diff(se, sSub))*sc)
	c.JCTRatio = round3(c.ReplayAvgJCT / c.SimAvgJCT)
	c.Spearman = round3(spearman(rs, ss))
	c.ReplayMakespan, c.SimMakespan = round1(span(rSub, re)*sc), round1(span(sSub, se)*sc)
	c.ReplayAvgQueue, c.SimAvgQueue = round1(mean(diff(rs, rSub))*sc), round1(mean(diff(ss, sSub))*sc)
	c.MeanAbsStartDiff = round1(mean(absd(diff(rs, ss))) * sc)
	c.SubmitLagReal, c.LaunchReal, c.RunOverReal = round3(mean(lag)), round3(mean(launch)), round3(mean(over))
	arr, comp := startLatencies(c.PerJob)
	c.ArrivalStarts, c.CompletionStarts = len(arr), len(comp)
	c.ArrivalLatencyReal, c.CompletionLatencyReal = round3(median(arr)/sc), round3(median(comp)/sc)

	return c, c.withActualSubmits(ctx, cfg, actual, rep.Policy, s, rs)
}

// withActualSubmits simulates the jobs again as they were really submitted
// (when sbatch returned) and sets the comparison with that run: its average
// JCT and the rank correlation of starts with the replay's rs.
func (c *Comparison) withActualSubmits(ctx context.Context, cfg sim.Config, actual *sim.Trace, policy string, s Settings, rs []float64) error {
	resA, err := simulate(ctx, cfg, actual, policy, s.GPUSpeed)
	if err != nil {
		return err
	}
	aBy := map[string]sim.JobOutcome{}
	for _, o := range resA.Outcomes {
		aBy[o.ID] = o
	}
	var as, ajct []float64
	for _, p := range c.PerJob {
		o := aBy[p.TraceID]
		as = append(as, o.Start)
		ajct = append(ajct, o.End-o.Submit)
	}
	c.SimActualAvgJCT = round1(mean(ajct) * s.Scale)
	c.JCTRatioActual = round3(c.ReplayAvgJCT / c.SimActualAvgJCT)
	c.SpearmanActual = round3(spearman(rs, as))
	return nil
}

// diff is a − b element by element.
func diff(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// absd replaces v's elements by their absolute values.
func absd(v []float64) []float64 {
	for i := range v {
		v[i] = math.Abs(v[i])
	}
	return v
}

// startLatencies splits the jobs by what started them in the simulator
// (their arrival, or other jobs' ends at that instant) and returns how long
// after the same event the real cluster started them (trace seconds).
func startLatencies(ps []JobPair) (arrival, completion []float64) {
	ends := map[float64][]JobPair{}
	for _, p := range ps {
		ends[p.SimEnd] = append(ends[p.SimEnd], p)
	}
	for _, p := range ps {
		if p.SimStart == p.Submit {
			arrival = append(arrival, p.ReplayStart-p.Submit)
			continue
		}
		if by, ok := ends[p.SimStart]; ok {
			last := math.Inf(-1)
			for _, q := range by {
				last = max(last, q.ReplayEnd)
			}
			completion = append(completion, p.ReplayStart-last)
		}
	}
	return arrival, completion
}

// human writes a duration as "60 min", "60 s" or "0 s".
func human(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", int(d/time.Minute))
	}
	return fmt.Sprintf("%g s", d.Seconds())
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// sensitivity runs the model on the unscaled subset: the defaults, then
// each setting the scaled replay could not scale exactly set to what the
// replay's value stands for in trace time.
func sensitivity(ctx context.Context, s Settings) ([]Sensitivity, error) {
	tr, truth, err := loadInputs(s)
	if err != nil {
		return nil, err
	}
	cs, err := sim.ParseCluster(s.Cluster)
	if err != nil {
		return nil, err
	}
	type variant struct {
		what string
		set  func(*sim.SlurmConfig, *sim.Config)
	}
	asTrace := func(realSec int) time.Duration { return time.Duration(float64(realSec)*s.Scale) * time.Second }
	vs := []variant{
		{fmt.Sprintf("PriorityCalcPeriod %s (%d min at 1/%g) instead of 5 min", human(asTrace(60*s.PriorityCalcPeriodMin)), s.PriorityCalcPeriodMin, s.Scale),
			func(c *sim.SlurmConfig, _ *sim.Config) { c.PriorityCalcPeriod = asTrace(60 * s.PriorityCalcPeriodMin) }},
		{fmt.Sprintf("bf_interval %s (%d s at 1/%g) instead of 30 s", human(asTrace(s.BFInterval)), s.BFInterval, s.Scale),
			func(c *sim.SlurmConfig, _ *sim.Config) { c.BFInterval = asTrace(s.BFInterval) }},
		{fmt.Sprintf("batch_sched_delay %s (%d s at 1/%g) instead of 3 s", human(asTrace(s.BatchSchedDelay)), s.BatchSchedDelay, s.Scale),
			func(c *sim.SlurmConfig, _ *sim.Config) {
				c.BatchSchedDelay = max(asTrace(s.BatchSchedDelay), time.Microsecond)
			}},
		{"time limits of the replay (2 × the scaled duration, whole minutes, ≥ 1 min), in trace time",
			nil},
		{"PriorityWeightAge 0 (the test cluster has no slurmdbd) instead of 1000",
			func(c *sim.SlurmConfig, _ *sim.Config) { c.PriorityWeightAge = 0 }},
		{"PriorityWeightJobSize 0 (configuration no-cpus) instead of 1000",
			func(c *sim.SlurmConfig, _ *sim.Config) { c.PriorityWeightJobSize = 0 }},
	}
	var out []Sensitivity
	for _, p := range []string{"slurm", "smd"} {
		cfg := sim.Config{Cluster: cs, Scheduler: sim.SchedulerSlurm, Slurm: sim.DefaultSlurmConfig(), Truth: truth, Interval: time.Minute}
		base, err := simulate(ctx, cfg, tr, p, 0)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			c := cfg
			t := tr
			if v.set != nil {
				v.set(&c.Slurm, &c)
			} else { // the scaled limits, unscaled
				t = &sim.Trace{Jobs: append([]sim.TraceJob(nil), tr.Jobs...)}
				for k := range t.Jobs {
					d := t.Jobs[k].Duration / s.Scale
					t.Jobs[k].TimeLimit = float64(60*max(1, int(math.Ceil(d*s.TimeLimitFactor/60-1e-9)))) * s.Scale
				}
			}
			r, err := simulate(ctx, c, t, p, 0)
			if err != nil {
				return nil, err
			}
			out = append(out, Sensitivity{Policy: p, What: v.what, AvgJCT: r.AvgJCT, Default: base.AvgJCT})
		}
	}
	return out, nil
}

// Markers around the generated part of the doc section.
const (
	docTitle = "## Slurm model vs the real Slurm (make evaluate-slurm)"
	genBegin = "<!-- evaluate-slurm: generated table, do not edit -->"
	genEnd   = "<!-- evaluate-slurm: end of generated table -->"
)

// pairJobs pairs each job's replay with its simulation, counts what
// differs into c (kills, failures, GPU counts, backfill), sets the actual
// submit times in actual, and returns the series compareOne needs: replay
// and simulated starts, ends and submits, submit lag, launch delay and the
// run's overhead.
func (c *Comparison) pairJobs(jobs []Job, repBy map[int]RJob, simBy map[string]sim.JobOutcome, actual *sim.Trace,
	byTrace map[string]int, scale float64) (rs, ss, re, se, rSub, sSub, lag, launch, over []float64) {
	for _, j := range jobs {
		rj, ok1 := repBy[j.Index]
		so, ok2 := simBy[j.TraceID]
		if so.Killed {
			c.SimTimeLimitKills++
		}
		if !ok1 || !ok2 || rj.Start < 0 || rj.End < 0 || so.Start < 0 || so.End < 0 {
			c.FailedOrKilled++
			continue
		}
		if rj.State != "COMPLETED" {
			c.FailedOrKilled++
		}
		if rj.State == "TIMEOUT" {
			c.TimeLimitKills++
		}
		if k, ok := byTrace[j.TraceID]; ok {
			actual.Jobs[k].Submit = rj.Submit
		}
		rs, re, rSub = append(rs, rj.Start), append(re, rj.End), append(rSub, rj.Submit)
		ss, se, sSub = append(ss, so.Start), append(se, so.End), append(sSub, so.Submit)
		lag = append(lag, rj.Submit-rj.Due)
		if rj.SlurmStart >= 0 {
			launch = append(launch, rj.Start-rj.SlurmStart)
		}
		over = append(over, rj.End-rj.Start-rj.Slept)
		if rj.GPUs != so.GPUs {
			c.GPUMismatch++
		}
		if rj.GPUs != j.GPUs {
			c.ReplayChanged++
		}
		if so.GPUs != j.GPUs {
			c.SimChanged++
		}
		if rj.Scheduler == "Backfill" {
			c.ReplayBackfilled++
		}
		c.PerJob = append(c.PerJob, JobPair{TraceID: j.TraceID, Submit: round1(j.Submit * scale),
			ReplayStart: round1(rj.Start * scale), ReplayEnd: round1(rj.End * scale), ReplayGPUs: rj.GPUs,
			SimStart: round1(so.Start * scale), SimEnd: round1(so.End * scale), SimGPUs: so.GPUs})
	}
	return rs, ss, re, se, rSub, sSub, lag, launch, over
}
