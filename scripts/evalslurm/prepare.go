package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/sim"
)

// Settings are one evaluation's inputs, in real (replay) seconds unless the
// name says otherwise. Scale is trace seconds per real second: at 60 a
// 3,600 s job sleeps 60 s. Every slurmctld interval of the model's defaults
// is divided by Scale and rounded to what slurm.conf can express.
type Settings struct {
	// Label names the configuration in the tables.
	Label   string  `json:"label"`
	Trace   string  `json:"trace"`
	Scaling string  `json:"scaling"`
	Jobs    int     `json:"jobs"`
	Scale   float64 `json:"scale"`
	Cluster string  `json:"cluster"`
	// JobCPUs is how jobs ask for CPUs and memory: "per-gpu" (12 CPUs and
	// 48 GiB per GPU, --cpus-per-gpu/--mem-per-gpu, as the simulator's
	// jobs hold them) or "default" (none: Slurm's one CPU per task). The
	// job-size priority factor counts CPUs, so "default" needs
	// PriorityWeightJobSize 0 for both sides to see the same priorities.
	JobCPUs string `json:"job_cpus"`
	// GPUSpeed is the speed factor Strata's time model gives the cluster's
	// GPU type (= Scale), so that its predictions are the scaled durations.
	GPUSpeed float64 `json:"gpu_speed"`
	// slurmctld: SchedulerParameters (seconds, bf_window in minutes) and
	// priority/multifactor (PriorityCalcPeriod in minutes).
	SchedInterval         int     `json:"sched_interval_s"`
	BFInterval            int     `json:"bf_interval_s"`
	BatchSchedDelay       int     `json:"batch_sched_delay_s"`
	BFResolution          int     `json:"bf_resolution_s"`
	BFWindowMin           int     `json:"bf_window_min"`
	PriorityWeightAge     float64 `json:"priority_weight_age"`
	PriorityWeightJobSize float64 `json:"priority_weight_job_size"`
	PriorityCalcPeriodMin int     `json:"priority_calc_period_min"`
	TimeLimitFactor       float64 `json:"time_limit_factor"`
	// StrataInterval is strata run --interval (seconds, at least 1).
	StrataInterval int `json:"strata_interval_s"`
}

// unscaled are the model's defaults (sim.DefaultSlurmConfig, strata run):
// what the scaled settings stand for.
var unscaled = struct {
	sched, bf, delay, res, window, calc, strata float64
	age, size                                   float64
}{sched: 60, bf: 30, delay: 3, res: 60, window: 24 * 3600, calc: 300, strata: 60, age: 1000, size: 1000}

// newSettings scales the defaults by scale (trace seconds per second).
func newSettings(scale float64) Settings {
	sec := func(v float64, least int) int { return max(least, int(math.Round(v/scale))) }
	return Settings{
		Scale: scale, Cluster: "16x4:scaled", GPUSpeed: scale,
		SchedInterval: sec(unscaled.sched, 1), BFInterval: sec(unscaled.bf, 1),
		BatchSchedDelay: sec(unscaled.delay, 0), BFResolution: sec(unscaled.res, 1),
		BFWindowMin: max(1, int(math.Ceil(unscaled.window/scale/60))),
		// Without slurmdbd, slurmctld ignores PriorityWeightAge ("can only
		// be used with SlurmDBD"): the test cluster has none, so the age
		// factor is 0 on both sides. (With one, the weight scaled by Scale
		// would stand for PriorityMaxAge / Scale.)
		PriorityWeightAge: 0, PriorityWeightJobSize: unscaled.size,
		PriorityCalcPeriodMin: max(1, int(math.Round(unscaled.calc/scale/60))),
		TimeLimitFactor:       2,
		StrataInterval:        sec(unscaled.strata, 1),
	}
}

// slurmConf is SLURM_TEST_CONF_EXTRA for the test bed.
func (s Settings) slurmConf() string {
	return fmt.Sprintf("PriorityWeightAge=%.0f\nPriorityWeightJobSize=%.0f\nPriorityCalcPeriod=%d\n"+
		"SchedulerParameters=sched_interval=%d,bf_interval=%d,batch_sched_delay=%d,bf_resolution=%d,bf_window=%d,"+
		"bf_job_part_count_reserve=1,default_queue_depth=100,bf_max_job_test=500\n",
		s.PriorityWeightAge, s.PriorityWeightJobSize, s.PriorityCalcPeriodMin,
		s.SchedInterval, s.BFInterval, s.BatchSchedDelay, s.BFResolution, s.BFWindowMin)
}

