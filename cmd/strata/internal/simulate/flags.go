package simulate

import (
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/sim"
)

// Flags are the flags of `strata simulate` (Options names them in its
// error messages).
func Flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "trace", Usage: "trace CSV (job_id,submit_time,duration_s,gpus[,model,batch_size,nodes,...])"},
		&cli.StringFlag{Name: "scaling", Usage: "scaling curves CSV (model,batch_size,gpus,duration_s), e.g. pollux_scaling.csv"},
		&cli.StringFlag{Name: "cluster", Usage: "simulated cluster " + sim.ClusterSyntax + ", e.g. 16x4:t4 or 16x4:t4,mem=192G,bb=2T,bbbw=1G/s"},
		&cli.StringFlag{Name: "policy", Usage: "comma-separated policies, or all: slurm (Slurm alone), " + strings.Join(planner.PolicyNames(), ", ")},
		&cli.StringFlag{Name: "scheduler", Value: sim.SchedulerSlurm, Usage: "who starts jobs: slurm (a slurmctld model, from what Strata wrote) or ideal (Strata itself)"},
		&cli.StringFlag{Name: "slurm-backfill", Value: "easy", Usage: "Slurm mode: backfill reservations, easy (the first blocked job) or conservative (every blocked job)"},
		&cli.Float64Flag{Name: "time-limit-factor", Value: 2, Usage: "Slurm mode: a job's time limit is duration × this (whole minutes) when the trace has no time_limit_s"},
		&cli.Float64Flag{Name: "priority-weight-age", Value: 1000, Usage: "Slurm mode: PriorityWeightAge"},
		&cli.Float64Flag{Name: "priority-weight-job-size", Value: 1000, Usage: "Slurm mode: PriorityWeightJobSize"},
		&cli.Float64Flag{Name: "priority-weight-fairshare", Usage: "Slurm mode: PriorityWeightFairshare (fairshare over equal shares, usage from the run; 0 = off)"},
		&cli.IntFlag{Name: "accounts", Usage: "Slurm mode: fairshare accounts of equal shares the users are dealt to in turn (0: every user an account of its own)"},
		&cli.StringFlag{Name: "partition-priority", Usage: "Slurm mode: partitions' PriorityTier and PriorityJobFactor as `LIST` of NAME=TIER[/JOBFACTOR], comma-separated (jobs of a higher tier are queued first)"},
		&cli.Float64Flag{Name: "priority-weight-partition", Usage: "Slurm mode: PriorityWeightPartition, for the --partition-priority job factors"},
		&cli.BoolFlag{Name: "fair-tree", Usage: "Slurm mode: the fair tree fairshare algorithm (Slurm's default) instead of classic"},
		&cli.Float64Flag{Name: "priority-weight-qos", Usage: "Slurm mode: PriorityWeightQOS, for the jobs of the --qos-high users"},
		&cli.DurationFlag{Name: "fairshare-half-life", Value: 7 * 24 * time.Hour, Usage: "Slurm mode: PriorityDecayHalfLife of the fairshare usage"},
		&cli.Float64Flag{Name: "qos-high", Usage: "Slurm mode: `FRACTION` of the users (drawn with --knowledge-seed) whose jobs run in QOS high"},
		&cli.Float64Flag{Name: "never-hint", Usage: "`FRACTION` of the users (drawn with --knowledge-seed) never write a hint: their jobs are timed from history"},
		&cli.DurationFlag{Name: "sched-interval", Value: 60 * time.Second, Usage: "Slurm mode: sched_interval (full main-scheduler pass)"},
		&cli.DurationFlag{Name: "bf-interval", Value: 30 * time.Second, Usage: "Slurm mode: bf_interval (backfill cycle)"},
		&cli.DurationFlag{Name: "batch-sched-delay", Value: 3 * time.Second, Usage: "Slurm mode: batch_sched_delay (least time between event-triggered passes)"},
		&cli.DurationFlag{Name: "interval", Value: 60 * time.Second, Usage: "scheduling interval"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object instead of a table"},
		&cli.BoolFlag{Name: "jobs", Usage: "with --json: add every job's row per policy (id, submit, start, end, JCT, GPUs asked and at start, restarts, state)"},
		&cli.StringFlag{Name: "plot", Usage: "write JCT CDF, GPU utilization and queue-length plots (SVG) into `DIR`"},
		&cli.BoolFlag{Name: "skip-bad", Usage: "drop malformed trace rows (and report how many) instead of failing"},
		&cli.DurationFlag{Name: "restart-penalty", Value: 30 * time.Second, Usage: "time a preempted or resized job needs to restart"},
		&cli.StringFlag{Name: "predictor", Value: "oracle", Usage: "how policies time jobs without a model hint: oracle (the true durations) or history (Helios' estimator, learning online from the jobs that completed earlier in the run, as the daemon learns from Postgres)"},
		&cli.BoolFlag{Name: "calibrate", Value: true, Usage: "give every policy the calibration fitted online from the modelled jobs finished so far in the run, as strata run fits it from Postgres by default (--calibrate=false: the catalog alone); the report gives the model's error with and without"},
		&cli.Float64Flag{Name: "speed-error", Value: 1, Usage: "what-if: each model's true run times are SPREAD^u times the trace's (u uniform in [-1,1] per model, --speed-error-seed), unknown to the planner's time model (1 = none)"},
		&cli.Float64Flag{Name: "speed-noise", Usage: "what-if: each modelled job's true run time is also multiplied by exp(SIGMA·z), z standard normal per job (0 = none)"},
		&cli.Uint64Flag{Name: "speed-error-seed", Value: 1, Usage: "seed of --speed-error's factors and --speed-noise"},
		&cli.IntFlag{Name: "users", Usage: "give jobs without a user one of `N` users: the k-th job in submission order (from 0) is user k mod N + 1 (u01 … uN); 0 = as the trace says"},
		&cli.StringFlag{Name: "dishonest", Usage: "`FRACTION:FACTOR`: that fraction of the users (drawn with --knowledge-seed) understate the work in every hint FACTOR-fold; FACTOR 1 marks the same users honest (the run to compare with); the report splits honest and dishonest users' JCT"},
		&cli.StringFlag{Name: "knowledge", Value: "oracle", Usage: "what users write: oracle (hints state the true work, time limits 2 × the run time) or realistic (hints err as published time models do, a share of jobs without a hint timed from history, time limits over-asked as users do; docs/evaluation.md)"},
		&cli.Uint64Flag{Name: "knowledge-seed", Value: 1, Usage: "seed of --dishonest's users and --knowledge realistic's draws"},
		&cli.Float64Flag{Name: "claim-margin", Usage: "Slurm mode: bind claims: lower a pending job's time limit to `M` × its hint's prediction when far below it ([planner] bind-claims; 0 = the site's setting)"},
		&cli.BoolFlag{Name: "no-trust", Usage: "what-if, Slurm mode: Strata's cycle gets no user records (predictions never corrected by a user's own record)"},
		&cli.BoolFlag{Name: "preemptible", Usage: "opt every trace job in to preemption (preempt=yes in its hint, requeueable): policies may stop and restart them (Slurm mode: signal, checkpoint, requeue, restart)"},
		&cli.BoolFlag{Name: "truth-model", Usage: "what-if: jobs without a scaling curve whose model/batch_size/iterations the catalog knows scale by the planner's time model (default: fixed size)"},
		&cli.Float64Flag{Name: "ps-share", Usage: "what-if, Slurm mode: make this `FRACTION` of the trace's jobs parameter-server jobs of the catalog's models (ps=auto; docs/evaluation.md § Parameter servers)"},
		&cli.StringFlag{Name: "ps-choice", Value: "auto", Usage: "with --ps-share: how policies choose P for ps=auto: auto (the planner), w (P = W) or 1 (P = 1)"},
		&cli.Uint64Flag{Name: "ps-seed", Value: 1, Usage: "seed of --ps-share's draw of jobs and models"},
		&cli.Float64Flag{Name: "gpu-range", Value: 1, Usage: "simulated users allow gpus=1-ceil(F x request) for jobs with a scaling curve"},
		&cli.Float64Flag{Name: "tiresias-threshold", Value: 16, Usage: "tiresias queue threshold in GPU-hours (16 as in the Pollux artifact; 0 = the policy's default)"},
		&cli.StringSliceFlag{Name: "power", Usage: "GPU power model override TYPE=IDLE_W:BUSY_W (repeatable)"},
		&cli.StringFlag{Name: "burst-buffer", Usage: "capacity of a shared burst-buffer pool, e.g. 100T (the same as bb= in --cluster)"},
		&cli.StringFlag{Name: "synth-bb", Usage: "give every job of a known model burst-buffer data and host memory by the documented rule with seed `SEED` (docs/evaluation.md § Burst buffers that bind)"},
		&cli.StringFlag{Name: "synth-bb-catalog", Value: "auto", Usage: "datasets for --synth-bb: pollux, elasticflow (the ITP traces), gavel (Shockwave's trace), or auto (the one that knows the trace's models)"},
		&cli.StringFlag{Name: "synth-deadlines", Usage: "give every job a deadline and a tardiness weight by ANDREAS' rule with seed `SEED`: deadline = submit + U(t_min, 3 t_min), t_min its fastest run time; weight 2 U(0.0015, 0.0075) per second late (written into its hint as deadline= and weight=); the report adds the cost terms (docs/evaluation.md § Energy and deadlines)"},
		&cli.Float64Flag{Name: "energy-price", Usage: "price of a kWh for the cost terms (0: 0.20 when the trace has deadlines); with deadlines or a price, policies get tardiness-weight 1 and energy-weight price/0.009 unless [planner] sets them"},
		&cli.StringFlag{Name: "write-trace", Usage: "write the trace as simulated (after --synth-bb) to `FILE`; without --policy, only that"},
		&cli.BoolFlag{Name: "hide-burst-buffer", Usage: "what-if: the policies do not see the burst-buffer pool (Slurm still enforces it)"},
		&cli.BoolFlag{Name: "skip-unchanged", Usage: "plan fifo/smd/... only when the cluster changed (faster on large traces; exact for policies without aging)"},
		&cli.IntFlag{Name: "parallel", Value: min(2, runtime.GOMAXPROCS(0)), Usage: "policies simulated at once"},
		&cli.StringFlag{Name: "label", Usage: "name of the run in --markdown tables (default: the trace's file name)"},
		&cli.BoolFlag{Name: "whatif", Usage: "with --markdown: one row per policy run (variants of one workload)"},
		&cli.BoolFlag{Name: "honesty", Usage: "with --markdown: the dishonest-users table (per trace: the all-honest report first, then the runs to compare with it)"},
		&cli.BoolFlag{Name: "markdown", Usage: "instead of simulating, write Markdown comparison tables from the --json reports given as arguments (as docs/evaluation.md is made)"},
	}
}
