#!/usr/bin/env bash
# bench-sim.sh -- the simulator at site scale (docs/evaluation.md § Scale,
# "The simulator"): sim's benchmarks on synthetic traces resampled
# from the Alibaba and ITP fixtures (synthTrace: 0.9 offered load) on 1,024
# GPUs (128 nodes × 8), one process per run so that each run's peak RSS is
# its own. Prints one JSON object per run:
#   {"case", "jobs", "run", "sim_s" (the benchmark's time per run, trace
#    synthesis excluded), "plan_s" (inside Policy.Plan), "plans",
#    "avg_jct_s", "cpu_s" (user + system CPU seconds of the process, GC
#    included: steadier than sim_s on a loaded machine), "peak_rss_mib",
#    "load" (1-minute load average at the
#    start), "commit"}
#
# Cases: ideal-smd (Strata starts jobs itself; BenchmarkSimulate100k is the
# issue's figure), slurm-smd (Slurm mode: slurmctld's main scheduler and
# EASY backfill, Strata's cycle every 60 s) and slurm-alone (Slurm mode, no
# Strata).
#
# Environment: BENCH_SIM_SIZES (default "10k 30k 100k"), BENCH_SIM_CASES
#   (default "ideal-smd slurm-smd slurm-alone"), BENCH_SIM_RUNS (runs per
#   case and size, default 1), BENCH_SIM_TEST (a test binary of sim
#   to run instead of building one: A/B comparisons), GOGC as for any Go
#   program.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.."
SIZES=${BENCH_SIM_SIZES:-10k 30k 100k}
CASES=${BENCH_SIM_CASES:-ideal-smd slurm-smd slurm-alone}
RUNS=${BENCH_SIM_RUNS:-1}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
BIN=${BENCH_SIM_TEST:-}
if [[ -z "$BIN" ]]; then
	BIN=$OUT/sim.test
	go test -c -o "$BIN" ./sim
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)

bench_name() { # case size -> benchmark function
	case "$1" in
	ideal-smd) if [[ $2 == 100k ]]; then echo Simulate100k; else echo "Simulate$2SMD"; fi ;;
	slurm-smd) echo "SimulateSlurm$2SMD" ;;
	slurm-alone) echo "SimulateSlurm$2Alone" ;;
	*) echo "bench-sim: unknown case $1" >&2; exit 2 ;;
	esac
}

for size in $SIZES; do
	jobs=$((${size%k} * 1000))
	for c in $CASES; do
		name=$(bench_name "$c" "$size")
		for run in $(seq 1 "$RUNS"); do
			load=$(cut -d' ' -f1 /proc/loadavg)
			(cd sim && /usr/bin/time -f '%M %U %S' -o "$OUT/rss" "$BIN" -test.run '^$' \
				-test.bench "^Benchmark$name\$" -test.benchtime 1x) >"$OUT/log" 2>&1 || {
				cat "$OUT/log" >&2
				exit 1
			}
			line=$(grep "^Benchmark$name-" "$OUT/log")
			awk -v c="$c" -v jobs="$jobs" -v run="$run" -v load="$load" -v commit="$COMMIT" \
				-v rss="$(tail -1 "$OUT/rss")" '{
				split(rss, r, " ")
				ns = $3; plan = 0; plans = 0; jct = 0
				for (i = 4; i < NF; i++) {
					if ($(i+1) == "plan-s/op") plan = $i
					if ($(i+1) == "plans/op") plans = $i
					if ($(i+1) == "avg-jct-s") jct = $i
				}
				printf "{\"case\":\"%s\",\"jobs\":%d,\"run\":%d,\"sim_s\":%.1f,\"plan_s\":%.1f,\"plans\":%d,\"avg_jct_s\":%d,\"cpu_s\":%.1f,\"peak_rss_mib\":%d,\"load\":%s,\"commit\":\"%s\"}\n",
					c, jobs, run, ns / 1e9, plan, plans, jct, r[2] + r[3], r[1] / 1024, load, commit
			}' <<<"$line"
		done
	done
done