// strataConf is Strata's configuration file: the planner settings the
// simulator gives its policies (node size, the GPU type's speed).
func (s Settings) strataConf(spec sim.ClusterSpec) string {
	return fmt.Sprintf("[planner]\nnode-gpus = %d\n[planner.gpu-speed]\n%s = %g\n", spec.GPUsPerNode, spec.GPUType, s.GPUSpeed)
}

// Job is one trace job as submitted: times in real seconds from the
// replay's start.
type Job struct {
	// Index is the job's position in submission order, from 1: the
	// simulator's job ID and, on a fresh test cluster, Slurm's.
	Index   int     `json:"index"`
	TraceID string  `json:"trace_id"`
	Name    string  `json:"name"`
	User    string  `json:"user"`
	Submit  float64 `json:"submit_s"`
	Nodes   int     `json:"nodes"`
	// GPUsPerNode, or (when the request does not divide over its nodes)
	// GPUsPerJob.
	GPUsPerNode int    `json:"gpus_per_node,omitempty"`
	GPUsPerJob  int    `json:"gpus_per_job,omitempty"`
	GPUs        int    `json:"gpus"`
	LimitMin    int    `json:"time_limit_min"`
	Comment     string `json:"comment"`
	// Durations[g-1] is the run time in seconds on g GPUs (the
	// simulator's truth, scaled), g = 1..max(GPUs, the hint's maximum).
	Durations []float64 `json:"durations_s"`
}

func cmdPrepare(args []string) error {
	fs := flag.NewFlagSet("prepare", flag.ContinueOnError)
	trace := fs.String("trace", "sim/testdata/pollux_workload1.csv", "trace CSV")
	scaling := fs.String("scaling", "sim/testdata/pollux_scaling.csv", "scaling curves CSV")
	n := fs.Int("jobs", 100, "replay the first N jobs of the trace (0 = all)")
	scale := fs.Float64("scale", 60, "trace seconds per real second")
	dir := fs.String("dir", "", "output directory")
	jobCPUs := fs.String("job-cpus", "per-gpu", "how jobs ask for CPUs: per-gpu (12 CPUs, 48 GiB per GPU) or default (none)")
	sizeWeight := fs.Float64("job-size-weight", 1000, "PriorityWeightJobSize (both sides)")
	label := fs.String("label", "", "name of this configuration in the tables")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *scale < 1 || *n < 0 || *sizeWeight < 0 {
		return errors.New("need -dir, -scale ≥ 1, -jobs ≥ 0 and -job-size-weight ≥ 0")
	}
	switch {
	case *jobCPUs != "per-gpu" && *jobCPUs != "default":
		return fmt.Errorf("-job-cpus %q: want per-gpu or default", *jobCPUs)
	case *jobCPUs == "default" && *sizeWeight > 0:
		return errors.New("-job-cpus default needs -job-size-weight 0: the job-size factor counts the CPUs jobs ask for, which the simulator's jobs hold per GPU")
	}
	s := newSettings(*scale)
	s.Trace, s.Scaling, s.Jobs, s.JobCPUs, s.PriorityWeightJobSize, s.Label = *trace, *scaling, *n, *jobCPUs, *sizeWeight, *label
	jobs, scaled, err := prepareJobs(s)
	if err != nil {
		return err
	}
	s.Jobs = len(jobs)
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	spec, _ := sim.ParseCluster(s.Cluster)
	files := map[string]func() ([]byte, error){
		"settings.json":    func() ([]byte, error) { return json.MarshalIndent(s, "", "  ") },
		"jobs.json":        func() ([]byte, error) { return json.MarshalIndent(jobs, "", "  ") },
		"trace-scaled.csv": func() ([]byte, error) { return scaledCSV(scaled) },
		"slurm.conf.extra": func() ([]byte, error) { return []byte(s.slurmConf()), nil },
		"strata.toml":      func() ([]byte, error) { return []byte(s.strataConf(spec)), nil },
	}
	for name, f := range files {
		b, err := f()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(*dir, name), b, 0o644); err != nil {
			return err
		}
	}
	last := jobs[len(jobs)-1].Submit
	logf("prepared %d jobs of %s at scale 1/%g (submissions over %.0f s) in %s", len(jobs), *trace, *scale, last, *dir)
	return nil
}

// loadInputs reads the trace (first s.Jobs jobs) and the scaling curves.
func loadInputs(s Settings) (*sim.Trace, sim.Truth, error) {
	f, err := os.Open(s.Trace)
	if err != nil {
		return nil, sim.Truth{}, err
	}
	defer f.Close()
	tr, err := sim.ReadTrace(f, sim.ReadOptions{})
	if err != nil {
		return nil, sim.Truth{}, fmt.Errorf("%s: %w", s.Trace, err)
	}
	if s.Jobs > 0 && s.Jobs < len(tr.Jobs) {
		tr.Jobs = tr.Jobs[:s.Jobs]
	}
	g, err := os.Open(s.Scaling)
	if err != nil {
		return nil, sim.Truth{}, err
	}
	defer g.Close()
	sc, err := sim.ReadScaling(g)
	if err != nil {
		return nil, sim.Truth{}, fmt.Errorf("%s: %w", s.Scaling, err)
	}
	return tr, sim.Truth{Scaling: sc}, nil
}

// prepareJobs turns the trace's first jobs into scaled submissions and the
// scaled trace the simulator reads: submit times and durations divided by
// Scale, time limits of TimeLimitFactor × the scaled duration in whole
// minutes (at least one), as sbatch --time sets them.
func prepareJobs(s Settings) ([]Job, []sim.TraceJob, error) {
	tr, truth, err := loadInputs(s)
	if err != nil {
		return nil, nil, err
	}
	spec, err := sim.ParseCluster(s.Cluster)
	if err != nil {
		return nil, nil, err
	}
	users := []string{"alice", "bob"}
	var jobs []Job
	var scaled []sim.TraceJob
	for k := range tr.Jobs {
		tj := tr.Jobs[k]
		if tj.GPUs > spec.TotalGPUs() {
			continue // the simulator drops it too
		}
		nodes := tj.Nodes
		if nodes <= 0 {
			nodes = (tj.GPUs + spec.GPUsPerNode - 1) / spec.GPUsPerNode
		}
		nodes = max(1, nodes)
		comment := sim.HintRange{}.Comment(truth, &tj, spec.TotalGPUs())
		gmax := tj.GPUs
		if _, hi, ok := hintRange(comment); ok {
			gmax = max(gmax, hi)
		}
		d := tj.Duration / s.Scale
		limitMin := max(1, int(math.Ceil(d*s.TimeLimitFactor/60-1e-9)))
		j := Job{Index: len(jobs) + 1, TraceID: tj.ID, Name: tj.Name, User: users[len(jobs)%2],
			Submit: tj.Submit / s.Scale, Nodes: nodes, GPUs: tj.GPUs, LimitMin: limitMin, Comment: comment}
		if j.Name == "" {
			j.Name = "job-" + tj.ID
		}
		if tj.GPUs%nodes == 0 && tj.GPUs/nodes <= spec.GPUsPerNode {
			j.GPUsPerNode = tj.GPUs / nodes
		} else {
			j.GPUsPerJob = tj.GPUs
		}
		for g := 1; g <= gmax; g++ {
			dg, _ := truth.Duration(&tj, g)
			j.Durations = append(j.Durations, round3(dg/s.Scale))
		}
		jobs = append(jobs, j)
		st := tj
		st.Submit, st.Duration, st.TimeLimit, st.User, st.Name = j.Submit, d, float64(60*limitMin), j.User, j.Name
		st.Published = nil
		scaled = append(scaled, st)
	}
	if len(jobs) == 0 {
		return nil, nil, errors.New("no job to replay")
	}
	return jobs, scaled, nil
}

// hintRange reads gpus=LO-HI from a strata hint.
func hintRange(comment string) (lo, hi int, ok bool) {
	for _, f := range strings.Fields(comment) {
		if v, found := strings.CutPrefix(f, "gpus="); found {
			a, b, dash := strings.Cut(v, "-")
			x, err1 := strconv.Atoi(a)
			y, err2 := strconv.Atoi(b)
			if dash && err1 == nil && err2 == nil {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// scaledCSV writes the scaled trace in the simulator's format.
func scaledCSV(jobs []sim.TraceJob) ([]byte, error) {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"job_id", "name", "user", "submit_time", "duration_s", "gpus", "nodes", "model", "batch_size", "iterations", "time_limit_s"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, j := range jobs {
		_ = w.Write([]string{j.ID, j.Name, j.User, f(j.Submit), f(j.Duration), strconv.Itoa(j.GPUs), strconv.Itoa(j.Nodes),
			j.Model, strconv.Itoa(j.BatchSize), strconv.FormatInt(j.Iterations, 10), f(j.TimeLimit)})
	}
	w.Flush()
	return []byte(b.String()), w.Error()
}

// readJSON loads DIR/name into v.
func readJSON(dir, name string, v any) error {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("%w (run evalslurm prepare first)", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
